"""Helpers shared by the tests: the real bot on the in-process fake Discord."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.store import Store
from cogs.board import BoardMessage
from engine import GameState, MatchFile, TurnConfirmation, Variant
from engine.protocol import OptionSpec, Outcome
from engine.ring import RingVariant
from fakediscord import FakeDiscord
from kits import KITS, GameKit, Part


async def start_bot(
    fake: FakeDiscord,
    db: Path,
    clock: ManualClock | None = None,
    seed: int = 1,
    *,
    metrics_address: tuple[str, int] | None = None,
    run_scheduler: bool = False,
) -> RingsideBot:
    """A RingsideBot on ``fake`` with its store at ``db``, a manual clock and seeded dice; no scheduler
    unless asked for; ``/metrics`` served at ``metrics_address`` when given."""
    store = await Store.open(db)
    bot = RingsideBot(
        store,
        clock=clock or ManualClock(),
        rng=random.Random(seed),
        run_scheduler=run_scheduler,
        render_workers=0,
        metrics_address=metrics_address,
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
    register_ring_like(monkeypatch, variant)
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
    register_ring_like(monkeypatch, variant)
    return variant


def register_ring_like(monkeypatch: pytest.MonkeyPatch, variant: Variant) -> None:
    """Put a test variant whose states are ring states into every registry for the test's duration:
    ring's kit under the variant's key, with the variant swapped in."""
    ring = KITS["ring"]
    # Ring's players without its levels: a test game plays the computer without ``level:``.
    players = {name: ring.players.get()[name] for name in ("random", ring.bot_player)}
    register_kit(monkeypatch, replace(ring, key=variant.key, variant=Part(variant), players=Part(players)))


def register_kit(monkeypatch: pytest.MonkeyPatch, kit: GameKit) -> None:
    """Register ``kit`` (a new game, or a changed kit of a registered one) for the test's duration."""
    monkeypatch.setitem(KITS.kits, kit.key, kit)


def change_kit(monkeypatch: pytest.MonkeyPatch, game: str, **parts: Any) -> None:
    """Replace parts of ``game``'s kit for the test's duration: ``change_kit(mp, "ring", players=...)``."""
    register_kit(monkeypatch, replace(KITS[game], **parts))


class RingExported(RingVariant):
    """Ring with position codes, a match file and notation help (as backgammon will have GNUBG IDs,
    XGIDs and .mat files): for testing /position, /move's hint and the result's attachment."""

    key: ClassVar[str] = "ringe"
    title: ClassVar[str] = "Ring E"
    notation_help: ClassVar[str] = "Ring E moves are written like 'move 2 from 7 by 3'."

    def position_codes(self, state: GameState) -> tuple[tuple[str, str], ...]:
        return (("Turn", str(state.turn_number)), ("Digest", position_digest(state)))

    def export_match(
        self,
        options: Mapping[str, Any],
        log: Sequence[str],
        names: tuple[str, str],
        ending: Outcome | None = None,
    ) -> MatchFile | None:
        return MatchFile(
            filename="match.txt",
            data=match_text(log, names).encode(),
            description=f"{names[0]} vs {names[1]}: every action",
        )


def position_digest(state: GameState) -> str:
    """``RingExported``'s position code: a digest of the canonical state."""
    return hashlib.sha256(state.canonical().encode()).hexdigest()[:24]


def match_text(log: Sequence[str], names: tuple[str, str]) -> str:
    """``RingExported``'s match file: the players, then the log, one action a line."""
    return "\n".join([f"{names[0]} vs {names[1]}", *log])


class RingExportFails(RingVariant):
    """Ring whose match file cannot be built (a bug in a game's export): the result must still go out."""

    key: ClassVar[str] = "ringf"
    title: ClassVar[str] = "Ring F"

    def export_match(
        self,
        options: Mapping[str, Any],
        log: Sequence[str],
        names: tuple[str, str],
        ending: Outcome | None = None,
    ) -> MatchFile | None:
        raise RuntimeError("the match file writer is broken")


def board_parts(message: BoardMessage) -> tuple[str, str, bytes, str]:
    """Everything a public board message shows (content, embed, picture, controls), to compare two."""
    view = message.view
    components = json.dumps([item.to_component_dict() for item in view.children] if view else [])
    return (
        message.content,
        json.dumps(message.embed.to_dict(), sort_keys=True),
        message.file.fp.read(),
        components,
    )
