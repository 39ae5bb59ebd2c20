"""Helpers shared by the tests: the real bot on the in-process fake Discord."""

from __future__ import annotations

import random
from pathlib import Path
from typing import ClassVar

import pytest

from bot.client import RingsideBot
from bot.clock import ManualClock
from bot.store import Store
from cogs.panels import PANELS
from engine import VARIANTS, TurnConfirmation
from engine.ai.players import PLAYERS
from engine.protocol import OptionSpec
from engine.ring import RingVariant
from fakediscord import FakeDiscord
from render import RENDERERS, SEAT_STYLES


async def start_bot(
    fake: FakeDiscord, db: Path, clock: ManualClock | None = None, seed: int = 1
) -> RingsideBot:
    """A RingsideBot on ``fake`` with its store at ``db``, a manual clock and seeded dice; no scheduler."""
    store = await Store.open(db)
    bot = RingsideBot(
        store, clock=clock or ManualClock(), rng=random.Random(seed), run_scheduler=False, render_workers=0
    )
    await fake.connect(bot)
    return bot


async def stop_bot(bot: RingsideBot) -> None:
    """Close the bot and its store (a restart in the middle of a test is ``stop_bot`` then ``start_bot``)."""
    await bot.close()
    await bot.store.close()


class RingWithOptions(RingVariant):
    """Ring under another key with a match length and two rule sets, for testing game options (ring
    itself has none). Its states are ring states, so ring's picture, panel and computer play it."""

    key: ClassVar[str] = "ringx"
    title: ClassVar[str] = "Ring X"
    options: ClassVar[tuple[OptionSpec, ...]] = (
        OptionSpec(
            "length", "Match length in points", 1, minimum=1, maximum=25, summary="{value}-point match"
        ),
        OptionSpec(
            "rules",
            "Rule set",
            "standard",
            choices=("standard", "oldenglish"),
            choice_labels=("Standard", "Old English (at most five checkers on a point)"),
            summary="{label} rules",
        ),
    )


def register_ring_with_options(monkeypatch: pytest.MonkeyPatch) -> RingWithOptions:
    """Put ``RingWithOptions`` (key ``ringx``) into every registry for the test's duration."""
    variant = RingWithOptions()
    monkeypatch.setitem(VARIANTS, variant.key, variant)
    monkeypatch.setitem(RENDERERS, variant.key, RENDERERS["ring"])
    monkeypatch.setitem(SEAT_STYLES, variant.key, SEAT_STYLES["ring"])
    monkeypatch.setitem(PANELS, variant.key, PANELS["ring"])
    monkeypatch.setitem(PLAYERS, variant.key, PLAYERS["ring"])
    return variant


class RingConfirmed(RingVariant):
    """Ring whose complete turn waits for the player's Confirm (as backgammon's will): for testing the
    shared Undo and Confirm of a turn in progress."""

    key: ClassVar[str] = "ringc"
    title: ClassVar[str] = "Ring C"
    turn_confirmation: ClassVar[TurnConfirmation] = TurnConfirmation.CONFIRM


def register_ring_confirmed(monkeypatch: pytest.MonkeyPatch) -> RingConfirmed:
    """Put ``RingConfirmed`` (key ``ringc``) into every registry for the test's duration."""
    variant = RingConfirmed()
    monkeypatch.setitem(VARIANTS, variant.key, variant)
    monkeypatch.setitem(RENDERERS, variant.key, RENDERERS["ring"])
    monkeypatch.setitem(SEAT_STYLES, variant.key, SEAT_STYLES["ring"])
    monkeypatch.setitem(PANELS, variant.key, PANELS["ring"])
    monkeypatch.setitem(PLAYERS, variant.key, PLAYERS["ring"])
    return variant
