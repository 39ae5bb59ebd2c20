"""Ring's invariants in random playouts."""

from __future__ import annotations

from engine import GameState
from engine.ring import TOKENS, RingState


def check(state: GameState) -> None:
    assert isinstance(state, RingState)
    for seat in (0, 1):
        assert state.on_board(seat) + state.piles[seat] == TOKENS, "tokens are conserved"
    # One signed count per space: a space can never hold both colours.
    assert len(state.board) == 12 and all(isinstance(v, int) for v in state.board)
