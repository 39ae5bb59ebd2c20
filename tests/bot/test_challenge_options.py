"""Game options on /challenge (match length, rule set): offered, checked at once, kept, shown.

Ring has no options, so these tests play ``ringx`` (``tests.support.RingWithOptions``): ring with a
``length`` (1..25, default 1) and ``rules`` (standard / oldenglish), registered for each test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.challenges import Challenges
from fakediscord import FakeDiscord
from fakediscord.matches import match_id_of, resign
from fakediscord.world import FakeMessage, FakeUser
from tests.support import RingWithOptions, register_ring_with_options, start_bot, stop_bot

SHOWN = "5-point match, Old English rules"


@pytest.fixture
def ringx(monkeypatch: pytest.MonkeyPatch) -> RingWithOptions:
    return register_ring_with_options(monkeypatch)


def control(message: FakeMessage, suffix: str) -> str:
    return next(c for c in message.custom_ids if c.endswith(suffix))


def rematch_button(message: FakeMessage) -> str:
    found = next(b.custom_id for b in message.buttons if b.label == "Rematch")
    assert found is not None
    return found


@pytest.mark.asyncio
async def test_options_are_kept_and_shown_in_challenge_thread_result_and_rematch(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    options = {"game": "ringx", "length": 5, "rules": "oldenglish"}
    made = await fake.slash(alice, "challenge", {"opponent": bob, **options})
    assert made.message is not None and not made.ephemeral
    assert f"challenges you to **Ring X** ({SHOWN})!" in made.message.content
    resolved = {"length": 5, "rules": "oldenglish"}
    challenge = await bot.store.challenges.get(1)
    assert challenge is not None and challenge.options == resolved
    await fake.click(bob, made.message, control(made.message, ":accept"), idle=True)
    assert f"**Ring X** ({SHOWN}): the match is on" in fake.message(made.message).content
    thread = fake.thread_of(made.message)
    assert thread is not None and thread.name == f"Ring X: Alice vs Bob · {SHOWN}"
    board = fake.messages_in(thread)[-1]
    match = await bot.store.matches.get(match_id_of(board))
    assert match is not None and match.options == resolved
    await resign(fake, alice, thread.id)
    result = fake.messages_in(thread)[-1]
    assert result.content.startswith(f"🏆 {bob.mention} wins ({SHOWN}): ")
    # Rematch: the same options, shown in the offer, used for the new match.
    offer = await fake.click(bob, result, rematch_button(result))
    assert (
        offer.message is not None
        and f"rematch of **Ring X** ({SHOWN}, seats swapped: you play" in offer.message.content
    )
    await fake.click(alice, offer.message, control(offer.message, ":accept"), idle=True)
    second = (await bot.store.matches.active())[0]
    assert second.id != match.id and second.options == resolved
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_default_options_are_stored_but_not_mentioned(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "ringx", "length": 1, "rated": False}
    )
    assert made.message is not None and "challenges you to **Ring X** (unrated)!" in made.message.content
    challenge = await bot.store.challenges.get(1)
    assert challenge is not None and challenge.options == {"length": 1, "rules": "standard"}
    await fake.click(bob, made.message, control(made.message, ":accept"), idle=True)
    thread = fake.thread_of(made.message)
    assert thread is not None and thread.name == "Ring X: Alice vs Bob"
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_rule_sets_are_matched_as_people_type_them(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    by_label = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "ringx", "rules": "old english"}
    )
    by_value = await fake.slash(
        alice, "challenge", {"opponent": carol, "game": "ringx", "rules": "OldEnglish"}
    )
    for made in (by_label, by_value):
        assert made.message is not None and "(Old English rules)" in made.message.content
    assert Challenges.check_options(ringx, {"rules": " Standard "}) == {"length": 1, "rules": "standard"}
    fake.assert_clean()
    await stop_bot(bot)


BAD = [
    ({"game": "ring", "rules": "oldenglish"}, "Ring has no option rules (it takes no options)."),
    ({"game": "ring", "length": 3}, "Ring has no option length"),
    ({"game": "ringx", "length": 30}, "Length must be at most 25."),
    ({"game": "ringx", "length": 0}, "Length must be at least 1."),
    ({"game": "ringx", "length": -3}, "Length must be at least 1."),
    (
        {"game": "ringx", "rules": "nackgammon"},
        "Rules must be one of standard, oldenglish, not 'nackgammon'.",
    ),
]


@pytest.mark.asyncio
@pytest.mark.parametrize("computer", [False, True], ids=["person", "computer"])
async def test_bad_options_are_refused_privately_at_once(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions, computer: bool
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    opponent: FakeUser = fake.bot_user if computer else bob
    for given, message in BAD:
        refused = await fake.slash(alice, "challenge", {"opponent": opponent, **given}, idle=True)
        assert refused.ephemeral and refused.message is not None, given
        assert message in refused.message.content, (given, refused.message.content)
    # Nothing was created: no challenge, no match, no thread, nothing public in the channel.
    assert await bot.store.challenges.get(1) is None
    assert await bot.store.matches.active() == []
    assert fake.threads() == []
    assert [m for m in fake.messages_in(fake.channel) if not m.ephemeral] == []
    fake.assert_clean()
    await stop_bot(bot)


def _choices(result: Any) -> list[tuple[str, Any]]:
    assert result.choices is not None
    return [(c["name"], c["value"]) for c in result.choices]


@pytest.mark.asyncio
async def test_autocomplete_offers_the_options_of_the_game_typed(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")

    async def rules(game: str | None, typed: str = "") -> list[tuple[str, Any]]:
        given: dict[str, Any] = {"opponent": bob, "rules": typed}
        if game is not None:
            given["game"] = game
        return _choices(await fake.autocomplete(alice, "challenge", given, focused="rules"))

    async def lengths(game: str, typed: str = "") -> list[tuple[str, Any]]:
        given = {"opponent": bob, "game": game, "length": typed}
        return _choices(await fake.autocomplete(alice, "challenge", given, focused="length"))

    assert await rules("ringx") == [
        ("Standard", "standard"),
        ("Old English (at most five checkers on a point)", "oldenglish"),
    ]
    assert await rules("ringx", "five") == [("Old English (at most five checkers on a point)", "oldenglish")]
    assert await rules("ring") == []  # ring has no rule sets
    assert await rules(None) == []  # nothing typed in game yet: ring, the default
    assert await rules("chess") == []
    offered = await lengths("ringx")
    assert offered[:3] == [("1 (default)", 1), ("3-point match", 3), ("5-point match", 5)]
    assert [v for _, v in offered] == list(range(1, 26, 2))
    assert await lengths("ringx", "2") == [
        ("2-point match", 2),
        ("21-point match", 21),
        ("23-point match", 23),
        ("25-point match", 25),
    ]
    assert await lengths("ringx", "40") == []
    assert await lengths("ring") == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_computer_plays_with_options_and_a_rematch_keeps_them(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    given = {"opponent": fake.bot_user, "game": "ringx", "length": 3}
    started = await fake.slash(alice, "challenge", given, idle=True)
    assert started.messages, "the match starts at once against the computer"
    first = started.messages[-1]
    assert "Ring X (3-point match) against the computer" in (first.embeds[0]["description"] or "")
    match = await bot.store.matches.get(match_id_of(first))
    assert match is not None and match.options == {"length": 3, "rules": "standard"}
    await resign(fake, alice, first.channel_id)
    result = fake.messages_in(first.channel_id)[-1]
    assert result.content.startswith(f"🏆 {fake.bot_user.mention} wins (3-point match): ")
    again = await fake.click(alice, result, rematch_button(result), idle=True)
    assert (
        again.messages
        and "Rematch: Ring X (3-point match) again!" in again.messages[-1].embeds[0]["description"]
    )
    second = await bot.store.matches.get(match_id_of(again.messages[-1]))
    assert second is not None and second.id != match.id and second.options == match.options
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rematch_whose_options_the_game_no_longer_allows_is_refused(
    fake: FakeDiscord, tmp_path: Path, ringx: RingWithOptions, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ringx", "length": 9})
    assert made.message is not None
    await fake.click(bob, made.message, control(made.message, ":accept"), idle=True)
    thread = fake.thread_of(made.message)
    assert thread is not None
    await resign(fake, alice, thread.id)
    result = fake.messages_in(thread)[-1]
    monkeypatch.setattr(RingWithOptions, "options", RingWithOptions.options[1:])  # length is gone
    refused = await fake.click(bob, result, rematch_button(result))
    assert refused.ephemeral and refused.message is not None
    assert "Ring X has no option length" in refused.message.content
    assert await bot.store.challenges.get(2) is None
    fake.assert_clean()
    await stop_bot(bot)
