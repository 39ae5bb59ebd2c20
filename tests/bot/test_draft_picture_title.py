"""The picture of a turn in progress (issue 33): a player's private panel shows the position after
their steps, and while the complete turn waits for their Confirm that position already hands the
turn over; the picture's title still says that the player is moving ("White to play 6-4", "Confirm
or undo"), never the next player's turn ("Black to roll or double").

What the picture says is read from the words Pillow draws while the bot draws it (every cache of
the pictures emptied first, so nothing is pasted without being drawn)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from app.client import RingsideBot
from engine.backgammon.game import COLOURS as BACKGAMMON_COLOURS
from engine.memo import CACHES
from engine.ring.rules import COLOURS as RING_COLOURS
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, match_id_of, private_panel, user_on_turn
from tests.bot.test_backgammon_discord import buttons, move_buttons, start
from tests.render.written import Rasterised, record_rasterised
from tests.support import register_ring_confirmed, start_bot, stop_bot

CONFIRM_LINE = "Confirm or undo"
"""The header's second line on a complete turn waiting for its player's Confirm."""


Steps = Callable[[FakeMessage], list[str]]
"""The custom ids of a message's step buttons, in the order they are offered."""


def checker_moves(message: FakeMessage) -> list[str]:
    """Backgammon's checker moves ("13/8")."""
    return list(move_buttons(message).values())


def game_actions(message: FakeMessage) -> list[str]:
    """Any game action of the message (ring's steps)."""
    return [b.custom_id or "" for b in message.buttons if not b.disabled and ":a:" in (b.custom_id or "")]


async def step_to_confirm(
    fake: FakeDiscord, board: FakeMessage, user: FakeUser, steps: Steps, drawn: Rasterised
) -> FakeMessage:
    """``user`` clicks the first of their steps on the board, then in their private panel, until
    the panel asks for Confirm; ``drawn`` then holds the words drawn for the last click alone.
    Returns that panel."""
    message = board
    for _ in range(8):
        choices = steps(message)
        assert choices, f"no step to take on {message.content!r}"
        drawn.clear()
        for cache in CACHES:
            cache.cache_clear()
        await fake.click(user, message, choices[0], idle=True)
        panel = private_panel(fake, board.channel_id, user, board)
        assert panel is not None and panel.visible_to == user.id
        message = fake.message(panel)
        if "Confirm" in buttons(message):
            return message
    raise AssertionError("the turn never waited for Confirm")


@pytest.mark.asyncio
async def test_a_backgammon_play_waiting_for_confirm_is_titled_as_the_movers_turn(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The play checker by checker until Confirm: the title is the roll being played ("Black to
    play 5-2", "Confirm or undo"), the middle the roll's dice, never "White to roll or double"."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    try:
        await backgammon_play_titled(fake, bot, monkeypatch)
    finally:
        await stop_bot(bot)


async def backgammon_play_titled(
    fake: FakeDiscord, bot: RingsideBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    board, users = await start(fake, length=3)
    user = user_on_turn(board, users)
    assert user is not None
    session = await bot.sessions.get(match_id_of(board))
    state = session.state
    assert state is not None and state.turn_seat is not None and state.dice is not None
    mover, other = BACKGAMMON_COLOURS[state.turn_seat], BACKGAMMON_COLOURS[1 - state.turn_seat]
    d1, d2 = state.dice
    drawn = record_rasterised(monkeypatch)
    panel = await step_to_confirm(fake, board, user, checker_moves, drawn)
    assert panel.attachments, "the private panel shows the position after the play"
    words = {text for _, text in drawn}
    assert f"{mover} to play {max(d1, d2)}-{min(d1, d2)}" in words and CONFIRM_LINE in words, sorted(words)
    # Not the next player's turn, in the title or in the middle of the board.
    assert not any(text.startswith(f"{other} to roll") for text in words), sorted(words)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_a_ring_turn_waiting_for_confirm_is_titled_as_the_movers_turn(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every game with turns in progress: ring whose complete turn waits for Confirm (``ringc``)."""
    register_ring_confirmed(monkeypatch)
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=1)
    try:
        await ring_turn_titled(fake, bot, monkeypatch)
    finally:
        await stop_bot(bot)


async def ring_turn_titled(fake: FakeDiscord, bot: RingsideBot, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob, "ringc")
    user = user_on_turn(board, users)
    assert user is not None
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    assert roll is not None
    await fake.click(user, board, roll, idle=True)
    board = fake.message(board)
    session = await bot.sessions.get(match_id_of(board))
    state = session.state
    assert state is not None and state.turn is not None
    mover, other = RING_COLOURS[state.turn], RING_COLOURS[1 - state.turn]
    drawn = record_rasterised(monkeypatch)
    panel = await step_to_confirm(fake, board, user, game_actions, drawn)
    assert panel.attachments
    words = {text for _, text in drawn}
    assert f"{mover} to move" in words and CONFIRM_LINE in words, sorted(words)
    assert f"{other} to roll" not in words, sorted(words)
    fake.assert_clean()
