"""Random space games: every state checked (units and cards conserved, JSON round trip, views hide
the secrets), and every game ends within a bound."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from engine.ai.selfplay import selfplay
from engine.protocol import CHANCE
from engine.space.board import SCRAP, SECTORS, contested, units_of
from engine.space.cards import DECK_SIZE, card_of
from engine.space.game import Phase, SpaceState
from engine.space.variant import VARIANT
from tests.engine.space_helpers import MAX_ACTIONS, random_playout


def check_state(state: SpaceState) -> None:
    # 15 units a side, each on a sector or in the scrap heap.
    assert len(state.positions) == 30
    for seat in (0, 1):
        assert len(list(units_of(seat))) == 15
        assert all(p == SCRAP or 1 <= p <= SECTORS for p in state.positions)
    # 50 cards between deck, hands and vortex, each once.
    every = sorted((*state.deck, *state.hands[0], *state.hands[1], *state.vortex))
    assert every == list(range(DECK_SIZE))
    # Both sides share a sector only between the move and the end of the fights.
    if state.phase in (Phase.DISCARD, Phase.ESPIONAGE, Phase.ROLL, Phase.BUILD, Phase.JAM, Phase.OVER):
        assert not contested(state.positions)
    # The saved form reads back to the same state.
    data = json.loads(json.dumps(state.to_json()))
    assert VARIANT.from_json(data) == state
    # Whoever decides has something to do.
    if state.outcome() is None and state.to_move() != CHANCE:
        assert state.legal_actions()
    check_views(state)


def _hidden_swapped(state: SpaceState, viewer: int | None) -> SpaceState:
    """``state`` with every card ``viewer`` may not see (the deck order, the other hand or both
    hands) dealt differently: the viewer must not be able to tell the two apart."""
    hidden_seats = [0, 1] if viewer is None else [1 - viewer]
    pool = list(state.deck) + [c for seat in hidden_seats for c in state.hands[seat]]
    pool.reverse()
    hands = list(state.hands)
    for seat in hidden_seats:
        k = len(state.hands[seat])
        hands[seat] = tuple(sorted(pool[:k]))
        pool = pool[k:]
    return replace(state, deck=tuple(pool), hands=(hands[0], hands[1]))


def check_views(state: SpaceState) -> None:
    for viewer in (0, 1, None):
        view = state.view(viewer)
        data = view.to_json()
        assert not hasattr(view, "deck") and not hasattr(view, "hands")
        assert data["deck_size"] == len(state.deck)
        assert data["hand_sizes"] == [len(state.hands[0]), len(state.hands[1])]
        if viewer is None:
            assert data["hand"] == [] and data["spied_hand"] is None
        else:
            assert sorted(data["hand"]) == sorted(card_of(c).key for c in state.hands[viewer])
        # The view tells nothing of what the viewer may not see.
        assert _hidden_swapped(state, viewer).view(viewer).to_json() == data
        if viewer is None or state.to_move() != viewer:
            assert view.legal_actions() == ()
        else:
            assert view.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("seed", range(12))
def test_random_playouts_conserve_units_and_cards_and_end(seed: int) -> None:
    final, actions = random_playout(seed, check=check_state)
    assert final.outcome() is not None
    assert actions < MAX_ACTIONS


def test_random_playouts_without_checks_all_end() -> None:
    """The generic self-play (``python -m engine selfplay``, ``bench/selfplay.py``) plays space."""
    report = selfplay(VARIANT, 40, seed=1000)
    assert report.wins[0] + report.wins[1] + report.draws == 40
    assert sum(report.wins_by_condition.values()) == 40 and report.max_turns > 0


def test_every_notation_of_a_random_game_reads_back() -> None:
    import random

    rng = random.Random(7)
    state = VARIANT.new_game()
    for _ in range(3000):
        if state.outcome() is not None:
            break
        if state.to_move() == CHANCE:
            spec = state.chance()
            assert spec is not None
            if spec.count and spec.sides == 0:
                order = list(range(spec.count))
                rng.shuffle(order)
                action = state.chance_action(order)
            else:
                action = state.chance_action([rng.randint(1, 6) for _ in range(spec.count)])
        else:
            for legal in state.legal_actions():
                assert VARIANT.parse_action(state, legal.notation) == legal
            action = rng.choice(state.legal_actions())
        assert VARIANT.parse_action(state, action.notation) == action
        state = state.apply(action)
