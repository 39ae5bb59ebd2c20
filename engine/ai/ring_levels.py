"""Ring computer players by strength: ``easy``, ``medium`` and ``hard``.

* ``easy`` plays the one-step greedy move most of the time and a random legal action otherwise, so
  a beginner can beat it.
* ``medium`` plans its whole turn: it tries every sequence of steps left in the turn (both dice of a
  move, or the swap or knock-out) and keeps the one whose final position scores best.
* ``hard`` looks one roll ahead: of the best-scoring turn plans it takes each resulting position,
  lets the opponent roll every possible roll (weighted by its probability) and answer with the
  one-step greedy player, and keeps the plan with the best expected score after that answer
  (expectimax, two plies and the chance step between them). Its work is bounded by a count of
  positions, not by the clock, so its choices do not depend on the machine's speed.

All of them read only the player's view (ring has no secrets: the view is the position) and use the
engine's ``legal_actions`` and ``apply`` for every rule.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import product

from engine.ai import ring_greedy
from engine.protocol import Action, GameView
from engine.ring import Phase, RingState, Roll

EASY_RANDOM_SHARE = 0.4
"""How often ``easy`` plays a uniformly random legal action instead of the greedy one."""
WIN_VALUE = 400.0
"""The score of a won (lost: minus) position in ``hard``'s expectation; a heuristic score is tens."""
HARD_MIN_PLANS = 2
"""``hard`` looks ahead from at least this many of its best-scoring plans..."""
HARD_MAX_PLANS = 8
"""... and from at most this many ..."""
HARD_STEP_BUDGET = 2500
"""... while it has applied fewer than this many actions in this decision (a stand-in for time)."""


def _state(view: GameView) -> RingState:
    assert isinstance(view, RingState), "ring players read ring positions"
    return view


def easy(view: GameView, rng: random.Random) -> Action:
    """Greedy, except that a share of its choices are random legal actions."""
    state = _state(view)
    if rng.random() < EASY_RANDOM_SHARE:
        actions = state.legal_actions()
        return actions[rng.randrange(len(actions))]
    return ring_greedy.choose(state, rng)


class _Counter:
    """How many actions a decision has applied so far (``hard``'s budget)."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps = 0


def turn_plans(state: RingState, counter: _Counter | None = None) -> list[tuple[Action, RingState]]:
    """Every distinct end of the current turn: (first action, position once the turn is over).

    Sequences that reach the same board and piles are kept once (with the first action found).
    """
    seat = state.to_move()
    ends: dict[tuple[tuple[int, ...], tuple[int, int]], tuple[Action, RingState]] = {}

    def walk(first: Action | None, current: RingState) -> None:
        for action in current.legal_actions():
            after = current.apply(action)
            if counter is not None:
                counter.steps += 1
            opener = action if first is None else first
            if after.outcome() is None and after.turn_seat == seat and after.to_move() == seat:
                walk(opener, after)
                continue
            key = (after.board, after.piles)
            if key not in ends:
                ends[key] = (opener, after)

    walk(None, state)
    return list(ends.values())


def _ranked(
    plans: Sequence[tuple[Action, RingState]], seat: int, rng: random.Random
) -> list[tuple[float, Action, RingState]]:
    """Plans by their static score for ``seat``, best first; equal scores in random order."""
    scored = [(ring_greedy.evaluate(end, seat), rng.random(), action, end) for action, end in plans]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(score, action, end) for score, _, action, end in scored]


def medium(view: GameView, rng: random.Random) -> Action:
    """The first step of the turn plan whose final position scores best (no look-ahead)."""
    state = _state(view)
    plans = turn_plans(state)
    return _ranked(plans, state.to_move(), rng)[0][1]


def _roll_key(white1: int, white2: int, black: int) -> tuple[object, ...]:
    """Rolls with the same key lead to the same position (tests/engine/test_ring_ai.py checks this
    against the engine): the order of the white dice never matters, and the black die only makes
    triples, odds (1-3-5) and evens (2-4-6)."""
    whites = tuple(sorted((white1, white2)))
    if white1 == white2 == black:
        return ("triples", white1)
    if sorted((white1, white2, black)) in ([1, 3, 5], [2, 4, 6]):
        return ("odds-evens", white1 % 2)
    if white1 == white2:
        return ("doubles", white1)
    return ("whites", whites)


def _roll_classes() -> tuple[tuple[Roll, int], ...]:
    """One roll per class of ``_roll_key`` with how many of the 216 rolls it stands for."""
    classes: dict[tuple[object, ...], tuple[Roll, int]] = {}
    for w1, w2, black in product(range(1, 7), repeat=3):
        key = _roll_key(w1, w2, black)
        roll, count = classes.get(key, (Roll(w1, w2, black), 0))
        classes[key] = (roll, count + 1)
    return tuple(classes.values())


ROLL_CLASSES = _roll_classes()
ROLLS = 216


THREAT_WEIGHT = 0.0
MATERIAL_WEIGHT = 0.0
LONE_STACK_PENALTY = 0.0
STACKS_WEIGHT = 0.0
RANK_BY_VALUE = 0
KILL_WEIGHT = 0.0


def kill_chance(board: Sequence[int], seat: int) -> float:
    """Roughly the chance that ``seat``, about to roll, captures the opponent's last stack: a knock-out
    (evens, 6 rolls in 216), or a white die (11 in 36) or the two dice together (about 1 in 6)
    showing the distance from a stack of ``seat``'s at least as large."""
    sign = 1 if seat == 0 else -1
    enemy = [i for i, v in enumerate(board) if v * sign < 0]
    if len(enemy) != 1:
        return 0.0
    target = enemy[0]
    size = -board[target] * sign
    chance = 6 / 216
    single = double = False
    for distance in range(1, 12):
        if board[(target - distance) % len(board)] * sign >= size:
            if distance <= 6:
                single = True
            else:
                double = True
    if single:
        chance += 11 / 36
    elif double:
        chance += 1 / 6
    return min(chance, 1.0)


def threats(board: Sequence[int], seat: int) -> float:
    """Roughly how many enemy tokens ``seat`` may capture with its next move: each enemy stack 1 to 6
    spaces ahead of a stack of ``seat``'s at least as large, times the chance a white die shows that
    distance (11/36), counted once per target."""
    sign = 1 if seat == 0 else -1
    total = 0.0
    for target, value in enumerate(board):
        enemy = -value * sign
        if enemy <= 0:
            continue
        for distance in range(1, 7):
            mine = board[(target - distance) % len(board)] * sign
            if mine >= enemy:
                total += enemy * 11 / 36
                break
    return total


def _value(state: RingState, seat: int) -> float:
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return WIN_VALUE if outcome.winner == seat else -WIN_VALUE
    score = ring_greedy.evaluate(state, seat)
    if THREAT_WEIGHT:
        score += THREAT_WEIGHT * threats(state.board, seat)
    if MATERIAL_WEIGHT:
        score += MATERIAL_WEIGHT * (state.on_board(seat) - state.on_board(1 - seat))
    if KILL_WEIGHT:
        score += KILL_WEIGHT * WIN_VALUE * kill_chance(state.board, seat)
    if STACKS_WEIGHT:
        score += STACKS_WEIGHT * (len(state.stacks_of(seat)) - len(state.stacks_of(1 - seat)))
    if LONE_STACK_PENALTY:
        score -= LONE_STACK_PENALTY * (len(state.stacks_of(seat)) == 1)
        score += LONE_STACK_PENALTY * (len(state.stacks_of(1 - seat)) == 1)
    return score


def _greedy_turn(state: RingState, seat: int, counter: _Counter) -> RingState:
    """Play the rest of ``seat``'s turn with one-step greedy choices (ties: the first found)."""
    while state.outcome() is None and state.to_move() == seat:
        best: RingState | None = None
        best_score = float("-inf")
        for action in state.legal_actions():
            after = state.apply(action)
            counter.steps += 1
            score = ring_greedy.evaluate(after, seat)
            if score > best_score:
                best, best_score = after, score
        assert best is not None
        state = best
    return state


def expected_after_reply(end: RingState, seat: int, counter: _Counter) -> float:
    """``seat``'s expected score once the opponent has rolled and played its turn greedily."""
    if end.outcome() is not None:
        return _value(end, seat)
    if end.phase is not Phase.ROLL:  # not the opponent's roll next (cannot happen; score it as is)
        return _value(end, seat)
    total = 0.0
    for roll, weight in ROLL_CLASSES:
        rolled = end.apply(roll)
        counter.steps += 1
        replied = _greedy_turn(rolled, 1 - seat, counter)
        total += weight * _value(replied, seat)
    return total / ROLLS


def hard(view: GameView, rng: random.Random) -> Action:
    """Expectimax over the opponent's next roll and greedy answer, from the best turn plans."""
    state = _state(view)
    seat = state.to_move()
    counter = _Counter()
    plans = turn_plans(state, counter)
    if RANK_BY_VALUE:
        scored = [(_value(end, seat), rng.random(), action, end) for action, end in plans]
        scored.sort(key=lambda item: (-item[0], item[1]))
        ranked = [(score, action, end) for score, _, action, end in scored]
    else:
        ranked = _ranked(plans, seat, rng)
    if len(ranked) == 1:
        return ranked[0][1]
    best_action = ranked[0][1]
    best_value = float("-inf")
    for index, (_, action, end) in enumerate(ranked[:HARD_MAX_PLANS]):
        if index >= HARD_MIN_PLANS and counter.steps >= HARD_STEP_BUDGET:
            break
        value = expected_after_reply(end, seat, counter)
        if value > best_value:
            best_action, best_value = action, value
    return best_action
