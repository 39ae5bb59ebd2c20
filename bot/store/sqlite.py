"""The store on SQLite: one file, one aiosqlite connection, transactions that take turns.

The embedded default (``DATABASE``, a file): every part of the store reads and writes through this one
connection, so a change that spans parts is one transaction. One process only: several processes on
one file are refused at start-up (``bot.config``); PostgreSQL is for that.

Another process may hold the database's write lock for a while (a backup, a second bot started by
mistake). A query that finds it locked is tried again for at most ``LOCK_WAIT`` and then gives up
with ``Busy``. The waiting is done here, between attempts, and never in SQLite's busy handler: the
connection has one thread, and a statement waiting in it would hold up every other query of the bot,
including the reads that the write-ahead log lets through a lock.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.store import connection as common
from bot.store.connection import BUSY, WRITE_FAILED, Busy, Conflict, Connection, Row, StoreError, WriteFailed
from bot.store.disk import full_disk_text

T = TypeVar("T")


LOCK_WAIT = 2.0
"""Seconds a query waits for a lock another process holds, counted from when it was asked for (time
spent queueing behind the bot's own writes included, but always one attempt): short enough that a
command can still answer "busy" within Discord's 3 seconds."""
_FIRST_PAUSE = 0.005
_LONGEST_PAUSE = 0.1


def _is_busy(exc: sqlite3.Error) -> bool:
    """Whether SQLite refused because another connection holds a lock (SQLITE_BUSY, SQLITE_LOCKED)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class SqliteTransaction:
    """A transaction on the one aiosqlite connection (``bot.store.connection.Transaction``)."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        try:
            cur = await self.db.execute(sql, tuple(args))
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise Conflict(str(exc)) from exc
            raise
        count = cur.rowcount
        await cur.close()
        return count

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.db.executemany(sql, [tuple(row) for row in rows])

    async def one(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        async with self.db.execute(sql, tuple(args)) as cur:
            return await cur.fetchone()

    async def all(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        async with self.db.execute(sql, tuple(args)) as cur:
            return list(await cur.fetchall())

    async def insert(self, sql: str, args: Sequence[Any] = ()) -> int | None:
        try:
            row = await self.one(sql + " RETURNING id", args)
        except sqlite3.IntegrityError as exc:
            if "UNIQUE" in str(exc):
                raise Conflict(str(exc)) from exc
            raise
        return None if row is None else int(row[0])

    async def serialize(self, key: str) -> None:
        """Nothing to do: SQLite's write transactions (``BEGIN IMMEDIATE``) already take turns."""


class SqliteConnection(Connection):
    """The shared aiosqlite connection. Writes go through ``transaction()``; reads through ``one``/``all``."""

    backend = "sqlite"

    def __init__(
        self, db: aiosqlite.Connection, *, path: str | Path = "", lock_wait: float = LOCK_WAIT
    ) -> None:
        self.db = db
        self.path = path
        self.lock_wait = lock_wait
        self._write_lock = asyncio.Lock()

    @classmethod
    async def connect(cls, path: str | Path) -> SqliteConnection:
        """Open (creating if need be) and migrate the database at ``path``.

        An existing file of zero bytes is refused rather than silently becoming an empty store (it is
        most likely a database lost to a failed copy or a full disk), and an existing database must
        pass SQLite's ``quick_check`` (a damaged page would otherwise fail commands later, one by one).
        """
        if str(path) != ":memory:" and Path(path).is_file() and Path(path).stat().st_size == 0:
            # On a full disk, the empty file is most likely this bot's own first start that failed.
            raise StoreError(
                full_disk_text(path)
                or f"the database {path} is an empty file (0 bytes), not a Ringside database: restore "
                "it from a backup, or delete it to start a new, empty store"
            )
        try:
            # While opening, SQLite's own busy handler may wait: nothing else runs yet.
            db = await aiosqlite.connect(str(path), isolation_level=None, timeout=LOCK_WAIT)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(full_disk_text(path, exc) or f"cannot open the database {path}: {exc}") from exc
        db.row_factory = aiosqlite.Row
        connection = cls(db, path=path)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=NORMAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await connection.check_integrity(path)
            await connection.migrate()
            # From now on a lock is waited for between attempts (``_patiently``), off the thread.
            await db.execute("PRAGMA busy_timeout=0")
        except StoreError as exc:
            await db.close()
            if isinstance(exc, Busy):
                raise StoreError(_locked_text(path)) from exc
            raise
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StoreError(_unusable(path, exc)) from exc
        return connection

    async def check_integrity(self, path: str | Path) -> None:
        """``StoreError`` naming the file and what to do when SQLite finds it damaged."""
        try:
            rows = await self.all("PRAGMA quick_check")
        except sqlite3.DatabaseError as exc:
            full = full_disk_text(path, exc)
            if full is not None:
                raise StoreError(full) from exc
            problems = [str(exc)]
        else:
            problems = [
                " ".join(str(row[0]).replace("*** in database main ***", "").split())
                for row in rows
                if str(row[0]) != "ok"
            ]
        if problems:
            raise StoreError(
                f"the database {path} is damaged ({problems[0]}): stop the bot, restore the file from a "
                f"backup (or try `sqlite3 {path} .recover`) and start again"
            )

    async def close(self) -> None:
        """Close the connection; SQLite checkpoints the write-ahead log into the file."""
        await self.db.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteTransaction]:
        """One transaction: committed if the block ends normally, rolled back if it raises."""
        # One connection serves every coroutine: transactions take turns, or a second BEGIN would
        # land inside the first.
        # A write SQLite cannot make (locked by another process, disk full, I/O error) becomes a
        # ``WriteFailed`` whose message the cogs show to the player, after a rollback.
        asked = asyncio.get_running_loop().time()
        async with self._write_lock:
            try:
                await self._patiently(lambda: self.db.execute("BEGIN IMMEDIATE"), asked)
            except sqlite3.OperationalError as exc:
                raise (Busy(BUSY) if _is_busy(exc) else WriteFailed(WRITE_FAILED)) from exc
            try:
                yield SqliteTransaction(self.db)
            except BaseException as exc:
                if self.db.in_transaction:
                    with suppress(sqlite3.Error):
                        await self.db.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError):
                    raise WriteFailed(WRITE_FAILED) from exc
                raise
            else:
                try:
                    await self.db.execute("COMMIT")
                except sqlite3.OperationalError as exc:
                    if self.db.in_transaction:
                        await self.db.execute("ROLLBACK")
                    raise WriteFailed(WRITE_FAILED) from exc

    def describe(self) -> str:
        return f"SQLite file {self.path}"

    async def one(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        return await self._read(self._one, sql, tuple(args))

    async def all(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        return await self._read(self._all, sql, tuple(args))

    async def _one(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Row | None:
        async with self.db.execute(sql, args) as cur:
            return await cur.fetchone()

    async def _all(self, sql: str, args: tuple[Any, ...]) -> list[sqlite3.Row]:
        async with self.db.execute(sql, args) as cur:
            return list(await cur.fetchall())

    async def _read(
        self, query: Callable[[str, tuple[Any, ...]], Awaitable[T]], sql: str, args: tuple[Any, ...]
    ) -> T:
        # The write-ahead log lets reads through another process's write lock; what is left (its
        # recovery after a crash, a program holding the file exclusively) is waited for like a write.
        try:
            return await self._patiently(lambda: query(sql, args), asyncio.get_running_loop().time())
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                raise Busy(BUSY) from exc
            raise

    async def _patiently(self, attempt: Callable[[], Awaitable[T]], asked: float) -> T:
        """``attempt()``, tried again while another connection holds the lock, until ``lock_wait``
        after ``asked`` (always at least once), with pauses that grow from 5 to 100 ms."""
        loop = asyncio.get_running_loop()
        pause = _FIRST_PAUSE
        while True:
            try:
                return await attempt()
            except sqlite3.OperationalError as exc:
                left = asked + self.lock_wait - loop.time()
                if not _is_busy(exc) or left <= 0:
                    raise
            await asyncio.sleep(min(pause, left))
            pause = min(2 * pause, _LONGEST_PAUSE)

    async def migrate(self) -> int:
        """Apply every migration not yet applied, in order; return the schema version (the highest).

        Numbers may have gaps, and a migration numbered below one already applied (merged later from
        another branch) is still applied: each is recorded by its own number.
        """
        await self.db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)")
        async with self.db.execute("SELECT version FROM schema_migrations") as cur:
            applied = {int(row[0]) for row in await cur.fetchall()}
        for number, _name, sql in common.migrations():
            if number in applied:
                continue
            async with self.transaction() as tx:
                for statement in common.statements(sql):
                    await tx.execute(statement)
                await tx.execute("INSERT INTO schema_migrations (version) VALUES (?)", (number,))
            applied.add(number)
        return max(applied, default=0)


def _unusable(path: str | Path, exc: sqlite3.DatabaseError) -> str:
    """Why the database at ``path`` cannot be used, in words that point the operator to the right fix:
    a full disk is not a damaged file, and a locked one is not either."""
    full = full_disk_text(path, exc)
    if full is not None:
        return full
    if _is_busy(exc):
        return _locked_text(path)
    return f"{path} is not a usable database ({exc}); move it away or choose another"


def _locked_text(path: str | Path) -> str:
    return (
        f"the database {path} is locked by another program (a second copy of the bot, a backup?): "
        "stop it or wait for it, and start the bot again"
    )
