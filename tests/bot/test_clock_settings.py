"""Turn clocks, server settings, result announcements and rematches, through the fake Discord."""

from __future__ import annotations

import random
from pathlib import Path

import discord
import pytest

from bot.clock import ManualClock
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import (
    challenge_and_accept,
    controls_of,
    live_board,
    match_id_of,
    play_one,
    resign,
    user_on_turn,
)
from tests.support import start_bot, stop_bot

HOUR = 3600.0


def reminders(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    return [m for m in fake.messages_in(channel_id) if m.content.startswith("⏰")]


@pytest.mark.asyncio
async def test_the_player_on_turn_is_reminded_once_after_twelve_hours(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    on_turn = user_on_turn(board, {alice.id: alice, bob.id: bob})
    assert on_turn is not None
    clock.advance(11 * HOUR)
    await bot.run_due_tasks()
    assert reminders(fake, board.channel_id) == []
    clock.advance(1 * HOUR + 1)
    await bot.run_due_tasks()
    await bot.run_due_tasks()
    sent = reminders(fake, board.channel_id)
    assert len(sent) == 1 and on_turn.mention in sent[0].content and "36 hours" in sent[0].content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_timeout_loses_the_match_after_forty_eight_hours(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    on_turn = user_on_turn(board, {alice.id: alice, bob.id: bob})
    other = bob if on_turn is alice else alice
    clock.advance(48 * HOUR + 1)
    await bot.run_due_tasks()
    await bot.run_due_tasks()
    results = [m for m in fake.messages_in(board.channel_id) if m.content.startswith("🏆")]
    assert (
        len(results) == 1 and other.mention in results[0].content and "ran out of time" in results[0].content
    )
    outcome = await bot.sessions.history.result_of(mid)
    assert outcome is not None and outcome.reason == "timeout"
    assert not bot.sessions.in_memory(mid)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_deadlines_survive_a_restart(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    await stop_bot(bot)
    bot = await start_bot(fake, db, clock, seed=4)  # a new process, nothing in memory
    clock.advance(13 * HOUR)
    await bot.run_due_tasks()
    assert len(reminders(fake, board.channel_id)) == 1
    clock.advance(40 * HOUR)
    await bot.run_due_tasks()
    assert (await bot.store.matches.get(mid)).status == "finished"  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_time_while_the_bot_was_down_costs_nobody_the_match(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    clock.advance(2 * HOUR)
    await bot.run_due_tasks()  # the bot is alive two hours in: 46 hours left, reminder in 10
    await stop_bot(bot)
    clock.advance(100 * HOUR)  # down past both the reminder and the timeout
    bot = await start_bot(fake, db, clock, seed=4)
    await bot.run_due_tasks()
    record = await bot.store.matches.get(mid)
    assert record is not None and record.status == "active"
    assert reminders(fake, board.channel_id) == [], "no reminder for a deadline that had passed"
    assert record.timeout_at == clock.now() + 46 * HOUR and record.reminder_at == clock.now() + 10 * HOUR
    clock.advance(10 * HOUR)
    await bot.run_due_tasks()
    sent = reminders(fake, board.channel_id)
    assert len(sent) == 1 and "36 hours" in sent[0].content
    clock.advance(36 * HOUR)
    await bot.run_due_tasks()
    assert (await bot.store.matches.get(mid)).status == "finished"  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_playing_moves_the_clock_to_the_other_player(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    first = (await bot.store.matches.get(mid)).timeout_at  # type: ignore[union-attr]
    first_player = user_on_turn(board, users)
    rng = random.Random(2)
    clock.advance(10 * HOUR)
    while user_on_turn(live_board(fake, board.channel_id), users) is first_player:
        live, _ = controls_of(fake, board.channel_id, users)
        await play_one(fake, live, first_player, rng)  # type: ignore[arg-type]
    record = await bot.store.matches.get(mid)
    assert record is not None and record.timeout_at == clock.now() + 48 * HOUR and record.timeout_at != first
    # The board shows each player their deadline as a Discord timestamp.
    assert first is not None and f"<t:{int(first)}:R>" in board.embeds[0]["description"]
    due = int(record.timeout_at)
    assert f"Play by <t:{due}:f> (<t:{due}:R>)" in live_board(fake, board.channel_id).embeds[0]["description"]
    fake.assert_clean()
    await stop_bot(bot)


async def admin(fake: FakeDiscord) -> FakeUser:
    role = fake.add_role("admins", discord.Permissions(manage_guild=True))
    return fake.add_user("ada", roles=[role])


@pytest.mark.asyncio
async def test_settings_are_for_server_managers_and_change_the_clock(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob, ada = fake.add_user("alice"), fake.add_user("bob"), await admin(fake)
    refused = await fake.slash(alice, "settings", {"reminder_hours": 1.0})
    assert refused.ephemeral and "Manage Server" in refused.message.content  # type: ignore[union-attr]
    shown = await fake.slash(ada, "settings")
    assert "after 12 h" in str(shown.message.embeds)  # type: ignore[union-attr]
    bad = await fake.slash(ada, "settings", {"reminder_hours": 5.0, "timeout_hours": 2.0})
    assert "before the timeout" in bad.message.content  # type: ignore[union-attr]
    saved = await fake.slash(ada, "settings", {"reminder_hours": 1.0, "timeout_hours": 2.0, "threads": False})
    assert "Settings saved" in str(saved.message.embeds)  # type: ignore[union-attr]
    # Without threads the match is played in the channel itself.
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))  # type: ignore[union-attr]
    await fake.click(bob, result.message, accept, idle=True)  # type: ignore[arg-type]
    assert fake.thread_of(result.message) is None  # type: ignore[arg-type]
    clock.advance(1 * HOUR + 1)
    await bot.run_due_tasks()
    assert len(reminders(fake, fake.channel.id)) == 1
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_games_can_be_limited_per_server(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    ada, bob = await admin(fake), fake.add_user("bob")
    unknown = await fake.slash(ada, "settings", {"games": "ring,chess"})
    assert "There is no game called “chess”" in unknown.message.content  # type: ignore[union-attr]
    await bot.settings.save(
        (await bot.settings.get(fake.guild.id)).__class__(guild_id=fake.guild.id, allowed_games=())
    )
    refused = await fake.slash(ada, "challenge", {"opponent": bob, "game": "ring"})
    assert refused.ephemeral and "not played on this server" in refused.message.content  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_results_are_announced_and_a_rematch_swaps_seats(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, ada = fake.add_user("alice"), fake.add_user("bob"), await admin(fake)
    results = fake.add_text_channel("results")
    await fake.slash(ada, "settings", {"results_channel": results})
    board = await challenge_and_accept(fake, alice, bob)
    first = await bot.store.matches.get(match_id_of(board))
    await resign(fake, alice, board.channel_id)
    assert first is not None and not bot.sessions.in_memory(first.id)  # Rematch reads it from the store
    announced = fake.messages_in(results.id)
    assert len(announced) == 1 and bob.mention in announced[0].content and "beat" in announced[0].content
    final = fake.messages_in(board.channel_id)[-1]
    # The result shows both rating changes (a rated match between newcomers: +10 and -10).
    description = final.embeds[0]["description"]
    assert (
        f"{bob.mention} 1500 → 1510 (+10.0)" in description
        and f"{alice.mention} 1500 → 1490 (-10.0)" in description
    )
    rematch = next(b.custom_id for b in final.buttons if b.label == "Rematch")
    stranger = await fake.click(ada, final, rematch)
    assert stranger.ephemeral and "Only the two players" in stranger.message.content  # type: ignore[union-attr]
    offer = await fake.click(bob, final, rematch)
    assert offer.message is not None and "wants a rematch" in offer.message.content
    # Seats swap: Alice is offered the seat Bob had, named as the game names it.
    assert (
        first is not None
        and f"you play {('Red', 'Blue')[first.players.index(bob.id)]}" in offer.message.content
    )
    accept = next(c for c in offer.message.custom_ids if c.endswith(":accept"))
    await fake.click(alice, offer.message, accept, idle=True)
    second = (await bot.store.matches.active())[0]
    assert first is not None and second.players == (first.players[1], first.players[0])
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_results_channel_gets_the_results_of_matches_in_its_threads(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, ada = fake.add_user("alice"), fake.add_user("bob"), await admin(fake)
    await fake.slash(ada, "settings", {"results_channel": fake.channel})
    board = await challenge_and_accept(fake, alice, bob)
    assert board.channel_id != fake.channel.id, "the match is played in a thread of the results channel"
    await resign(fake, alice, board.channel_id)
    announced = [m for m in fake.messages_in(fake.channel.id) if "beat" in m.content]
    assert len(announced) == 1 and bob.mention in announced[0].content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_commands_on_your_match_pick_the_one_here_or_say_there_are_several(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    first = await challenge_and_accept(fake, alice, bob)
    second = await challenge_and_accept(fake, alice, carol)
    assert first.channel_id != second.channel_id  # each match has its own thread
    here = await fake.slash(alice, "board", channel=second.channel_id, idle=True)
    assert here.private is not None and "posted again below" in here.private.content
    assert carol.mention in live_board(fake, second.channel_id).content
    ada = await admin(fake)
    await fake.slash(ada, "settings", {"threads": False})
    await challenge_and_accept_in_channel(fake, alice, bob)
    await challenge_and_accept_in_channel(fake, alice, carol)
    several = await fake.slash(alice, "board")
    assert several.ephemeral and "several matches here" in several.message.content  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


async def challenge_and_accept_in_channel(
    fake: FakeDiscord, challenger: FakeUser, opponent: FakeUser
) -> None:
    result = await fake.slash(challenger, "challenge", {"opponent": opponent, "game": "ring"})
    assert result.message is not None
    accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))
    await fake.click(opponent, result.message, accept, idle=True)
