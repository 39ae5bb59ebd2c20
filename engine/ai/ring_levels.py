"""Ring computer players by strength: ``easy``, ``medium`` and ``hard`` (and ``lookahead``, an experiment).

* ``easy`` plays the one-step greedy move most of the time and a random legal action otherwise, so
  a beginner can beat it.
* ``medium`` plans its whole turn: it tries every sequence of steps left in the turn (both dice of a
  move, or the swap or knock-out) and keeps the one whose final position scores best by
  ``ring_greedy``'s score.
* ``hard`` plans its whole turn the same way with a score tuned in the arena (``evaluate``): stacks
  of two or more are worth much more (almost every game ends with one side captured), and so are
  tokens within capturing reach of the side that rolls next (a one-roll look-ahead in closed form).
* ``lookahead`` (not one of the levels) is a true expectimax over the opponent's next roll: of the
  best turn plans it rolls every roll class for the opponent, lets it answer by ``evaluate`` and
  keeps the plan with the best expected score. Measured in the arena it is not stronger than
  ``hard`` and far slower (see bench/README.md), so it is kept as the starting point for a stronger one.

All of them read only the player's view (ring has no secrets: the view is the position) and use the
engine's ``legal_actions`` and ``apply`` for every rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import product

from engine.ai import ring_greedy
from engine.protocol import Action, GameView
from engine.ring import Phase, RingState, Roll

EASY_RANDOM_SHARE = 0.4
"""How often ``easy`` plays a uniformly random legal action instead of the greedy one."""
WIN_VALUE = 1000.0
"""The score of a won (lost: minus) position in ``evaluate``; a heuristic score is tens."""
LOOKAHEAD_MIN_PLANS = 2
"""``hard`` looks ahead from at least this many of its best-scoring plans..."""
LOOKAHEAD_MAX_PLANS = 8
"""... and from at most this many ..."""
LOOKAHEAD_STEP_BUDGET = 2500
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


Score = Callable[[RingState, int], float]


def _ranked(
    plans: Sequence[tuple[Action, RingState]], seat: int, rng: random.Random, score: Score
) -> list[tuple[float, Action, RingState]]:
    """Plans by ``score`` for ``seat``, best first; equal scores in random order."""
    scored = [(score(end, seat), rng.random(), action, end) for action, end in plans]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(score, action, end) for score, _, action, end in scored]


def medium(view: GameView, rng: random.Random) -> Action:
    """The first step of the turn plan whose final position ``ring_greedy`` scores best."""
    state = _state(view)
    return _ranked(turn_plans(state), state.to_move(), rng, ring_greedy.evaluate)[0][1]


def hard(view: GameView, rng: random.Random) -> Action:
    """The first step of the turn plan whose final position ``evaluate`` scores best."""
    state = _state(view)
    return _ranked(turn_plans(state), state.to_move(), rng, evaluate)[0][1]


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


SAFE_STACK_WEIGHT = 15.0
"""What a stack of two or more tokens is worth on top of ``ring_greedy``'s score: single tokens are
captured by any group landing on them, and almost every ring game ends with one side captured."""
THREAT_WEIGHT = 6.0
"""What a token within capturing reach is worth (``threats``), ..."""
ON_ROLL_THREAT_FACTOR = 1.5
"""... counted this many times over for the side that rolls next."""


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


def _safe_stacks(board: Sequence[int], seat: int) -> int:
    sign = 1 if seat == 0 else -1
    return sum(1 for v in board if v * sign >= 2)


def evaluate(state: RingState, seat: int) -> float:
    """``ring_greedy.evaluate`` plus safe stacks and capture threats: higher is better for ``seat``.

    Tuned by arena runs of a one-step player with this score against ``greedy`` (600 games each:
    safe-stack weights 3, 6, 10, 15, 25 and threat weights 3 to 10; it wins about 75%).
    """
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.0
        return WIN_VALUE if outcome.winner == seat else -WIN_VALUE
    board = state.board
    score = ring_greedy.evaluate(state, seat)
    score += SAFE_STACK_WEIGHT * (_safe_stacks(board, seat) - _safe_stacks(board, 1 - seat))
    mine, theirs = threats(board, seat), threats(board, 1 - seat)
    if state.turn_seat == seat:
        mine *= ON_ROLL_THREAT_FACTOR
    else:
        theirs *= ON_ROLL_THREAT_FACTOR
    return score + THREAT_WEIGHT * (mine - theirs)


def _greedy_turn(state: RingState, seat: int, counter: _Counter) -> RingState:
    """Play the rest of ``seat``'s turn by one-step choices of the best ``evaluate`` score (ties: the
    first found): the opponent ``hard`` expects, a careful one rather than ``ring_greedy``."""
    while state.outcome() is None and state.to_move() == seat:
        best: RingState | None = None
        best_score = float("-inf")
        for action in state.legal_actions():
            after = state.apply(action)
            counter.steps += 1
            score = evaluate(after, seat)
            if score > best_score:
                best, best_score = after, score
        assert best is not None
        state = best
    return state


def expected_after_reply(end: RingState, seat: int, counter: _Counter) -> float:
    """``seat``'s expected score once the opponent has rolled and played its turn greedily."""
    if end.outcome() is not None:
        return evaluate(end, seat)
    if end.phase is not Phase.ROLL:  # not the opponent's roll next (cannot happen; score it as is)
        return evaluate(end, seat)
    total = 0.0
    for roll, weight in ROLL_CLASSES:
        rolled = end.apply(roll)
        counter.steps += 1
        replied = _greedy_turn(rolled, 1 - seat, counter)
        total += weight * evaluate(replied, seat)
    return total / ROLLS


def lookahead(view: GameView, rng: random.Random) -> Action:
    """Expectimax over the opponent's next roll and its answer, from the best turn plans."""
    state = _state(view)
    seat = state.to_move()
    counter = _Counter()
    ranked = _ranked(turn_plans(state, counter), seat, rng, evaluate)
    if len(ranked) == 1:
        return ranked[0][1]
    best_action = ranked[0][1]
    best_value = float("-inf")
    for index, (_, action, end) in enumerate(ranked[:LOOKAHEAD_MAX_PLANS]):
        if index >= LOOKAHEAD_MIN_PLANS and counter.steps >= LOOKAHEAD_STEP_BUDGET:
            break
        value = expected_after_reply(end, seat, counter)
        if value > best_value:
            best_action, best_value = action, value
    return best_action
