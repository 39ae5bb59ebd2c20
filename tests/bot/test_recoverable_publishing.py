"""A saved action always reaches the players: failed posts and edits are shown again, the clock waits
for the board that asks for the move, and Accept is one recoverable step (issue 8).

Faults are injected in the fake Discord (``fake.fail``): Discord answers 503 (discord.py raises it at
once) to the requests named. A restart is ``stop_bot`` then ``start_bot`` on the same file; the real
``kill -9`` of the real process is in ``test_process.py``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.store import StoreError
from fakediscord import FakeDiscord, FakeMessage
from fakediscord.matches import challenge_and_accept, live_board, match_id_of, user_on_turn
from tests.support import start_bot, stop_bot

HOUR = 3600.0
RESTART = 5.0
"""Seconds a restart takes: longer than the wait before the first new try of a board that failed once."""
POST_MESSAGE = r"^/channels/\d+/messages$"
OPEN_THREAD = r"^/channels/\d+/messages/\d+/threads$"
EDIT_ORIGINAL = r"^/webhooks/\d+/[^/]+/messages/@original$"


def quick_retries(bot: Any, *delays: float) -> None:
    bot.get_cog("Play").publisher.retry_delays = delays


async def challenge(fake: FakeDiscord) -> tuple[Any, Any, FakeMessage]:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert result.message is not None
    return alice, bob, result.message


def accept_id(message: FakeMessage) -> str:
    return next(c for c in message.custom_ids if c.endswith(":accept"))


@pytest.mark.asyncio
async def test_a_first_board_that_cannot_be_posted_is_shown_later_and_its_clock_waits_for_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    quick_retries(bot)  # no quick retries: the scheduler's rounds show it
    alice, bob, message = await challenge(fake)
    fault = fake.fail("POST", POST_MESSAGE, times=None)
    await fake.click(bob, message, accept_id(message), idle=True)
    thread = fake.thread_of(message)
    assert thread is not None and fake.messages_in(thread) == []  # the thread, but no board
    [match] = await bot.store.matches.active()
    assert match.behind and match.timeout_at is None and match.reminder_at is None
    # Nobody loses on time while the board that asks for the move is not shown.
    clock.advance(49 * HOUR)
    await bot.run_due_tasks()
    assert (await bot.store.matches.get(match.id)).status == "active"  # type: ignore[union-attr]
    assert len(fault.failed) >= 2  # the scheduler tried again
    fault.clear()
    await bot.run_due_tasks()
    assert fake.messages_in(thread) == []  # it waits a little longer after each failure
    clock.advance(60)
    await bot.run_due_tasks()
    board = live_board(fake, thread.id)
    assert alice.mention in board.content and bob.mention in board.content and "Roll" in str(board.components)
    shown = await bot.store.matches.get(match.id)
    assert shown is not None and not shown.behind and shown.message_id == board.id
    # The clock started when the board was shown, with the whole time.
    assert shown.timeout_at == clock.now() + 48 * HOUR
    assert f"<t:{int(shown.timeout_at)}:R>" in board.embeds[0]["description"]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_failed_post_is_retried_by_itself_a_moment_later(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    quick_retries(bot, 0.05, 0.05)
    _alice, bob, message = await challenge(fake)
    fault = fake.fail("POST", POST_MESSAGE, times=2)  # the post and the first retry fail
    await fake.click(bob, message, accept_id(message), idle=True)
    thread = fake.thread_of(message)
    assert thread is not None
    await fake.wait_for(lambda: bool(fake.messages_in(thread)), 5, "the board, posted by a retry")
    assert len(fault.failed) == 2 and len(fake.messages_in(thread)) == 1  # shown once
    [match] = await bot.store.matches.active()
    assert not match.behind
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_click_on_a_board_left_behind_shows_the_fresh_board(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    quick_retries(bot)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    player = user_on_turn(board, users)
    assert player is not None
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    assert roll is not None
    # The roll is saved, but the board cannot be edited to show it (a 503 on the edit).
    fault = fake.fail("PATCH", EDIT_ORIGINAL, times=1)
    await fake.click(player, board, roll, idle=True)
    assert len(fault.failed) == 1
    record = await bot.store.matches.get(mid)
    assert record is not None and record.behind
    assert "to roll**" in str(fake.message(board).embeds)  # still the old position
    # The player clicks the old Roll again: it is behind, so the fresh board is shown now.
    again = await fake.click(player, board, roll, idle=True)
    assert again.private is not None and "up to date now" in again.private.content
    assert "to roll**" not in str(fake.message(board).embeds) and "Blue rolled" in str(
        fake.message(board).embeds
    )
    record = await bot.store.matches.get(mid)
    assert record is not None and not record.behind
    # A stranger's click on the fresh board is refused as before and changes nothing.
    carol = fake.add_user("carol")
    move = next(c for c in fake.message(board).custom_ids if ":a:" in c)
    stranger = await fake.click(carol, fake.message(board), move, idle=True)
    assert stranger.private is not None and "not playing" in stranger.private.content
    assert (await bot.store.matches.get(mid)).version == record.version  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_accept_is_one_step_that_a_restart_completes(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    quick_retries(bot)
    alice, bob, message = await challenge(fake)
    # Discord fails to open the thread; then the bot stops before anything else.
    fault = fake.fail("POST", OPEN_THREAD, times=None)
    await fake.click(bob, message, accept_id(message), idle=True)
    assert fake.thread_of(message) is None
    [match] = await bot.store.matches.active()
    assert match.behind and match.thread_name is not None
    challenge_row = await bot.store.challenges.get(int(accept_id(message).split(":")[1]))
    assert (
        challenge_row is not None
        and challenge_row.status == "accepted"
        and challenge_row.match_id == match.id
    )
    await stop_bot(bot)
    fault.clear()
    clock.advance(RESTART)
    bot = await start_bot(fake, db, clock)
    await bot.run_due_tasks()  # the first round after start-up shows what is behind
    thread = fake.thread_of(message)
    assert thread is not None, "the thread is opened on the challenge message after the restart"
    boards = fake.messages_in(thread)
    assert len(boards) == 1 and alice.mention in boards[0].content
    # The challenge was answered at once: its buttons are greyed out, and it made one match.
    assert all(b.disabled for b in fake.message(message).buttons)
    assert "the match is on" in fake.message(message).content
    assert len(await bot.store.matches.active()) == 1
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_thread_opened_before_a_restart_is_used_not_opened_twice(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    quick_retries(bot)
    _alice, bob, message = await challenge(fake)
    # The thread opens, then posting the board fails and the bot stops.
    fault = fake.fail("POST", POST_MESSAGE, times=None)
    await fake.click(bob, message, accept_id(message), idle=True)
    thread = fake.thread_of(message)
    assert thread is not None and fake.messages_in(thread) == []
    await stop_bot(bot)
    fault.clear()
    clock.advance(RESTART)
    bot = await start_bot(fake, db, clock)
    await bot.run_due_tasks()
    assert fake.thread_of(message) == thread
    assert len(fake.messages_in(thread)) == 1
    [match] = await bot.store.matches.active()
    assert match.channel_id == thread.id and not match.behind
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_two_accepts_at_once_start_one_match(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    _alice, bob, message = await challenge(fake)
    first, second = await asyncio.gather(
        fake.click(bob, message, accept_id(message)), fake.click(bob, message, accept_id(message))
    )
    await fake.wait_idle()
    assert len(await bot.store.matches.active()) == 1
    refused = [r.private for r in (first, second) if r.private is not None]
    assert len(refused) == 1 and "answered a moment ago" in refused[0].content
    thread = fake.thread_of(message)
    assert thread is not None and len(fake.messages_in(thread)) == 1
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_board_posted_again_after_its_note_was_lost_shows_the_deadline_stored(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: a board whose post reached Discord but was never noted (a kill -9 between the two;
    here a note that failed and a strip Discord refused) is posted again with the same nonce, and
    Discord returns the first message, drawn seconds earlier with an earlier deadline: it is
    edited to show the deadline now stored, exactly."""
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    quick_retries(bot)
    _, bob, message = await challenge(fake)
    boards = bot.store.boards
    note = boards.mark_shown

    async def lost(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(boards, "mark_shown", note)
        raise StoreError("the note is lost")

    monkeypatch.setattr(boards, "mark_shown", lost)
    strip = fake.fail("PATCH", r"^/channels/\d+/messages/\d+$")
    await fake.click(bob, message, accept_id(message), idle=True)
    thread = fake.thread_of(message)
    assert thread is not None and strip.failed
    [board] = fake.messages_in(thread)
    [match] = await bot.store.matches.active()
    assert match.behind and match.timeout_at is None and board.buttons  # posted, live, not noted
    clock.advance(8)
    await bot.run_due_tasks()
    shown = await bot.store.matches.get(match.id)
    assert shown is not None and not shown.behind and shown.message_id == board.id
    assert shown.timeout_at == clock.now() + 48 * HOUR
    assert fake.messages_in(thread) == [fake.message(board)]  # the same message, once
    due = int(shown.timeout_at)
    assert f"Play by <t:{due}:f> (<t:{due}:R>)" in fake.message(board).embeds[0]["description"]
    assert live_board(fake, thread.id).id == board.id
    await stop_bot(bot)
