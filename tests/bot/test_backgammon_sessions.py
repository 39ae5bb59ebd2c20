"""Backgammon through the session manager: checker moves are a draft until Confirm, cube decisions
and typed plays are final at once, games follow each other, the match result counts its length."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot.clock import ManualClock
from bot.session import UserError
from bot.sessions import SessionManager
from bot.store import Store
from engine.backgammon.game import BackgammonState, MoveChecker, Phase

ALICE, BOB = 101, 202


@pytest_asyncio.fixture
async def manager(tmp_path: Path) -> AsyncIterator[SessionManager]:
    made = SessionManager(await Store.open(tmp_path / "db.sqlite3"), ManualClock(), rng=random.Random(3))
    yield made
    await made.store.close()


async def start(manager: SessionManager, length: int) -> int:
    played = await manager.start_match(
        game="backgammon",
        options={"length": length},
        players=(ALICE, BOB),
        guild_id=1,
        channel_id=10,
        parent_id=None,
        rated=True,
    )
    return played.session.id


async def position(manager: SessionManager, mid: int) -> tuple[BackgammonState, int]:
    """The committed position and the user who decides in it."""
    session = await manager.get(mid)
    state = session.state
    assert isinstance(state, BackgammonState)
    return state, session.user_of(state.to_move())


async def move_one_at_a_time(manager: SessionManager, mid: int) -> None:
    """The player on turn moves checker by checker (first offered move each time) and confirms."""
    session = await manager.get(mid)
    user = session.user_of(session.state.to_move())  # type: ignore[union-attr]
    while not session.awaiting_confirmation:
        now = session.position
        assert isinstance(now, BackgammonState) and now.phase is Phase.PLAY
        step = next((a for a in now.legal_actions() if isinstance(a, MoveChecker)), None)
        if step is None:  # the rest is forced: played by itself within the draft
            break
        await manager.act(mid, user, session.version, step.notation)
    await manager.drafts.confirm(mid, user, session.version)


@pytest.mark.asyncio
async def test_the_opening_roll_is_made_by_itself_and_moves_wait_for_confirm(manager: SessionManager) -> None:
    mid = await start(manager, 1)
    state, user = await position(manager, mid)
    assert state.phase is Phase.PLAY and state.dice is not None and state.dice[0] != state.dice[1]
    session = await manager.get(mid)
    step = next(a for a in state.legal_actions() if isinstance(a, MoveChecker))
    played = await manager.act(mid, user, session.version, step.notation)
    assert played.draft and session.state is state  # nothing final yet
    log = await manager.store.matches.action_log(mid)
    while not session.awaiting_confirmation:
        nxt = session.position
        assert isinstance(nxt, BackgammonState)
        follow = next((a for a in nxt.legal_actions() if isinstance(a, MoveChecker)), None)
        if follow is None:
            break
        await manager.act(mid, user, session.version, follow.notation)
    assert session.awaiting_confirmation
    with pytest.raises(UserError, match="confirm it"):
        await manager.act(mid, user, session.version, "roll")
    done = await manager.drafts.confirm(mid, user, session.version)
    assert not done.draft
    after, _ = await position(manager, mid)
    # In a 1-point match nobody doubles: the next player's dice are rolled at once.
    assert after.turn != state.turn and after.phase is Phase.PLAY
    assert len(await manager.store.matches.action_log(mid)) > len(log)


@pytest.mark.asyncio
async def test_roll_double_take_and_pass_are_final_at_once(manager: SessionManager) -> None:
    mid = await start(manager, 5)
    await move_one_at_a_time(manager, mid)
    state, user = await position(manager, mid)
    assert state.phase is Phase.DECIDE
    session = await manager.get(mid)
    doubled = await manager.act(mid, user, session.version, "double")
    assert not doubled.draft
    state, taker = await position(manager, mid)
    assert state.phase is Phase.TAKE and taker != user
    took = await manager.act(mid, taker, session.version, "take")
    assert not took.draft
    state, _ = await position(manager, mid)
    assert state.cube == 2 and state.phase is Phase.PLAY  # the doubler's dice came by themselves
    await move_one_at_a_time(manager, mid)
    state, owner = await position(manager, mid)
    assert owner == taker and state.phase is Phase.DECIDE
    await manager.act(mid, owner, session.version, "double")
    _, answerer = await position(manager, mid)
    await manager.act(mid, answerer, session.version, "pass")
    state, _ = await position(manager, mid)
    assert sum(state.score) == 2 and state.game_number == 2
    assert state.phase is Phase.PLAY  # the next game's opening roll came by itself


@pytest.mark.asyncio
async def test_a_typed_whole_play_is_final_at_once(manager: SessionManager) -> None:
    mid = await start(manager, 1)
    state, user = await position(manager, mid)
    session = await manager.get(mid)
    play = state.plays()[0]
    from engine.backgammon.notation import play_text

    played = await manager.act(mid, user, session.version, play_text(play))
    assert not played.draft
    after, _ = await position(manager, mid)
    assert after.turn != state.turn


@pytest.mark.asyncio
async def test_an_accepted_resignation_scores_the_game_and_the_match_result_counts_its_length(
    manager: SessionManager,
) -> None:
    mid = await start(manager, 3)
    await move_one_at_a_time(manager, mid)
    state, user = await position(manager, mid)
    session = await manager.get(mid)
    await manager.act(mid, user, session.version, "resign backgammon")
    _, other = await position(manager, mid)
    await manager.act(mid, other, session.version, "accept")
    result = await manager.history.result_of(mid)
    assert result is not None and result.length == 3 and result.points == 3
    assert result.winner == 1 - (state.turn or 0)


@pytest.mark.asyncio
async def test_a_play_in_progress_survives_a_restart(manager: SessionManager, tmp_path: Path) -> None:
    mid = await start(manager, 1)
    state, user = await position(manager, mid)
    session = await manager.get(mid)
    step = next(a for a in state.legal_actions() if isinstance(a, MoveChecker))
    await manager.act(mid, user, session.version, step.notation)
    again = SessionManager(await Store.open(tmp_path / "db.sqlite3"), ManualClock(), rng=random.Random(3))
    try:
        reread = await again.get(mid)
        assert reread.draft == session.draft and reread.position == session.position
        assert isinstance(reread.position, BackgammonState) and reread.position.played
    finally:
        await again.store.close()
