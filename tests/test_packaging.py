"""The built wheel carries every file the installed bot reads at run time (a normal install, not -e)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from types import SimpleNamespace

import pytest

import bot.store.connection
from bot.store import Store, StoreError
from cogs.help import RULES_DIR

ROOT = Path(__file__).resolve().parents[1]


def _packages() -> list[str]:
    """The top-level packages pyproject.toml ships (``include = ["engine*", ...]``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted(pattern.rstrip("*") for pattern in include)


def _tracked() -> list[str]:
    """Every file git tracks in the checkout, as repository paths."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed: cannot list the checkout's files")
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"not a git checkout: {done.stderr.decode(errors='replace').strip()}")
    return [name for name in done.stdout.decode().split("\0") if name and (ROOT / name).is_file()]


def _data_files(directory: Traversable, prefix: str) -> set[str]:
    """The non-Python files the code reads from ``directory``, as wheel paths under ``prefix``."""
    return {
        f"{prefix}/{entry.name}"
        for entry in directory.iterdir()
        if entry.is_file() and not entry.name.endswith((".py", ".pyc"))
    }


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    # Build from a copy of the tracked files: that is what a clean clone holds, and a build in place
    # could pick up stale files from an old build/ directory and hide a missing one.
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    for name in _tracked():
        target = source / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    dist = tmp / "dist"
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    done = subprocess.run(
        [*build, "-w", str(dist), "."],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"building the wheel failed:\n{done.stdout}\n{done.stderr}"
    wheels = list(dist.glob("ringside-*.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as archive:
        return set(archive.namelist())


def test_the_wheel_holds_every_tracked_file_of_the_packages(wheel_names: set[str]) -> None:
    packages = _packages()
    wanted = {name for name in _tracked() if name.split("/", 1)[0] in packages}
    # The derivation must see the data files, not only modules, or this test could not fail.
    assert {Path(name).suffix for name in wanted} >= {".py", ".sql", ".md", ".ttf"}
    missing = sorted(wanted - wheel_names)
    assert not missing, f"the wheel lacks {missing}: add them to [tool.setuptools.package-data]"


def test_the_wheel_holds_what_the_code_reads_at_run_time(wheel_names: set[str]) -> None:
    # The directories the code opens through importlib.resources: bot.store (migrations), cogs.help
    # (rules pages), render.theme (fonts).
    read = (
        _data_files(resources.files("bot.migrations"), "bot/migrations")
        | _data_files(RULES_DIR, "cogs/rules")
        | _data_files(resources.files("render") / "fonts", "render/fonts")
    )
    assert any(name.endswith(".sql") for name in read) and any(name.endswith(".md") for name in read)
    missing = sorted(read - wheel_names)
    assert not missing, f"the wheel lacks {missing}: add them to [tool.setuptools.package-data]"


LARGE_FILE = 1_000_000
"""Bytes from which a tracked file must be named by another (a large file nothing uses is a mistake:
a build product or a download committed by a merge, weighing on every clone)."""


def _named_nowhere(large: list[str], tracked: list[str]) -> list[str]:
    """The files of ``large`` whose path or name no other tracked text file mentions (this test's own
    file aside: it names files to check itself)."""
    left = set(large)
    this = Path(__file__).resolve().relative_to(ROOT).as_posix()
    for name in tracked:
        if not left:
            break
        if name == this:
            continue
        data = (ROOT / name).read_bytes()
        if b"\0" in data:
            continue  # binary: names nothing
        text = data.decode("utf-8", errors="replace")
        left -= {big for big in left if big != name and (big in text or Path(big).name in text)}
    return sorted(left)


def test_every_large_tracked_file_is_named_by_another() -> None:
    tracked = _tracked()
    large = [name for name in tracked if (ROOT / name).stat().st_size > LARGE_FILE]
    # What keeps a large file: the code that reads it names it (the vendored OpenAPI description).
    assert _named_nowhere(["fakediscord/discord-api-spec/openapi.json"], tracked) == []
    nothing = "no-such/" + "nothing-" * 3 + ".bin"
    assert _named_nowhere([nothing], tracked) == [nothing]
    unused = _named_nowhere(large, tracked)
    assert not unused, (
        f"tracked files over {LARGE_FILE:,} bytes that no tracked file names: {unused}; "
        "remove them (git rm), or name them where they are used"
    )


@pytest.mark.asyncio
async def test_a_store_without_its_migrations_refuses_to_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What a wheel without package data used to do: open, find no migrations, run with no tables.
    empty = tmp_path / "migrations"
    empty.mkdir()
    monkeypatch.setattr(bot.store.connection, "resources", SimpleNamespace(files=lambda _package: empty))
    with pytest.raises(StoreError, match="no migrations found"):
        await Store.open(tmp_path / "db.sqlite3")
