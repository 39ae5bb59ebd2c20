"""The one SQLite connection of the store, its one transaction mechanism and the migrations.

Every part of the store (matches, challenges, ratings, settings, deadlines) reads and writes through
the same ``Connection``, so a change that spans parts (an action, its state, the turn clock, the
result and the ratings) is still one transaction.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite


class StoreError(Exception):
    """The database cannot be opened or migrated; the message says what to fix."""


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
        """Open (creating if need be) and migrate the database at ``path``."""
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

    async def close(self) -> None:
        await self.db.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction: committed if the block ends normally, rolled back if it raises."""
        # One connection serves every coroutine: transactions take turns, or a second BEGIN would
        # land inside the first.
        async with self._write_lock:
            await self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                await self.db.execute("ROLLBACK")
                raise
            else:
                await self.db.execute("COMMIT")

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
