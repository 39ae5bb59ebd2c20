"""Ring computer players by level: legal actions everywhere, the roll classes they rely on, strength."""

from __future__ import annotations

import random
from itertools import product

import pytest

from engine.ai import ring_eval, ring_levels
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


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_each_level_plays_a_legal_action(level: str) -> None:
    player = getattr(ring_levels, level)
    rng = random.Random(3)
    # Hard looks a roll ahead and is slower: every swap or knock-out position, and some moves.
    positions = (
        POSITIONS
        if level != "hard"
        else [s for i, s in enumerate(POSITIONS) if i % (40 if s.phase is Phase.MOVE else 4) == 0]
    )
    assert len(positions) > 10
    phases = set()
    for state in positions:
        action = player(state.view(state.to_move()), rng)
        assert action in state.legal_actions()
        phases.add(state.phase)
    assert phases == {Phase.MOVE, Phase.SWAP, Phase.KNOCK}


@pytest.mark.parametrize("level", ["medium", "hard"])
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
    for level in (ring_levels.easy, ring_levels.medium, ring_levels.hard):
        for state in POSITIONS[:: 80 if level is ring_levels.hard else 10]:
            assert level(state, random.Random(5)) == level(state, random.Random(5))


def _kill_and_capture_by_engine(state: RingState) -> tuple[float, float]:
    """The roller's chance to capture every enemy token this turn and its expected best capture, by
    trying every roll and every turn plan with the engine."""
    roller = state.turn_seat
    assert roller is not None
    victim = 1 - roller
    before = state.on_board(victim)
    kill = expected = 0.0
    for roll, weight in ring_levels.ROLL_CLASSES:
        rolled = state.apply(roll)
        if rolled.outcome() is None and rolled.to_move() == roller:
            ends = [end for _, end in ring_levels.turn_plans(rolled)]
        else:
            ends = [rolled]
        expected += weight * max(before - end.on_board(victim) for end in ends)
        kill += weight * any(end.on_board(victim) == 0 for end in ends)
    return kill / ring_levels.ROLLS, expected / ring_levels.ROLLS


def test_threat_agrees_with_the_engine() -> None:
    """``ring_eval.threat`` estimates in closed form what the engine finds by trying every roll: the
    chance of capturing everything is almost always exact, the expected capture close."""
    rng = random.Random(4)
    waiting = []
    for _ in range(4):
        state = VARIANT.new_game()
        while state.outcome() is None:
            if state.phase is Phase.ROLL and state.turn_number > 0:
                waiting.append(state)
            state = state.apply(random_action(state, rng))
    assert len(waiting) > 60
    kill_misses = 0
    capture_error = 0.0
    for state in waiting:
        assert state.turn_seat is not None
        kill, capture = ring_eval.threat(state.board, state.piles, state.turn_seat)
        exact_kill, exact_capture = _kill_and_capture_by_engine(state)
        kill_misses += abs(kill - exact_kill) > 1e-9
        capture_error += abs(capture - exact_capture)
    assert kill_misses <= len(waiting) // 20
    assert capture_error / len(waiting) < 0.05


def test_threat_of_a_lone_stack() -> None:
    # Blue's last token is on 1, Red's pair on 12: Red captures it by moving with a white 1 (56 of the
    # 216 rolls that are not doubles, odds or evens), knocks it out on evens (6) and places on it with
    # 1-1 (5 doubles and 1 triples): 68 of 216.
    board = [0] * 12
    board[12 - 1] = 2
    board[1 - 1] = -1
    kill, capture = ring_eval.threat(board, (10, 11), 0)
    assert kill == pytest.approx(68 / 216) and capture == pytest.approx(kill)
    blue_kill, _ = ring_eval.threat(board, (10, 11), 1)
    # Blue's single token cannot capture the pair, and 12 is on no die: only evens knock it out.
    assert blue_kill == pytest.approx(6 / 216)


def test_features_and_win_probability() -> None:
    assert len(ring_eval.WEIGHTS) == len(ring_eval.FEATURE_NAMES)
    for state in POSITIONS[::7]:
        if state.turn_seat is None:
            continue
        values = ring_eval.features(state.board, state.piles, state.turn_seat)
        assert len(values) == len(ring_eval.FEATURE_NAMES) and values[0] == 1.0
        p = ring_eval.win_probability(state, state.turn_seat)
        assert 0.0 < p < 1.0
    # More tokens and stacks of one's own, fewer of the opponent's: a better chance.
    even = [0] * 12
    even[1 - 1], even[7 - 1] = 2, -2
    ahead = list(even)
    ahead[4 - 1] = 2
    base = RingState(board=tuple(even), piles=(10, 10), phase=Phase.ROLL, turn_seat=1, turn_number=9)
    better = RingState(board=tuple(ahead), piles=(8, 10), phase=Phase.ROLL, turn_seat=1, turn_number=9)
    assert ring_eval.win_probability(better, 0) > ring_eval.win_probability(base, 0)


def test_hard_plays_the_first_step_of_a_plan_and_takes_a_win() -> None:
    for state in POSITIONS[::50]:
        seat = state.to_move()
        action = ring_levels.hard(state, random.Random(2))
        assert action in state.legal_actions()
        plans = ring_levels.turn_plans(state)
        assert any(first == action for first, _ in plans)
        winning = {first for first, end in plans if ring_levels._won(end, seat)}
        if winning:
            assert action in winning


@pytest.mark.slow
def test_level_strengths() -> None:
    """Short arenas with loose bounds (about 30 to 60 s; bench/README.md has the long runs): hard
    wins about 93% against random and 80% against greedy, medium about 65% against easy."""
    hard_random = arena(VARIANT, ("hard", "random"), 30, 2024)["players"]
    hard_greedy = arena(VARIANT, ("hard", "greedy"), 30, 2025)["players"]
    medium_easy = arena(VARIANT, ("medium", "easy"), 80, 2026)["players"]
    assert isinstance(hard_random, list) and isinstance(hard_greedy, list) and isinstance(medium_easy, list)
    assert hard_random[0]["name"] == "hard" and hard_random[0]["wins"] >= 24  # 80%
    assert hard_greedy[0]["name"] == "hard" and hard_greedy[0]["wins"] >= 18  # 60%
    assert medium_easy[0]["name"] == "medium" and medium_easy[0]["wins"] >= 44  # 55%
