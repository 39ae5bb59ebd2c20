"""Stopping drains (issue 21): once the bot is told to stop, new interactions are answered that it is
restarting, what it already took on is finished and every saved change shown, for a bounded time; what
is left is shown at the next start. The real process and its SIGTERM are in ``test_process.py``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.client import RESTARTING
from bot.clock import ManualClock
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, match_id_of, user_on_turn
from tests.bot.test_one_live_board import live_boards, one_live_board
from tests.support import start_bot, stop_bot

EDIT_ORIGINAL = r"^/webhooks/\d+/[^/]+/messages/@original$"


async def rolled_on_its_way(
    fake: FakeDiscord,
) -> tuple[FakeMessage, FakeUser, FakeUser, asyncio.Future[None]]:
    """A ring match whose player on turn has clicked Roll: saved, and its board held on its way to
    Discord (the returned gate's ``release`` lets it through)."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    player = user_on_turn(board, users)
    assert player is not None
    other = bob if player is alice else alice
    gate = fake.hold("PATCH", EDIT_ORIGINAL)
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    assert roll is not None
    await fake.click(player, board, roll)
    await fake.wait_for(lambda: len(gate.waiting) == 1, what="the rolled board on its way")
    released: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    released.add_done_callback(lambda _: gate.release())
    return board, player, other, released


@pytest.mark.asyncio
async def test_stopping_refuses_new_work_and_shows_what_was_taken(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, _, other, release = await rolled_on_its_way(fake)
    match_id = match_id_of(board)
    draining = asyncio.create_task(bot.drain())
    await asyncio.sleep(0)
    assert bot.draining
    # A click and a command that come in now are answered, privately, and change nothing.
    version = (await bot.store.matches.get(match_id)).version  # type: ignore[union-attr]
    late = await fake.click(other, board, next(c for c in board.custom_ids if c.startswith("rsk:")))
    asked = await fake.slash(other, "board", channel=board.channel_id)
    for answer in (late, asked):
        assert answer.private is not None and answer.private.content == RESTARTING
    assert not draining.done()  # still waiting for the roll's board
    release.set_result(None)
    await draining
    record = await bot.store.matches.get(match_id)
    assert record is not None and record.version == version and not record.behind
    live = await one_live_board(fake, bot, match_id, board.channel_id)
    assert "rolled" in str(live.embeds)
    await stop_bot(bot)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_what_stopping_could_not_show_in_time_is_shown_at_the_next_start(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    board, _, _, release = await rolled_on_its_way(fake)
    match_id = match_id_of(board)
    await bot.drain(grace=0.05)  # Discord does not answer in time: the bot stops anyway
    await stop_bot(bot)
    release.set_result(None)
    bot = await start_bot(fake, db, clock)
    saved = await bot.store.matches.get(match_id)
    assert saved is not None and saved.behind  # the roll is saved, its board still to show
    await bot.run_due_tasks()
    live = await one_live_board(fake, bot, match_id, board.channel_id)
    assert "rolled" in str(live.embeds) and len(live_boards(fake, board.channel_id)) == 1
    await stop_bot(bot)
