"""The rules of every game: pure, synchronous, no I/O, no randomness of its own."""

from __future__ import annotations

from engine.errors import (
    BadOptionsError,
    CorruptStateError,
    GameError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
    UnknownVariantError,
)
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    EndReason,
    Forfeit,
    GameState,
    GameView,
    MatchFile,
    Outcome,
    TurnConfirmation,
    Variant,
    replay,
    replay_states,
)
from engine.registry import VARIANTS, find_variant

__all__ = [
    "CHANCE",
    "VARIANTS",
    "Action",
    "BadOptionsError",
    "ChanceKind",
    "ChanceSpec",
    "CorruptStateError",
    "EndReason",
    "Forfeit",
    "GameError",
    "GameOverError",
    "GameState",
    "GameView",
    "IllegalActionError",
    "MatchFile",
    "NotYourTurnError",
    "NotationError",
    "Outcome",
    "TurnConfirmation",
    "UnknownVariantError",
    "Variant",
    "find_variant",
    "replay",
    "replay_states",
]
