"""Ring computer players by strength: ``easy``, ``medium`` and ``hard``.

* ``easy`` plays the one-step greedy move most of the time and a random legal action otherwise, so
  a beginner can beat it.
* ``medium`` plans its whole turn: it tries every sequence of steps left in the turn (both dice of a
  move, or the swap or knock-out) and keeps the one whose final position scores best by
  ``ring_greedy``'s score.
* ``hard`` plans its whole turn too, rates the ends of its turn plans by ``ring_eval`` (a chance to
  win learnt from self-play) and looks one roll further: from its best few plans it rolls every
  class of roll for the opponent, lets the opponent answer each with the turn plan best for it, and
  keeps the plan with the best expected chance to win (expectimax over the opponent's roll).

All of them read only the player's view (ring has no secrets: the view is the position) and use the
engine's ``legal_actions`` and ``apply`` for every rule.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import product

from engine.ai import ring_eval, ring_greedy, ring_turns
from engine.ai.random_player import random_choice
from engine.ai.ring_turns import Board, Piles
from engine.protocol import Action, GameView
from engine.ring import RingState, Roll

EASY_RANDOM_SHARE = 0.4
"""How often ``easy`` plays a uniformly random legal action instead of the greedy one."""
HARD_MIN_PLANS = 2
"""``hard`` looks ahead from at least this many of its best-rated plans..."""
HARD_MAX_PLANS = 4
"""... and from at most this many ..."""
HARD_STEP_BUDGET = 2500
"""... while it has met fewer than this many positions in this decision (turn steps applied while
planning its own turn, turn ends of the opponent's replies): a stand-in for time."""


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
    """How many positions a decision has met so far (``hard``'s budget)."""

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


def planner(score: Score) -> Callable[[GameView, random.Random], Action]:
    """A player that plays the first step of the turn plan whose final position ``score`` rates best."""

    def play(view: GameView, rng: random.Random) -> Action:
        state = _state(view)
        return _ranked(turn_plans(state), state.to_move(), rng, score)[0][1]

    return play


def medium(view: GameView, rng: random.Random) -> Action:
    """The first step of the turn plan whose final position ``ring_greedy`` scores best."""
    state = _state(view)
    return _ranked(turn_plans(state), state.to_move(), rng, ring_greedy.evaluate)[0][1]


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


def _won(state: RingState, seat: int) -> bool:
    outcome = state.outcome()
    return outcome is not None and outcome.winner == seat


def _win_probability(state: RingState, seat: int) -> float:
    """``ring_eval``'s chance that ``seat`` wins, ``seat`` having just played (or the game over)."""
    return ring_eval.win_probability(state, seat)


def expected_after_reply(board: Board, piles: Piles, seat: int, counter: _Counter) -> float:
    """``seat``'s chance to win from a position where it has just played (no one has won), once the
    opponent has rolled (every roll class, weighted by its probability) and played the end of turn
    best for it by ``ring_eval``. The turns are played by ``ring_turns`` on bare positions."""
    opponent = 1 - seat
    total = 0.0
    for roll, weight in ROLL_CLASSES:
        ends = ring_turns.roll_ends(board, piles, opponent, *roll.values)
        counter.steps += len(ends)
        best = 0.0
        for (end_board, end_piles), winner in ends.items():
            if winner is not None:
                if winner == opponent:
                    best = 1.0
                    break
                continue  # a step that makes the opponent lose is never its best
            chance = ring_eval.position_probability(end_board, end_piles, opponent)
            if chance > best:
                best = chance
        total += weight * (1.0 - best)
    return total / ROLLS


def hard(view: GameView, rng: random.Random) -> Action:
    """Expectimax over the opponent's next roll: of the turn plans ``ring_eval`` rates best, the one
    whose position is best for it once the opponent has answered every roll as well as it can."""
    state = _state(view)
    seat = state.to_move()
    counter = _Counter()
    ranked = _ranked(turn_plans(state, counter), seat, rng, _win_probability)
    if len(ranked) == 1 or ranked[0][0] >= 1.0:
        return ranked[0][1]
    best_action = ranked[0][1]
    best_value = float("-inf")
    for index, (_, action, end) in enumerate(ranked[:HARD_MAX_PLANS]):
        if index >= HARD_MIN_PLANS and counter.steps >= HARD_STEP_BUDGET:
            break
        if end.outcome() is not None:
            value = _win_probability(end, seat)
        else:
            value = expected_after_reply(end.board, end.piles, seat, counter)
        if value > best_value:
            best_action, best_value = action, value
    return best_action


PLAYERS = {
    "random": random_choice,
    "greedy": ring_greedy.choose,
    "easy": easy,
    "medium": medium,
    "hard": hard,
}
"""Ring's computer players by the names the arena and ``/challenge level:`` take."""
