"""Boards that could not be shown are repaired without starving each other (issue 21): a wait that grows
after each failure and is kept in the store, a channel Discord says is gone abandons its match instead
of being tried forever, every board behind is shown at start-up a few at a time, and a board whose
deadline moved while the bot was down is drawn again.

Faults are injected in the fake Discord (``fake.fail``: Discord answers 503, which discord.py raises
at once); ``fake.hold`` holds requests unanswered to see how many are in flight at once.
"""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest

from app.client import RingsideBot
from bot.board_repair import BACKOFF
from bot.clock import ManualClock
from cogs.publisher import SHOW_CONCURRENCY
from fakediscord import FakeChannel, FakeDiscord, FakeUser
from fakediscord.fake import Fault
from fakediscord.matches import challenge_and_accept, live_board, match_id_of
from tests.support import start_bot, stop_bot

HOUR = 3600.0
POST_MESSAGE = r"^/channels/\d+/messages$"


async def scheduled_bot(fake: FakeDiscord, db: Path) -> tuple[RingsideBot, ManualClock]:
    """The bot on ``db`` with a manual clock, every new try at a board being the scheduler's
    (``run_due_tasks``), none timed by the process itself."""
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    bot.get_cog("Play").publisher.retry_delays = ()  # type: ignore[union-attr]
    return bot, clock


def broken_channel(fake: FakeDiscord) -> tuple[FakeChannel, Fault]:
    """A channel whose every new message Discord refuses (503, until the fault is cleared)."""
    broken = fake.add_text_channel("broken")
    return broken, fake.fail("POST", rf"^/channels/{broken.id}/messages$", times=None)


async def unshown_match(bot: RingsideBot, fake: FakeDiscord, channel: FakeChannel) -> int:
    """A match saved in ``channel`` whose first board is still to show (as after a failed Accept)."""
    a, b = fake.add_user("a"), fake.add_user("b")
    played = await bot.sessions.start_match(
        game="ring",
        options={},
        players=(a.id, b.id),
        guild_id=fake.guild.id,
        channel_id=channel.id,
        parent_id=None,
        rated=False,
    )
    return played.session.id


def posts_to(fake: FakeDiscord, channel: FakeChannel) -> int:
    return len(
        [r for r in fake.requests if r.method == "POST" and r.path == f"/channels/{channel.id}/messages"]
    )


def warnings_about(caplog: pytest.LogCaptureFixture, match_id: int) -> list[str]:
    named = re.compile(rf"\bmatch {match_id}\b")
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and named.search(r.getMessage())
    ]


async def accepted_with_a_failed_first_board(
    fake: FakeDiscord, bot: RingsideBot
) -> tuple[FakeUser, FakeUser, FakeChannel, int]:
    """Alice challenges Bob, Bob accepts; the thread opens but its first board cannot be posted."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert result.message is not None
    fault = fake.fail("POST", POST_MESSAGE, times=1)
    accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, result.message, accept, idle=True)
    assert len(fault.failed) == 1
    thread = fake.thread_of(result.message)
    assert thread is not None and fake.messages_in(thread) == []
    [match] = await bot.store.matches.active()
    return alice, bob, thread, match.id


@pytest.mark.asyncio
async def test_a_deleted_thread_abandons_its_match_once_instead_of_being_tried_forever(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot, clock = await scheduled_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, thread, match_id = await accepted_with_a_failed_first_board(fake, bot)
    fake.delete_channel(thread)  # a moderator deletes the match's thread
    clock.advance(BACKOFF[0])
    await bot.run_due_tasks()
    record = await bot.store.matches.get(match_id)
    assert record is not None and record.status == "abandoned" and not record.behind
    assert record.timeout_at is None and not await bot.store.ratings.changes(match_id)
    # The channel the thread was opened from is told, naming the players without pinging them.
    [notice] = [m for m in fake.messages_in(fake.channel) if "was abandoned" in m.content]
    assert f"Match #{match_id}" in notice.content and "its thread is gone" in notice.content
    assert alice.mention in notice.content and bob.mention in notice.content and notice.mention_ids
    tried = posts_to(fake, thread)
    for _ in range(5):  # and it is never tried again
        clock.advance(HOUR)
        await bot.run_due_tasks()
    assert posts_to(fake, thread) == tried == 2
    assert len(warnings_about(caplog, match_id)) == 2  # the failed post, then "gone"
    # The players are free: the match no longer counts as theirs in progress.
    assert await bot.sessions.history.matches_of(alice.id) == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_server_that_removed_the_bot_abandons_the_matches_behind_there(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot, clock = await scheduled_bot(fake, tmp_path / "db.sqlite3")
    _, _, thread, match_id = await accepted_with_a_failed_first_board(fake, bot)
    fake.remove_bot()  # Discord answers 403 Missing Access for the server's channels now
    clock.advance(BACKOFF[0])
    await bot.run_due_tasks()
    record = await bot.store.matches.get(match_id)
    assert record is not None and record.status == "abandoned" and not record.behind
    refused = [r for r in fake.requests if r.status == 403]
    assert refused and all(r.response["code"] == 50001 for r in refused)
    clock.advance(HOUR)
    count = len(fake.requests)
    await bot.run_due_tasks()
    assert [r for r in fake.requests[count:] if str(thread.id) in r.path] == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_boards_that_cannot_be_posted_never_starve_a_newer_one(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot, clock = await scheduled_bot(fake, tmp_path / "db.sqlite3")
    broken, _ = broken_channel(fake)
    # More boards than the scheduler used to take in a round, all older, and none can be posted.
    stuck = [await unshown_match(bot, fake, broken) for _ in range(101)]
    await bot.run_due_tasks()
    assert posts_to(fake, broken) == len(stuck)
    clock.advance(1)
    newer = await unshown_match(bot, fake, fake.channel)
    fake.fail("POST", rf"^/channels/{fake.channel.id}/messages$", times=1)  # fails once, then works
    await bot.run_due_tasks()
    assert (await bot.store.matches.get(newer)).behind  # type: ignore[union-attr]
    elapsed = 1.0
    while elapsed < 100:  # the 100 s, a scheduler round every 10 s
        clock.advance(10)
        elapsed += 10
        await bot.run_due_tasks()
    record = await bot.store.matches.get(newer)
    assert record is not None and not record.behind and record.message_id is not None
    # Each stuck board waited longer after each failure: 2, 10, 30 s... within 100 s, 4 tries each.
    assert posts_to(fake, broken) == 4 * len(stuck)
    assert all(len(warnings_about(caplog, m)) == 4 for m in stuck[:3])
    assert await bot.store.boards.due_boards(clock.now()) == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_warnings_about_a_board_stop_once_its_wait_stops_growing(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot, clock = await scheduled_bot(fake, tmp_path / "db.sqlite3")
    broken, _ = broken_channel(fake)
    match_id = await unshown_match(bot, fake, broken)
    for _ in range(len(BACKOFF) + 10):
        await bot.run_due_tasks()
        clock.advance(BACKOFF[-1])
    assert posts_to(fake, broken) == len(BACKOFF) + 10
    said = warnings_about(caplog, match_id)
    assert len(said) == len(BACKOFF) and "no more warnings" in said[-1]
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_wait_after_failures_is_kept_across_a_restart(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot, clock = await scheduled_bot(fake, db)
    broken, fault = broken_channel(fake)
    await unshown_match(bot, fake, broken)
    for wait in BACKOFF[:3]:
        await bot.run_due_tasks()
        clock.advance(wait)
    await bot.run_due_tasks()
    assert len(fault.failed) == 4  # the next try is BACKOFF[3] seconds away
    await stop_bot(bot)
    clock.advance(10)
    bot = await start_bot(fake, db, clock)
    await bot.run_due_tasks()  # the first round after start-up
    assert len(fault.failed) == 4
    fault.clear()
    clock.advance(BACKOFF[3])
    await bot.run_due_tasks()
    assert len(fault.failed) == 4 and live_board(fake, broken.id).buttons
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_at_start_up_every_board_behind_is_shown_a_few_at_a_time(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    channels = [fake.add_text_channel(f"table-{i}") for i in range(3)]
    behind = [await unshown_match(bot, fake, channels[i % 3]) for i in range(110)]  # saved, not shown
    await stop_bot(bot)
    bot = await start_bot(fake, db, clock)
    gate = fake.hold("POST", POST_MESSAGE)
    first_round = asyncio.create_task(bot.run_due_tasks())
    await fake.wait_for(lambda: len(gate.waiting) == SHOW_CONCURRENCY, what="posts in flight")
    for _ in range(50):  # let everything that could start a post do so
        await asyncio.sleep(0)
    assert len(gate.waiting) == SHOW_CONCURRENCY
    gate.release()
    await first_round
    assert len(fake.find_requests("POST", "/channels/{channel_id}/messages")) == len(behind)
    assert await bot.store.boards.due_boards(None) == []  # every one, in one round
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_board_whose_deadline_moved_while_the_bot_was_down_is_drawn_again(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    before = await bot.store.matches.get(match_id_of(board))
    assert before is not None and before.timeout_at is not None
    assert f"<t:{int(before.timeout_at)}:R>" in board.embeds[0]["description"]
    await stop_bot(bot)
    clock.advance(2 * HOUR)  # the bot is down for two hours
    bot = await start_bot(fake, db, clock)
    await bot.run_due_tasks()
    after = await bot.store.matches.get(before.id)
    assert after is not None and after.timeout_at == before.timeout_at + 2 * HOUR and not after.behind
    shown = fake.message(board).embeds[0]["description"]
    assert f"<t:{int(after.timeout_at)}:R>" in shown and f"<t:{int(before.timeout_at)}:R>" not in shown
    assert live_board(fake, board.channel_id).id == board.id  # edited in place, still the live board
    fake.assert_clean()
    await stop_bot(bot)
