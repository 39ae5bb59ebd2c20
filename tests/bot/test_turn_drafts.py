"""Undo and Confirm of a turn in progress, shared by every game (issue 9): a player's steps stay in a
private panel until the turn is complete (ring: its last step; a game with ``CONFIRM``: the Confirm
button); the opponent never sees a step that was taken back; the whole turn is shown when it ends."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from bot.clock import ManualClock
from bot.session import StaleControl, UserError
from bot.sessions import SessionManager
from bot.store import Store
from engine import GameState, find_variant, replay
from engine.ring import Move
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, live_board, match_id_of, user_on_turn
from tests.support import register_ring_confirmed, start_bot, stop_bot

ALICE, BOB = 101, 202


@pytest_asyncio.fixture
async def open_manager() -> AsyncIterator[Callable[[Path], Awaitable[SessionManager]]]:
    """Opens session managers on a file; their stores are closed after the test."""
    opened: list[SessionManager] = []

    async def make(path: Path) -> SessionManager:
        manager = SessionManager(await Store.open(path), ManualClock(), rng=random.Random(1))
        opened.append(manager)
        return manager

    yield make
    for manager in opened:
        await manager.store.close()


async def _to_a_two_step_turn(manager: SessionManager, game: str) -> tuple[int, int]:
    """A new match of ``game`` played (first legal choices) until a player has two dice to move with
    after a roll: (match id, that player's user id)."""
    played = await manager.start_match(
        game=game, options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    mid = played.session.id
    return mid, await reach_a_two_step_turn(manager, mid)


async def reach_a_two_step_turn(manager: SessionManager, mid: int) -> int:
    """Match ``mid`` played on (first legal choices) until a player has two dice to move with after a
    roll: that player's user id."""
    for _ in range(200):
        session = await manager.get(mid)
        state = session.state
        assert state is not None
        spec = state.chance()
        if spec is not None:
            await manager.roll(mid, session.user_of(spec.prompt_seat or 0), session.version)
            continue
        position = session.position
        assert position is not None
        moves = [a for a in position.legal_actions() if isinstance(a, Move)]
        dice = {m.die for m in moves}
        if not session.draft and len(dice) == 2 and len(position.legal_actions()) > 2:
            return session.user_of(state.to_move())
        await manager.act(
            mid, session.user_of(state.to_move()), session.version, position.legal_actions()[0].notation
        )
    raise AssertionError("no two-step turn in 200 actions")


def first_move(state: GameState) -> str:
    return next(a for a in state.legal_actions() if isinstance(a, Move)).notation


@pytest.mark.asyncio
async def test_a_step_before_the_last_is_a_draft_only_its_player_sees(
    tmp_path: Path, open_manager: Callable[[Path], Awaitable[SessionManager]]
) -> None:
    manager = await open_manager(tmp_path / "db.sqlite3")
    mid, user = await _to_a_two_step_turn(manager, "ring")
    session = await manager.get(mid)
    committed, log_before = session.state, await manager.store.matches.action_log(mid)
    assert committed is not None
    played = await manager.act(mid, user, session.version, first_move(committed))
    assert played.draft and len(session.draft) == 1
    # Saved (it survives a restart) but not final: the public position and the log are unchanged.
    assert session.state is committed
    assert await manager.store.matches.action_log(mid) == log_before
    record = await manager.store.matches.get(mid)
    assert record is not None and len(record.draft) == 1 and record.board_version < record.version
    # After a restart the draft is read back.
    again = await open_manager(tmp_path / "db.sqlite3")
    reread = await again.get(mid)
    assert reread.draft == session.draft and reread.position == session.position


@pytest.mark.asyncio
async def test_undo_takes_back_the_latest_step_and_a_stale_control_is_refused(
    tmp_path: Path, open_manager: Callable[[Path], Awaitable[SessionManager]]
) -> None:
    manager = await open_manager(tmp_path / "db.sqlite3")
    mid, user = await _to_a_two_step_turn(manager, "ring")
    session = await manager.get(mid)
    assert session.state is not None
    start = session.state
    first = await manager.act(mid, user, session.version, first_move(start))
    version_after_step = first.session.version
    undone = await manager.drafts.undo(mid, user, session.version)
    assert undone.draft and session.draft == () and session.position == start
    # A control drawn for the draft's step is now behind: refused, nothing changes.
    with pytest.raises(StaleControl):
        await manager.act(mid, user, version_after_step, first_move(start))
    with pytest.raises(UserError, match="no step of this turn to take back"):
        await manager.drafts.undo(mid, user, session.version)
    # The opponent cannot undo the player's steps.
    other = BOB if user == ALICE else ALICE
    await manager.act(mid, user, session.version, first_move(start))
    with pytest.raises(UserError):
        await manager.drafts.undo(mid, other, session.version)


@pytest.mark.asyncio
async def test_ring_turn_is_final_with_its_last_step_and_logged_without_taken_back_steps(
    tmp_path: Path, open_manager: Callable[[Path], Awaitable[SessionManager]]
) -> None:
    manager = await open_manager(tmp_path / "db.sqlite3")
    mid, user = await _to_a_two_step_turn(manager, "ring")
    session = await manager.get(mid)
    assert session.state is not None
    await manager.act(mid, user, session.version, first_move(session.state))
    await manager.drafts.undo(mid, user, session.version)
    before = len(await manager.store.matches.action_log(mid))
    await manager.act(mid, user, session.version, first_move(session.state))
    position = session.position
    assert position is not None
    final = await manager.act(mid, user, session.version, position.legal_actions()[0].notation)
    assert not final.draft and final.decider_changed
    log = await manager.store.matches.action_log(mid)
    assert len(log) >= before + 2  # both steps (and whatever followed by itself), nothing undone
    variant = find_variant("ring")
    assert replay(variant, {}, [a.notation for a in log]) == session.state
    # The board to show says the whole turn: the roll and both steps.
    record = session.record
    texts = [s["text"] for s in record.board_steps]
    assert any("rolled" in t for t in texts) and sum(" moved " in t for t in texts) >= 2


@pytest.mark.asyncio
async def test_a_game_with_confirm_waits_for_it_and_undo_works_until_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, open_manager: Callable[[Path], Awaitable[SessionManager]]
) -> None:
    register_ring_confirmed(monkeypatch)
    manager = await open_manager(tmp_path / "db.sqlite3")
    mid, user = await _to_a_two_step_turn(manager, "ringc")
    session = await manager.get(mid)
    assert session.state is not None
    committed = session.state
    with pytest.raises(UserError, match="not complete"):
        await manager.drafts.confirm(mid, user, session.version)
    await manager.act(mid, user, session.version, first_move(committed))
    position = session.position
    assert position is not None
    last = await manager.act(mid, user, session.version, position.legal_actions()[0].notation)
    # The complete turn waits: still a draft, the public position unchanged.
    assert last.draft and session.awaiting_confirmation and session.state is committed
    with pytest.raises(UserError, match="confirm it"):
        await manager.act(mid, user, session.version, "roll")
    await manager.drafts.undo(mid, user, session.version)
    assert not session.awaiting_confirmation and len(session.draft) == 1
    position = session.position
    assert position is not None
    await manager.act(mid, user, session.version, position.legal_actions()[0].notation)
    confirmed = await manager.drafts.confirm(mid, user, session.version)
    assert not confirmed.draft and confirmed.decider_changed and session.draft == ()


def _public_text(fake: FakeDiscord, channel_id: int) -> str:
    """Everything everyone in the channel can read, every version of every message included."""
    parts = []
    for message in fake.messages_in(channel_id):
        if message.visible_to is None:
            parts.append(str([message.content, message.embeds, *message.history]))
    return "\n".join(parts)


async def _roll(fake: FakeDiscord, board: FakeMessage, user: FakeUser) -> FakeMessage:
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    assert roll is not None
    await fake.click(user, board, roll, idle=True)
    return fake.message(board)


@pytest.mark.asyncio
async def test_through_discord_the_opponent_never_sees_a_step_taken_back(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=1)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    player = user_on_turn(board, users)
    assert player is not None
    board = await _roll(fake, board, player)  # seed 1: Blue has 1 and 3 to play
    step = next(c for c in board.custom_ids if ":a:" in c)
    public_before = fake.message(board).embeds
    opened = await fake.click(player, board, step, idle=True)
    panel = opened.private
    assert panel is not None and panel.visible_to == player.id and "Your turn so far" in panel.content
    assert panel.attachments, "the private panel shows the position after the step"
    assert fake.message(board).embeds == public_before  # the board everyone sees did not move
    undo = next(b.custom_id for b in panel.buttons if b.label == "Undo")
    assert undo is not None
    taken_back_text = panel.content.split("1. ", 1)[1].split("\n", 1)[0]
    await fake.click(player, panel, undo, idle=True)
    panel = fake.message(panel)
    assert "Every step is taken back." in panel.content
    # Play the turn out in the panel: the last step hands the turn over, with the whole turn said.
    for _ in range(4):
        panel = fake.message(panel)
        choices = [b for b in panel.buttons if not b.disabled and (b.custom_id or "").count(":a:")]
        if not choices:
            break
        await fake.click(player, panel, choices[-1].custom_id or "", idle=True)
    handover = live_board(fake, board.channel_id)
    assert handover.id != board.id and user_on_turn(handover, users) is not player
    said = str(handover.embeds)
    assert said.count(" moved ") >= 2 and "rolled" in said
    if taken_back_text not in said:
        assert taken_back_text not in _public_text(fake, board.channel_id)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_turn_in_progress_survives_a_restart_and_the_old_board_reopens_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, seed=1)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    player = user_on_turn(board, users)
    assert player is not None
    board = await _roll(fake, board, player)
    step = next(c for c in board.custom_ids if ":a:" in c)
    await fake.click(player, board, step, idle=True)
    await stop_bot(bot)
    bot = await start_bot(fake, db, seed=2)
    # The old public board (its controls are behind the draft) brings the private panel back.
    other_step = [c for c in fake.message(board).custom_ids if ":a:" in c][-1]
    reopened = await fake.click(player, fake.message(board), other_step, idle=True)
    assert reopened.private is not None and "turn in progress" in reopened.private.content
    assert "1. " in reopened.private.content
    session = await bot.sessions.get(mid)
    assert len(session.draft) == 1
    # The opponent clicking the same old control is only told it is not theirs.
    other = bob if player is alice else alice
    refused = await fake.click(other, fake.message(board), other_step, idle=True)
    assert refused.private is not None and "turn in progress" not in refused.private.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_older_private_panel_of_a_turn_in_progress_clicked_becomes_the_turn_s_panel(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Two private panels of one turn (the public board clicked during it sends the turn again): a
    step taken on the newer one leaves the older one behind; a click on the older one turns that
    message into the turn as it stands (no third panel, no older one keeping controls)."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=1)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    player = user_on_turn(board, users)
    assert player is not None
    board = await _roll(fake, board, player)
    steps = [c for c in board.custom_ids if ":a:" in c]
    first = (await fake.click(player, board, steps[0], idle=True)).private
    assert first is not None and "Undo" in [b.label for b in first.buttons]
    again = (await fake.click(player, fake.message(board), steps[-1], idle=True)).private
    assert again is not None and again.id != first.id and "turn in progress" in again.content
    undo = next(b.custom_id or "" for b in again.buttons if b.label == "Undo")
    await fake.click(player, again, undo, idle=True)
    version = (await bot.sessions.get(mid)).version
    stale = next(c for c in fake.message(first).custom_ids if ":a:" in c or c.endswith(":undo"))
    assert f":{version}:" not in stale, "the older panel is behind"
    private_before = [m.id for m in fake.messages_in(board.channel_id) if m.visible_to == player.id]
    answered = await fake.click(player, fake.message(first), stale, idle=True)
    now = fake.message(first)
    assert now.content.startswith("You have a turn in progress: carry on here"), now.content
    assert answered.private is not None and answered.private.id == first.id
    live = [c for c in now.custom_ids if c.startswith("g:")]
    assert live and all(f"g:{mid}:{version}:" in c for c in live), (live, version)
    private_after = [m.id for m in fake.messages_in(board.channel_id) if m.visible_to == player.id]
    assert private_after == private_before, "no new private message"
    assert (await bot.sessions.get(mid)).version == version
    fake.assert_clean()
    await stop_bot(bot)
