"""Fixtures shared by every test module (helpers that are not fixtures live in ``tests/support.py``)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio

from fakediscord import FakeDiscord
from tests import databases, oracles
from tests.databases import database_backend

__all__ = ["database_backend"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): a test about SQLite itself (its file, locks, disk); not run on PostgreSQL",
    )
    config.addinivalue_line(
        "markers",
        "postgres_only(reason): a test about PostgreSQL itself (its locks, its server); not run on SQLite",
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A test that failed before closing its bot leaves the store's SQLite thread running, and that
    thread (not a daemon) would keep the test process alive for ever after the report: stop them."""
    import aiosqlite.core

    for thread in threading.enumerate():
        if getattr(thread, "_target", None) is aiosqlite.core._connection_worker_thread:
            (queue,) = getattr(thread, "_args", (None,))
            if queue is not None:
                queue.put((None, lambda: aiosqlite.core._STOP_RUNNING_SENTINEL))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In CI (``RINGSIDE_REQUIRE_POSTGRES=1``) a PostgreSQL run of a test that skips is a failure."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]
    callspec = getattr(item, "callspec", None)
    on_postgres = callspec is not None and callspec.params.get("database_backend") == "postgres"
    if databases.REQUIRED and on_postgres and report.skipped:
        report.outcome = "failed"
        report.longrepr = f"{item.nodeid} skipped on PostgreSQL, which CI requires: {report.longrepr}"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Each test that touches storage once per backend (tests/databases.py)."""
    if "database_backend" not in metafunc.fixturenames:
        return
    chosen = databases.backends_for(str(metafunc.module.__file__), list(metafunc.definition.iter_markers()))
    if chosen != ["sqlite"]:
        metafunc.parametrize("database_backend", chosen, indirect=True)


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """An installed in-process fake Discord; bots connected to it are closed at the end."""
    async with FakeDiscord() as f:
        yield f


@pytest.fixture
def gnubg_program() -> str:
    """The GNU Backgammon program's path; without it the test skips (fails under CI: tests/oracles.py)."""
    return oracles.gnubg_program()
