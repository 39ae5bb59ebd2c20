"""Backgammon in words: what a player types read back as an action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.backgammon.actions import MoveChecker, _path
from engine.backgammon.board import (
    BAR_POINT,
    OFF_POINT,
)
from engine.errors import (
    IllegalActionError,
    NotationError,
)

if TYPE_CHECKING:
    from engine.backgammon.game import BackgammonState


def _parse_step(state: BackgammonState, text: str) -> MoveChecker:
    body, _, die_text = text.partition(" with ")
    hit = body.endswith("*")
    src_text, _, dst_text = body.rstrip("*").partition("/")
    points = {"bar": BAR_POINT, "b": BAR_POINT, "off": OFF_POINT, "o": OFF_POINT}
    try:
        src = points.get(src_text) or int(src_text)
        dst = points[dst_text] if dst_text in points else int(dst_text)
        die = int(die_text) if die_text else None
    except ValueError:
        raise NotationError(f"{text!r} is not one checker's move like 24/18, bar/22* or 6/off") from None
    candidates = [s for s, _ in state.steps() if (s.move.src, s.move.dst) == (src, dst)]
    if die is not None:
        candidates = [s for s in candidates if s.die == die]
    if not candidates:
        options = ", ".join(sorted({_path(s.move) for s, _ in state.steps()}))
        raise IllegalActionError(
            f"{body} is not a move that leads to a legal play of {state.dice_text}; moves now: {options}"
        )
    chosen = min(candidates, key=lambda s: s.die)
    del hit  # a move hits or not by the position; the mark is not needed to tell moves apart
    return MoveChecker(chosen.move.src, chosen.move.dst, chosen.die, chosen.move.hit)
