"""Two processes on one database (two session managers, each with its own connection and its own
copies of the matches in memory): neither acts on an old copy.

A control made by the other process's move is taken (the copy is read again), a control older than the
saved match is refused, and a timeout or resignation is decided on the saved match, never on an old
copy that would forfeit a player who has just moved. Runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.clock import ManualClock
from bot.session import StaleControl
from bot.sessions import SessionManager
from bot.store import Store
from tests.bot.test_sessions import _start

ALICE, BOB = 101, 202


@pytest_asyncio.fixture
async def pair(tmp_path: Path) -> AsyncIterator[tuple[SessionManager, SessionManager]]:
    clock = ManualClock()
    first = SessionManager(await Store.open(tmp_path / "db.sqlite3"), clock, rng=random.Random(1))
    second = SessionManager(await Store.open(tmp_path / "db.sqlite3"), clock, rng=random.Random(2))
    yield first, second
    await first.store.close()
    await second.store.close()


def _on_turn(state_turn: int) -> int:
    return ALICE if state_turn == 0 else BOB


@pytest.mark.asyncio
async def test_a_control_made_by_the_other_process_is_taken_and_an_older_one_refused(
    pair: tuple[SessionManager, SessionManager],
) -> None:
    first, second = pair
    mid = await _start(first)
    old = await first.get(mid)  # the first process holds a copy
    assert old.state is not None
    version_before = old.version
    # The other process rolls for the player on turn: the saved match moves on.
    theirs = await second.get(mid)
    assert theirs.state is not None
    played = await second.roll(mid, _on_turn(theirs.state.turn), theirs.version)
    newer = played.session.version
    assert newer > version_before and (await first.get(mid)).version == version_before  # still old here
    # A click on the board the other process showed reaches the first process: taken, not "stale".
    session = await first.current(mid, newer)
    assert session.version == newer and session.state == played.session.state
    # A click on the board before the roll is refused, and changes nothing.
    with pytest.raises(StaleControl):
        await first.roll(mid, _on_turn(old.state.turn), version_before)
    saved = await first.store.matches.get(mid)
    assert saved is not None and saved.version == newer


@pytest.mark.asyncio
async def test_a_timeout_is_decided_on_the_saved_match_not_an_old_copy(
    pair: tuple[SessionManager, SessionManager],
) -> None:
    """The first process's copy says the player on turn is out of time; meanwhile they moved (in the
    other process), which started a new clock: nobody loses."""
    first, second = pair
    mid = await _start(first)
    copy = await first.get(mid)
    assert copy.state is not None and copy.record.timeout_at is not None
    first.clock.advance(copy.record.timeout_at - first.clock.now() - 1)  # the player moves in time
    theirs = await second.get(mid)
    assert theirs.state is not None
    await second.roll(mid, _on_turn(theirs.state.turn), theirs.version)
    first.clock.advance(2)  # the old clock has run out; the saved match has another one
    assert await first.clocks.timeout(mid) is None
    saved = await first.store.matches.get(mid)
    assert saved is not None and saved.status == "active"
    assert await first.store.matches.result(mid) is None


@pytest.mark.asyncio
async def test_a_resignation_is_computed_from_the_saved_match(
    pair: tuple[SessionManager, SessionManager],
) -> None:
    first, second = pair
    mid = await _start(first)
    await first.get(mid)
    theirs = await second.get(mid)
    assert theirs.state is not None
    played = await second.roll(mid, _on_turn(theirs.state.turn), theirs.version)
    ended = await first.ends.resign(mid, ALICE)
    assert ended.session.record.status == "finished"
    # The final board follows the roll the other process saved: nothing of it was lost.
    assert ended.session.record.version == played.session.version + 1
    log = await first.store.matches.action_log(mid)
    assert [a.notation for a in log][-len(played.steps) :] == [s.notation for s in played.steps]
