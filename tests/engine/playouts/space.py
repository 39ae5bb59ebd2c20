"""Space's invariants in random playouts: units and cards conserved, the ending true, secrets kept."""

from __future__ import annotations

from engine import GameState
from engine.space.board import PLANETS, SCRAP, SECTORS, UNITS_PER_SIDE, controller, units_of
from engine.space.cards import DECK_SIZE
from engine.space.game import SpaceState, SpaceWin
from tests.engine.test_space_playouts import check_state

QUICK_GAMES = 8  # long games, each step checked: 3 s
SLOW_GAMES = 100  # about a minute


def check(state: GameState) -> None:
    assert isinstance(state, SpaceState)
    positions = state.positions
    assert len(positions) == 2 * UNITS_PER_SIDE and all(0 <= p <= SECTORS for p in positions)
    for seat in (0, 1):
        on_board = sum(1 for u in units_of(seat) if positions[u] != SCRAP)
        scrapped = sum(1 for u in units_of(seat) if positions[u] == SCRAP)
        assert on_board + scrapped == 15, "units are conserved between the board and the scrap heap"
    cards = sorted((*state.deck, *state.hands[0], *state.hands[1], *state.vortex))
    assert cards == list(range(DECK_SIZE)) == list(range(50)), "cards are conserved: deck, hands, vortex"
    outcome = state.outcome()
    if outcome is not None and outcome.winner is not None:
        if outcome.reason == SpaceWin.ALL_PLANETS:
            assert all(controller(positions, p) == outcome.winner for p in PLANETS)
        else:
            assert all(positions[u] == SCRAP for u in units_of(1 - outcome.winner)), "the loser has no unit"
    check_state(state)  # and the views hide the secrets
