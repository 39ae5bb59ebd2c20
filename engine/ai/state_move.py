"""``python -m engine move --game ring|space --state FILE``: a computer level's action in a saved state.

The state is the JSON the bot saves (``state.to_json()``, read back by ``variant.from_json``). The
player deciding sees only what its seat may see (``state.view(seat)``; in space that leaves out the
opponent's hand and the order of the deck). The answer is the action's notation, which
``variant.parse_action`` reads back.
"""

from __future__ import annotations

import json
import random

from engine.ai.levels import ComputerPlayer
from engine.errors import GameError
from engine.protocol import CHANCE, Action, GameState, Variant


class StateMoveError(ValueError):
    """The state cannot be read or has no decision to make (the message is one line for the user)."""


def read_state(variant: Variant, text: str) -> GameState:
    """The state saved as ``text`` (JSON of ``state.to_json()``); ``StateMoveError`` if unreadable."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateMoveError(f"the state is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise StateMoveError(f"the state must be a JSON object, not {type(data).__name__}")
    try:
        return variant.from_json(data)
    except GameError as exc:
        raise StateMoveError(str(exc)) from None


def choose_action(state: GameState, player: ComputerPlayer, seed: int) -> Action:
    """What ``player`` plays for the deciding seat, from that seat's view of ``state``, drawing (if
    it does) from a random source seeded with ``seed``.

    ``StateMoveError`` if the game is over or a chance step (dice, a shuffle) comes next.
    """
    outcome = state.outcome()
    if outcome is not None:
        raise StateMoveError(f"the game is over ({outcome.description}): there is no move to choose")
    seat = state.to_move()
    if seat == CHANCE or state.chance() is not None:
        spec = state.chance()
        what = spec.label if spec is not None and spec.label else "a chance step"
        raise StateMoveError(f"the state waits for chance ({what}), not for a player's decision")
    action = player(state.view(seat), random.Random(seed))
    if action not in state.legal_actions():  # a player bug, never the user's input
        raise RuntimeError(f"the computer chose {action.notation!r}, which is not legal here")
    return action
