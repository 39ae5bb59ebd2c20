"""A backgammon position in words: an action described, the score as players say it, what the position
waits for. Kept apart from ``game`` so the state class holds the rules and these the wording."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.backgammon.actions import (
    COLOURS,
    LEVEL_WORDS,
    LEVELS,
    Checkers,
    MoveChecker,
    OfferResignation,
    Opening,
    Phase,
    Roll,
    RollOn,
    StopAfterGame,
)
from engine.backgammon.notation import move_text
from engine.backgammon.words import post_crawford
from engine.protocol import Action

if TYPE_CHECKING:
    from engine.backgammon.game import BackgammonState


def describe(action: Action) -> str:
    """An action in words, for the board's story (the state's ``describe``)."""
    if isinstance(action, MoveChecker):
        return f"move {move_text(action.move)}"
    if isinstance(action, Checkers):
        return f"play {action.notation}"
    if isinstance(action, Roll):
        return f"roll {action.d1}-{action.d2}"
    if isinstance(action, Opening):
        return f"{COLOURS[0]} rolls {action.die0}, {COLOURS[1]} rolls {action.die1} to start"
    if isinstance(action, OfferResignation):
        return f"offer to resign {LEVEL_WORDS[LEVELS[action.level - 1]]}"
    if isinstance(action, RollOn):
        return ""  # the dice that follow at once say it
    if isinstance(action, StopAfterGame):
        return f"{COLOURS[action.seat]} stops the session after this game"
    return action.notation


def score_text(state: BackgammonState) -> str:
    """The match score as players say it, and the cube, in words; empty for a 1-point match:
    "White 2 (3-away) · Black 3 (2-away) · 5-point match · cube 2, White's"."""
    if state.length == 1:
        return ""
    if state.money is not None:
        parts = [f"Money game: {COLOURS[0]} {state.score[0]}, {COLOURS[1]} {state.score[1]} points"]
        if state.stopping is not None:
            parts.append("last game")
    else:
        parts = [
            f"{COLOURS[seat]} {state.score[seat]}"
            + (f" ({state.away(seat)}-away)" if state.away(seat) > 0 else "")
            for seat in (0, 1)
        ]
        parts.append(f"{state.length}-point match")
    if state.crawford:
        parts.append("Crawford game")
    elif post_crawford(state):
        parts.append(
            f"post-Crawford, cube {state.cube}"
            + (f", {COLOURS[state.cube_owner]}'s" if state.cube_owner is not None else "")
        )
    elif state.uses_cube:
        owner = "centred" if state.cube_owner is None else f"{COLOURS[state.cube_owner]}'s"
        parts.append(f"cube {state.cube}, {owner}")
    return " · ".join(parts)


def phase_text(state: BackgammonState) -> str:
    """What the position waits for, with the score (the state's ``phase_text``)."""
    if state.result is not None:
        return state.result.description
    if state.phase is Phase.OPENING:
        now = "Roll to see who starts"
    else:
        name = COLOURS[state.turn_seat or 0]
        other = COLOURS[1 - (state.turn_seat or 0)]
        if state.phase is Phase.DECIDE:
            now = f"{name} to roll or double"
        elif state.phase is Phase.ROLL:
            now = f"{name} to roll"
        elif state.phase is Phase.TAKE:
            now = f"{other} to take or pass the cube at {state.cube * 2}"
            if state.may_beaver():
                now = f"{other} to take, beaver or pass the cube at {state.cube * 2}"
        elif state.phase is Phase.RESIGN:
            kind = LEVELS[state.offer - 1]
            now = f"{other} to accept or decline {name}'s resignation of {LEVEL_WORDS[kind]}"
        else:
            left = "-".join(str(d) for d in state.dice_left)
            now = f"{name} to play {state.dice_text}" + (f" ({left} left)" if state.played else "")
    return f"{now} · {state.score_text}" if state.score_text else now
