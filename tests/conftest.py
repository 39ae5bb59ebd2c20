"""Fixtures shared by every test module (helpers that are not fixtures live in ``tests/support.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from fakediscord import FakeDiscord
from tests import oracles


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    """An installed in-process fake Discord; bots connected to it are closed at the end."""
    async with FakeDiscord() as f:
        yield f


@pytest.fixture
def gnubg_program() -> str:
    """The GNU Backgammon program's path; without it the test skips (fails under CI: tests/oracles.py)."""
    return oracles.gnubg_program()
