"""A learnt ring evaluation: the chance that the side that has just played wins, from a few features.

The features say what decides ring games (almost all end with one side captured): tokens and
stacks on the board for each side, single tokens, whether a side has only one stack left (one
knock-out ends the game), and, over every roll of the side to roll next, how likely it captures
everything of the other side and how many tokens it can expect to capture at best. The occupation
features (spaces, best quarter, longest run) cover the other ways to win.

The weights are a logistic regression of self-play outcomes on these features (bench/ring_fit.py
makes the data and fits them; its docstring says how the weights below were made).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import product

from engine.memo import MB, bytes_lru, small
from engine.ring import QUARTERS, SPACES, TOKENS, RingState

FEATURE_NAMES = (
    "bias",
    "my_tokens",
    "their_tokens",
    "my_stacks",
    "their_stacks",
    "my_singles",
    "their_singles",
    "my_one_stack",
    "their_one_stack",
    "their_kill",
    "their_capture",
    "my_kill",
    "my_capture",
    "my_spaces",
    "their_spaces",
    "my_quarter",
    "their_quarter",
    "my_run",
    "their_run",
)
"""What ``features`` returns, in order; ``my`` is the side that has just played, ``their`` the side to
roll next."""


def _roll_classes() -> tuple[tuple[str, int, int, float], ...]:
    """(kind, white1, white2, probability) for every class of roll that plays differently.

    Kinds: ``triples`` (white1 = white2 = the space), ``odds``, ``evens``, ``doubles`` (white1 =
    white2, not triples) and ``move`` (two different white dice, not odds or evens).
    """
    weights: dict[tuple[str, int, int], int] = {}
    for w1, w2, black in product(range(1, 7), repeat=3):
        ordered = sorted((w1, w2, black))
        if w1 == w2 == black:
            key = ("triples", w1, w2)
        elif ordered == [1, 3, 5]:
            key = ("odds", 0, 0)
        elif ordered == [2, 4, 6]:
            key = ("evens", 0, 0)
        elif w1 == w2:
            key = ("doubles", w1, w2)
        else:
            key = ("move", min(w1, w2), max(w1, w2))
        weights[key] = weights.get(key, 0) + 1
    return tuple((kind, a, b, count / 216) for (kind, a, b), count in sorted(weights.items()))


ROLL_CLASSES = _roll_classes()


def _best_capture(
    board: Sequence[int],
    sign: int,
    own: Sequence[tuple[int, int]],
    hits: Sequence[Sequence[tuple[int, int, int]]],
    a: int,
    b: int,
) -> int:
    """The most tokens the side with ``sign`` (+1 Red, -1 Blue), whose stacks are ``own`` (index,
    tokens), can capture by moving with dice ``a`` and ``b`` (``a == b``: a double, two steps of
    ``a``): one stack by one die, one group landing on two stacks in a row, or two stacks by two
    groups. ``hits[d]`` lists the one-die captures with ``d`` as (source, target, tokens). An
    estimate: the must-move rule is ignored, and so are groups that grow by merging on the way."""
    best = 0
    for _, _, captured in hits[a]:
        if captured > best:
            best = captured
    for _, _, captured in hits[b]:
        if captured > best:
            best = captured
    # One group, both dice in a row (either order), capturing on the way and at the end.
    for first, second in ((a, b), (b, a)) if a != b else ((a, b),):
        for i, n in own:
            middle = (i + first) % SPACES
            on_middle = -board[middle] * sign
            if on_middle > n:
                continue
            end = (middle + second) % SPACES
            on_end = -board[end] * sign
            if on_end > n or end == i:
                continue
            captured = (on_middle if on_middle > 0 else 0) + (on_end if on_end > 0 else 0)
            if captured > best:
                best = captured
    # Two different stacks by the two dice, from different stacks or one stack large enough for both.
    for src1, t1, c1 in hits[a]:
        for src2, t2, c2 in hits[b]:
            if t1 == t2 or c1 + c2 <= best:
                continue
            if src1 == src2 and board[src1] * sign < c1 + c2:
                continue
            best = c1 + c2
    return best


def threat(board: Sequence[int], piles: Sequence[int], roller: int) -> tuple[float, float]:
    """For ``roller`` about to roll: (chance of capturing every token of the other side this turn,
    expected most tokens captured this turn), over all 216 rolls."""
    sign = 1 if roller == 0 else -1
    victims = [-v * sign for v in board if v * sign < 0]
    total = sum(victims)
    if total == 0:
        return 1.0, 0.0
    own = [(i, v * sign) for i, v in enumerate(board) if v * sign > 0]
    hits: list[list[tuple[int, int, int]]] = [[] for _ in range(7)]
    for die in range(1, 7):
        for i, n in own:
            target = (i + die) % SPACES
            there = -board[target] * sign
            if 0 < there <= n:
                hits[die].append((i, target, there))
    kill = 0.0
    expected = 0.0
    pile = piles[roller]
    for kind, w1, w2, p in ROLL_CLASSES:
        if kind == "evens":
            captured = max(victims)  # all of them only if there is one stack
        elif kind == "odds":
            captured = 0
        else:
            captured = -1
            if kind != "move":
                there = -board[w1 - 1] * sign
                blocked_by = 3 if kind == "triples" else 2
                if pile > 0 and there < blocked_by:
                    captured = max(there, 0)
            if captured < 0:
                captured = _best_capture(board, sign, own, hits, w1, w2) if own else 0
        expected += p * captured
        if captured >= total:
            kill += p
    return kill, expected


def _occupation(board: Sequence[int], sign: int) -> tuple[int, int, int]:
    """(spaces occupied, most spaces of one quarter occupied, longest run) for the side ``sign``."""
    occupied = [v * sign > 0 for v in board]
    spaces = sum(occupied)
    quarter = 0
    for q in QUARTERS:
        quarter = max(quarter, sum(1 for s in range(SPACES) if q.mask >> s & 1 and occupied[s]))
    if spaces == SPACES:
        run = SPACES
    else:
        run = best = 0
        for flag in occupied + occupied:
            best = best + 1 if flag else 0
            run = max(run, best)
    return spaces, quarter, run


def features(board: Sequence[int], piles: Sequence[int], me: int) -> list[float]:
    """The features (``FEATURE_NAMES``) of a position where ``me`` has just played and the other side
    rolls next."""
    sign = 1 if me == 0 else -1
    mine = [v * sign for v in board if v * sign > 0]
    theirs = [-v * sign for v in board if v * sign < 0]
    their_kill, their_capture = threat(board, piles, 1 - me)
    my_kill, my_capture = threat(board, piles, me)
    my_spaces, my_quarter, my_run = _occupation(board, sign)
    their_spaces, their_quarter, their_run = _occupation(board, -sign)
    return [
        1.0,
        sum(mine) / TOKENS,
        sum(theirs) / TOKENS,
        len(mine) / 4,
        len(theirs) / 4,
        sum(1 for n in mine if n == 1) / 4,
        sum(1 for n in theirs if n == 1) / 4,
        1.0 if len(mine) == 1 else 0.0,
        1.0 if len(theirs) == 1 else 0.0,
        their_kill,
        their_capture / 4,
        my_kill,
        my_capture / 4,
        my_spaces / 9,
        their_spaces / 9,
        (my_quarter / 4) ** 2,
        (their_quarter / 4) ** 2,
        (my_run / 5) ** 2,
        (their_run / 5) ** 2,
    ]


WEIGHTS = (
    -0.1254,  # bias
    3.6045,  # my_tokens
    -2.7376,  # their_tokens
    4.2563,  # my_stacks
    -4.1737,  # their_stacks
    -4.3004,  # my_singles
    4.3535,  # their_singles
    0.1193,  # my_one_stack
    -0.1787,  # their_one_stack
    -1.2684,  # their_kill
    -3.6206,  # their_capture
    1.086,  # my_kill
    0.7397,  # my_capture
    1.8917,  # my_spaces
    -1.855,  # their_spaces
    0.5808,  # my_quarter
    -0.5531,  # their_quarter
    -0.2068,  # my_run
    0.058,  # their_run
)
"""The fitted logistic-regression weights of ``FEATURE_NAMES`` (bench/ring_fit.py)."""


@bytes_lru(4 * MB, small)
def _fitted_logit(board: tuple[int, ...], piles: tuple[int, int], me: int) -> float:
    """The fitted model's log-odds, cached (a search meets the same positions again and again; 32768
    entries are a few megabytes)."""
    return sum(w * x for w, x in zip(WEIGHTS, features(board, piles, me), strict=True))


def position_probability(board: tuple[int, ...], piles: tuple[int, int], me: int) -> float:
    """The fitted model's chance that ``me`` wins a position (no one has won yet) where ``me`` has
    just played and the other side rolls next."""
    return _chance(_fitted_logit(board, piles, me))


def _chance(z: float) -> float:
    """The probability of log-odds ``z``."""
    if z < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-z))


def win_probability(state: RingState, me: int, weights: Sequence[float] = WEIGHTS) -> float:
    """How likely ``me`` wins from ``state``: 1 or 0 once the game is over (0.5 for a draw), else the
    fitted model of a position where ``me`` has just played."""
    outcome = state.outcome()
    if outcome is not None:
        if outcome.winner is None:
            return 0.5
        return 1.0 if outcome.winner == me else 0.0
    if weights is WEIGHTS:
        return position_probability(state.board, state.piles, me)
    return _chance(sum(w * x for w, x in zip(weights, features(state.board, state.piles, me), strict=True)))
