"""The real bot, driven through a fake Discord transport: challenges, whole matches, restarts, bad input.

Every request the bot sends is checked against Discord's documented limits and its OpenAPI
description (vendored in ``fakediscord/discord-api-spec/``) by ``fake.assert_clean()``.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.clock import ManualClock
from engine import find_variant, replay
from fakediscord import FakeDiscord
from fakediscord.matches import (
    challenge_and_accept,
    controls_of,
    live_board,
    match_id_of,
    play_one,
    play_until_over,
    resign,
    user_on_turn,
)
from tests.databases import sql
from tests.support import start_bot, stop_bot


@pytest.mark.asyncio
async def test_a_whole_ring_match_from_challenge_to_result(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    assert board.attachment_bytes("board.png").startswith(b"\x89PNG")
    mid = match_id_of(board)
    result = await play_until_over(fake, board.channel_id, {alice.id: alice, bob.id: bob}, random.Random(3))
    assert " wins: " in result.content
    outcome = await bot.sessions.history.result_of(mid)
    assert outcome is not None and outcome.description.split(": ", 1)[-1] in result.content
    # Once the result is published the match is no longer held in memory; it is read from the store.
    assert not bot.sessions.in_memory(mid)
    # Every roll and every move is in the log, and the log replays to the saved final position.
    log = await bot.store.matches.action_log(mid)
    session = await bot.sessions.get(mid)
    assert replay(find_variant("ring"), {}, [a.notation for a in log]) == session.state
    # Old boards keep their picture but lose working controls.
    for message in fake.messages_in(board.channel_id)[:-1]:
        assert all(c.disabled for c in message.all_components)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.slow
@pytest.mark.asyncio
async def test_a_restart_mid_match_and_the_old_buttons_finish_it(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    rng = random.Random(5)
    for _ in range(6):
        live, user = controls_of(fake, board.channel_id, users)
        assert user is not None
        await play_one(fake, live, user, rng)
    await stop_bot(bot)
    bot = await start_bot(fake, db, seed=2)  # a new process: nothing in memory
    result = await play_until_over(fake, board.channel_id, users, rng)
    assert " wins: " in result.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_strangers_players_not_on_turn_and_stale_clicks_change_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    on_turn = user_on_turn(board, users)
    assert on_turn is not None
    other = bob if on_turn is alice else alice
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    version = (await bot.sessions.get(mid)).version

    stranger = await fake.click(carol, board, roll)
    assert stranger.ephemeral and "not playing in this match" in stranger.message.content  # type: ignore[union-attr]
    wrong_seat = await fake.click(other, board, roll)
    assert wrong_seat.ephemeral and "not yours" in wrong_seat.message.content  # type: ignore[union-attr]
    assert (await bot.sessions.get(mid)).version == version

    await fake.click(on_turn, board, roll, idle=True)
    assert (await bot.sessions.get(mid)).version > version
    # A lagging client still shows the Roll button of the earlier position and clicks it.
    current = fake.message(board)
    shown_now = current.components
    current.components = current.history[0]["components"]
    after_roll = (await bot.sessions.get(mid)).version
    stale = await fake.click(on_turn, current, roll)
    assert stale.ephemeral and "earlier position" in stale.message.content  # type: ignore[union-attr]
    assert (await bot.sessions.get(mid)).version == after_roll
    current.components = shown_now
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_double_click_applies_exactly_one_action(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    on_turn = user_on_turn(board, {alice.id: alice, bob.id: bob})
    assert on_turn is not None
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    before = len(await bot.store.matches.action_log(mid))
    first, second = await asyncio.gather(fake.click(on_turn, board, roll), fake.click(on_turn, board, roll))
    await fake.wait_idle()
    log = await bot.store.matches.action_log(mid)
    rolls = [a for a in log[before:] if a.seat is None and a.notation.startswith("roll")]
    assert len(rolls) == 1
    # Both are answered at once (deferred); the one that came second is refused privately.
    assert [r.private is not None for r in (first, second)].count(True) == 1
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_challenges_that_are_refused(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    robot = fake.add_bot_user("otherbot")
    me = await fake.slash(alice, "challenge", {"opponent": alice, "game": "ring"})
    assert me.ephemeral and "cannot challenge yourself" in me.message.content  # type: ignore[union-attr]
    other_bot = await fake.slash(alice, "challenge", {"opponent": robot, "game": "ring"})
    assert other_bot.ephemeral and "another bot" in other_bot.message.content  # type: ignore[union-attr]
    unknown = await fake.slash(alice, "challenge", {"opponent": bob, "game": "chess"})
    assert unknown.ephemeral and "no game called “chess”" in unknown.message.content  # type: ignore[union-attr]
    first = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert not first.ephemeral
    again = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert again.ephemeral and "already have a challenge waiting" in again.message.content  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_only_the_challenged_may_accept_and_decline_ends_it(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    message = result.message
    assert message is not None
    ids = {c.split(":")[-1]: c for c in message.custom_ids}
    stranger = await fake.click(carol, message, ids["accept"])
    assert stranger.ephemeral and "not for you" in stranger.message.content  # type: ignore[union-attr]
    own = await fake.click(alice, message, ids["accept"])
    assert own.ephemeral and "Only the challenged player" in own.message.content  # type: ignore[union-attr]
    await fake.click(bob, message, ids["decline"], idle=True)
    declined = fake.message(message)
    assert "declined" in declined.content and all(c.disabled for c in declined.all_components)
    assert await bot.store.matches.active() == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_unanswered_challenge_expires_after_ten_minutes(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    message = result.message
    assert message is not None
    clock.advance(9 * 60)
    await bot.run_due_tasks()
    assert "expired" not in fake.message(message).content
    clock.advance(61)
    await bot.run_due_tasks()
    expired = fake.message(message)
    assert "expired" in expired.content and all(c.disabled for c in expired.all_components)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_click_on_an_expired_challenge_is_refused(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    message = result.message
    assert message is not None
    clock.advance(601)  # the scheduler has not run yet: the click finds it expired
    accept = next(c for c in message.custom_ids if c.endswith(":accept"))
    late = await fake.click(bob, message, accept, idle=True)
    assert late.ephemeral and "expired" in late.message.content  # type: ignore[union-attr]
    assert await bot.store.matches.active() == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_damaged_saved_match_says_so_and_can_be_abandoned(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    await stop_bot(bot)
    sql(db, "UPDATE matches SET state = 'not json at all' WHERE id = ?", (mid,))
    bot = await start_bot(fake, db)
    on_turn = user_on_turn(board, {alice.id: alice, bob.id: bob})
    assert on_turn is not None
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    touched = await fake.click(on_turn, board, roll)
    assert touched.ephemeral and "damaged" in touched.message.content  # type: ignore[union-attr]
    prompt = await fake.slash(alice, "resign", channel=board.channel_id)
    assert prompt.ephemeral and "abandons it" in prompt.message.content  # type: ignore[union-attr]
    yes = next(c for c in prompt.message.custom_ids if c.endswith(":yes"))  # type: ignore[union-attr]
    await fake.click(alice, prompt.message, yes, idle=True)  # type: ignore[arg-type]
    assert (await bot.store.matches.get(mid)).status == "abandoned"  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_board_reposts_and_resign_ends_with_a_result(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    board = await challenge_and_accept(fake, alice, bob)
    nothing = await fake.slash(carol, "board", channel=board.channel_id)
    assert nothing.ephemeral and "no match in progress here" in nothing.message.content  # type: ignore[union-attr]
    again = await fake.slash(bob, "board", channel=board.channel_id, idle=True)
    # The board is posted again at the bottom, the old one loses its controls; bob is told privately.
    assert again.private is not None and "posted again below" in again.private.content
    reposted = live_board(fake, board.channel_id)
    assert reposted.id != board.id and reposted.attachment_bytes("board.png").startswith(b"\x89PNG")
    assert "The board, as it stands" in reposted.embeds[0]["description"]
    assert all(not c.all_components for c in [fake.message(board)]) or all(
        c.disabled for c in fake.message(board).all_components
    )
    await resign(fake, alice, board.channel_id)
    result = fake.messages_in(board.channel_id)[-1]
    assert result.content.startswith("🏆") and bob.mention in result.content and "resigned" in result.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_playing_the_computer(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "ring"}, idle=True)
    assert result.messages, "the match starts at once against the computer"
    (thread,) = fake.threads(fake.channel)  # in its own thread, like every match
    final = await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(8))
    assert " wins: " in final.content
    fake.assert_clean()
    await stop_bot(bot)
