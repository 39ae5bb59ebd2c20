"""/tournament through the fake Discord: sign-up with Join / Leave / Start, who may run one, each
pairing's match in its own thread, rounds advancing on results, the champion announced."""

from __future__ import annotations

import asyncio
from pathlib import Path

import discord
import pytest

from app.client import RingsideBot
from bot.clock import ManualClock
from fakediscord import FakeDiscord
from fakediscord.matches import resign
from fakediscord.world import FakeMessage, FakeUser
from tests.support import start_bot, stop_bot

HOUR = 3600.0


def button(message: FakeMessage, op: str) -> str:
    return next(c for c in message.custom_ids if c.startswith("tn:") and c.endswith(f":{op}"))


async def organiser(fake: FakeDiscord) -> FakeUser:
    role = fake.add_role("admins", discord.Permissions(manage_guild=True))
    return fake.add_user("ada", roles=[role])


async def settle(bot: RingsideBot) -> None:
    """Wait for the tournament work a finished match set off (it runs in its own task)."""
    cog = bot.get_cog("Tournament")
    for _ in range(200):
        tasks = getattr(cog, "_tasks", set())
        if not tasks:
            return
        await asyncio.gather(*list(tasks), return_exceptions=True)
    raise AssertionError("the tournament's work did not settle")


async def announce(fake: FakeDiscord, ada: FakeUser, **options: object) -> FakeMessage:
    made = await fake.slash(
        ada, "tournament create", {"game": "ring", "format": "knockout", "name": "Club Cup", **options}
    )
    assert made.message is not None and not made.ephemeral, made
    return made.message


@pytest.mark.asyncio
async def test_sign_up_refusals_change_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    ada, alice, bob = await organiser(fake), fake.add_user("alice"), fake.add_user("bob")
    refused = await fake.slash(
        alice, "tournament create", {"game": "ring", "format": "swiss", "name": "Mine"}
    )
    assert refused.ephemeral and "Manage Server" in refused.message.content  # type: ignore[union-attr]
    bad = await fake.slash(
        ada, "tournament create", {"game": "ring", "format": "swiss", "name": "X", "length": 5}
    )
    assert bad.ephemeral and "length" in bad.message.content.lower()  # type: ignore[union-attr]
    knock = await fake.slash(
        ada, "tournament create", {"game": "ring", "format": "knockout", "name": "X", "rounds": 3}
    )
    assert knock.ephemeral and "Swiss" in knock.message.content  # type: ignore[union-attr]
    assert await bot.store.tournaments.latest_in(fake.guild.id) is None
    message = await announce(fake, ada)
    joined = await fake.click(alice, message, button(message, "join"), idle=True)
    assert joined.ephemeral and "You are in Club Cup" in joined.message.content  # type: ignore[union-attr]
    assert "<@" + str(alice.id) + ">" in fake.message(message).embeds[0]["description"]
    twice = await fake.click(alice, message, button(message, "join"))
    assert twice.ephemeral and "already in" in twice.message.content  # type: ignore[union-attr]
    early = await fake.click(ada, message, button(message, "start"), idle=True)
    assert early.ephemeral and "at least two" in early.message.content  # type: ignore[union-attr]
    await fake.click(bob, message, button(message, "join"), idle=True)
    not_yours = await fake.click(bob, message, button(message, "start"), idle=True)
    assert not_yours.ephemeral and "Manage Server" in not_yours.message.content  # type: ignore[union-attr]
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "signup"
    assert [u for u, _ in await bot.store.tournaments.entrants(record.id)] == [alice.id, bob.id]
    left = await fake.click(bob, message, button(message, "leave"), idle=True)
    assert "You left" in left.message.content  # type: ignore[union-attr]
    assert [u for u, _ in await bot.store.tournaments.entrants(record.id)] == [alice.id]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_knockout_runs_from_sign_up_to_champion(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    ada = await organiser(fake)
    results = fake.add_text_channel("results")
    await fake.slash(ada, "settings", {"results_channel": results})
    players = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    message = await announce(fake, ada, round_hours=24.0)
    for player in players:
        await fake.click(player, message, button(message, "join"), idle=True)
    started = await fake.click(ada, message, button(message, "start"), idle=True)
    assert "has started" in started.message.content  # type: ignore[union-attr]
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "running"
    threads = fake.threads()
    assert len(threads) == 2 and all("Club Cup" in t.name for t in threads)
    deadline = f"<t:{int(clock.now() + 24 * HOUR)}:f>"
    for thread in threads:
        opening = fake.messages_in(thread)[0]
        # Both players are mentioned; the round's deadline opens the board's text.
        assert opening.content.count("<@") >= 2 and len(set(opening.content.split()[:2])) == 2
        assert deadline in opening.embeds[0]["description"]
    shown = fake.message(message)
    assert "Round 1" in shown.embeds[0]["description"] and not button_ops(shown) - {"leave"}
    late = fake.add_user("erin")
    # A Join pressed on an old copy of the announcement after the start is refused.
    old_join = {"type": 2, "style": 3, "label": "Join", "custom_id": button_id(record.id, "join")}
    refused = await fake.forge(late, message, old_join)
    assert refused.ephemeral and "closed" in refused.message.content  # type: ignore[union-attr]
    # Each table's loser resigns; the final is paired once both are in, then its loser resigns too.
    for _ in range(2):
        for thread in [t for t in fake.threads() if not fake.messages_in(t)[-1].content.startswith("🏆")]:
            board = fake.messages_in(thread)[-1]
            loser = next(p for p in players if f"<@{p.id}>" in fake.messages_in(thread)[0].content)
            await resign(fake, loser, thread.id)
            await settle(bot)
            del board
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "finished" and record.announced
    champion = [m for m in fake.messages_in(results) if "won **Club Cup**" in m.content]
    assert len(champion) == 1
    assert len(fake.threads()) == 3
    shown = await fake.slash(players[0], "tournament show", idle=True)
    assert shown.message is not None and shown.message.attachments
    too_far = await fake.slash(players[0], "tournament show", {"page": 5})
    assert too_far.ephemeral and "has 1 page" in too_far.message.content  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


def button_id(tournament_id: int, op: str) -> str:
    return f"tn:{tournament_id}:{op}"


def button_ops(message: FakeMessage) -> set[str]:
    return {c.rsplit(":", 1)[1] for c in message.custom_ids if c.startswith("tn:")}


@pytest.mark.asyncio
async def test_deadlines_close_sign_up_and_end_a_round_nobody_played(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    ada = await organiser(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    message = await announce(fake, ada, signup_hours=1.0, round_hours=2.0)
    for player in (alice, bob):
        await fake.click(player, message, button(message, "join"), idle=True)
    await bot.run_due_tasks()
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "signup"
    # The sign-up deadline starts it by itself: the scheduler's round pairs the first round.
    clock.advance(HOUR + 1)
    await bot.run_due_tasks()
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "running"
    (thread,) = fake.threads()
    # Nobody moves by the round's deadline: both lose, and nobody is left for the title.
    clock.advance(2 * HOUR + 1)
    await bot.run_due_tasks()
    await settle(bot)
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "finished"
    assert "both lost (both forfeit)" in fake.message(message).embeds[0]["description"]
    assert "No champion" in fake.message(message).embeds[0]["description"]
    assert any("no champion" in m.content for m in fake.messages_in(fake.channel))
    assert "both forfeit" in fake.messages_in(thread)[-1].content
    fake.assert_clean()
    await stop_bot(bot)
