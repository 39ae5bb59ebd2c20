"""A new game through its kit alone: docs/architecture.md's recipe followed for a toy game, in a copy
of the repository, with exactly one shared line changed.

The toy is pig (roll or hold, first to 30: ``tests/games/pig/``, its files laid out where the recipe
puts them). The test copies the tracked tree into a temporary folder, writes pig's files there, adds
its one ``register_module`` line to ``kits/__init__.py``, checks that nothing else of the copy
changed, and then, in subprocesses run from the copy: the registry tests, the random playouts of pig,
its command lines, a whole match against the computer in the sandbox and a whole match between two
members through the fake Discord. Pig leaves out every optional part (palette, levels, coach, rules
sheets); its own invariants for the playouts are one more file of its own.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "games" / "pig"
"""Pig's files, each at the path the recipe gives it (``engine/pig.py`` ...)."""
GAME = "pig"
REGISTRY = Path("kits") / "__init__.py"
REGISTER = f'KITS.register_module("kits.{GAME}")'
TIMEOUT = 240


def tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
    ).stdout.decode()
    return [Path(name) for name in listed.split("\0") if name and (ROOT / name).is_file()]


def copy_repository(files: list[Path], copy: Path) -> None:
    for relative in files:
        (copy / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, copy / relative)


def game_files() -> list[Path]:
    """Pig's files (not the ``ruff.toml`` beside them, which lints them here as they are linted in
    place, nor any cache)."""
    return sorted(
        p
        for p in TOY.rglob("*")
        if p.is_file()
        and p.parent != TOY
        and not any(part.startswith(".") or part == "__pycache__" for part in p.relative_to(TOY).parts)
    )


def add_the_game(copy: Path) -> None:
    """The recipe's steps, done as a newcomer would: the game's own files, then one register line."""
    for source in game_files():
        target = copy / source.relative_to(TOY)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    registry = copy / REGISTRY
    lines = registry.read_text(encoding="utf-8").splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.startswith("KITS.register_module("))
    lines.insert(last + 1, REGISTER + "\n")
    registry.write_text("".join(lines), encoding="utf-8")


def own_file(relative: Path) -> bool:
    """Whether a file belongs to the game alone (the rule ``tests/test_registries.py`` applies)."""
    return GAME in relative.parts[:-1] or relative.stem == GAME or relative.stem.startswith(f"{GAME}_")


def run(copy: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, *args], cwd=copy, env=env, capture_output=True, text=True, timeout=TIMEOUT
    )
    assert done.returncode == 0, (
        f"{' '.join(args)} failed in the copy:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
    )
    return done.stdout


SANDBOX_MATCH = """
import asyncio, sys
from pathlib import Path
from sandbox import Sandbox

async def main() -> None:
    lines: list[str] = []
    async with Sandbox.open(seed=5, pictures=Path(sys.argv[1]), out=lines.append) as sandbox:
        failed = await sandbox.run_lines(["as alice /challenge opponent:@ringside game:pig"])
        for _ in range(300):
            if failed or any("\\N{TROPHY}" in line for line in lines):
                break
            failed += await sandbox.run_lines(["as alice click Hold"])
    print("\\n".join(lines))
    assert failed == 0, "a sandbox line failed"
    assert any("\\N{TROPHY}" in line for line in lines), "the match did not end"
    assert list(Path(sys.argv[1]).glob("*.png")), "no board picture"

asyncio.run(main())
"""

FAKE_DISCORD_MATCH = """
import asyncio, random, sys
from pathlib import Path
from fakediscord import FakeDiscord
from fakediscord.matches import challenge_and_accept, play_until_over
from tests.support import start_bot, stop_bot

async def main() -> None:
    async with FakeDiscord() as fake:
        bot = await start_bot(fake, Path(sys.argv[1]))
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        board = await challenge_and_accept(fake, alice, bob, "pig")
        users = {alice.id: alice, bob.id: bob}
        result = await play_until_over(fake, board.channel_id, users, random.Random(4))
        assert result.content.startswith("\\N{TROPHY}"), result.content
        (record,) = [r for r in await bot.store.matches.recent(alice.id, 5) if r.game == "pig"]
        assert record.status != "active"
        print(result.content)
        await stop_bot(bot)

asyncio.run(main())
"""


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs a git checkout to copy its tracked files")
def test_a_new_game_by_the_recipe_changes_one_shared_line(tmp_path: Path) -> None:
    copy = tmp_path / "repository"
    files = tracked_files()
    copy_repository(files, copy)
    add_the_game(copy)

    # The diff: the game's own new files, and one line of kits/__init__.py.
    tracked = set(files)
    written = sorted(p.relative_to(copy) for p in copy.rglob("*") if p.is_file())
    added = [p for p in written if p not in tracked]
    changed = [p for p in written if p in tracked and (copy / p).read_bytes() != (ROOT / p).read_bytes()]
    assert changed == [REGISTRY]
    before = (ROOT / REGISTRY).read_text(encoding="utf-8").splitlines()
    after = (copy / REGISTRY).read_text(encoding="utf-8").splitlines()
    diff = [line for line in difflib.ndiff(before, after) if line[:1] in "+-"]
    assert diff == [f"+ {REGISTER}"]
    assert added and all(own_file(p) for p in added), (
        f"files not the game's own: {[p for p in added if not own_file(p)]}"
    )
    assert {
        Path("kits/pig.py"),
        Path("engine/pig.py"),
        Path("render/pig.py"),
        Path("cogs/panels/pig.py"),
    } <= set(added)

    # The game's files pass the project's lint and type checks where they are.
    sources = [str(p) for p in added if p.suffix == ".py"]
    run(copy, "-m", "ruff", "check", "--no-cache", *sources)
    run(copy, "-m", "ruff", "format", "--no-cache", "--check", *sources)
    run(copy, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy"), *sources)

    # The registry's checks (every table, the recipe's fields, shared code naming no game) and pig's
    # random playouts, with its invariants.
    run(
        copy,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_registries.py",
        "tests/engine/test_playouts.py::test_every_playout_module_is_a_registered_game",
        f"tests/engine/test_playouts.py::test_a_few_random_playouts[{GAME}]",
    )
    # Its command lines: self-play in the engine, a sample picture.
    assert '"games": 5' in run(
        copy, "-m", "engine", "selfplay", "--game", GAME, "--games", "5", "--seed", "2"
    )
    pictures = tmp_path / "samples"
    run(copy, "-m", "render", "sample", "--game", GAME, "--out", str(pictures), "--only", "start")
    assert (pictures / f"{GAME}-start.png").read_bytes().startswith(b"\x89PNG")

    # A whole match against the computer in the sandbox, clicking Hold whenever asked.
    script = tmp_path / "sandbox_match.py"
    script.write_text(textwrap.dedent(SANDBOX_MATCH), encoding="utf-8")
    shown = run(copy, str(script), str(tmp_path / "pictures"))
    assert "Pig" in shown

    # A whole match between two members through the fake Discord, random clicks to the end.
    script = tmp_path / "fake_discord_match.py"
    script.write_text(textwrap.dedent(FAKE_DISCORD_MATCH), encoding="utf-8")
    assert "wins" in run(copy, str(script), str(tmp_path / "db.sqlite3"))
