"""/tournament through the fake Discord: sign-up with Join / Leave / Start, who may run one, each
pairing's match in its own thread (linked on the announcement as soon as it is open), rounds
advancing on results, the champion announced; only the players of a message notified, whatever a
name or a reason says; the announcement brought up to date first thing after a restart."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import discord
import pytest

from app.client import RingsideBot
from app.scheduler import DueWork
from bot.clock import ManualClock
from cogs.tournament_notices import Redraws
from fakediscord import FakeDiscord
from fakediscord.matches import resign
from fakediscord.patience import patient
from fakediscord.world import FakeMessage, FakeUser
from tests.bot.test_tournament_service import Process
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
    # The announcement is redrawn one drawing at a time: a join during the announcement's own
    # drawing is met by one more, after the click's answer.
    await fake.wait_for(
        lambda: "<@" + str(alice.id) + ">" in fake.message(message).embeds[0]["description"],
        timeout=patient(30),
        what="the announcement listing alice",
    )
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


def bot_messages(fake: FakeDiscord) -> list[FakeMessage]:
    return [m for m in fake.world.messages.values() if m.author.id == fake.bot_user.id]


def players_in(fake: FakeDiscord, thread_id: int) -> set[int]:
    """The two players of a table: those its first board mentions."""
    first = fake.messages_in(thread_id)[0]
    return {int(u) for u in re.findall(r"<@(\d+)>", first.content)}


@pytest.mark.asyncio
async def test_mentions_in_a_name_or_a_reason_ping_nobody_but_the_players_of_each_message(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A tournament's name and an organiser's reason are the organiser's words: a user, a role or
    @everyone named in them is never notified. Each table's first board notifies its two players, the
    champion message the champion, a challenge its opponent; the announcement nobody."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3", ManualClock())
    ada = await organiser(fake)
    outsider, role = fake.add_user("outsider"), fake.add_role("regulars")
    players = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    trap = f"<@{outsider.id}> <@&{role.id}> @everyone @here"
    message = await announce(fake, ada, name=f"Cup {trap}")
    for player in players:
        await fake.click(player, message, button(message, "join"), idle=True)
    await fake.click(ada, message, button(message, "start"), idle=True)
    first, second = fake.threads()
    for thread in (first, second):
        assert set(fake.messages_in(thread)[0].pinged_users) == players_in(fake, thread.id)
    loser = next(p for p in players if p.id in players_in(fake, first.id))
    await resign(fake, loser, first.id)
    await settle(bot)
    winner = next(p for p in players if p.id in players_in(fake, second.id))
    await fake.slash(
        ada, "tournament result", {"round": 1, "table": 2, "winner": winner, "reason": f"agreed {trap}"},
        idle=True,
    )  # fmt: skip
    await settle(bot)
    final = next(t for t in fake.threads() if t.id not in (first.id, second.id))
    assert set(fake.messages_in(final)[0].pinged_users) == players_in(fake, final.id)
    finalist = next(p for p in players if p.id in players_in(fake, final.id))
    await resign(fake, finalist, final.id)
    await settle(bot)
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None and record.status == "finished"
    state = bot.tournaments.state_of(record)
    assert state is not None and state.champion is not None
    [crowned] = [m for m in bot_messages(fake) if "won **Cup" in m.content]
    assert crowned.pinged_users == [state.champion]
    assert fake.message(message).pinged_users == []
    challenged = await fake.slash(players[0], "challenge", {"opponent": players[1], "game": "ring"})
    assert challenged.message is not None and challenged.message.pinged_users == [players[1].id]
    for sent in bot_messages(fake):
        assert outsider.id not in sent.pinged_users, sent.content
        assert not sent.pinged_roles and not sent.pinged_everyone, sent.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.parametrize("format", ["knockout", "swiss"])
@pytest.mark.asyncio
async def test_the_announcement_links_a_table_to_its_thread_as_soon_as_the_thread_is_open(
    fake: FakeDiscord, tmp_path: Path, format: str
) -> None:
    """A table whose thread could not be opened at once (Discord's trouble) is "starting" on the
    announcement, never said to be played in the tournament's channel; when a later try opens the
    thread, the announcement links it without anyone running /tournament show."""
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    bot.get_cog("Play").publisher.retry_delays = ()  # type: ignore[union-attr]
    ada = await organiser(fake)
    players = [fake.add_user(name) for name in ("alice", "bob", "carol", "dave")]
    message = await announce(fake, ada, format=format)
    for player in players:
        await fake.click(player, message, button(message, "join"), idle=True)
    fault = fake.fail("POST", r"^/channels/\d+/threads$", times=1)
    await fake.click(ada, message, button(message, "start"), idle=True)
    await settle(bot)
    assert len(fault.failed) == 1
    (opened,) = fake.threads()
    shown = fake.message(message).embeds[0]["description"]
    assert f"<#{opened.id}>" in shown and f"<#{fake.channel.id}>" not in shown, shown
    assert "starting" in shown
    # The board is tried again by the scheduler's next round, which opens its thread.
    clock.advance(60.0)
    await bot.run_due_tasks()
    await settle(bot)
    assert len(fake.threads()) == 2
    shown = fake.message(message).embeds[0]["description"]
    assert all(f"<#{t.id}>" in shown for t in fake.threads()) and "starting" not in shown, shown
    fake.assert_clean()
    await stop_bot(bot)


async def final_of_two(fake: FakeDiscord, bot: RingsideBot) -> tuple[FakeMessage, int, int]:
    """A knockout of two players started: its announcement, the final's match and its loser."""
    ada = await organiser(fake)
    message = await announce(fake, ada)
    for name in ("alice", "bob"):
        await fake.click(fake.add_user(name), message, button(message, "join"), idle=True)
    await fake.click(ada, message, button(message, "start"), idle=True)
    record = await bot.store.tournaments.latest_in(fake.guild.id)
    assert record is not None
    (match_id,) = (await bot.tournaments.tables(record.id, 1)).values()
    assert match_id is not None
    match = await bot.store.matches.get(match_id)
    assert match is not None
    return message, match_id, match.players[1]


def watch_first_pass(
    monkeypatch: pytest.MonkeyPatch, fake: FakeDiscord, message: FakeMessage
) -> asyncio.Future[str]:
    """The announcement's text as the scheduler's first round leaves it."""
    seen: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    real = DueWork.run

    async def counted(self: DueWork, **options: bool) -> None:
        await real(self, **options)
        if not seen.done():
            seen.set_result(str(fake.message(message).embeds))

    monkeypatch.setattr(DueWork, "run", counted)
    return seen


@pytest.mark.asyncio
async def test_a_restart_after_the_final_was_recorded_shows_the_champion_on_the_first_pass(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops after the final's result is taken but before the announcement is edited (a kill
    mid-final): the scheduler's first round after the restart names the champion on it, and the
    champion is announced once."""
    clock, db = ManualClock(), tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, clock)
    message, match_id, loser = await final_of_two(fake, bot)
    await stop_bot(bot)
    down = await Process.open(db, clock)
    await down.sessions.ends.resign(match_id, loser)
    assert await down.service.rounds.match_ended(match_id) is not None  # taken, never shown
    await down.store.close()
    assert "Champion" not in str(fake.message(message).embeds)
    first_pass = watch_first_pass(monkeypatch, fake, message)
    bot = await start_bot(fake, db, clock, run_scheduler=True)
    assert "Champion" in await asyncio.wait_for(first_pass, 60)
    assert len([m for m in bot_messages(fake) if "won **Club Cup**" in m.content]) == 1
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_restart_after_the_final_ended_unshown_updates_the_announcement_before_the_boards(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot stops after the final ended but before its last board was shown: the scheduler's first
    round after the restart takes the result and names the champion on the announcement before it
    shows the boards that are behind (all of a server's, at a start-up: slow)."""
    clock, db = ManualClock(), tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, clock)
    message, match_id, loser = await final_of_two(fake, bot)
    match = await bot.store.matches.get(match_id)
    assert match is not None
    await stop_bot(bot)
    down = await Process.open(db, clock)
    await down.sessions.ends.resign(match_id, loser)
    await down.store.close()
    first_pass = watch_first_pass(monkeypatch, fake, message)
    since = len(fake.requests)
    bot = await start_bot(fake, db, clock, run_scheduler=True)
    assert "Champion" in await asyncio.wait_for(first_pass, 60)
    after = fake.requests[since:]
    crowned = next(
        i for i, r in enumerate(after) if r.message_id == message.id and "Champion" in json.dumps(r.json)
    )
    board = next(i for i, r in enumerate(after) if r.method == "POST" and r.channel_id == match.channel_id)
    assert crowned < board
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_announcement_drawings_are_one_at_a_time_and_asked_for_meanwhile_met_by_one_more() -> None:
    """Each drawing reads what is saved when it begins: one asked for while another is drawn needs a
    new one (it may have been asked for because of a change the first did not see), and every one
    asked for meanwhile is met by that same next drawing."""
    begun, release = asyncio.Event(), asyncio.Event()
    drawn: list[int] = []

    async def draw(tournament_id: int) -> None:
        begun.set()
        await release.wait()
        drawn.append(tournament_id)

    redraws = Redraws(draw)
    first = asyncio.create_task(redraws.redraw(1))
    await begun.wait()
    later = [asyncio.create_task(redraws.redraw(1)) for _ in range(3)]
    await asyncio.sleep(0)
    release.set()
    await asyncio.gather(first, *later)
    assert drawn == [1, 1]
    await redraws.redraw(1)
    assert drawn == [1, 1, 1]
