"""``python -m bot copy-db --from ringside.sqlite3 --to postgresql://...``: move a server's data across.

Everything the bot keeps is copied, row for row: matches (those in play with their turn in progress,
clocks and boards), their action logs and results, challenges, ratings and their history, server
settings, analyses, and the heartbeat that gives players back the time the bot was down. Claims on
work are not (they belong to running processes).

The source is read as one snapshot (a read transaction of SQLite's write-ahead log), so the copy is
consistent even while the bot runs; what the bot saves after that moment is not in it, so stop the
bot first, copy, then start it with ``DATABASE_URL``. The target is migrated to the same schema and
must be empty: a target that holds anything is refused, and nothing is written to it. Ids are kept
(buttons on Discord carry them), and PostgreSQL's id sequences continue after the highest.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.store.connection import Connection, StoreError

TABLES = (
    "matches",
    "challenges",
    "actions",
    "results",
    "ratings",
    "rating_history",
    "guild_settings",
    "heartbeat",
    "match_analyses",
    "tournaments",
    "tournament_entrants",
    "tournament_matches",
)
"""The tables copied, each after the tables it refers to."""
LATER = {"matches": ("rematch_id",)}
"""Columns that may refer to a row copied later (a match's rematch): set once every row is in."""
IDENTITIES = ("matches", "challenges", "tournaments")
BATCH = 500


class CopyError(StoreError):
    """The copy cannot be made; the message says why (nothing was written to the target)."""


@dataclass(frozen=True, slots=True)
class Copied:
    """Rows copied, per table, in ``TABLES`` order."""

    rows: tuple[tuple[str, int], ...]

    def text(self) -> str:
        return ", ".join(f"{count} {table}" for table, count in self.rows)


def _snapshot(path: Path) -> tuple[int, dict[str, tuple[list[str], list[tuple[Any, ...]]]]]:
    """The source's schema version and every copied table (columns, rows), read in one transaction."""
    if not path.is_file():
        raise CopyError(f"there is no SQLite database at {path}")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise CopyError(f"cannot open {path}: {exc}") from exc
    try:
        db.execute("BEGIN")
        version = db.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0]
        tables = {}
        for table in TABLES:
            cursor = db.execute(f"SELECT * FROM {table}")
            columns = [d[0] for d in cursor.description]
            tables[table] = (columns, cursor.fetchall())
        db.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        raise CopyError(f"{path} is not a Ringside database this version can read ({exc})") from exc
    finally:
        db.close()
    return int(version or 0), tables


async def copy_database(
    source: Path, target: str | Path, *, say: Callable[[str], None] = lambda _line: None
) -> Copied:
    """Copy the SQLite database ``source`` into the empty database ``target`` (a PostgreSQL URL or
    another SQLite file); ``CopyError`` (nothing written) if it cannot."""
    if Path(str(target)).resolve() == source.resolve():
        raise CopyError("--from and --to are the same database")
    version, tables = await asyncio.to_thread(_snapshot, source)
    into = await Connection.open(target)
    try:
        target_version = await into.migrate()
        if version != target_version:
            raise CopyError(
                f"{source} is at schema version {version} and the target at {target_version}: start the bot "
                "once on the source (it migrates it), or use the bot version that wrote it"
            )
        held = [(table, await _count(into, table)) for table in TABLES]
        full = [f"{count} {table}" for table, count in held if count]
        if full:
            raise CopyError(
                f"the target {into.describe()} is not empty ({', '.join(full)}): copy-db fills an empty "
                "database only, so that nothing there is overwritten or mixed"
            )
        async with into.transaction() as tx:
            for table in TABLES:
                columns, rows = tables[table]
                later = [c for c in LATER.get(table, ()) if c in columns]
                written = list(columns)
                values = [
                    tuple(None if c in later else v for c, v in zip(columns, row, strict=True))
                    for row in rows
                ]
                marks = ", ".join("?" for _ in written)
                for start in range(0, len(values), BATCH):
                    await tx.executemany(
                        f"INSERT INTO {table} ({', '.join(written)}) VALUES ({marks})",
                        values[start : start + BATCH],
                    )
                for column in later:
                    index = columns.index(column)
                    key = columns.index("id")
                    pairs = [(row[index], row[key]) for row in rows if row[index] is not None]
                    await tx.executemany(f"UPDATE {table} SET {column} = ? WHERE id = ?", pairs)
                say(f"{table}: {len(rows)}")
            if into.backend == "postgresql":
                for table in IDENTITIES:
                    await tx.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                        f" COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                    )
        copied = tuple((table, len(tables[table][1])) for table in TABLES)
        for table, count in copied:
            found = await _count(into, table)
            if found != count:
                raise CopyError(f"the target holds {found} {table} after the copy, not {count}")
        return Copied(copied)
    finally:
        await into.close()


async def _count(connection: Connection, table: str) -> int:
    row = await connection.one(f"SELECT COUNT(*) FROM {table}")
    return int(row[0]) if row is not None else 0
