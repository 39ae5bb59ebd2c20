"""One bot process per SQLite file: a second ``python -m bot`` on the same file stops with one line.

SQLite is the embedded, one-process store. Two bot processes on one file would each keep their own
sessions and each send every reminder and republished board: the second is refused at start-up, while
the first holds an exclusive lock on ``<database>.lock`` (released by the system when the process ends,
however it ends, kill -9 included). Several processes share a PostgreSQL database instead.

A process that ends cleanly removes the file as it lets go (while it still holds the lock); one that
was killed leaves it, with its pid, and the next process takes it over. A taker that opened the file
just before its holder removed it finds, once it has the lock, that the path no longer names the file
it locked, and starts again on the new one: two processes never hold locks on two files.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from bot.store import StoreError
from bot.store.disk import full_disk_text


class ProcessLock:
    """The exclusive lock of one bot process on its SQLite file (hold it as long as the bot runs)."""

    def __init__(self, database: Path) -> None:
        self.path = Path(f"{database}.lock")
        self._fd: int | None = None

    def take(self) -> None:
        """Take the lock, or ``StoreError`` naming the process that holds it."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX (Windows): no check
            return
        while True:
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = os.read(fd, 64).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise StoreError(
                    f"another bot process (pid {holder}) is using the database {self.path.with_suffix('')}; "
                    "SQLite serves one process: stop that one, or set DATABASE_URL to PostgreSQL to run several"
                ) from None
            if self._names(fd):
                break
            os.close(fd)  # its holder removed it as we opened it: the lock is on the new file
        self._fd = fd
        with contextlib.suppress(OSError):  # a full disk: the lock holds all the same
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)

    def _open(self) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise StoreError(
                full_disk_text(self.path, exc)
                or f"cannot create the lock file {self.path}: {exc.strerror or exc}"
            ) from exc

    def _names(self, fd: int) -> bool:
        """Whether the path still names the file open as ``fd``."""
        try:
            at_path = os.stat(self.path)
        except FileNotFoundError:
            return False
        mine = os.fstat(fd)
        return (at_path.st_dev, at_path.st_ino) == (mine.st_dev, mine.st_ino)

    def release(self) -> None:
        """Let go of the lock, removing the file first (a clean end leaves nothing beside the
        database). Idempotent; a lock not taken leaves the file alone."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            os.close(self._fd)
            self._fd = None
