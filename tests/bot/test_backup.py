"""``python -m bot backup FILE`` (``bot.backup``, ``app.cli``): an online copy of a real SQLite file,
made while the bot's store goes on writing, and the one-line refusals."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli import COMMANDS, main
from bot.backup import BackupRefused, backup
from bot.config import database_file, load_settings
from bot.store import Store

pytestmark = pytest.mark.sqlite_only("backup copies the SQLite file; PostgreSQL is backed up with pg_dump")

REPO = Path(__file__).resolve().parents[2]


async def _new_match(store: Store, number: int) -> int:
    made = await store.matches.create(
        guild_id=1, channel_id=10, parent_id=None, game="ring", options={}, players=(number, 10_000 + number),
        state="{" + '"pad": "' + "x" * 2000 + '"}', actions=[], rated=False, now=float(number),
    )  # fmt: skip
    return made.id


@pytest.mark.asyncio
async def test_a_backup_made_while_the_store_writes_holds_every_committed_match(tmp_path: Path) -> None:
    db, copy = tmp_path / "ringside.sqlite3", tmp_path / "copy.sqlite3"
    store = await Store.open(db)
    for n in range(1, 41):
        await _new_match(store, n)
    committed = [40]  # matches committed so far, counted by the writer
    stop = asyncio.Event()

    async def writer() -> None:
        n = 40
        while not stop.is_set():
            n += 1
            await _new_match(store, n)
            committed[0] = n

    steps: list[tuple[int, int, int]] = []

    def step(remaining: int, total: int) -> None:
        # Each step waits for the writer to commit again: the copy is made across real writes.
        seen = committed[0]
        deadline = time.monotonic() + 5
        while committed[0] == seen and time.monotonic() < deadline:
            time.sleep(0.001)
        steps.append((remaining, total, committed[0]))

    writing = asyncio.create_task(writer())
    await asyncio.sleep(0.05)
    before = committed[0]
    report = await asyncio.to_thread(backup, db, copy, pages=8, pause=0.002, step=step)
    stop.set()
    await writing

    assert len(steps) > 5 and steps[-1][2] > steps[0][2] > before, "the store wrote during the copy"
    assert {total for _, total, _ in steps} == {steps[0][1]}, "the copy was never restarted"
    # One consistent snapshot: at least what was committed when it began, every match whole, no gap.
    with contextlib.closing(sqlite3.connect(copy)) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert check.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        ids = [row[0] for row in check.execute("SELECT id FROM matches ORDER BY id")]
        assert ids == list(range(1, len(ids) + 1)) and len(ids) >= before
        assert all(len(state) > 2000 for (state,) in check.execute("SELECT state FROM matches"))
    assert report.matches == len(ids) and report.size == copy.stat().st_size
    assert not Path(f"{copy}-wal").exists()
    assert (
        report.line().startswith(f"backed up to {copy}: ")
        and f", {len(ids)} matches, integrity ok" in report.line()
    )
    # The bot opens the copy as it is: a restore is a file copy.
    restored = await Store.open(copy)
    assert len(await restored.matches.active()) == len(ids)
    await restored.close()
    await store.close()


def test_a_backup_never_overwrites_nor_creates_folders_nor_an_empty_source(tmp_path: Path) -> None:
    source, target = tmp_path / "db.sqlite3", tmp_path / "copy.sqlite3"
    with pytest.raises(BackupRefused, match="does not exist"):
        backup(source, target)
    assert not source.exists() and not target.exists()
    with contextlib.closing(sqlite3.connect(source)) as db:
        db.execute("CREATE TABLE matches (id INTEGER PRIMARY KEY)")
    target.write_bytes(b"keep me")
    with pytest.raises(BackupRefused, match="already exists"):
        backup(source, target)
    assert target.read_bytes() == b"keep me"
    with pytest.raises(BackupRefused, match=r"the folder .*missing does not exist"):
        backup(source, tmp_path / "missing" / "copy.sqlite3")


def _cli(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE", "DATABASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env={**clean, "PYTHONPATH": str(REPO), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.asyncio
async def test_python_m_bot_backup_copies_the_database_named_in_dot_env(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "games.sqlite3")
    for n in range(1, 4):
        await _new_match(store, n)
    (tmp_path / ".env").write_text("DATABASE=games.sqlite3\n")
    (tmp_path / "backups").mkdir()
    # The bot keeps its connection open (WAL mode) while the backup runs, in another process.
    done = await asyncio.to_thread(_cli, tmp_path, "backup", "backups/monday.sqlite3")
    await store.close()
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    [line] = done.stdout.strip().splitlines()
    assert line.startswith("backed up to backups/monday.sqlite3: ") and line.endswith(
        ", 3 matches, integrity ok"
    )
    assert " KiB" in line


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("target exists", "already exists; a backup never overwrites"),
        ("no folder", "does not exist; create it first"),
        ("no source", "the database nothing.sqlite3 does not exist"),
        ("postgres", "DATABASE_URL is set: the bot keeps its data in PostgreSQL; back it up with pg_dump"),
    ],
)
def test_the_backup_command_refuses_in_one_line_with_exit_code_2(
    case: str,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("DATABASE", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with contextlib.closing(sqlite3.connect(tmp_path / "db.sqlite3")) as db:
        db.execute("CREATE TABLE matches (id INTEGER PRIMARY KEY)")
    monkeypatch.setenv("DATABASE", "db.sqlite3")
    target = "copy.sqlite3"
    if case == "target exists":
        (tmp_path / target).write_text("old")
    elif case == "no folder":
        target = "missing/copy.sqlite3"
    elif case == "no source":
        monkeypatch.setenv("DATABASE", "nothing.sqlite3")
    else:
        monkeypatch.setenv("DATABASE_URL", "postgresql://localhost/ringside")
    assert main(["backup", target], run_bot=lambda: 99) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("error: ") and expected in err
    assert case == "target exists" or not (tmp_path / target).exists()


def test_no_command_runs_the_bot_and_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([], run_bot=lambda: 7) == 7
    with pytest.raises(SystemExit) as exited:
        main(["--help"], run_bot=lambda: 7)
    assert exited.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith("usage: python -m bot") and all(name in shown for name in COMMANDS)


def test_the_backup_reads_database_as_the_bot_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE", "")  # so that the value .env puts in is taken out afterwards
    monkeypatch.delenv("DATABASE")
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    assert database_file() == load_settings().database == Path("ringside.sqlite3")
    (tmp_path / ".env").write_text("DATABASE=~/games.sqlite3\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert database_file() == load_settings().database == tmp_path / "games.sqlite3"
