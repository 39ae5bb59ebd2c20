"""``python -m bot backup FILE``: an online copy of the SQLite database, safe while the bot runs.

The copy is made with SQLite's backup API (``sqlite3.Connection.backup``) a few pages at a time with a
short pause between steps, so the disk is not hogged. It is read inside one read transaction of its
own: in the write-ahead log (WAL) mode the bot runs in, a reader never blocks the writer and sees one
snapshot from start to end, so the bot keeps saving while the copy is made, the copy holds exactly
what was committed when it began, and it is never restarted by the bot's writes (SQLite restarts a
backup whose source changed between two steps outside a transaction).

The copy is then switched to a rollback journal (one self-contained file, no ``-wal`` beside it),
checked with ``PRAGMA integrity_check`` and described in one line: its size and how many matches it
holds. Nothing here imports discord; ``app.cli`` runs it.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PAGES_PER_STEP = 256
"""Pages copied per step (1 MiB at SQLite's default page size of 4 KiB)."""
STEP_PAUSE = 0.01
"""Seconds slept between two steps."""


class BackupRefused(Exception):
    """The backup was not started (the target exists, a folder or the source is missing); one line."""


class BackupFailed(Exception):
    """The copy was made but cannot be trusted, or could not be made; one line. No file is left."""


@dataclass(frozen=True, slots=True)
class BackupReport:
    target: Path
    size: int
    """Bytes of the copy."""
    matches: int
    """Matches in the copy, finished or not."""

    def line(self) -> str:
        return (
            f"backed up to {self.target}: {_size_text(self.size)}, {self.matches} "
            f"{'match' if self.matches == 1 else 'matches'}, integrity ok"
        )


def _size_text(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


def check_paths(source: Path, target: Path) -> None:
    """``BackupRefused`` when the backup must not start: it never overwrites, never creates folders,
    and never creates an empty source."""
    if target.exists():
        raise BackupRefused(f"{target} already exists; a backup never overwrites: choose a new file name")
    if not target.resolve().parent.is_dir():
        raise BackupRefused(f"the folder {target.resolve().parent} does not exist; create it first")
    if not source.is_file():
        raise BackupRefused(f"the database {source} does not exist (DATABASE in .env says which file)")


def backup(
    source: Path,
    target: Path,
    *,
    pages: int = PAGES_PER_STEP,
    pause: float = STEP_PAUSE,
    step: Callable[[int, int], None] | None = None,
) -> BackupReport:
    """Copy the database ``source`` into the new file ``target`` and check the copy.

    ``step(remaining, total)`` is called after each step (pages left, pages in all), before the
    pause. ``BackupRefused`` before anything is written; ``BackupFailed`` (and no ``target`` left) when
    the copy cannot be made or fails its check.
    """
    check_paths(source, target)
    try:
        # mode=rw: the source is never created by opening it.
        src = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise BackupFailed(f"cannot open the database {source}: {exc}") from exc
    try:
        dst = sqlite3.connect(target, isolation_level=None)
    except sqlite3.Error as exc:
        src.close()
        raise BackupFailed(f"cannot create {target}: {exc}") from exc
    try:
        try:
            _copy(src, dst, pages, pause, step)
        finally:
            src.close()
        report = _checked(dst, target)
    except BaseException as exc:
        dst.close()
        _remove(target)
        if isinstance(exc, sqlite3.Error):
            raise BackupFailed(f"the backup of {source} failed: {exc}") from exc
        raise
    dst.close()
    return BackupReport(target, target.stat().st_size, report)


def _copy(
    src: sqlite3.Connection,
    dst: sqlite3.Connection,
    pages: int,
    pause: float,
    step: Callable[[int, int], None] | None,
) -> None:
    src.execute("PRAGMA busy_timeout = 5000")  # a writer's commit in progress, a WAL recovery
    # One read transaction for the whole copy: one snapshot, and the bot's writes never restart it.
    src.execute("BEGIN")
    src.execute("SELECT count(*) FROM sqlite_master").fetchone()

    def progress(_status: int, remaining: int, total: int) -> None:
        if step is not None:
            step(remaining, total)
        if remaining and pause > 0:
            time.sleep(pause)

    try:
        src.backup(dst, pages=pages, progress=progress)
    finally:
        src.execute("COMMIT")
    # The copy as one self-contained file (no -wal beside it); the bot sets WAL again when it opens it.
    dst.execute("PRAGMA journal_mode=DELETE").fetchone()


def _checked(dst: sqlite3.Connection, target: Path) -> int:
    """The number of matches in the copy, after SQLite found it whole (else ``BackupFailed``)."""
    problems = [str(row[0]) for row in dst.execute("PRAGMA integrity_check") if str(row[0]) != "ok"]
    if problems:
        raise BackupFailed(
            f"the copy failed SQLite's integrity check ({problems[0]}); the database itself may be "
            "damaged: check it with `PRAGMA integrity_check` before relying on it"
        )
    try:
        (matches,) = dst.execute("SELECT count(*) FROM matches").fetchone()
    except sqlite3.OperationalError as exc:
        raise BackupFailed(f"the copy has no matches table: this is not a Ringside database ({exc})") from exc
    return int(matches)


def _remove(target: Path) -> None:
    for leftover in (target, target.with_name(target.name + "-journal")):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
