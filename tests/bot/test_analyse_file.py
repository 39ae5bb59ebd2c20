"""``/analyse file:`` (issue 24, positions in): a ``.mat`` file played elsewhere, read, replayed under our
rules and analysed like our own matches (the heavy worker lane), posted as the same analysis message;
refused privately, with the line and the reason, when it cannot be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakediscord import FakeDiscord
from tests.support import start_bot, stop_bot

FILES = Path(__file__).parent.parent / "engine" / "mat_files"
ONE_POINT = (FILES / "gnubg-1-point.mat").read_bytes()


@pytest.mark.asyncio
async def test_a_gnubg_export_is_analysed_and_posted_with_the_players_of_the_file(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    done = await fake.slash(
        alice, "analyse", {"file": ("gnubg-1-point.mat", ONE_POINT)}, idle=True, timeout=600
    )
    private = done.private
    assert private is not None and "gnubg-1-point.mat is analysed" in private.content
    (posted,) = [m for m in fake.messages_in(fake.channel) if not m.ephemeral]
    assert posted.content.startswith("📊 **Analysis of gnubg-1-point.mat** (played elsewhere; Backgammon)")
    for label in ("PR", "Doubtful", "Errors", "Blunders", "Luck"):
        assert f"\n{label}" in posted.content
    header = posted.content.split("```")[1].splitlines()[1]
    assert "gnubg" in header and "root" in header
    assert posted.attachment("analysis.png").data.startswith(b"\x89PNG")
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
