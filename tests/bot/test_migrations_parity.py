"""The migrations of the two backends make the same database: the same numbers, tables, columns (in the
same order, as ``SELECT *`` reads them), nullability and indexes (unique or not). A migration added for
one backend only, or a column forgotten in one of them, fails here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.store.connection import Connection, migrations
from tests import databases


def test_both_backends_have_the_same_migrations() -> None:
    sqlite = [(number, name) for number, name, _ in migrations("sqlite")]
    postgres = [(number, name) for number, name, _ in migrations("postgres")]
    assert sqlite == postgres


async def _sqlite_schema(path: Path) -> dict[str, Any]:
    opened = await Connection.open(path)
    try:
        tables = [
            r[0]
            for r in await opened.all(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        columns = {
            table: [
                (r["name"], bool(r["notnull"]) or bool(r["pk"]))
                for r in await opened.all(f"PRAGMA table_info({table})")
            ]
            for table in tables
        }
        indexes = {
            (r["name"], bool(r["unique"]))
            for table in tables
            for r in await opened.all(f"PRAGMA index_list({table})")
            if r["origin"] == "c"  # made by CREATE INDEX, not by a PRIMARY KEY or UNIQUE clause
        }
        return {"tables": tables, "columns": columns, "indexes": indexes}
    finally:
        await opened.close()


async def _postgres_schema(url: str) -> dict[str, Any]:
    opened = await Connection.open(url)
    try:
        tables = [
            r[0]
            for r in await opened.all(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
                " ORDER BY table_name"
            )
        ]
        columns = {
            table: [
                (r["column_name"], r["is_nullable"] == "NO")
                for r in await opened.all(
                    "SELECT column_name, is_nullable FROM information_schema.columns"
                    " WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
                    (table,),
                )
            ]
            for table in tables
        }
        indexes = {
            (r["indexname"], " UNIQUE " in r["indexdef"])
            for r in await opened.all(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()"
                " AND indexname NOT LIKE '%_pkey'"
            )
        }
        return {"tables": tables, "columns": columns, "indexes": indexes}
    finally:
        await opened.close()


@pytest.mark.sqlite_only("compares the two backends itself, in one run")
@pytest.mark.asyncio
async def test_both_backends_make_the_same_tables_columns_and_indexes(tmp_path: Path) -> None:
    if not databases.POSTGRES_URL:
        if databases.REQUIRED:
            pytest.fail("RINGSIDE_TEST_POSTGRES_URL is not set, and CI requires PostgreSQL")
        pytest.skip("no PostgreSQL test server (set RINGSIDE_TEST_POSTGRES_URL)")
    sqlite = await _sqlite_schema(tmp_path / "db.sqlite3")
    try:
        postgres = await _postgres_schema(databases.url_for(tmp_path / "pg"))
    finally:
        databases.drop_schemas()
    assert postgres["tables"] == sqlite["tables"]
    assert postgres["columns"] == sqlite["columns"]
    assert postgres["indexes"] == sqlite["indexes"]
