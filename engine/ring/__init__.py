"""``ring``: a 12-space ring with stacks, two white dice and a black modifier die, seven ways to win.

Rules text: shared/seeds/000_d360d664f56b54b2.txt, decided where open by RULINGS.md (ring).
Seat 0 is Red, seat 1 is Blue. The board is 12 signed counts: positive for Red, negative for Blue."""

from __future__ import annotations

from engine.ring.rules import (
    ALL_CAPTURED,
    COLOURS,
    FIVE_IN_A_ROW,
    FIVE_MASKS,
    NINE_SPACES,
    QUARTERS,
    SCHEMA,
    SPACES,
    START_SPACES,
    TOKENS,
    WIN_CONDITIONS,
    WIN_KEYS,
    Knock,
    LastEvent,
    Mark,
    MarkKind,
    Move,
    Opening,
    Phase,
    RingWin,
    Roll,
    Swap,
    WinCondition,
    advance,
    can_step,
    winning_condition,
)
from engine.ring.state import (
    RingState,
)
from engine.ring.variant import (
    VARIANT,
    RingVariant,
)

__all__ = [
    "ALL_CAPTURED",
    "COLOURS",
    "FIVE_IN_A_ROW",
    "FIVE_MASKS",
    "NINE_SPACES",
    "QUARTERS",
    "SCHEMA",
    "SPACES",
    "START_SPACES",
    "TOKENS",
    "VARIANT",
    "WIN_CONDITIONS",
    "WIN_KEYS",
    "Knock",
    "LastEvent",
    "Mark",
    "MarkKind",
    "Move",
    "Opening",
    "Phase",
    "RingState",
    "RingVariant",
    "RingWin",
    "Roll",
    "Swap",
    "WinCondition",
    "advance",
    "can_step",
    "winning_condition",
]
