"""Ring computer players by level: legal actions everywhere, the roll classes they rely on, strength."""

from __future__ import annotations

import random
from itertools import product

import pytest

from engine.ai import ring_levels
from engine.ai.arena import arena
from engine.ai.random_player import random_action
from engine.ring import VARIANT, Phase, RingState, Roll


def _positions(games: int, seed: int) -> list[RingState]:
    """Positions where a seat decides, from random games."""
    rng = random.Random(seed)
    found: list[RingState] = []
    for _ in range(games):
        state = VARIANT.new_game()
        while state.outcome() is None:
            if state.chance() is None:
                found.append(state)
            state = state.apply(random_action(state, rng))
    return found


POSITIONS = _positions(25, 11)


@pytest.mark.parametrize("level", ["easy", "medium", "hard", "lookahead"])
def test_each_level_plays_a_legal_action(level: str) -> None:
    player = getattr(ring_levels, level)
    rng = random.Random(3)
    # The look-ahead is slower: every position where a swap or a knock-out is chosen, and some moves.
    positions = (
        POSITIONS
        if level != "lookahead"
        else [s for i, s in enumerate(POSITIONS) if i % (30 if s.phase is Phase.MOVE else 3) == 0]
    )
    assert len(positions) > 10
    phases = set()
    for state in positions:
        action = player(state.view(state.to_move()), rng)
        assert action in state.legal_actions()
        phases.add(state.phase)
    assert phases == {Phase.MOVE, Phase.SWAP, Phase.KNOCK}


@pytest.mark.parametrize("level", ["medium", "hard", "lookahead"])
def test_planners_take_a_win_in_one(level: str) -> None:
    # Red on 2, 4, 5 and 6 with 1 and 3 to play: moving 2 to 3 by 1 occupies 3, 4, 5 and 6 and wins.
    board = [0] * 12
    for space in (2, 4, 5, 6):
        board[space - 1] = 1
    board[10 - 1] = -1
    state = RingState(
        board=tuple(board),
        piles=(8, 11),
        phase=Phase.MOVE,
        turn_seat=0,
        dice=(1, 3, 4),
        dice_left=(1, 3),
        turn_number=5,
    )
    player = getattr(ring_levels, level)
    after = state.apply(player(state, random.Random(1)))
    while after.outcome() is None and after.to_move() == 0:
        after = after.apply(player(after, random.Random(1)))
    outcome = after.outcome()
    assert outcome is not None and outcome.winner == 0


def test_turn_plans_end_the_turn() -> None:
    for state in POSITIONS[::5]:
        seat = state.to_move()
        plans = ring_levels.turn_plans(state)
        assert plans
        for first, end in plans:
            assert first in state.legal_actions()
            assert end.outcome() is not None or end.turn_seat == 1 - seat


def test_roll_classes_cover_every_roll_once() -> None:
    assert sum(count for _, count in ring_levels.ROLL_CLASSES) == ring_levels.ROLLS == 216


def _after_roll(state: RingState) -> tuple[object, ...]:
    return (state.board, state.piles, state.phase, tuple(sorted(state.dice_left)), state.turn_seat)


def test_rolls_of_one_class_lead_to_the_same_position() -> None:
    """The look-ahead rolls one roll per class: every roll of the class must give the same position."""
    waiting = []
    rng = random.Random(8)
    for _ in range(15):
        state = VARIANT.new_game()
        while state.outcome() is None:
            if state.phase is Phase.ROLL:
                waiting.append(state)
            state = state.apply(random_action(state, rng))
    for state in waiting[::3]:
        representative = {}
        for w1, w2, black in product(range(1, 7), repeat=3):
            key = ring_levels._roll_key(w1, w2, black)
            got = _after_roll(state.apply(Roll(w1, w2, black)))
            representative.setdefault(key, got)
            assert got == representative[key], (state.board, (w1, w2, black))


def test_levels_are_deterministic_for_a_seed() -> None:
    for level in (ring_levels.easy, ring_levels.medium, ring_levels.hard, ring_levels.lookahead):
        for state in POSITIONS[:: 40 if level is ring_levels.lookahead else 10]:
            assert level(state, random.Random(5)) == level(state, random.Random(5))


def test_hard_beats_random() -> None:
    """A short arena (about a second), with a loose bound: hard wins about 87% against random."""
    report = arena(VARIANT, ("hard", "random"), 40, 2024)
    players = report["players"]
    assert isinstance(players, list)
    assert players[0]["name"] == "hard" and players[0]["wins"] >= 24  # 60%
