"""Every test that touches storage runs on SQLite and, when ``RINGSIDE_TEST_POSTGRES_URL`` is set, on
PostgreSQL as well.

Tests name their database as a SQLite file (``tmp_path / "db.sqlite3"``), as the bot's default does.
In a test's PostgreSQL run, ``Connection.open`` takes each such path to a fresh schema of the test
server instead (the same schema every time the test opens the same path: a restart finds its data),
and ``sql(path, ...)`` reads or changes that database directly, whichever it is. The schemas are
dropped when the test ends.

Which tests: every test module that opens a store (``Store.open``, a bot, a session manager, the real
process), found by reading the module, so a new one cannot be forgotten. A test that is about SQLite
itself (its file, its locks, its disk) says so with ``@pytest.mark.sqlite_only("why")``; in CI
(``RINGSIDE_REQUIRE_POSTGRES=1``) a missing server fails the run instead of skipping PostgreSQL.
"""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from bot.store import connection as common

POSTGRES_URL = os.environ.get("RINGSIDE_TEST_POSTGRES_URL", "").strip()
REQUIRED = os.environ.get("RINGSIDE_REQUIRE_POSTGRES") == "1"
TOUCHES_STORAGE = re.compile(
    r"Store\.open|start_bot\(|SessionManager\(|process_env|blackbox|Connection\.open"
)

_touching: dict[str, bool] = {}
_schemas: dict[str, str] = {}
"""Each database path of the running PostgreSQL test, resolved, and the schema that stands for it."""
_backend = ["sqlite"]


def touches_storage(module_file: str) -> bool:
    found = _touching.get(module_file)
    if found is None:
        found = bool(TOUCHES_STORAGE.search(Path(module_file).read_text(encoding="utf-8")))
        _touching[module_file] = found
    return found


def backends_for(module_file: str, marks: Sequence[pytest.Mark]) -> list[str]:
    """The backends a test runs on: both when it touches storage and a server is given; only SQLite
    for a test about SQLite itself; only PostgreSQL for one about PostgreSQL itself (without a server,
    that one skips, saying so, except in CI where the missing server is an error)."""
    names = {mark.name for mark in marks}
    if "postgres_only" in names:
        if not POSTGRES_URL and REQUIRED:
            raise pytest.UsageError("RINGSIDE_REQUIRE_POSTGRES=1 but RINGSIDE_TEST_POSTGRES_URL is not set")
        return ["postgres"]
    if not touches_storage(module_file) or "sqlite_only" in names:
        return ["sqlite"]
    if not POSTGRES_URL:
        if REQUIRED:
            raise pytest.UsageError("RINGSIDE_REQUIRE_POSTGRES=1 but RINGSIDE_TEST_POSTGRES_URL is not set")
        return ["sqlite"]
    return ["sqlite", "postgres"]


def backend() -> str:
    """The backend of the running test: "sqlite" or "postgres"."""
    return _backend[0]


def url_for(path: str | Path) -> str:
    """The PostgreSQL URL standing for the SQLite path ``path`` in this test (made on first use)."""
    key = str(Path(path).resolve())
    schema = _schemas.get(key)
    if schema is None:
        schema = f"t_{uuid.uuid4().hex[:16]}"
        _run(_execute(POSTGRES_URL, f"CREATE SCHEMA {schema}"))
        _schemas[key] = schema
    joiner = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{joiner}search_path={schema}"


def target(path: str | Path) -> str | Path:
    """What the bot is given as its database for the SQLite path ``path`` in this test."""
    return url_for(path) if backend() == "postgres" else path


def process_env(path: str | Path) -> dict[str, str]:
    """The environment settings that make a real ``python -m bot`` use ``path``'s database."""
    if backend() == "postgres":
        return {"DATABASE_URL": url_for(path)}
    return {"DATABASE": str(path)}


def sql(path: str | Path, statement: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """Run one statement (``?`` parameters) directly on the test's database at ``path`` and return
    its rows: how a test looks behind the store, or damages what it saved."""
    if backend() != "postgres":
        with sqlite3.connect(path) as conn:
            return [tuple(row) for row in conn.execute(statement, tuple(args)).fetchall()]
    from bot.store.postgres import numbered

    async def run() -> list[tuple[Any, ...]]:
        import asyncpg

        conn = await asyncpg.connect(url_for(path))
        try:
            return [tuple(row) for row in await conn.fetch(numbered(statement), *args)]
        finally:
            await conn.close()

    return _run(run())


@pytest.fixture(autouse=True)
def database_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The backend this run of the test uses (parametrized by ``pytest_generate_tests``)."""
    chosen = getattr(request, "param", "sqlite")
    if chosen == "postgres" and not POSTGRES_URL:
        pytest.skip("a test of PostgreSQL itself: set RINGSIDE_TEST_POSTGRES_URL to run it")
    _backend[0] = chosen
    if chosen == "postgres":
        opened = common.Connection.open

        async def open_on_postgres(where: str | Path) -> common.Connection:
            return await opened(where if common.is_postgres_url(where) else url_for(where))

        monkeypatch.setattr(common.Connection, "open", staticmethod(open_on_postgres))
    try:
        yield chosen
    finally:
        _backend[0] = "sqlite"
        drop_schemas()


def drop_schemas() -> None:
    """Drop the schemas this test made (``url_for``)."""
    if _schemas:
        names = ", ".join(_schemas.values())
        _schemas.clear()
        _run(_execute(POSTGRES_URL, f"DROP SCHEMA IF EXISTS {names} CASCADE"))


async def _execute(url: str, statement: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


def _run(coroutine: Any) -> Any:
    """Run a coroutine to its end from synchronous code, even inside a running event loop."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
