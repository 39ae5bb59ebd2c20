"""Where an analysed decision was made: the position a review of the match shows for it.

An analysis keeps each decision's index in the match's action log (``Decision.action``); analyses
saved before that index was kept are found by the decision's game, turn, seat and kind instead (their
``turn`` was then the state's turn counter, ``turn_number``; since the index is kept it is the move
number players count).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from engine.ai.coaching import Decision
from engine.protocol import GameState, Variant, replay_states

PHASES = {"play": "play", "cube": "decide", "take": "take"}
"""The phase (its value) of the position each kind of decision is made in, for analyses saved before
the action index was kept."""


def decision_state(
    variant: Variant, options: Mapping[str, Any] | None, log: Sequence[str], decision: Decision
) -> GameState | None:
    """The position ``decision`` was made in, replayed from the match's ``log``; None when the log
    holds no such position (it is not this analysis's match)."""
    states = replay_states(variant, options, log)
    if decision.action is not None:
        if not 0 <= decision.action < len(log):
            return None
        return next(islice(states, decision.action, None))
    for state in states:
        if _made_in(state, decision):
            return state
    return None


def _made_in(state: Any, decision: Decision) -> bool:
    phase = getattr(getattr(state, "phase", None), "value", None)
    return (
        getattr(state, "game_number", None) == decision.game
        and getattr(state, "turn_number", None) == decision.turn
        and phase == PHASES.get(decision.kind)
        and not getattr(state, "played", ())
        and state.to_move() == decision.seat
    )
