"""The error rate (PR) in ``/stats``: a backgammon player's average PR over their analysed matches on
the server and the PRs of the latest ones, oldest first, beside the rating; the rows are written with
each analysis (migration 019) and made once for analyses saved before."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.housekeeping import Housekeeping
from cogs.stats import PR_MATCHES
from engine.ai.coaching import Analysis, PlayerReport, Scale, analysis_to_json
from fakediscord import FakeDiscord, FakeUser
from tests.databases import sql
from tests.support import start_bot, stop_bot


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[RingsideBot]:
    """The bot, stopped at the end even when the test fails (a bot left running holds pytest up)."""
    started = await start_bot(fake, tmp_path / "db.sqlite3")
    yield started
    await stop_bot(started)


def analysis_with(lost: tuple[float, float], decisions: tuple[int, int] = (20, 20)) -> dict[str, Any]:
    """An analysis (JSON data) whose players lost ``lost`` equity over ``decisions``."""
    report = PlayerReport(0, decisions[0], lost[0], 0, 0, 0, 0.0, 10)
    other = replace(report, seat=1, unforced=decisions[1], equity_lost=lost[1])
    return analysis_to_json(Analysis((report, other), (), ((0.5, 1.0),), Scale.MATCH, "2-ply"))


async def analysed(
    bot: RingsideBot,
    players: tuple[int, int],
    analysis: dict[str, Any] | None,
    finished: float,
    *,
    guild_id: int,
    game: str = "backgammon",
) -> int:
    """A finished match with its analysis saved (requested only, when ``analysis`` is None)."""
    made = await bot.store.matches.create(
        guild_id=guild_id, channel_id=1, parent_id=None, game=game, options={}, players=players,
        state="{}", actions=[], rated=False, now=finished - 1,
    )  # fmt: skip
    await bot.store.matches.end(made.id, status="finished", result=None, now=finished)
    await bot.store.analyses.request(made.id, finished)
    if analysis is not None:
        await bot.store.analyses.save(made.id, analysis, finished)
    return int(made.id)


async def rated_backgammon(bot: RingsideBot, guild_id: int, winner: int, loser: int) -> None:
    played = await bot.sessions.start_match(
        game="backgammon", options={}, players=(winner, loser), guild_id=guild_id, channel_id=1,
        parent_id=None, rated=True,
    )  # fmt: skip
    await bot.sessions.ends.resign(played.session.id, loser)


async def stats_of(
    fake: FakeDiscord, asker: FakeUser, user: FakeUser, game: str = "backgammon"
) -> dict[str, Any]:
    result = await fake.slash(asker, "stats", {"user": user, "game": game}, idle=True)
    assert result.message is not None and not result.ephemeral and len(result.message.embeds) == 1
    embed: dict[str, Any] = result.message.embeds[0]
    return embed


def field(embed: dict[str, Any], start: str) -> str | None:
    return next((str(f["value"]) for f in embed.get("fields", []) if str(f["name"]).startswith(start)), None)


@pytest.mark.asyncio
async def test_stats_show_the_average_pr_and_the_latest_prs_beside_the_rating(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    guild = fake.guild.id
    await rated_backgammon(bot, guild, alice.id, bob.id)
    before = await stats_of(fake, carol, alice)
    assert "Rating **" in before["description"] and "PR: no analysed match yet" in before["description"]
    assert field(before, "PR of the last") is None
    # Against a friend, against the computer (unrated), and one still being computed: the two count.
    await analysed(bot, (alice.id, bob.id), analysis_with((0.30, 0.50)), 100.0, guild_id=guild)
    await analysed(
        bot, (fake.bot_user.id, alice.id), analysis_with((0.00, 0.10), (10, 30)), 200.0, guild_id=guild
    )
    await analysed(bot, (alice.id, bob.id), None, 300.0, guild_id=guild)
    # Another server's match, and a ring match, do not.
    elsewhere = fake.add_guild("elsewhere")
    await analysed(bot, (alice.id, bob.id), analysis_with((9.0, 9.0)), 400.0, guild_id=elsewhere.id)
    await analysed(bot, (alice.id, bob.id), analysis_with((9.0, 9.0)), 500.0, guild_id=guild, game="ring")
    after = await stats_of(fake, carol, alice)
    lines = after["description"].splitlines()
    rating = next(i for i, line in enumerate(lines) if line.startswith("Rating **"))
    # 500 x (0.30 + 0.10) / (20 + 30) = 4.0; the first match 7.5, the second 1.7 (oldest first).
    assert lines[rating + 1] == "PR **4.0** over 2 analysed matches (lower is better)"
    history = field(after, "PR of the last 2 analysed matches, oldest first")
    assert history is not None and history.startswith("7.5 · 1.7\n")
    assert "against the computer or people, rated or not" in history
    # Bob's figures are his own seat's.
    assert "PR **12.5** over 1 analysed match " in (await stats_of(fake, carol, bob))["description"]
    # Ring has no analysis: no PR at all.
    ring = await fake.slash(carol, "stats", {"user": alice, "game": "ring"}, idle=True)
    assert ring.message is not None and "PR" not in str(ring.message.embeds or ring.message.content)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_only_the_latest_prs_are_listed_and_a_player_without_a_rating_sees_theirs(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    dora = fake.add_user("dora")
    for i in range(PR_MATCHES + 2):
        lost = 0.002 * (i + 1) * 20  # PR 1, 2, 3, ... over 20 decisions
        await analysed(
            bot, (dora.id, fake.bot_user.id), analysis_with((lost, 0.0)), 100.0 + i, guild_id=fake.guild.id
        )
    embed = await stats_of(fake, dora, dora)
    assert (
        "No rating yet" in embed["description"]
        and f"over {PR_MATCHES + 2} analysed matches" in embed["description"]
    )
    history = field(embed, f"PR of the last {PR_MATCHES} analysed matches")
    assert history is not None
    assert history.split("\n")[0] == " · ".join(f"{i:.1f}" for i in range(3, PR_MATCHES + 3))
    fake.assert_clean()


@pytest.mark.asyncio
async def test_an_analysis_saved_before_the_rows_were_kept_counts_once(
    fake: FakeDiscord, bot: RingsideBot, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    erin, fred = fake.add_user("erin"), fake.add_user("fred")
    plain = await analysed(bot, (erin.id, fred.id), analysis_with((0.2, 0.0)), 100.0, guild_id=fake.guild.id)
    packed = await analysed(bot, (fred.id, erin.id), analysis_with((0.0, 0.6)), 200.0, guild_id=fake.guild.id)
    # As before migration 019: no rows; one of them compressed, as a week-old analysis is.
    sql(db, "DELETE FROM analysis_error_rates")
    text = sql(db, "SELECT analysis FROM match_analyses WHERE match_id = ?", (packed,))[0][0]
    sql(
        db,
        "UPDATE match_analyses SET status = 'posted', analysis = NULL, compact = ? WHERE match_id = ?",
        (zlib.compress(text.encode("utf-8")), packed),
    )
    embed = await stats_of(fake, fred, erin)
    # 500 x (0.2 + 0.6) / 40 = 10.0
    assert "PR **10.0** over 2 analysed matches" in embed["description"]
    assert sorted(sql(db, "SELECT match_id, seat FROM analysis_error_rates")) == [
        (plain, 0), (plain, 1), (packed, 0), (packed, 1)
    ]  # fmt: skip
    again = await stats_of(fake, fred, erin)
    assert "PR **10.0** over 2 analysed matches" in again["description"]
    assert len(sql(db, "SELECT match_id FROM analysis_error_rates")) == 4
    fake.assert_clean()


@pytest.mark.asyncio
async def test_housekeeping_gives_every_older_analysis_its_rows_in_batches(
    fake: FakeDiscord, bot: RingsideBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "db.sqlite3"
    gus, hal = fake.add_user("gus"), fake.add_user("hal")
    made = [
        await analysed(
            bot, (gus.id, hal.id), analysis_with((0.1 * i, 0.0)), 100.0 + i, guild_id=fake.guild.id
        )
        for i in range(5)
    ]
    assert len(sql(db, "SELECT match_id FROM analysis_error_rates")) == 10  # written with each analysis
    sql(db, "DELETE FROM analysis_error_rates")
    # Analyses that give no rows (no players in them), a whole batch of them, must not hold the
    # batches up for ever.
    for bad in (made[1], made[3]):
        sql(db, "UPDATE match_analyses SET analysis = '{}' WHERE match_id = ?", (bad,))
    monkeypatch.setattr("bot.housekeeping.ANALYSIS_BATCH", 2)
    report = await Housekeeping(bot.store, ManualClock()).run()
    assert report.error_rates_filled == 5
    assert sorted({row[0] for row in sql(db, "SELECT match_id FROM analysis_error_rates")}) == [
        made[0], made[2], made[4]
    ]  # fmt: skip
    assert (await Housekeeping(bot.store, ManualClock()).run()).error_rates_filled == 2  # the bad ones again
    fake.assert_clean()
