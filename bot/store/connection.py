"""The store's database, whichever it is: its errors, its one transaction mechanism and the migrations.

Two backends keep the same guarantees behind one interface: SQLite (``bot.store.sqlite``, a file, the
embedded default) and PostgreSQL (``bot.store.postgres``, a server that several bot processes share).
Every part of the store (matches, challenges, ratings, settings, deadlines, claims) writes through
``Connection.transaction()`` and reads through ``one``/``all``; a change that spans parts (an action,
its state, the turn clock, the result and the ratings) is one transaction.

The SQL of the store is written once, in the common dialect of both (``?`` for a parameter, ``ON
CONFLICT``, ``RETURNING``, ``CASE``; no SQLite-only functions). The PostgreSQL backend numbers the
parameters; the migrations are written for each (``bot/migrations/NNN_name.sql`` and
``bot/migrations/postgres/NNN_name.sql``, the same numbers, checked by a test to give the same tables,
columns and indexes). Each backend applies, in its own transaction each, those of ``migrations(dialect)``
that its ``schema_migrations`` table does not list yet.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from importlib import resources
from pathlib import Path
from typing import Any, Protocol


class StoreError(Exception):
    """The database cannot be opened or migrated; the message says what to fix."""


class WriteFailed(StoreError):
    """A write could not be saved (the database is locked by another process, the disk is full, an
    I/O error, the database server cannot be reached): nothing of the transaction was kept. The
    message is written for players."""


class Busy(WriteFailed):
    """Another process held the database longer than the store waits: nothing was saved (or read)."""


class Conflict(Exception):
    """A write broke a unique constraint (``constraint``: its index or column as the database named
    it); raised inside the transaction, which is rolled back unless the caller handles it there."""

    def __init__(self, constraint: str) -> None:
        super().__init__(constraint)
        self.constraint = constraint


WRITE_FAILED = (
    "The bot could not save that just now (its database is busy or out of space); nothing was "
    "changed. Please try again in a moment."
)
BUSY = (
    "The bot's database is busy just now (another program is using it); nothing was changed. Please "
    "try again in a moment."
)
UNREACHABLE = "The bot cannot reach its database just now; nothing was changed. Please try again in a moment."

Row = Any
"""A row read from the database: its columns by name (``row["id"]``) and by position (``row[0]``)."""


class Transaction(Protocol):
    """What a store part does inside ``Connection.transaction()``."""

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run a statement; the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        """Run a statement once per row of arguments."""
        ...

    async def one(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        """The first row of a query (or of a statement with ``RETURNING``), or None."""
        ...

    async def all(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        """Every row of a query."""
        ...

    async def insert(self, sql: str, args: Sequence[Any] = ()) -> int | None:
        """Run an ``INSERT`` into a table with an ``id`` column: the new row's id, or None when the
        insert did nothing (``ON CONFLICT DO NOTHING``)."""
        ...

    async def serialize(self, key: str) -> None:
        """Hold ``key`` until the transaction ends: transactions that read rows, compute and write them
        back under the same key (both players' ratings of a game on a server) take turns. SQLite's
        transactions already take turns; PostgreSQL takes an advisory lock."""
        ...


class Connection(ABC):
    """One database, with one transaction mechanism. Open with ``await Connection.open(target)``."""

    backend: str
    """``"sqlite"`` or ``"postgresql"``."""

    @staticmethod
    async def open(target: str | Path) -> Connection:
        """Open (creating and migrating if need be) the database ``target``: a ``postgresql://`` URL,
        or the path of a SQLite file. ``StoreError`` if it cannot be used."""
        if is_postgres_url(target):
            from bot.store.postgres import PostgresConnection

            return await PostgresConnection.connect(str(target))
        from bot.store.sqlite import SqliteConnection

        return await SqliteConnection.connect(target)

    @abstractmethod
    def transaction(self) -> AbstractAsyncContextManager[Transaction]:
        """One transaction: committed if the block ends normally, rolled back if it raises."""

    @abstractmethod
    async def one(self, sql: str, args: Iterable[Any] = ()) -> Row | None:
        """The first row of a query, or None."""

    @abstractmethod
    async def all(self, sql: str, args: Iterable[Any] = ()) -> list[Row]:
        """Every row of a query."""

    @abstractmethod
    async def close(self) -> None:
        """Close the connection (every pooled one)."""

    @abstractmethod
    async def migrate(self) -> int:
        """Apply every migration not yet applied; return the schema version (the highest)."""

    @abstractmethod
    def describe(self) -> str:
        """The database in words for logs and ``/about``, with no password."""


def is_postgres_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def statements(sql: str) -> list[str]:
    """Split a migration into statements (semicolons inside comments and strings do not count)."""
    found: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            found.append(pending.strip())
            pending = ""
    if any(line.strip() and not line.strip().startswith("--") for line in pending.splitlines()):
        raise StoreError(f"a migration ends with an unfinished statement: {pending.strip()[:80]!r}")
    return found


def migrations(dialect: str = "sqlite") -> list[tuple[int, str, str]]:
    """Every migration of ``dialect`` ("sqlite" or "postgres") as (number, file name, SQL), in order."""
    folder = resources.files("bot.migrations")
    if dialect != "sqlite":
        folder = folder.joinpath(dialect)
    found = []
    for entry in folder.iterdir() if folder.is_dir() else ():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), name, entry.read_text(encoding="utf-8")))
    if not found:
        # An install without its package data would otherwise start with no tables at all.
        raise StoreError("no migrations found in the bot.migrations package: the installation is incomplete")
    return sorted(found)
