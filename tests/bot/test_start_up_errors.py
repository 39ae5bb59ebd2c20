"""Start-up errors that name the real problem (issue 21): a full disk is not a damaged database, and
neither is one that another program holds locked.

The full disk is real where the test may mount one (a 1 MiB tmpfs, as root); the classification is
also checked with the errors SQLite itself raises, which needs no mount.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store import GuildSettings, Store, StoreError
from bot.store.disk import disk_of, full_disk_text

REPO = Path(__file__).resolve().parents[2]


def _mount_tmpfs(where: Path, size: str) -> str | None:
    """Mount a tmpfs of ``size`` at ``where``; the reason it cannot be done, or None."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return "mounting a small file system needs root and mount(8)"
    where.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True
    )
    return None if done.returncode == 0 else f"mount refused here: {done.stderr.strip()}"


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 1 MiB file system of its own (unmounted afterwards)."""
    where = tmp_path / "disk"
    reason = _mount_tmpfs(where, "1m")
    if reason is not None:
        pytest.skip(reason)
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def fill(disk: Path) -> None:
    """Write a file until the disk has no room left at all."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        for chunk in (65536, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"x" * chunk)
    finally:
        os.close(fd)
    assert shutil.disk_usage(disk).free == 0


async def _make_database(path: Path) -> None:
    store = await Store.open(path)
    await store.settings.save(GuildSettings(guild_id=1, use_threads=False))
    await store.close()


@pytest.mark.sqlite_only("about the SQLite file on a full disk")
def test_a_full_disk_at_start_up_says_so_and_leaves_the_database_unharmed(small_disk: Path) -> None:
    db = small_disk / "ringside.sqlite3"
    asyncio.run(_make_database(db))
    before = db.read_bytes()
    fill(small_disk)
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE", "DEV_GUILD_ID")}
    env.update(PYTHONPATH=str(REPO), DISCORD_TOKEN="x", DATABASE=str(db))
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=small_disk, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"error: the disk holding the database {db} is full (0 bytes free on {small_disk}")
    assert "tmpfs" in line and "unharmed" in line and "Free some space" in line
    assert "not a usable database" not in line and "move it away" not in line
    # Unharmed indeed: the same bytes, and once there is room again it opens with what it held.
    assert db.read_bytes() == before
    (small_disk / "filler").unlink()

    async def settings_kept() -> bool:
        store = await Store.open(db)
        try:
            return not (await store.settings.get(1)).use_threads
        finally:
            await store.close()

    assert asyncio.run(settings_kept())


def test_sqlites_own_disk_full_error_is_reported_as_a_full_disk(tmp_path: Path) -> None:
    """SQLITE_FULL (here from a page limit, which SQLite reports exactly as a full disk) says full
    whatever room the disk has; an error a full disk does not give says nothing of the kind."""
    db = tmp_path / "capped.sqlite3"
    with contextlib.closing(sqlite3.connect(db)) as connection:
        connection.execute("CREATE TABLE t (x BLOB)")
        connection.execute("PRAGMA max_page_count = 3")
        with pytest.raises(sqlite3.OperationalError) as full:
            connection.execute("INSERT INTO t VALUES (zeroblob(100000))")
    assert full.value.sqlite_errorname == "SQLITE_FULL"
    text = full_disk_text(db, full.value)
    assert text is not None and not disk_of(db).full
    assert (
        text.startswith(f"the disk holding the database {db} is full (") and disk_of(db).mount_point in text
    )
    assert "unharmed" in text

    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database at all" * 200)
    with (
        contextlib.closing(sqlite3.connect(garbage)) as connection,
        pytest.raises(sqlite3.DatabaseError) as bad,
    ):
        connection.execute("SELECT * FROM sqlite_master")
    assert bad.value.sqlite_errorname == "SQLITE_NOTADB"
    assert full_disk_text(garbage, bad.value) is None


@pytest.mark.asyncio
@pytest.mark.sqlite_only("holds SQLite's file lock from another connection")
async def test_a_database_locked_by_another_program_at_start_up_says_so(tmp_path: Path) -> None:
    """A database still to migrate, held by another connection: not "busy, try again" (a player's
    words), not "damaged", but who to stop."""
    db = tmp_path / "db.sqlite3"
    with contextlib.closing(sqlite3.connect(db, isolation_level=None)) as other:
        other.execute("PRAGMA journal_mode=WAL")
        other.execute("CREATE TABLE unrelated (a)")
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreError) as refused:
            await Store.open(db)
        other.execute("ROLLBACK")
    assert str(refused.value).startswith(f"the database {db} is locked by another program")
    assert "start the bot again" in str(refused.value)
