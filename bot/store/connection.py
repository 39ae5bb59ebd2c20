"""The one SQLite connection of the store, its one transaction mechanism and the migrations.

Every part of the store (matches, challenges, ratings, settings, deadlines) reads and writes through
the same ``Connection``, so a change that spans parts (an action, its state, the turn clock, the
result and the ratings) is still one transaction.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager, suppress
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite


class StoreError(Exception):
    """The database cannot be opened or migrated; the message says what to fix."""


class WriteFailed(StoreError):
    """A write could not be saved (the database is locked by another process, the disk is full, an
    I/O error): nothing of the transaction was kept. The message is written for players."""


WRITE_FAILED = (
    "The bot could not save that just now (its database is busy or out of space); nothing was "
    "changed. Please try again in a moment."
)


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (semicolons inside comments and strings do not count)."""
    statements: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if any(line.strip() and not line.strip().startswith("--") for line in pending.splitlines()):
        raise StoreError(f"a migration ends with an unfinished statement: {pending.strip()[:80]!r}")
    return statements


def _migrations() -> list[tuple[int, str, str]]:
    found = []
    for entry in resources.files("bot.migrations").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), name, entry.read_text(encoding="utf-8")))
    if not found:
        # An install without its package data would otherwise start with no tables at all.
        raise StoreError("no migrations found in the bot.migrations package: the installation is incomplete")
    return sorted(found)


class Connection:
    """The shared aiosqlite connection. Writes go through ``transaction()``; reads through ``one``/``all``."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Connection:
        """Open (creating if need be) and migrate the database at ``path``.

        An existing file of zero bytes is refused rather than silently becoming an empty store (it is
        most likely a database lost to a failed copy or a full disk), and an existing database must
        pass SQLite's ``quick_check`` (a damaged page would otherwise fail commands later, one by one).
        """
        if str(path) != ":memory:" and Path(path).is_file() and Path(path).stat().st_size == 0:
            raise StoreError(
                f"the database {path} is an empty file (0 bytes), not a Ringside database: restore it "
                "from a backup, or delete it to start a new, empty store"
            )
        try:
            db = await aiosqlite.connect(str(path), isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database {path}: {exc}") from exc
        db.row_factory = aiosqlite.Row
        connection = cls(db)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=NORMAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await connection.check_integrity(path)
            await connection.migrate()
        except StoreError:
            await db.close()
            raise
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StoreError(
                f"{path} is not a usable database ({exc}); move it away or choose another"
            ) from exc
        return connection

    async def check_integrity(self, path: str | Path) -> None:
        """``StoreError`` naming the file and what to do when SQLite finds it damaged."""
        try:
            rows = await self.all("PRAGMA quick_check")
        except sqlite3.DatabaseError as exc:
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
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction: committed if the block ends normally, rolled back if it raises."""
        # One connection serves every coroutine: transactions take turns, or a second BEGIN would
        # land inside the first.
        # A write SQLite cannot make (locked by another process, disk full, I/O error) becomes a
        # ``WriteFailed`` whose message the cogs show to the player, after a rollback.
        async with self._write_lock:
            try:
                await self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise WriteFailed(WRITE_FAILED) from exc
            try:
                yield self.db
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

    async def one(self, sql: str, args: Iterable[Any] = ()) -> sqlite3.Row | None:
        """The first row of a query, or None."""
        async with self.db.execute(sql, tuple(args)) as cur:
            return await cur.fetchone()

    async def all(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """Every row of a query."""
        async with self.db.execute(sql, tuple(args)) as cur:
            return list(await cur.fetchall())

    async def migrate(self) -> int:
        """Apply every migration not yet applied, in order; return the schema version (the highest).

        Numbers may have gaps, and a migration numbered below one already applied (merged later from
        another branch) is still applied: each is recorded by its own number.
        """
        await self.db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)")
        async with self.db.execute("SELECT version FROM schema_migrations") as cur:
            applied = {int(row[0]) for row in await cur.fetchall()}
        for number, _name, sql in _migrations():
            if number in applied:
                continue
            async with self.transaction() as db:
                for statement in _statements(sql):
                    await db.execute(statement)
                await db.execute("INSERT INTO schema_migrations (version) VALUES (?)", (number,))
            applied.add(number)
        return max(applied, default=0)
