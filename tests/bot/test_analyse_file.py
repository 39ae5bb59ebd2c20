"""``/analyse file:`` (issue 24, positions in): a ``.mat`` file played elsewhere, read, replayed under our
rules and analysed like our own matches (the heavy worker lane), posted as the same analysis message
with the same **Review** (the match is kept apart from ours: ``bot.store.imports``); refused privately,
with the line and the reason, when it cannot be read."""

from __future__ import annotations

import asyncio
import io
import zlib
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.housekeeping import KEEP_IMPORTS_FOR, Housekeeping
from cogs.review import decisions_lost
from engine.ai import backgammon_analysis
from engine.ai.coaching import analysis_from_json
from fakediscord import FakeDiscord
from fakediscord.patience import patient
from tests.bot.test_review_discord import button, title
from tests.databases import sql
from tests.support import start_bot, stop_bot

FILES = Path(__file__).parent.parent / "engine" / "mat_files"
ONE_POINT = (FILES / "gnubg-1-point.mat").read_bytes()


ANALYSIS_SECONDS = 600


async def analysed(fake: FakeDiscord, bot: Any, user: Any, name: str, data: bytes = ONE_POINT) -> Any:
    """``/analyse file:`` by ``user``: answered at once with a place in the queue, then the analysis
    is posted in the channel and the answer says so; the interaction's result."""
    bot.analyses.finished.clear()
    done = await fake.slash(user, "analyse", {"file": (name, data)}, idle=True)
    private = done.private
    assert private is not None and private.content.startswith(f"{name}: ")
    # Its place in the queue, or its progress if a lane took it up before the answer was shown.
    assert "in the queue, done in" in private.content or f"{name}: analysing" in private.content
    await fake.wait_for(
        lambda: f"{name} is analysed" in done.private.content, timeout=ANALYSIS_SECONDS, what="the analysis"
    )
    await asyncio.wait_for(bot.analyses.finished.wait(), patient(10))  # its job is marked posted
    return done


@pytest.fixture(autouse=True)
def cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cheaper depth than the bot's (what is tested is the way, not the depth)."""
    monkeypatch.setattr(backgammon_analysis, "LEVEL", "2ply")


def a_png() -> bytes:
    picture = io.BytesIO()
    Image.new("RGB", (16, 16), "white").save(picture, "PNG")
    return picture.getvalue()


@pytest.mark.asyncio
async def test_a_gnubg_export_is_analysed_and_posted_with_the_players_of_the_file(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    done = await analysed(fake, bot, alice, "gnubg-1-point.mat")
    private = done.private
    assert private is not None and "gnubg-1-point.mat is analysed" in private.content
    (posted,) = [m for m in fake.messages_in(fake.channel) if not m.ephemeral]
    assert posted.content.startswith("📊 **Analysis of gnubg-1-point.mat** (played elsewhere; Backgammon)")
    for label in ("PR", "Doubtful", "Errors", "Blunders", "Luck"):
        assert f"\n{label}" in posted.content
    header = posted.content.split("```")[1].splitlines()[1]
    assert "gnubg" in header and "root" in header
    assert posted.attachment("analysis.png").data.startswith(b"\x89PNG")
    sgf = posted.attachment("gnubg-1-point.sgf").data.decode()  # the file's match with our analysis
    assert sgf.startswith("(;FF[4]GM[6]") and "PW[gnubg]" in sgf and " E ver 3 " in sgf
    # Nothing of ours was created for it.
    assert await bot.store.matches.active() == [] and await bot.store.analyses.open() == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("filename", "data", "reason"),
    [
        ("notes.txt", b"hello", "notes.txt is not a match file I read (.mat)."),
        (
            "big.mat",
            b" 1 point match\n" + b" " * 1_000_000,
            "big.mat is 1,000,015 bytes; match files are read up to 1,000,000.",
        ),
        ("empty.mat", b"", 'empty.mat: This is not a .mat file: it has no " N point match" line.'),
        ("board.mat", a_png(), "board.mat: This is not a .mat file: it is a PNG picture, not text."),
        (
            "notes.mat",
            b"My match against Bob\n 1) 31: 8/5 6/5\n",
            'notes.mat: Line 1: This is not a .mat file: it starts with "My match against Bob"; a .mat '
            'file starts with a line such as " 7 point match".',
        ),
        (
            "bad.mat",
            ONE_POINT.replace(b"41: 13/9 24/23", b"41: 13/9 24/22"),
            "bad.mat: Line 7: 13/9 24/22 is not a legal play of 4-1 for gnubg here.",
        ),
        (
            "money.mat",
            b" 0 point match\n",
            "money.mat: Line 1: This is a money session; only matches are read.",
        ),
    ],
)
async def test_a_file_that_cannot_be_read_is_refused_privately_with_its_reason(
    fake: FakeDiscord, tmp_path: Path, filename: str, data: bytes, reason: str
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    done = await fake.slash(alice, "analyse", {"file": (filename, data)}, idle=True)
    private = done.private
    assert private is not None and private.content == reason
    assert [m for m in fake.messages_in(fake.channel) if not m.ephemeral] == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_analysis_of_a_file_is_reviewed_as_our_own_matches_are_even_after_a_restart(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, carol = fake.add_user("alice"), fake.add_user("carol")
    await analysed(fake, bot, alice, "final.mat")
    (posted,) = [m for m in fake.messages_in(fake.channel) if not m.ephemeral]
    kept = await bot.analyses.imported(1)
    assert kept is not None and kept.file_name == "final.mat" and kept.sender_id == alice.id
    assert kept.names == ("gnubg", "root") and kept.message_id == posted.id and kept.guild_id == fake.guild.id
    lost = decisions_lost(analysis_from_json(kept.analysis))
    assert lost, "the file's match has decisions that lost equity"
    assert button(posted, "Review").custom_id == "rvo:f1"
    # Anyone of the server may review it, privately; nobody is "you" in a match played elsewhere.
    opened = (await fake.click(carol, posted, "rvo:f1", idle=True)).private
    assert opened is not None and opened.visible_to == carol.id
    assert title(opened) == f"Review of final.mat · 1 of {len(lost)}"
    text = opened.embeds[0]["description"]
    assert f"`{lost[0].played}`" in text and f"`{lost[0].best}`" in text and "Your " not in text
    assert opened.attachment("review-f1-1.png").data.startswith(b"\x89PNG")
    assert all(str(b.custom_id).startswith(f"rv:f1:{carol.id}:") for b in opened.buttons)
    # Someone else's page buttons are refused, without the /review hint of our own matches.
    mine = (await fake.click(alice, posted, "rvo:f1", idle=True)).private
    assert mine is not None
    forged = await fake.forge(alice, mine, dict(button(opened, "Last").raw))
    await fake.wait_idle()
    assert forged.private is not None and "opened by someone else" in forged.private.content
    assert "/review match" not in forged.private.content
    await stop_bot(bot)

    # After a restart the buttons still page: everything is read from the store.
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    last = await fake.click(carol, opened, str(button(opened, "Last").custom_id), idle=True)
    assert (
        last.message is not None
        and title(last.message) == f"Review of final.mat · {len(lost)} of {len(lost)}"
    )
    # Nothing of ours was created for it: no match, no result, no rating.
    assert await bot.store.matches.active() == [] and await bot.sessions.history.recent(alice.id, 10) == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_review_of_a_file_is_refused_privately_elsewhere_when_deleted_or_unreadable(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    await analysed(fake, bot, alice, "final.mat")
    (posted,) = [m for m in fake.messages_in(fake.channel) if not m.ephemeral]
    # Kept for another server: this one does not see it.
    sql(
        tmp_path / "db.sqlite3", "UPDATE imported_matches SET guild_id = ? WHERE id = 1", (fake.guild.id + 1,)
    )
    elsewhere = (await fake.click(alice, posted, "rvo:f1", idle=True)).private
    assert elsewhere is not None and "no longer kept" in elsewhere.content
    # A corrupt row says so and changes nothing.
    sql(
        tmp_path / "db.sqlite3",
        "UPDATE imported_matches SET guild_id = ?, analysis = ? WHERE id = 1",
        (fake.guild.id, zlib.compress(b"{not json")),
    )
    broken = (await fake.click(alice, posted, "rvo:f1", idle=True)).private
    assert broken is not None and broken.content == "The analysis of final.mat cannot be read."
    # Housekeeping deletes files analysed more than KEEP_IMPORTS_FOR ago, and only those.
    sql(
        tmp_path / "db.sqlite3",
        "UPDATE imported_matches SET created_at = created_at - ?",
        (KEEP_IMPORTS_FOR + 60,),
    )
    await analysed(fake, bot, alice, "second.mat")
    report = await Housekeeping(bot.store, bot.clock).run()
    assert report.purged_imports == 1
    assert await bot.analyses.imported(1) is None and await bot.analyses.imported(2) is not None
    gone = (await fake.click(alice, posted, "rvo:f1", idle=True)).private
    assert gone is not None and "no longer kept" in gone.content and "/analyse file:" in gone.content
    fake.assert_clean()
    await stop_bot(bot)
