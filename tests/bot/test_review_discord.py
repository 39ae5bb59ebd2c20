"""``/review`` on Discord (the real bot on the fake Discord): every decision of an analysed match that
lost equity, a page each, privately; First / Prev / Next / Last; **Review** under the analysis; clear
private refusals that change nothing."""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image

from app.client import RingsideBot
from bot.store import LoggedAction
from cogs.review import category_words, decisions_lost, ordinal
from engine.ai.backgammon_analysis import analyse
from engine.ai.backgammon_bgsage import EASY, MEDIUM
from engine.ai.coaching import Analysis, Decision, PlayerReport, Scale, analysis_to_json
from engine.ai.selfplay import notations_played
from engine.backgammon.variant import VARIANT
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.engine.test_review_positions import saved_before_reviews
from tests.support import start_bot, stop_bot

LOG = list(islice(notations_played(VARIANT, {}, (MEDIUM, EASY), random.Random(11)), 80))
"""Eighty actions of a match between the medium and the easy computer: the easy one loses equity."""


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return analyse({}, LOG, level="2ply")


async def analysed_match(
    bot: Any,
    players: tuple[FakeUser, FakeUser],
    analysis: Analysis | None,
    *,
    guild_id: int,
    channel_id: int,
    saved: dict[str, Any] | None = None,
    game: str = "backgammon",
) -> int:
    """A finished backgammon match of ``LOG`` between ``players``, its analysis saved (still pending
    when ``analysis`` is None; ``saved`` replaces the analysis's JSON). Of another game: a finished
    match with no log and no analysis."""
    made = await bot.store.matches.create(
        guild_id=guild_id, channel_id=channel_id, parent_id=None, game=game, options={},
        players=(players[0].id, players[1].id), state="{}",
        actions=[LoggedAction(None, text) for text in LOG if game == "backgammon"], rated=False, now=5.0,
    )  # fmt: skip
    await bot.store.matches.end(made.id, status="finished", result=None, now=6.0)
    if game != "backgammon":
        return int(made.id)
    await bot.store.analyses.request(made.id, 7.0)
    if analysis is not None:
        await bot.store.analyses.save(made.id, saved or analysis_to_json(analysis), 8.0)
    return int(made.id)


@dataclass(frozen=True, slots=True)
class Reviewed:
    bot: Any
    alice: FakeUser
    bob: FakeUser
    match_id: int


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[RingsideBot]:
    """The bot, stopped at the end even when the test fails (a bot left running holds pytest up)."""
    started = await start_bot(fake, tmp_path / "db.sqlite3")
    yield started
    await stop_bot(started)


@pytest_asyncio.fixture
async def reviewed_match(fake: FakeDiscord, bot: RingsideBot, analysis: Analysis) -> AsyncIterator[Reviewed]:
    """Alice and Bob, and their analysed match here; the fake is checked clean at the end."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    match_id = await analysed_match(
        bot, (alice, bob), analysis, guild_id=fake.guild.id, channel_id=fake.channel.id
    )
    yield Reviewed(bot, alice, bob, match_id)
    fake.assert_clean()


async def review(fake: FakeDiscord, user: FakeUser, options: dict[str, Any]) -> FakeMessage:
    answer = (await fake.slash(user, "review", options, idle=True)).private
    assert answer is not None and answer.visible_to == user.id
    return answer


def title(message: FakeMessage) -> str:
    return str(message.embeds[0]["title"])


def button(message: FakeMessage, label: str) -> Any:
    return next(b for b in message.buttons if b.label == label)


@pytest.mark.asyncio
async def test_review_pages_through_every_decision_that_lost_equity_in_match_order(
    fake: FakeDiscord, reviewed_match: Reviewed, analysis: Analysis
) -> None:
    alice, match_id = reviewed_match.alice, reviewed_match.match_id
    shown = decisions_lost(analysis)
    count = len(shown)
    assert count >= 3 and all(d.loss > 0 for d in shown)
    assert [(d.game, d.turn) for d in shown] == sorted((d.game, d.turn) for d in shown)
    page = await review(fake, alice, {})  # the latest analysed match by default
    assert title(page) == f"Review of match #{match_id} · 1 of {count}"
    first = shown[0]
    text = page.embeds[0]["description"]
    assert f"`{first.played}`" in text and f"`{first.best}`" in text and f"{first.loss:.3f}" in text
    assert f"{first.played_equity:+.3f}" in text and f"{first.best_equity:+.3f}" in text
    you = "Your" if first.seat == 0 else "The"
    assert f"{you} play ranked {first.rank}" in text and f"of {first.choices}." in text
    picture = Image.open(io.BytesIO(page.attachment(f"review-{match_id}-1.png").data))
    assert picture.format == "PNG"
    # Prev and First lead nowhere on the first page; Next and Last nowhere on the last.
    assert button(page, "Prev").disabled and button(page, "First").disabled
    assert not button(page, "Next").disabled
    nxt = await fake.click(alice, page, str(button(page, "Next").custom_id), idle=True)
    page = nxt.message
    assert page is not None and title(page) == f"Review of match #{match_id} · 2 of {count}"
    assert f"`{shown[1].played}`" in page.embeds[0]["description"]
    assert page.attachment(f"review-{match_id}-2.png")
    last = await fake.click(alice, page, str(button(page, "Last").custom_id), idle=True)
    page = last.message
    assert page is not None and title(page) == f"Review of match #{match_id} · {count} of {count}"
    assert button(page, "Next").disabled and button(page, "Last").disabled
    back = await fake.click(alice, page, str(button(page, "Prev").custom_id), idle=True)
    assert (
        back.message is not None
        and title(back.message) == f"Review of match #{match_id} · {count - 1} of {count}"
    )
    # A page beyond the end (a forged button: the bot's own lead only to pages that exist) is refused
    # privately, and the page shown stays as it is (issue 33).
    shown_now = title(fake.message(page))
    stale = dict(button(page, "Prev").raw, custom_id=f"rv:{match_id}:{alice.id}:{count + 5}:next")
    beyond = await fake.forge(alice, page, stale)
    await fake.wait_idle()
    assert [m.ephemeral and f"has {count} pages" in m.content for m in beyond.followups] == [True]
    assert title(fake.message(page)) == shown_now


@pytest.mark.asyncio
async def test_someone_elses_review_button_is_refused_privately(
    fake: FakeDiscord, reviewed_match: Reviewed, analysis: Analysis
) -> None:
    alice, bob, match_id = reviewed_match.alice, reviewed_match.bob, reviewed_match.match_id
    mine = await review(fake, alice, {"match": match_id})
    theirs = await review(fake, bob, {"match": match_id})
    before = theirs.embeds
    # Bob's client sends Alice's Next, as if it were on his own review.
    forged = await fake.forge(bob, theirs, dict(button(mine, "Next").raw))
    await fake.wait_idle()
    refusal = forged.private
    assert refusal is not None and refusal.visible_to == bob.id
    assert "opened by someone else" in refusal.content and f"/review match:{match_id}" in refusal.content
    assert fake.world.messages[theirs.id].embeds == before and title(mine).endswith(
        f"1 of {len(decisions_lost(analysis))}"
    )


@pytest.mark.asyncio
async def test_a_review_is_refused_privately_without_an_analysis_or_on_another_server(
    fake: FakeDiscord, bot: RingsideBot, analysis: Analysis
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    nothing = await review(fake, alice, {})
    assert "no analysed match on this server yet" in nothing.content
    pending = await analysed_match(
        bot, (alice, bob), None, guild_id=fake.guild.id, channel_id=fake.channel.id
    )
    assert "still being computed" in (await review(fake, alice, {"match": pending})).content
    assert "no analysed match" in (await review(fake, alice, {})).content  # a pending one is no default
    await bot.store.analyses.failed(pending, 9.0)
    assert "could not be analysed" in (await review(fake, alice, {"match": pending})).content
    other = fake.add_guild("elsewhere")
    elsewhere = await analysed_match(
        bot, (alice, bob), analysis, guild_id=other.id, channel_id=fake.channel.id
    )
    assert (
        f"no match #{elsewhere} on this server" in (await review(fake, alice, {"match": elsewhere})).content
    )
    assert "no match #99999 on this server" in (await review(fake, alice, {"match": 99999})).content
    ring = await analysed_match(
        bot, (alice, bob), None, guild_id=fake.guild.id, channel_id=fake.channel.id, game="ring"
    )
    assert "has no analysis" in (await review(fake, alice, {"match": ring})).content
    fake.assert_clean()


@pytest.mark.asyncio
async def test_review_under_the_analysis_opens_the_clickers_own_review(
    fake: FakeDiscord, reviewed_match: Reviewed, analysis: Analysis
) -> None:
    bot, match_id, carol = reviewed_match.bot, reviewed_match.match_id, fake.add_user("carol")
    await bot.analyses.run(match_id)
    posted = next(m for m in fake.messages_in(fake.channel.id) if m.content.startswith("📊"))
    assert "anyone may review" in posted.content
    assert button(posted, "Review").custom_id == f"rvo:{match_id}"
    # Carol did not play: she may review it too, privately; her pages say "The play".
    opened = await fake.click(carol, posted, f"rvo:{match_id}", idle=True)
    page = opened.private
    assert page is not None and page.visible_to == carol.id
    assert title(page) == f"Review of match #{match_id} · 1 of {len(decisions_lost(analysis))}"
    assert "Your " not in page.embeds[0]["description"]
    assert all(str(b.custom_id).startswith(f"rv:{match_id}:{carol.id}:") for b in page.buttons)


@pytest.mark.asyncio
async def test_an_analysis_saved_before_reviews_still_shows_what_it_has(
    fake: FakeDiscord, bot: RingsideBot, analysis: Analysis
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    saved = saved_before_reviews(analysis, LOG)
    match_id = await analysed_match(
        bot, (alice, bob), analysis, guild_id=fake.guild.id, channel_id=fake.channel.id, saved=saved
    )
    page = await review(fake, alice, {"match": match_id})
    first = decisions_lost(analysis)[0]
    text = page.embeds[0]["description"]
    assert f"`{first.played}`" in text and f"{first.loss:.3f}" in text and "ranked" not in text
    assert "before equities and ranks were kept" in page.embeds[0]["footer"]["text"]
    # The position is found by its game and turn: the same picture as a fresh analysis's.
    fresh = await analysed_match(
        bot, (alice, bob), analysis, guild_id=fake.guild.id, channel_id=fake.channel.id
    )
    again = await review(fake, alice, {"match": fresh})
    assert page.attachment(f"review-{match_id}-1.png").data == again.attachment(f"review-{fresh}-1.png").data
    fake.assert_clean()


def test_a_review_holds_every_counted_decision_that_lost_equity_in_match_order() -> None:
    losses = ((0.0, True), (0.0004, True), (0.0005, True), (0.01, True), (0.05, False), (0.3, True))
    decisions = tuple(
        Decision(0, 1, turn, "play", "24/18", "13/7", loss, unforced, "6-1")
        for turn, (loss, unforced) in enumerate(losses, start=1)
    )
    report = PlayerReport(0, 5, 0.31, 0, 0, 1, 0.0, 5)
    analysis = Analysis((report, replace(report, seat=1)), decisions, ((0.5,),), Scale.MATCH, "2-ply")
    # Below doubtful too (0.01), not an uncounted decision, nor what shows as 0.000.
    assert [d.turn for d in decisions_lost(analysis)] == [3, 4, 6]
    assert [category_words(loss, analysis.thresholds) for loss in (0.01, 0.02, 0.05, 0.3)] == [
        "small (under 0.02)", "doubtful", "an error", "a blunder"
    ]  # fmt: skip
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"
    ]  # fmt: skip
