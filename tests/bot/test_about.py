"""``/about``: version, uptime, matches in play (by game), and no shard line when the bot does not shard."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.about import uptime_text, version
from bot.clock import ManualClock
from fakediscord import FakeDiscord
from fakediscord.matches import challenge_and_accept
from tests.support import start_bot, stop_bot


def test_uptime_reads_at_a_glance() -> None:
    assert [uptime_text(s) for s in (40, 720, 7500, 3 * 86400 + 4 * 3600 + 5)] == [
        "40 s",
        "12 min",
        "2 h 5 min",
        "3 d 4 h",
    ]


@pytest.mark.asyncio
async def test_about_says_version_uptime_and_matches_in_play(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    try:
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        # No match yet: a sentence, not "Matches in play: 0: none right now".
        before = await fake.slash(alice, "about")
        assert before.message is not None
        fields = {f["name"]: f["value"] for f in before.message.embeds[0]["fields"]}
        assert fields["Matches in play"] == "None right now."
        assert not any(name.startswith("Matches in play:") for name in fields)
        await challenge_and_accept(fake, alice, bob)
        clock.advance(7500)
        result = await fake.slash(alice, "about")
        assert result.ephemeral
        assert result.message is not None
        [embed] = result.message.embeds
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        assert fields["Version"] == version() != "unknown"
        assert fields["Up for"] == "2 h 5 min"
        assert fields["Matches in play: 1"] == "Ring: 1"
        assert "Shard" not in fields
        assert embed["footer"]["text"] in ("Saved in SQLite", "Saved in PostgreSQL")
    finally:
        await stop_bot(bot)
