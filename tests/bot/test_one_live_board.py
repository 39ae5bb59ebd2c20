"""Exactly one live board per match, always the one the store knows (issue 21): ``/board`` racing a
click, many ``/board`` at once, a note of the board that fails after its post, and controls on a public
board that carry nothing about a turn in progress.

Races are made deterministic with the fake's ``hold`` (requests wait unanswered until released);
the kill of the real process between a post and its note is in ``test_process.py``.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

from app.client import RingsideBot
from bot.store import WriteFailed
from bot.store.connection import WRITE_FAILED
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, controls_of, match_id_of, pick_control, user_on_turn
from tests.bot.test_board_repair import scheduled_bot
from tests.bot.test_turn_drafts import first_move, reach_a_two_step_turn
from tests.support import start_bot, stop_bot

EDIT_ORIGINAL = r"^/webhooks/\d+/[^/]+/messages/@original$"
POST_MESSAGE = r"^/channels/\d+/messages$"
GAME_CONTROL = ("g:", "hand:", "rsk:")


def live_boards(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    """The public messages of the channel with an enabled control of a match (the Rules button
    aside, which belongs to no match)."""
    return [
        m
        for m in fake.messages_in(channel_id)
        if m.visible_to is None
        and any(not c.disabled and (c.custom_id or "").startswith(GAME_CONTROL) for c in m.all_components)
    ]


async def one_live_board(fake: FakeDiscord, bot: RingsideBot, match_id: int, channel_id: int) -> FakeMessage:
    """The match's only live board, checked to be the one the store knows, with controls of the
    committed version."""
    record = await bot.store.matches.get(match_id)
    assert record is not None and not record.behind
    boards = live_boards(fake, channel_id)
    assert [b.id for b in boards] == [record.message_id], f"{len(boards)} live boards"
    versions = {int(c.split(":")[2]) for c in boards[0].custom_ids if c.startswith("g:")}
    assert versions <= {record.board_version}
    return boards[0]


def roll_id(board: FakeMessage) -> str:
    found = next(b.custom_id for b in board.buttons if b.label == "Roll")
    assert found is not None
    return found


async def ring_match(fake: FakeDiscord) -> tuple[dict[int, FakeUser], FakeMessage, int, FakeUser]:
    """A ring match between two new players: (the players, its first board, its id, who is on turn)."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    player = user_on_turn(board, users)
    assert player is not None
    return users, board, match_id_of(board), player


@pytest.mark.asyncio
async def test_board_racing_a_click_leaves_one_live_board_that_works(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    _users, board, match_id, player = await ring_match(fake)
    # The roll is saved, and its board is on its way to Discord (held) when /board comes in.
    gate = fake.hold("PATCH", EDIT_ORIGINAL)
    await fake.click(player, board, roll_id(board))
    await fake.wait_for(lambda: len(gate.waiting) == 1, what="the rolled board on its way")
    asked = await fake.slash(player, "board", channel=board.channel_id)
    for _ in range(100):  # whatever /board can do before the roll's board arrives, it does now
        await asyncio.sleep(0)
    gate.release()
    await fake.wait_idle()
    assert asked.private is not None and "posted again below" in asked.private.content
    live = await one_live_board(fake, bot, match_id, board.channel_id)
    assert live.id != board.id and "rolled" in str(live.embeds)
    # Its controls work: the player's move is taken.
    record = await bot.store.matches.get(match_id)
    assert record is not None
    move = next(c for c in live.custom_ids if ":a:" in c)
    await fake.click(player, live, move, idle=True)
    assert (await bot.store.matches.get(match_id)).version > record.version  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_many_board_commands_at_once_leave_one_live_board(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    users, board, match_id, player = await ring_match(fake)
    other = next(u for u in users.values() if u.id != player.id)
    asked = await asyncio.gather(
        *(fake.slash(user, "board", channel=board.channel_id) for user in [player, other] * 10)
    )
    await fake.wait_idle()
    assert all(a.private is not None for a in asked)
    await one_live_board(fake, bot, match_id, board.channel_id)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_board_whose_note_fails_after_its_post_is_posted_once_and_only_live_when_noted(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, clock = await scheduled_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    challenge = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert challenge.message is not None
    # The disk fills after the first board is posted: noting it fails five times.
    note = bot.store.boards.mark_shown
    failures = 5

    async def full_disk(*args: Any, **kwargs: Any) -> bool:
        nonlocal failures
        if failures:
            failures -= 1
            raise WriteFailed(WRITE_FAILED)
        return await note(*args, **kwargs)

    monkeypatch.setattr(bot.store.boards, "mark_shown", full_disk)
    accept = next(c for c in challenge.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, challenge.message, accept, idle=True)
    thread = fake.thread_of(challenge.message)
    assert thread is not None
    while failures:
        assert live_boards(fake, thread.id) == []  # posted, but not noted: no live control on it
        clock.advance(3600)
        await bot.run_due_tasks()
    clock.advance(3600)
    await bot.run_due_tasks()  # the disk has room again
    [board] = fake.messages_in(thread)  # every try returned the same message (its nonce)
    [record] = await bot.store.matches.active()
    assert await one_live_board(fake, bot, record.id, thread.id) == board
    fake.assert_clean()
    await stop_bot(bot)


async def draft_a_step(bot: RingsideBot, match_id: int) -> int:
    """Play the match on until a player is in a turn with two steps, then take one of them (a draft
    only its player sees); returns that player's user id."""
    user = await reach_a_two_step_turn(bot.sessions, match_id)
    session = await bot.sessions.get(match_id)
    assert session.state is not None
    played = await bot.sessions.act(match_id, user, session.version, first_move(session.state))
    assert played.draft
    return user


@pytest.mark.asyncio
async def test_a_public_board_shows_nothing_of_a_turn_in_progress_and_cannot_add_to_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    users, board, match_id, _ = await ring_match(fake)
    drafting = users[await draft_a_step(bot, match_id)]
    opponent = next(u for u in users.values() if u.id != drafting.id)
    await bot.run_due_tasks()  # the committed turns so far are shown
    before = await bot.store.matches.get(match_id)
    assert before is not None and before.draft and before.version > before.board_version
    await fake.slash(drafting, "board", channel=board.channel_id, idle=True)
    live = await one_live_board(fake, bot, match_id, board.channel_id)  # controls of the committed version
    move = next(c for c in live.custom_ids if ":a:" in c)
    # The drafting player's click is sent to their private panel; the draft does not change.
    mine = await fake.click(drafting, live, move, idle=True)
    assert mine.private is not None and "turn in progress" in mine.private.content
    # The opponent learns nothing about it: it is simply not their turn.
    theirs = await fake.click(opponent, live, move, idle=True)
    assert theirs.private is not None and "not yours" in theirs.private.content
    after = await bot.store.matches.get(match_id)
    assert after is not None and (after.version, after.draft) == (before.version, before.draft)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_click_saved_while_its_board_is_being_noted_does_not_undo_the_note(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    challenge = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert challenge.message is not None
    # The first board is posted; Discord's answer (its id) is slow to come back.
    gate = fake.hold("POST", POST_MESSAGE, answered=True)
    accept = next(c for c in challenge.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, challenge.message, accept)
    await fake.wait_for(lambda: len(gate.waiting) == 1, what="the first board, posted")
    thread = fake.thread_of(challenge.message)
    assert thread is not None
    [board] = fake.messages_in(thread)
    [match] = await bot.store.matches.active()
    session = await bot.sessions.get(match.id)
    record_actions = bot.store.matches.record_actions

    async def while_noted(*args: Any, **kwargs: Any) -> bool:
        # The roll is being saved when the board's id comes back and is noted.
        gate.release()
        while session.record.shown_version is None:
            await asyncio.sleep(0)
        return await record_actions(*args, **kwargs)

    monkeypatch.setattr(bot.store.matches, "record_actions", while_noted)
    player = user_on_turn(board, users)
    assert player is not None
    await fake.click(player, board, roll_id(board), idle=True)
    await fake.wait_idle()
    # The roll is on the live board, the one the store knows (edited in place, or posted anew).
    live = await one_live_board(fake, bot, match.id, thread.id)
    assert "rolled" in str(live.embeds)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_click_on_a_board_posted_but_not_yet_noted_is_taken(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A new board is on Discord a moment before its id is noted in the store; a player quick enough
    to click it then is answered when the note is made, not told the control belongs elsewhere."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    users, board, match_id, _player = await ring_match(fake)
    gate = fake.hold("POST", POST_MESSAGE, answered=True)
    rng = random.Random(3)
    for _ in range(20):  # the first turn's steps, until its end posts the next board
        where, user = controls_of(fake, board.channel_id, users)
        assert user is not None
        kind, custom_id, values = pick_control(where, rng)
        if kind == "select":
            await fake.select(user, where, custom_id, values or [])
        else:
            await fake.click(user, where, custom_id)
        # The step is shown (the bot is idle again), or the turn's end is posting the next board.
        idle = asyncio.create_task(fake.wait_idle())
        posted = asyncio.create_task(fake.wait_for(lambda: bool(gate.waiting), what="a new board"))
        _done, pending = await asyncio.wait({idle, posted}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if gate.waiting:
            break
    assert gate.waiting, "no new board was posted"
    new = fake.messages_in(board.channel_id)[-1]
    record = await bot.store.matches.get(match_id)
    assert record is not None and record.message_id != new.id  # posted, not noted yet
    nxt = user_on_turn(new, users)
    assert nxt is not None
    click = asyncio.create_task(fake.click(nxt, new, roll_id(new)))
    for _ in range(100):
        await asyncio.sleep(0)
    gate.release()
    answered = await click
    assert not (answered.private and "does not belong" in answered.private.content)
    await fake.wait_idle()
    live = await one_live_board(fake, bot, match_id, board.channel_id)
    assert "rolled" in str(live.embeds) or live.id != new.id
    fake.assert_clean()
    await stop_bot(bot)
