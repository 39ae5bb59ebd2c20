"""The store on PostgreSQL (asyncpg): one server that several bot processes share.

Selected by ``DATABASE_URL=postgresql://...``. Every guarantee of the SQLite store holds here too, for
several processes at once: one transaction per action, conditional updates (``... AND version = ?``)
so that two clicks or two processes never both apply, unique indexes for challenges, rematches and
matches against the computer. Transactions run at READ COMMITTED: each conditional ``UPDATE`` waits
for a concurrent one on the same row and then re-checks its condition, so exactly one of them changes
the row. Where a transaction reads rows, computes and writes them back (ratings), it holds an
advisory lock first (``serialize``).

A lock held by another transaction is waited for at most ``LOCK_WAIT`` (``lock_timeout``), then the
write gives up with ``Busy``, as on SQLite. A server that cannot be reached (restarting, network)
fails the write with ``Unreachable``; nothing of it was kept, and the player is told to try again.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.store import connection as common
from bot.store.connection import BUSY, UNREACHABLE, Busy, Conflict, Connection, Row, StoreError, WriteFailed

LOCK_WAIT = 2.0
"""Seconds a statement waits for a row or table lock another transaction holds (as on SQLite)."""
POOL_SIZE = 10
"""Connections each process keeps to the server: a click holds one for a few milliseconds."""
COMMAND_TIMEOUT = 10.0
"""Seconds any statement may take before it is given up as lost (``Unreachable``). A connection that
died in the middle of an operation (a server restart) can otherwise leave its caller waiting forever,
and with it the match's lock and the scheduler's round: seen in bench/cluster.py before this limit."""
ACQUIRE_WAIT = 5.0
"""Seconds to wait for a free pooled connection before answering that the database is busy."""
MIGRATION_LOCK = 0x52494E47
MIGRATION_TIMEOUT = 3600.0
"""A migration's statement (an index built over every match) and the wait for another process's
migration may take longer than ``COMMAND_TIMEOUT``."""
"""The advisory lock that makes processes starting together migrate one after the other ("RING")."""


class Unreachable(WriteFailed):
    """The database server could not be reached or went away during the transaction: nothing was
    saved (or read)."""


_CONNECTION_LOST = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    # A connection that went away in the middle of an operation can leave asyncpg's protocol in a state
    # it refuses to leave ("cannot switch to state ..."): the connection is lost all the same.
    asyncpg.InternalClientError,
)
_TAKE_TURNS = (
    asyncpg.SerializationError,
    asyncpg.DeadlockDetectedError,
    asyncpg.LockNotAvailableError,
)


@lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """The store's SQL with PostgreSQL's parameters: each ``?`` becomes ``$1``, ``$2``... in order
    (not inside quoted text), and ``IS ?`` (SQLite's null-safe equality) ``IS NOT DISTINCT FROM $n``."""
    out: list[str] = []
    count = 0
    for index, part in enumerate(re.split(r"('(?:[^']|'')*')", sql)):
        if index % 2:  # a quoted string, as written
            out.append(part)
            continue
        pieces = part.split("?")
        text = pieces[0]
        for piece in pieces[1:]:
            count += 1
            if re.search(r"\bIS\s*$", text, flags=re.IGNORECASE):
                text = re.sub(r"\bIS\s*$", "IS NOT DISTINCT FROM ", text, flags=re.IGNORECASE)
            text += f"${count}" + piece
        out.append(text)
    return "".join(out)


def _changed(status: str) -> int:
    """Rows changed, from a command's status (``UPDATE 3``, ``INSERT 0 1``, ``DELETE 0``)."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _key_number(key: str) -> int:
    """A stable signed 64-bit number for an advisory lock key (the same in every process)."""
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "big", signed=True)


class PostgresTransaction:
    """A transaction on one pooled connection (``bot.store.connection.Transaction``)."""

    def __init__(self, raw: asyncpg.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        try:
            status = await self.raw.execute(numbered(sql), *args) if args else await self.raw.execute(sql)
        except asyncpg.UniqueViolationError as exc:
            raise Conflict(exc.constraint_name or str(exc)) from exc
        return _changed(status)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        batch = [tuple(row) for row in rows]
        if batch:
            await self.raw.executemany(numbered(sql), batch)

    async def one(self, sql: str, args: Sequence[Any] = ()) -> Row | None:
        return await self.raw.fetchrow(numbered(sql), *args)

    async def all(self, sql: str, args: Sequence[Any] = ()) -> list[Row]:
        return list(await self.raw.fetch(numbered(sql), *args))

    async def insert(self, sql: str, args: Sequence[Any] = ()) -> int | None:
        try:
            found = await self.raw.fetchval(numbered(sql + " RETURNING id"), *args)
        except asyncpg.UniqueViolationError as exc:
            raise Conflict(exc.constraint_name or str(exc)) from exc
        return None if found is None else int(found)

    async def serialize(self, key: str) -> None:
        await self.raw.execute("SELECT pg_advisory_xact_lock($1)", _key_number(key))


class PostgresConnection(Connection):
    """A pool of connections to one PostgreSQL database."""

    backend = "postgresql"

    def __init__(self, pool: asyncpg.Pool, url: str) -> None:
        self.pool = pool
        self.url = url

    @classmethod
    async def connect(cls, url: str, *, pool_size: int = POOL_SIZE) -> PostgresConnection:
        """Connect to (and migrate) the database at ``url``; ``StoreError`` in one line if it cannot."""
        where = safe_url(url)
        try:
            pool = await asyncpg.create_pool(
                url,
                min_size=1,
                max_size=pool_size,
                command_timeout=COMMAND_TIMEOUT,
                timeout=COMMAND_TIMEOUT,
                server_settings={"lock_timeout": str(int(LOCK_WAIT * 1000)), "application_name": "ringside"},
            )
        except asyncpg.InvalidPasswordError as exc:
            raise StoreError(
                f"PostgreSQL refused the user or password of DATABASE_URL ({where}): {exc}"
            ) from exc
        except asyncpg.InvalidCatalogNameError as exc:
            raise StoreError(
                f"the database of DATABASE_URL ({where}) does not exist: create it first ({exc})"
            ) from exc
        except (*_CONNECTION_LOST, asyncpg.PostgresError, ValueError) as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {where}: {exc.__class__.__name__}: {exc}"
            ) from exc
        connection = cls(pool, url)
        try:
            await connection.migrate()
        except BaseException:
            await pool.close()
            raise
        return connection

    def describe(self) -> str:
        return f"PostgreSQL {safe_url(self.url)}"

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTransaction]:
        try:
            async with self._acquire() as raw, raw.transaction():
                yield PostgresTransaction(raw)
        except _TAKE_TURNS as exc:
            raise Busy(BUSY) from exc
        except _CONNECTION_LOST as exc:
            raise Unreachable(UNREACHABLE) from exc

    async def one(self, sql: str, args: Iterable[Any] = ()) -> Row | None:
        rows = await self._read(sql, tuple(args), first=True)
        return rows[0] if rows else None

    async def all(self, sql: str, args: Iterable[Any] = ()) -> list[Row]:
        return await self._read(sql, tuple(args), first=False)

    async def _read(self, sql: str, args: tuple[Any, ...], *, first: bool) -> list[Row]:
        """A read outside a transaction. A read changes nothing, so one that met a connection the
        server had dropped (every pooled connection goes when the server restarts) is tried once more
        on a fresh connection before it is answered ``Unreachable``."""
        for attempt in range(2):
            try:
                async with self._acquire() as raw:
                    if first:
                        row = await raw.fetchrow(numbered(sql), *args)
                        return [] if row is None else [row]
                    return list(await raw.fetch(numbered(sql), *args))
            except _TAKE_TURNS as exc:  # a table locked by another program beyond LOCK_WAIT
                raise Busy(BUSY) from exc
            except _CONNECTION_LOST as exc:
                if attempt:
                    raise Unreachable(UNREACHABLE) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    @asynccontextmanager
    async def _acquire(self) -> AsyncIterator[asyncpg.Connection]:
        """A pooled connection; ``Busy`` when none frees up within ``ACQUIRE_WAIT`` (every one is in
        use by other work of this process)."""
        try:
            raw = await self.pool.acquire(timeout=ACQUIRE_WAIT)
        except TimeoutError as exc:
            raise Busy(BUSY) from exc
        try:
            yield raw
        except _CONNECTION_LOST:
            # The server dropped this connection (or it is stuck mid-operation): close it rather than
            # hand it to the next caller, and have every other pooled connection checked the same way,
            # since a server restart drops them all at once.
            raw.terminate()
            await self.pool.expire_connections()
            raise
        finally:
            await self.pool.release(raw)

    async def close(self) -> None:
        await self.pool.close()

    async def migrate(self) -> int:
        """Apply every migration not yet applied, in order, under an advisory lock: processes started
        together migrate one after the other, and each finds what the other applied."""
        try:
            async with self.pool.acquire() as raw:
                await raw.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK, timeout=MIGRATION_TIMEOUT)
                try:
                    return await _migrate(raw)
                finally:
                    await raw.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)
        except asyncpg.PostgresError as exc:
            raise StoreError(f"cannot migrate the PostgreSQL database {safe_url(self.url)}: {exc}") from exc


async def _migrate(raw: asyncpg.Connection) -> int:
    await raw.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY)")
    applied = {int(row[0]) for row in await raw.fetch("SELECT version FROM schema_migrations")}
    for number, _name, sql in common.migrations("postgres"):
        if number in applied:
            continue
        async with raw.transaction():
            for statement in common.statements(sql):
                await raw.execute(statement, timeout=MIGRATION_TIMEOUT)
            await raw.execute("INSERT INTO schema_migrations (version) VALUES ($1)", number)
        applied.add(number)
    return max(applied, default=0)


def safe_url(url: str) -> str:
    """``url`` without its password, for logs and messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[-1]}"))
