"""Space on Discord (the real bot on the fake Discord): whole games by clicks through "My hand",
a restart in the middle, the computer as opponent, the public board that never shows a card of a
hand, and clicks by the wrong person or on an old control that change nothing."""

from __future__ import annotations

import json
import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from bot.session import Session
from bot.store import MatchRecord
from cogs.board import board_message
from engine import find_variant
from engine.space.cards import CARDS
from engine.space.game import SpaceState
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, live_board, play_one, private_panel, user_on_turn
from tests.engine.space_helpers import random_playout
from tests.support import board_parts, start_bot, stop_bot

CARD_NAMES = tuple(card.name for card in CARDS)
VARIANT = find_variant("space")


def public_text(message: FakeMessage) -> str:
    """Everything a public message shows in words: content, embeds and its controls."""
    return message.content + json.dumps(message.embeds) + json.dumps(message.components)


def names_a_card_in_a_hand(text: str) -> list[str]:
    """Card names said outside the public events (a discard, a card played, Espionage's hand)."""
    return [name for name in CARD_NAMES if re.search(rf"(hand|holds?)[^.]*\b{re.escape(name)}\b", text)]


def hand_button(board: FakeMessage) -> str:
    return next(b.custom_id or "" for b in board.buttons if b.label == "My hand")


async def act_as_player(fake: FakeDiscord, board: FakeMessage, user: FakeUser, rng: random.Random) -> None:
    """The player on turn decides: through a private reply when the board asks them to open their hand
    (a fresh one, or the one still open), else on the board itself."""
    panel = private_panel(fake, board.channel_id, user, board)
    if panel is None and "**My hand**" in board.content:
        opened = await fake.click(user, board, hand_button(board), idle=True)
        assert opened.ephemeral and opened.message is not None
        panel = opened.message
    await play_one(fake, panel or board, user, rng)


async def play_game(
    fake: FakeDiscord, channel: int, users: dict[int, FakeUser], rng: random.Random, restart: object = None
) -> tuple[FakeMessage, int]:
    """Play until a result (🏆); returns it and the number of clicks."""
    for clicks in range(5000):  # a random game takes about 700 clicks; a board left stale loops
        board = live_board(fake, channel)
        if board.content.startswith("🏆"):
            return board, clicks
        user = user_on_turn(board, users)
        assert user is not None, board.content
        await act_as_player(fake, board, user, rng)
        if callable(restart):
            await restart(clicks)
    raise AssertionError("the game did not end")


@pytest.mark.slow  # about 45 s: a random game between two people is long
@pytest.mark.asyncio
async def test_a_whole_game_by_clicks_with_a_restart_ends_with_a_result_and_ratings(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bots = [await start_bot(fake, db, seed=3)]
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob, "space")
    # The Empire (Alice, the challenger's seat) decides first, privately: the board has "My hand".
    assert user_on_turn(board, users) is alice and "**My hand**" in board.content
    assert [b.label for b in board.buttons] == ["My hand", "Resign", "Rules"]

    async def restart(clicks: int) -> None:
        if clicks == 40:
            await stop_bot(bots[0])
            bots[0] = await start_bot(fake, db, seed=4)

    result, clicks = await play_game(fake, board.channel_id, users, random.Random(5), restart)
    assert clicks > 40 and "Ratings:" in public_text(result)
    for message in fake.messages_in(board.channel_id):
        if message.visible_to is None:
            text = public_text(message)
            assert "Your hand" not in text, "the private hand never reaches the public board"
            assert not names_a_card_in_a_hand(text), text
    fake.assert_clean()
    await stop_bot(bots[0])


@pytest.mark.asyncio
async def test_the_computer_plays_space(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=2)
    alice = fake.add_user("alice")
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "space"}, idle=True)
    (thread,) = fake.threads(fake.channel)
    result, _ = await play_game(fake, thread.id, {alice.id: alice}, random.Random(2))
    assert result.content.startswith("🏆")  # (a match against the computer is not rated)
    # The text under the pictures tells the story: the dice, the moves, the cards played, each fight
    # with both totals and who keeps what; and never a card still in a hand.
    told = "\n".join(
        str(embed.get("description") or "")
        for message in fake.messages_in(thread.id)
        if message.visible_to is None
        for embed in message.embeds
    )
    for words in (" rolled ", " moved ", " played ", " against ", " keeps "):
        assert words in told, words
    assert re.search(
        r"(Evil Empire|Terran Defense Force) \d+ against (Terran Defense Force|Evil Empire) \d+: .* wins; "
        r"destroyed: [A-Z]",
        told,
    )
    for message in fake.messages_in(thread.id):
        if message.visible_to is None:
            assert not names_a_card_in_a_hand(public_text(message))
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_your_hand_shows_the_clickers_own_cards_and_refuses_a_stranger(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=3)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    board = await challenge_and_accept(fake, alice, bob, "space")
    session = await bot.sessions.get(int(hand_button(board).split(":")[1]))
    state = session.state
    assert isinstance(state, SpaceState)
    for user, seat in ((alice, 0), (bob, 1)):
        reply = await fake.click(user, board, hand_button(board), idle=True)
        assert reply.ephemeral and reply.message is not None
        text = reply.message.content
        assert f"**Your hand** ({len(state.hands[seat])} cards)" in text
        for key in state.view(seat).hand:
            card = next(c for c in CARDS if c.key == key)
            assert f"**{card.name}**" in text and card.text in text
        # The decision is Alice's: only her reply carries controls.
        assert bool(reply.message.buttons or reply.message.selects) == (seat == 0)
    stranger = await fake.click(carol, board, hand_button(board), idle=True)
    assert stranger.ephemeral and stranger.message is not None
    assert "not playing in this match" in stranger.message.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_wrong_player_or_an_old_control_changes_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=3)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "space")
    match_id = int(hand_button(board).split(":")[1])
    opened = await fake.click(alice, board, hand_button(board), idle=True)
    assert opened.message is not None
    private = opened.message
    first = next(b.custom_id or "" for b in private.buttons)
    version = (await bot.sessions.get(match_id)).version
    # Bob clicks Alice's control (delivered on his own reply, which has none): refused, nothing changes.
    bobs = await fake.click(bob, board, hand_button(board), idle=True)
    assert bobs.message is not None and not bobs.message.buttons
    stored = fake.message(bobs.message)
    stored.components.append(
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": first}]}
    )
    wrong = await fake.click(bob, stored, first, idle=True)
    assert wrong.ephemeral and (await bot.sessions.get(match_id)).version == version
    # Alice plays it; the same control clicked again is stale and changes nothing more.
    await fake.click(alice, private, first, idle=True)
    after = (await bot.sessions.get(match_id)).version
    assert after > version
    # (a client that still shows the old control, as after a lost edit)
    edited = fake.message(private)
    edited.components.append(
        {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": first}]}
    )
    again = await fake.click(alice, edited, first, idle=True)
    assert again.ephemeral and (await bot.sessions.get(match_id)).version == after
    fake.assert_clean()
    await stop_bot(bot)


def session_of(state: SpaceState) -> Session:
    record = MatchRecord(
        id=7, guild_id=1, channel_id=2, parent_id=None, game="space", options={}, players=(11, 12),
        state=state.canonical(), version=3, status="active", message_id=None, rated=True,
        created_at=0.0, updated_at=0.0,
    )  # fmt: skip
    return Session(record=record, variant=VARIANT, state=state)


def public_parts(state: SpaceState) -> tuple[str, str, bytes, str]:
    return board_parts(board_message(session_of(state)))


def other_hands(state: SpaceState) -> SpaceState:
    """The same position with both hands dealt differently from the deck (same sizes)."""
    pool = [*state.hands[0], *state.hands[1], *state.deck][::-1]
    a, b = len(state.hands[0]), len(state.hands[1])
    hands = (tuple(sorted(pool[:a])), tuple(sorted(pool[a : a + b])))
    return replace(state, hands=hands, deck=tuple(pool[a + b :]))


def test_the_public_board_is_identical_for_positions_that_differ_only_in_hands() -> None:
    states: list[SpaceState] = []
    random_playout(7, check=states.append)
    compared = 0
    for state in states[::15]:
        other = other_hands(state)
        if other.hands == state.hands or state.outcome() is not None:
            continue
        assert public_parts(state) == public_parts(other), state.phase
        compared += 1
    assert compared >= 20
