"""``/leaderboard``, ``/stats`` and ``/history`` on the real bot, driven through the fake Discord.

Rated matches are played the way players play them (challenge, accept, /resign) where the test is
about that; the crowded leaderboard is filled through the session manager, which is quicker and ends
matches through the same store transaction.
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image

from app.client import RingsideBot
from cogs.stats import CHART_FILE
from fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult
from render.leaderboard import axis_range, match_ticks, rating_chart
from tests.support import start_bot, stop_bot

MENTION = re.compile(r"<@(\d+)>")


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[RingsideBot]:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    yield bot
    await stop_bot(bot)


async def rated_match(fake: FakeDiscord, winner: FakeUser, loser: FakeUser) -> int:
    """The winner challenges the loser, who accepts and then resigns in the match thread."""
    challenge = await fake.slash(winner, "challenge", {"opponent": loser, "game": "ring"})
    assert challenge.message is not None
    accept = next(c for c in challenge.message.custom_ids if c.endswith(":accept"))
    await fake.click(loser, challenge.message, accept, idle=True)
    thread = fake.thread_of(challenge.message)
    assert thread is not None
    match_id = int(fake.messages_in(thread)[-1].custom_ids[0].split(":")[1])
    resign = await fake.slash(loser, "resign", channel=thread)
    assert resign.message is not None
    yes = next(c for c in resign.message.custom_ids if c.endswith(":yes"))
    await fake.click(loser, resign.message, yes, idle=True)
    return match_id


async def quick_match(bot: RingsideBot, guild_id: int, winner: int, loser: int) -> None:
    played = await bot.sessions.start_match(
        game="ring",
        options={},
        players=(winner, loser),
        guild_id=guild_id,
        channel_id=1,
        parent_id=None,
        rated=True,
    )
    await bot.sessions.ends.resign(played.session.id, loser)


def embed_of(result: InteractionResult) -> dict[str, Any]:
    message = result.message
    assert message is not None and len(message.embeds) == 1, message
    return message.embeds[0]


def text_of(message: FakeMessage | None) -> str:
    assert message is not None
    return message.content


def display(user: FakeUser) -> str:
    return user.global_name or user.name


def as_shown(text: str, names: dict[int, str]) -> str:
    """Text as a Discord client shows it: mentions as @name, no bold markers."""
    return MENTION.sub(lambda m: "@" + names.get(int(m[1]), "someone"), text).replace("**", "")


@pytest.mark.asyncio
async def test_empty_server_says_so(fake: FakeDiscord, bot: RingsideBot) -> None:
    alice = fake.add_user("alice")
    board = await fake.slash(alice, "leaderboard")
    assert board.ephemeral and text_of(board.message) == "No rated ring matches in this server yet."
    stats = await fake.slash(alice, "stats")
    assert stats.ephemeral and "has no rated matches in this server yet" in text_of(stats.message)
    history = await fake.slash(alice, "history")
    assert history.ephemeral and "not played any matches yet" in text_of(history.message)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_a_rated_match_shows_on_the_leaderboard_stats_and_history(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    names = {alice.id: "alice", bob.id: "bob", carol.id: "carol"}
    mid = await rated_match(fake, alice, bob)

    board = await fake.slash(carol, "leaderboard")
    assert not board.ephemeral, "the leaderboard is public"
    embed = embed_of(board)
    assert embed["title"] == "Ring leaderboard"
    lines = embed["description"].splitlines()
    assert lines == [
        f"🥇 {alice.mention} **1510?** · 1–0 · ▲ 10",
        f"🥈 {bob.mention} **1490?** · 0–1 · ▼ 10",
    ]
    assert all(len(as_shown(line, names)) <= 32 for line in lines)
    assert "provisional" in embed["footer"]["text"]

    stats = await fake.slash(alice, "stats", idle=True)
    assert not stats.ephemeral
    embed = embed_of(stats)
    assert embed["title"] == f"{display(alice)} · Ring"
    assert "Rating **1510?** (provisional) · rank **1** of 2" in embed["description"]
    assert "Record **1–0** (100% won)" in embed["description"]
    assert "Streak: 1 win in a row" in embed["description"]
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert fields["Every game here"] == "Ring **1–0**"
    assert fields["Last 1 rated Ring match"].startswith(f"**W** vs {bob.mention} · +10.0 · <t:")
    assert embed["image"]["url"] == f"attachment://{CHART_FILE}"
    png = stats.message.attachment_bytes(CHART_FILE)  # type: ignore[union-attr]
    assert Image.open(io.BytesIO(png)).size == (600, 300)

    other = await fake.slash(carol, "stats", {"user": bob}, idle=True)
    embed = embed_of(other)
    assert embed["title"] == f"{display(bob)} · Ring" and "Streak: 1 loss in a row" in embed["description"]

    history = await fake.slash(bob, "history")
    assert history.ephemeral, "/history is private"
    (line,) = embed_of(history)["description"].splitlines()
    match = await bot.store.matches.get(mid)
    assert match is not None and match.parent_id is not None, "the match was played in a thread"
    link = f"https://discord.com/channels/{fake.guild.id}/{match.channel_id}"
    assert line.startswith(f"Ring vs {alice.mention} · **lost** by resignation (−10.0) · <t:")
    assert line.endswith(f"[match #{mid}]({link})")
    fake.assert_clean()


@pytest.mark.asyncio
async def test_the_callers_own_rank_follows_the_top_ten(fake: FakeDiscord, bot: RingsideBot) -> None:
    players = [fake.add_user(f"player{i}") for i in range(14)]
    ids = [p.id for p in players]
    guild = fake.guild.id
    # player0 beats everyone; each of player1..11 wins one; player12 and player13 only lose.
    for other in ids[1:]:
        await quick_match(bot, guild, ids[0], other)
    for i in range(1, 12):
        await quick_match(bot, guild, ids[i], ids[12 + i % 2])
    last = players[13]
    board = await fake.slash(last, "leaderboard")
    lines = embed_of(board)["description"].splitlines()
    assert len(lines) == 12 and lines[10] == "⋯"
    assert lines[0].startswith(f"🥇 {players[0].mention} ")
    assert lines[3].startswith("**4.** ")
    rank = await bot.store.ratings.rank(guild, "ring", last.id)
    assert rank == 14 and lines[11].startswith(f"**14.** {last.mention} ") and "▼" in lines[11]
    # Someone in the top ten gets no extra line.
    top = await fake.slash(players[0], "leaderboard")
    assert len(embed_of(top)["description"].splitlines()) == 10
    fake.assert_clean()


@pytest.mark.asyncio
async def test_history_lists_active_and_unrated_matches_with_links(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    alice = fake.add_user("alice")
    computer = await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "ring"}, idle=True)
    assert computer.messages
    history = await fake.slash(alice, "history")
    (line,) = embed_of(history)["description"].splitlines()
    assert line.startswith(f"Ring vs {fake.bot_user.mention} · **in progress** · <t:")
    (thread,) = fake.threads()  # the computer match has its own thread
    assert f"(https://discord.com/channels/{fake.guild.id}/{thread.id})" in line
    # Resigning against the computer ends the match, unrated: nobody gets a rating.
    resign = await fake.slash(alice, "resign", channel=thread.id)
    yes = next(c for c in resign.message.custom_ids if c.endswith(":yes"))  # type: ignore[union-attr]
    await fake.click(alice, resign.message, yes, idle=True)  # type: ignore[arg-type]
    history = await fake.slash(alice, "history")
    (line,) = embed_of(history)["description"].splitlines()
    assert "**lost** by resignation · unrated" in line
    board = await fake.slash(alice, "leaderboard")
    assert board.ephemeral and "No rated ring matches" in text_of(board.message)
    bot_stats = await fake.slash(alice, "stats", {"user": fake.bot_user})
    assert bot_stats.ephemeral and "has no rating" in text_of(bot_stats.message)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_unknown_games_other_servers_and_direct_messages(fake: FakeDiscord, bot: RingsideBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    chess = await fake.slash(alice, "leaderboard", {"game": "chess"})
    assert chess.ephemeral and "There is no game called “chess”" in text_of(chess.message)
    choices = (await fake.autocomplete(alice, "stats", {"game": "ri"}, focused="game")).choices
    assert choices is not None and [c["value"] for c in choices] == ["ring"]

    # A match in another server counts there only.
    elsewhere = fake.add_guild("elsewhere")
    await quick_match(bot, elsewhere.id, alice.id, bob.id)
    here = await fake.slash(alice, "leaderboard")
    assert here.ephemeral and text_of(here.message) == "No rated ring matches in this server yet."
    fake.add_member(alice, elsewhere)
    there = await fake.slash(alice, "leaderboard", channel=elsewhere.channel_ids[0])
    assert not there.ephemeral and alice.mention in embed_of(there)["description"]

    dm = await fake.slash(alice, "leaderboard", channel=fake.dm_channel(alice))
    assert dm.ephemeral and "per server" in text_of(dm.message)
    stats = await fake.slash(alice, "stats", {"game": "ring"}, channel=fake.dm_channel(alice))
    assert stats.ephemeral and "per server" in text_of(stats.message)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_stats_of_a_long_career_stay_within_discord_limits(fake: FakeDiscord, bot: RingsideBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    guild = fake.guild.id
    rng = random.Random(4)
    for _ in range(130):
        if rng.random() < 0.55:
            await quick_match(bot, guild, alice.id, bob.id)
        else:
            await quick_match(bot, guild, bob.id, alice.id)
    stats = await fake.slash(bob, "stats", {"user": alice, "game": "ring"}, idle=True)
    embed = embed_of(stats)
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    assert len(fields["Last 10 rated Ring matches"].splitlines()) == 10
    standing = await bot.store.ratings.standing(guild, "ring", alice.id)
    assert standing is not None and standing.experience == 130 and not standing.provisional
    assert "?" not in embed["description"] and "footer" not in embed
    png = stats.message.attachment_bytes(CHART_FILE)  # type: ignore[union-attr]
    assert Image.open(io.BytesIO(png)).size == (600, 300)
    fake.assert_clean()


# -- the chart ---------------------------------------------------------------------------------------


def test_the_rating_axis_holds_every_value_on_round_ticks() -> None:
    for values in ([1500.0, 1510.0], [1500.0], [1510.0, 1690.0], [1000.0, 2400.0], [1234.5, 1239.1]):
        low, high, step = axis_range(values if len(values) > 1 else values * 2)
        assert low < min(values) and max(values) < high
        assert (high - low) / step <= 6 and low % step == 0


def test_match_numbers_along_the_bottom_start_and_end_at_the_ends() -> None:
    assert match_ticks(0, 1) == [0, 1]
    assert match_ticks(0, 12) == list(range(13))
    ticks = match_ticks(29, 100)  # the last 100 of 129 matches: labels 29 ... 129
    assert ticks[0] == 0 and ticks[-1] == 100 and len(ticks) <= 9
    assert all((29 + t) % 20 == 0 for t in ticks[1:-1])


def test_charts_of_one_match_and_of_many_are_600_by_300() -> None:
    for ratings in ([1500.0, 1510.0], [1500.0 + (i % 7) * 3 for i in range(101)]):
        png = rating_chart(ratings, title="Ring rating · someone with a very long name indeed", subtitle="x")
        assert Image.open(io.BytesIO(png)).size == (600, 300)
    with pytest.raises(ValueError, match="at least one"):
        rating_chart([], title="empty")
