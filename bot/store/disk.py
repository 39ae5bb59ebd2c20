"""Which disk holds a file, and whether it is full: for start-up errors that name the real problem.

SQLite reports a full disk as ``SQLITE_FULL`` only when a write of the database or its log runs out
of room; the shared-memory index of the write-ahead log that every start creates fails as a plain
"disk I/O error" instead. Asking the file system how much room is left tells the two apart.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

FULL_BELOW = 1 << 20
"""Less room than this (1 MiB) counts as a full disk: SQLite needs 32 KiB for the index of the
write-ahead log and a few pages of log before it can do anything."""


@dataclass(frozen=True, slots=True)
class Disk:
    """The file system holding a path: where it is mounted, from what, and the room left on it."""

    mount_point: str
    device: str
    free_bytes: int
    free_inodes: int | None
    """Files that may still be created (None: the file system does not count them)."""

    @property
    def full(self) -> bool:
        return self.free_bytes < FULL_BELOW or self.free_inodes == 0


def disk_of(path: str | Path) -> Disk:
    """The disk holding ``path`` (a file that may not exist yet: its folder is asked)."""
    where = Path(path).resolve()
    while not where.exists() and where != where.parent:
        where = where.parent
    stats = os.statvfs(where)
    mount_point = _mount_point(where)
    # Some file systems (tmpfs with nr_inodes=0, btrfs) report no inode count at all.
    inodes = stats.f_favail if stats.f_files else None
    return Disk(
        mount_point=str(mount_point),
        device=_device(mount_point) or _device_number(where),
        free_bytes=stats.f_bavail * stats.f_frsize,
        free_inodes=inodes,
    )


def _mount_point(path: Path) -> Path:
    while not os.path.ismount(path) and path != path.parent:
        path = path.parent
    return path


def _device(mount_point: Path) -> str | None:
    """What is mounted there, as ``/proc/self/mounts`` says (Linux); the last mount wins."""
    try:
        lines = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    found = None
    for line in lines:
        fields = line.split()
        # Spaces in mount points are written as \040.
        if len(fields) >= 3 and fields[1].replace("\\040", " ") == str(mount_point):
            found = f"{fields[0]} ({fields[2]})"
    return found


def _device_number(path: Path) -> str:
    number = os.stat(path).st_dev
    return f"device {os.major(number)}:{os.minor(number)}"


def size_text(count: int) -> str:
    """Bytes in words read at a glance: 0 bytes, 512 KB, 3.2 MB, 41 GB."""
    size = float(count)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000:
            return f"{size:.1f} {unit}" if unit != "bytes" and size < 10 else f"{size:.0f} {unit}"
        size /= 1000
    return f"{size:.0f} TB"


def full_disk_text(path: str | Path, error: BaseException | None = None) -> str | None:
    """What to tell the operator when opening the database at ``path`` failed with ``error`` (None:
    whatever it was) because its disk is full; None when the disk is not full or ``error`` is not
    one a full disk gives (an I/O error, SQLite's "database or disk is full", a file not created)."""
    code = getattr(error, "sqlite_errorcode", None)
    said_full = code is not None and code & 0xFF == sqlite3.SQLITE_FULL
    if error is not None and not (isinstance(error, OSError) or _io_error(code)):
        return None
    try:
        disk = disk_of(path)
    except OSError:
        return None
    if not (disk.full or said_full):
        return None
    room = "no file can be created there" if disk.free_inodes == 0 else f"{size_text(disk.free_bytes)} free"
    return (
        f"the disk holding the database {path} is full ({room} on {disk.mount_point}, {disk.device}). "
        "The database itself is unharmed: SQLite keeps nothing of a write it cannot finish. Free some "
        "space on that disk (or move the database to a disk with room) and start the bot again"
    )


def _io_error(code: int | None) -> bool:
    return code is not None and code & 0xFF in (
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
    )
