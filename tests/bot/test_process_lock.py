"""app.process_lock: one bot process per SQLite file. The lock file ``<database>.lock`` is removed when
the process that holds it ends cleanly; one left by a killed process (nobody holds its lock) is taken
over as before."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.process_lock import ProcessLock
from bot.store import StoreError

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the lock is POSIX's flock")


def test_the_lock_file_is_removed_when_its_holder_lets_go(tmp_path: Path) -> None:
    db = tmp_path / "ringside.sqlite3"
    lock = ProcessLock(db)
    lock.take()
    assert lock.path == tmp_path / "ringside.sqlite3.lock"
    assert lock.path.read_text() == str(os.getpid())
    lock.release()
    assert not lock.path.exists()
    lock.release()  # twice: nothing more


def test_a_second_taker_is_refused_and_leaves_the_holders_file_alone(tmp_path: Path) -> None:
    db = tmp_path / "ringside.sqlite3"
    first, second = ProcessLock(db), ProcessLock(db)
    first.take()
    with pytest.raises(StoreError, match=rf"another bot process \(pid {os.getpid()}\)"):
        second.take()
    second.release()  # it holds nothing: the file is the first one's
    assert first.path.read_text() == str(os.getpid())
    first.release()
    assert not first.path.exists()
    second.take()  # free again
    second.release()


def test_a_lock_file_left_by_a_killed_process_is_taken_over(tmp_path: Path) -> None:
    """kill -9 leaves the file (with the dead process's pid) but not its lock: the next process takes
    it, and removes it when it ends cleanly."""
    db = tmp_path / "ringside.sqlite3"
    holder = subprocess.Popen(
        [sys.executable, "-c", "from app.process_lock import ProcessLock; import sys, time;"
         f"ProcessLock(__import__('pathlib').Path({str(db)!r})).take(); print('held', flush=True);"
         "time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        lock = ProcessLock(db)
        with pytest.raises(StoreError, match=rf"\(pid {holder.pid}\)"):
            lock.take()
    finally:
        holder.kill()
        holder.wait()
    assert lock.path.read_text() == str(holder.pid)  # left behind
    lock.take()
    assert lock.path.read_text() == str(os.getpid())
    lock.release()
    assert not lock.path.exists()


def test_a_lock_taken_on_a_file_removed_meanwhile_is_taken_again_on_the_new_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder removes its file as it lets go: a taker that opened the old file just before must
    not hold a lock on a removed file (a third process would then lock a new one beside it)."""
    db = tmp_path / "ringside.sqlite3"
    lock = ProcessLock(db)
    real_flock = fcntl.flock
    removed = []

    def flock_after_the_holder_let_go(fd: int, operation: int) -> None:
        if not removed:  # the holder removes the file between our open and our flock
            removed.append(True)
            lock.path.unlink()
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock_after_the_holder_let_go)
    lock.take()
    monkeypatch.undo()
    assert lock.path.exists() and lock.path.read_text() == str(os.getpid())
    other = ProcessLock(db)
    with pytest.raises(StoreError):
        other.take()  # the lock held is the one on the file at the path
    lock.release()


REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["ringside.sqlite3.lock", "ringside.sqlite3-wal", "ringside.sqlite3-shm"])
def test_the_files_beside_the_default_database_are_kept_out_of_git(name: str) -> None:
    """A killed bot leaves its lock file (and SQLite its write-ahead log) beside the database."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: nothing for .gitignore to keep out")
    done = subprocess.run(["git", "check-ignore", "-q", name], cwd=REPO, capture_output=True)
    assert done.returncode == 0, f"{name} is not in .gitignore"
