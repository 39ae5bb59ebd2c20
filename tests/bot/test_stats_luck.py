"""Luck in ``/stats`` (issue 36): a backgammon player's average luck and luck-adjusted result over
their analysed matches (match winning chances per match; money sessions apart, points per game), and
the picture of their rating above their PR in their last analysed matches, at its sizes."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

import pytest
from PIL import Image

from app.client import RingsideBot
from cogs.analysis_words import analysis_text
from cogs.stats import CHART_FILE
from engine.ai.coaching import Analysis, PlayerReport, Scale, analysis_from_json, analysis_to_json
from fakediscord import FakeDiscord
from tests.bot.test_stats_pr import analysed, bot, rated_backgammon, stats_of

__all__ = ["bot"]  # the bot fixture, used by name


def lucky_analysis(
    luck: tuple[float, float], adjusted: tuple[float, float], unit: str = "mwc", games: int = 1
) -> dict[str, Any]:
    """An analysis (JSON data) with each player's luck and luck-adjusted result in ``unit``."""
    report = PlayerReport(0, 20, 0.2, 0, 0, 0, 0.0, 10)
    players = tuple(
        replace(report, seat=seat, luck_total=luck[seat], luck_result=luck[seat], luck_adjusted=adjusted[seat],
                result=0.0, luck_unit=unit)
        for seat in (0, 1)
    )  # fmt: skip
    scale = Scale.CUBEFUL_MONEY if unit == "points" else Scale.MATCH
    chances = tuple((0.5, 1.0) for _ in range(games))
    return analysis_to_json(Analysis((players[0], players[1]), (), chances, scale, "3-ply"))


def old_analysis() -> dict[str, Any]:
    """An analysis saved before luck was kept: no luck fields at all."""
    data = lucky_analysis((0.0, 0.0), (0.0, 0.0))
    for player in data["players"]:
        for name in ("luck_total", "luck_result", "result", "luck_adjusted", "luck_unit"):
            del player[name]
    return data


def picture_size(result: Any) -> tuple[int, int]:
    png = result.message.attachment_bytes(CHART_FILE)
    size: tuple[int, int] = Image.open(io.BytesIO(png)).size
    return size


@pytest.mark.asyncio
async def test_stats_show_the_average_luck_and_luck_adjusted_result_of_the_analysed_matches(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    guild = fake.guild.id
    await rated_backgammon(bot, guild, alice.id, bob.id)
    await analysed(
        bot, (alice.id, bob.id), lucky_analysis((0.10, -0.10), (0.20, -0.20)), 100.0, guild_id=guild
    )
    await analysed(
        bot, (bob.id, alice.id), lucky_analysis((0.04, -0.02), (-0.40, 0.10)), 200.0, guild_id=guild
    )
    await analysed(bot, (alice.id, bob.id), old_analysis(), 300.0, guild_id=guild)  # its PR counts, no luck
    embed = await stats_of(fake, carol, alice)
    lines = embed["description"].splitlines()
    assert "PR **5.0** over 3 analysed matches (lower is better)" in lines
    # Alice: luck (+10% - 2%) / 2 = +4.0% a match; luck-adjusted (+20% + 10%) / 2 = +15.0%.
    assert (
        "Luck **+4.0%** a match · luck-adjusted result **+15.0%** (match winning chances, over 2 matches)"
        in lines
    )
    assert embed["image"]["url"] == f"attachment://{CHART_FILE}"
    fake.assert_clean()


@pytest.mark.asyncio
async def test_money_sessions_luck_is_shown_apart_in_points_a_game(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    dora = fake.add_user("dora")
    await analysed(
        bot, (dora.id, fake.bot_user.id), lucky_analysis((1.0, -1.0), (-0.6, 0.6), "points", 4), 100.0,
        guild_id=fake.guild.id,
    )  # fmt: skip
    embed = await stats_of(fake, dora, dora)
    line = "Money play: luck **+0.25** · luck-adjusted **\u22120.15** points a game (over 4 games)"
    assert line in embed["description"].splitlines()
    assert "a match ·" not in embed["description"]  # no match play: no MWC line
    fake.assert_clean()


@pytest.mark.asyncio
async def test_the_picture_draws_rating_and_pr_or_says_there_is_no_analysed_match(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    alice, bob, carol, dora = (fake.add_user(n) for n in ("alice", "bob", "carol", "dora"))
    guild = fake.guild.id
    await rated_backgammon(bot, guild, alice.id, bob.id)
    # No analysed match yet: the rating chart above a panel saying so; no luck line.
    result = await fake.slash(carol, "stats", {"user": alice, "game": "backgammon"}, idle=True)
    assert picture_size(result) == (600, 300 + 150)
    assert "Luck" not in result.message.embeds[0]["description"]  # type: ignore[union-attr]
    # Many analysed matches: the rating chart above the PR chart.
    for i in range(35):
        await analysed(
            bot, (alice.id, bob.id), lucky_analysis((0.01, 0.0), (0.0, 0.0)), 100.0 + i, guild_id=guild
        )
    result = await fake.slash(carol, "stats", {"user": alice, "game": "backgammon"}, idle=True)
    assert picture_size(result) == (600, 300 + 290)
    # No rating, a few analysed matches (against the computer): the PR chart alone.
    for i in range(2):
        await analysed(
            bot, (dora.id, fake.bot_user.id), lucky_analysis((0.0, 0.0), (0.0, 0.0)), 50.0 + i, guild_id=guild
        )
    result = await fake.slash(carol, "stats", {"user": dora, "game": "backgammon"}, idle=True)
    assert picture_size(result) == (600, 290)
    assert "No rating yet" in result.message.embeds[0]["description"]  # type: ignore[union-attr]
    fake.assert_clean()


def test_the_analysis_message_shows_luck_in_mwc_and_the_luck_adjusted_result() -> None:
    analysis = analysis_from_json(lucky_analysis((0.123, -0.05), (0.327, -0.327)))
    text = analysis_text(analysis, 7, "Backgammon", "3 points", ("Alice", "Bob"))
    assert f"{'Luck MWC':<10}{'+12.3%':>12}{'-5.0%':>12}" in text.splitlines()
    assert f"{'Luck adj.':<10}{'+32.7%':>12}{'-32.7%':>12}" in text.splitlines()
    assert "Luck adj.: the result (+50% won, −50% lost) minus your luck plus your opponent's" in text
    money = analysis_text(
        analysis_from_json(lucky_analysis((1.0, -1.0), (0.5, -0.5), "points", 2)),
        8,
        "Backgammon",
        "",
        ("A", "B"),
    )
    assert f"{'Luck pts':<10}{'+1.00':>12}{'-1.00':>12}" in money.splitlines()
    assert f"{'Luck adj.':<10}{'+0.25':>12}{'-0.25':>12}" in money.splitlines()  # 0.5 over 2 games


def test_an_old_analysis_message_keeps_its_one_luck_row() -> None:
    text = analysis_text(analysis_from_json(old_analysis()), 7, "Backgammon", "", ("Alice", "Bob"))
    assert "Luck adj." not in text and "Luck MWC" not in text
    assert "Luck: what the dice gave against average rolls, in equity (+ lucky, − unlucky)." in text
