"""The session manager on a real SQLite file: turns, versions, locks, restarts, damaged saves."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.session import Session
from bot.session_errors import MatchDamaged, NotInMatch, NotYourTurn, StaleControl, UserError
from bot.sessions import SessionManager
from bot.store import Store
from engine import find_variant, replay
from tests.databases import sql

ALICE, BOB, STRANGER = 101, 202, 303


async def _manager(path: Path, seed: int = 1) -> SessionManager:
    store = await Store.open(path)
    return SessionManager(store, ManualClock(), rng=random.Random(seed))


async def _start(manager: SessionManager) -> int:
    """A new match whose first board counts as shown (message 1): its turn clock runs."""
    played = await manager.start_match(
        game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    session = played.session
    clock = await manager.clocks.turn_clock(session, manager.clock.now())
    assert await manager.boards.mark_shown(session, 1, clock, session.record.board_version)
    return session.id


async def _started(manager: SessionManager) -> tuple[int, Session, int]:
    """A new ring match between Alice and Bob: its id, its session and the user whose roll it waits for."""
    mid = await _start(manager)
    session = await manager.get(mid)
    assert session.state is not None
    return mid, session, ALICE if session.state.turn == 0 else BOB


@pytest.mark.asyncio
async def test_start_resolves_the_opening_roll_and_saves_it(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    played = await manager.start_match(
        game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    assert played.steps and all(s.notation.startswith("start ") for s in played.steps)
    assert played.session.state is not None and played.session.state.turn in (0, 1)
    log = await manager.store.matches.action_log(played.session.id)
    assert [a.notation for a in log] == [s.notation for s in played.steps]
    await manager.store.close()


@pytest.mark.asyncio
async def test_only_the_player_on_turn_may_roll_and_strangers_are_refused(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid, session, on_turn = await _started(manager)
    other = BOB if on_turn == ALICE else ALICE
    with pytest.raises(NotInMatch):
        await manager.roll(mid, STRANGER, session.version)
    with pytest.raises(NotYourTurn, match="not yours"):
        await manager.roll(mid, other, session.version)
    version = session.version
    played = await manager.roll(mid, on_turn, version)
    assert played.steps[0].notation.startswith("roll ")
    assert played.session.version >= version + 1
    await manager.store.close()


@pytest.mark.asyncio
async def test_a_control_from_an_earlier_position_changes_nothing(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid, session, on_turn = await _started(manager)
    stale = session.version - 1
    before = session.state.canonical()
    with pytest.raises(StaleControl):
        await manager.roll(mid, on_turn, stale)
    assert session.state.canonical() == before
    await manager.store.close()


@pytest.mark.asyncio
async def test_two_simultaneous_clicks_apply_exactly_one_action(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid, session, on_turn = await _started(manager)
    version = session.version
    results = await asyncio.gather(
        manager.roll(mid, on_turn, version), manager.roll(mid, on_turn, version), return_exceptions=True
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert sum(isinstance(r, StaleControl) for r in results) == 1
    log = await manager.store.matches.action_log(mid)
    assert sum(a.notation.startswith("roll ") for a in log) == 1
    await manager.store.close()


@pytest.mark.asyncio
async def test_illegal_action_gets_the_engine_reason_and_changes_nothing(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid, session, on_turn = await _started(manager)
    with pytest.raises(UserError, match="must roll the dice first"):
        await manager.act(mid, on_turn, session.version, "move 1 from 7 by 2")
    with pytest.raises(UserError, match="Cannot read"):
        await manager.act(mid, on_turn, session.version, "fly away")
    await manager.store.close()


@pytest.mark.asyncio
async def test_a_player_cannot_choose_the_dice_by_writing_a_roll_as_notation(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid, session, on_turn = await _started(manager)
    version, log = session.version, await manager.store.matches.action_log(mid)
    with pytest.raises(UserError, match="for chance to decide"):
        await manager.act(mid, on_turn, None, "roll 6-6-6")
    assert session.version == version and await manager.store.matches.action_log(mid) == log
    await manager.store.close()


@pytest.mark.asyncio
async def test_a_whole_game_survives_a_restart_and_replays_from_its_log(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    manager = await _manager(path, seed=4)
    mid = await _start(manager)
    rng = random.Random(9)
    for i in range(400):
        if i == 20:  # restart: a new manager on the same file
            await manager.store.close()
            manager = await _manager(path, seed=5)
        session = await manager.get(mid)
        state = session.state
        assert state is not None
        if state.is_terminal():
            break
        spec = state.chance()
        if spec is not None:
            await manager.roll(mid, session.user_of(spec.prompt_seat or 0), session.version)
        else:
            action = rng.choice(session.position.legal_actions())  # type: ignore[union-attr]
            await manager.act(mid, session.user_of(state.to_move()), session.version, action.notation)
    session = await manager.get(mid)
    assert session.state is not None and session.state.is_terminal()
    assert session.record.status == "finished"
    log = await manager.store.matches.action_log(mid)
    assert replay(find_variant("ring"), {}, [a.notation for a in log]) == session.state
    result = await manager.history.result_of(mid)
    assert result is not None and result.winner == session.state.outcome().winner  # type: ignore[union-attr]
    await manager.store.close()


@pytest.mark.asyncio
async def test_a_damaged_saved_match_is_refused_clearly_and_can_be_abandoned(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    manager = await _manager(path)
    damaged = await _start(manager)
    healthy = await _start(manager)
    await manager.store.close()
    sql(path, "UPDATE matches SET state = ? WHERE id = ?", ('{"game": "ring", "schema": 1}', damaged))
    manager = await _manager(path)
    session = await manager.get(damaged)
    with pytest.raises(MatchDamaged, match="damaged"):
        await manager.roll(damaged, ALICE, session.version)
    other = await manager.get(healthy)
    assert other.state is not None  # every other match keeps working
    played = await manager.ends.resign(damaged, BOB)
    assert played.session.record.status == "abandoned"
    assert await manager.history.result_of(damaged) is None
    await manager.store.close()


@pytest.mark.asyncio
async def test_resignation_is_a_loss_saved_with_the_result(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid = await _start(manager)
    played = await manager.ends.resign(mid, ALICE)
    assert played.finished
    result = await manager.history.result_of(mid)
    assert result is not None and result.winner == 1 and result.reason == "resignation"
    with pytest.raises(UserError, match="over"):
        await manager.ends.resign(mid, BOB)
    await manager.store.close()


@pytest.mark.asyncio
async def test_the_computer_plays_its_own_turns(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3", seed=3)
    computer = 999
    manager.computer_ids.add(computer)
    played = await manager.start_match(
        game="ring",
        options={},
        players=(ALICE, computer),
        guild_id=1,
        channel_id=10,
        parent_id=None,
        rated=False,
    )
    state = played.session.state
    assert state is not None
    # Whoever started, it is now Alice's decision (or the game is over).
    assert state.is_terminal() or state.turn == 0
    await manager.store.close()


@pytest.mark.asyncio
async def test_concurrent_writes_on_one_connection_take_turns(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid, session, on_turn = await _started(manager)
    writes = [manager.store.boards.set_message(mid, 1000 + i) for i in range(20)]
    await asyncio.gather(manager.roll(mid, on_turn, session.version), *writes)
    assert len(await manager.store.matches.action_log(mid)) == session.version
    await manager.store.close()


async def _play_to_the_end(manager: SessionManager, mid: int, seed: int = 9) -> None:
    rng = random.Random(seed)
    for _ in range(2000):
        session = await manager.get(mid)
        state = session.state
        assert state is not None
        if state.is_terminal():
            return
        spec = state.chance()
        if spec is not None:
            await manager.roll(mid, session.user_of(spec.prompt_seat or 0), session.version)
        else:
            action = rng.choice(session.position.legal_actions())  # type: ignore[union-attr]
            await manager.act(mid, session.user_of(state.to_move()), session.version, action.notation)
    raise AssertionError("the match did not end")


@pytest.mark.asyncio
async def test_a_finished_match_leaves_memory_and_is_read_again_from_the_store(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3", seed=4)
    try:
        mid = await _start(manager)
        assert manager.in_memory(mid)
        await _play_to_the_end(manager, mid)
        assert not manager.in_memory(mid)
        # Still readable (a Rematch, a late click on an old board), but not kept once read.
        session = await manager.get(mid)
        assert session.record.status == "finished"
        assert session.state is not None and session.state.is_terminal()
        assert not manager.in_memory(mid)
        with pytest.raises(UserError, match="over"):
            await manager.roll(mid, ALICE, session.version)
        # The result message's board is saved without bringing the match back.
        await manager.boards.set_message(mid, None)
        assert not manager.in_memory(mid)
        assert (await manager.get(mid)).record.message_id is None
    finally:
        await manager.store.close()


@pytest.mark.asyncio
async def test_resigned_timed_out_and_abandoned_matches_leave_memory(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    manager = await _manager(path)
    try:
        resigned, timed_out, damaged = await _start(manager), await _start(manager), await _start(manager)
        played = await manager.ends.resign(resigned, ALICE)
        assert played.finished and played.session.record.status == "finished"
        assert not manager.in_memory(resigned)
        clock = manager.clock
        assert isinstance(clock, ManualClock)
        clock.advance(49 * 3600)
        assert await manager.clocks.timeout(timed_out) is not None
        assert not manager.in_memory(timed_out)
        assert (await manager.get(timed_out)).record.status == "finished"
    finally:
        await manager.store.close()
    sql(path, "UPDATE matches SET state = 'not json' WHERE id = ?", (damaged,))
    manager = await _manager(path)
    try:
        await manager.get(damaged)
        assert manager.in_memory(damaged)  # an active match, even a damaged one, is kept
        assert (await manager.ends.resign(damaged, BOB)).session.record.status == "abandoned"
        assert not manager.in_memory(damaged)
        assert (await manager.get(damaged)).record.status == "abandoned"
    finally:
        await manager.store.close()


@pytest.mark.asyncio
async def test_a_board_posted_while_the_match_moved_on_is_noted_and_left_behind(tmp_path: Path) -> None:
    """A click can arrive between the post of a board and its note: the board is still recorded as the
    match's message (to edit or retire next), the match stays behind, and its clock waits."""
    manager = await _manager(tmp_path / "db.sqlite3")
    try:
        played = await manager.start_match(
            game="ring",
            options={},
            players=(ALICE, BOB),
            guild_id=1,
            channel_id=10,
            parent_id=None,
            rated=True,
        )
        session = played.session
        first = session.record.board_version
        assert session.state is not None
        spec = session.state.chance()
        assert spec is not None and spec.prompt_seat is not None
        await manager.roll(session.id, session.user_of(spec.prompt_seat), session.version)
        assert await manager.boards.mark_shown(session, 555, None, first)
        record = await manager.store.matches.get(session.id)
        assert record is not None and record.message_id == 555 and record.shown_version == first
        assert record.behind and session.record.behind and session.record.message_id == 555
        assert not await manager.boards.mark_shown(session, 556, None, first)  # noted once
    finally:
        await manager.store.close()
