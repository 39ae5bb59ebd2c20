"""pubeval: Gerald Tesauro's public-domain linear backgammon evaluator, the field's benchmark player.

Tesauro published ``pubeval.c`` in 1993 "as a public service to the backgammon programming
community" (public domain). The weights below are his two published vectors, ``wc`` (contact) and
``wr`` (race), as they appear in that file (the copy kept in OpenBSD's
``games/backgammon/common_source/pubeval.c``; GNU Backgammon's ``pub_eval.c`` has the same numbers).

The evaluation: 122 inputs of the position *after* the move, seen by the mover (``board[1]``),
scored as the dot product with the race weights if the position *before* the move was a race (no
contact), else with the contact weights. Inputs, for each of the mover's points 24 down to 1
(five per point, ``n`` = the mover's checkers there, ``-1`` = one opposing blot):

- ``n == -1`` (an opposing blot), ``n == 1``, ``n >= 2``, ``n == 3``, and ``(n - 3) / 2`` for ``n >= 4``;
- input 120: the opponent's checkers on the bar, halved; input 121: the mover's checkers borne off / 15.

The mover's checkers on the bar and two or more opposing checkers on a point are not inputs (a
known quirk of the original, kept). A play that bears off the 15th checker scores 99999999.

The player picks the legal play whose result scores highest (the first found on a tie); it never
doubles, always takes a double and declines resignation offers.
"""

from __future__ import annotations

import random

from engine.ai.backgammon_greedy import cubeless_plays
from engine.backgammon.board import BAR, CHECKERS, Board, borne_off
from engine.backgammon.game import BackgammonState, Checkers
from engine.protocol import Action, GameView

INPUTS = 122
WIN_SCORE = 99999999.0
"""The score of a play that bears off the mover's last checker (the original's constant)."""

CONTACT_WEIGHTS: tuple[float, ...] = (
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398, -0.16092, -1.11725, -1.06654,
    -0.92830, -1.99558, -1.10388, -0.80802, 0.09856, -0.62086, -1.27999, -0.59220,
    -0.73667, 0.89032, -0.38933, -1.59847, -1.50197, -0.60966, 1.56166, -0.47389,
    -1.80390, -0.83425, -0.97741, -1.41371, 0.24500, 0.10970, -1.36476, -1.05572,
    1.15420, 0.11069, -0.38319, -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786, -1.18435, -0.43363, 1.06169,
    -0.21329, 0.04798, -0.94373, -0.22982, 1.22737, -0.13099, -0.06295, -0.75882,
    -0.13658, 1.78389, 0.30416, 0.36797, -0.69851, 0.13003, 1.23070, 0.40868,
    -0.21081, -0.64073, 0.31061, 1.59554, 0.65718, 0.25429, -0.80789, 0.08240,
    1.78964, 0.54304, 0.41174, -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777, -0.83711, -0.33248, 2.64983,
    0.52698, 0.82132, -0.58897, -1.18223, 3.35809, 0.62017, 0.57353, -0.07276,
    -0.36214, 4.37655, 0.45481, 0.21746, 0.10504, -0.61977, 3.54001, 0.04612,
    -0.18108, 0.63211, -0.87046, 2.47673, -0.48016, -1.27157, 0.86505, -1.11342,
    1.24612, -0.82385, -2.77082, 1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
)  # fmt: skip
"""Tesauro's ``wc``: the weights for positions with contact."""

RACE_WEIGHTS: tuple[float, ...] = (
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471, 0.00000, -1.40375, -1.05121,
    0.07217, -0.01351, 0.00000, -1.29506, -2.16183, 0.13246, -1.03508, 0.00000,
    -2.29847, -2.34631, 0.17253, 0.08302, 0.00000, -1.27266, -2.87401, -0.07456,
    -0.34240, 0.00000, -1.34640, -2.46556, -0.13022, -0.01591, 0.00000, 0.27448,
    0.60015, 0.48302, 0.25236, 0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685, 0.00000, 0.17405, 0.00430,
    0.74427, 0.00576, 0.00000, 0.12392, 0.31202, -0.91035, -0.16270, 0.00000,
    0.01418, -0.10839, -0.02781, -0.88035, 0.00000, 1.07274, 2.00366, 1.16242,
    0.22520, 0.00000, 0.85631, 1.06349, 1.49549, 0.18966, 0.00000, 0.37183,
    -0.50352, -0.14818, 0.12039, 0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728, 0.00000, -0.13597, -0.19412,
    -0.09308, -1.26062, 0.00000, 3.05454, 5.16874, 1.50680, 5.35000, 0.00000,
    2.19605, 3.85390, 0.88296, 2.30052, 0.00000, 0.92321, 1.08744, -0.11696,
    -0.78560, 0.00000, -0.09795, -0.83050, -1.09167, -4.94251, 0.00000, -1.00316,
    -3.66465, -2.56906, -9.67677, 0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
)  # fmt: skip
"""Tesauro's ``wr``: the weights for races."""


def is_race(board: Board) -> bool:
    """Whether the position has no contact: every checker of ``board[1]`` has passed every opposing one.

    In the mover's numbering its checkers stand on points 1-24 (25: the bar) and the opponent's
    checker on its own point ``j + 1`` stands on the mover's ``24 - j`` (its bar: the mover's 0).
    """
    opp, me = board
    my_back = max((i + 1 for i in range(BAR + 1) if me[i]), default=0)
    their_back = min((24 - j if j < BAR else 0 for j in range(BAR + 1) if opp[j]), default=25)
    return my_back < their_back


def signed_points(board: Board) -> list[int]:
    """The original's ``pos[0..26]``: ``pos[p]`` for the mover's point p is its checkers there, minus
    the opponent's; ``pos[25]`` the mover's bar, ``pos[0]`` minus the opponent's bar, ``pos[26]``
    the mover's checkers borne off."""
    opp, me = board
    pos = [0] * 27
    for p in range(1, 25):
        pos[p] = me[p - 1] - opp[24 - p]
    pos[25] = me[BAR]
    pos[0] = -opp[BAR]
    pos[26] = borne_off(me)
    return pos


def inputs(board: Board) -> list[float]:
    """The 122 inputs of the position ``board`` (after the move, ``board[1]`` the mover)."""
    pos = signed_points(board)
    x = [0.0] * INPUTS
    for j in range(1, 25):
        n = pos[25 - j]
        base = 5 * (j - 1)
        if n == -1:
            x[base] = 1.0
        elif n == 1:
            x[base + 1] = 1.0
        if n >= 2:
            x[base + 2] = 1.0
        if n == 3:
            x[base + 3] = 1.0
        if n >= 4:
            x[base + 4] = (n - 3) / 2.0
    x[120] = -pos[0] / 2.0
    x[121] = pos[26] / 15.0
    return x


def score(board: Board, race: bool) -> float:
    """pubeval's score of the position after a play (higher is better for the mover, ``board[1]``);
    ``race``: whether the position *before* the play was a race."""
    if borne_off(board[1]) == CHECKERS:
        return WIN_SCORE
    weights = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    return sum(w * v for w, v in zip(weights, inputs(board), strict=True))


def turn_start(state: BackgammonState) -> Board:
    """The board when the roll was made (``board[1]`` on roll), even if some checkers have moved."""
    if state.start is None:
        return state.board
    seat = state.turn_seat or 0
    return (state.start[1 - seat], state.start[seat])


def choose(view: GameView, rng: random.Random) -> Action:
    """The pubeval player: the best-scoring legal play; never doubles, always takes, declines offers."""
    state = view
    assert isinstance(state, BackgammonState)
    del rng  # deterministic: ties go to the first play found
    plays = cubeless_plays(state)
    if not isinstance(plays, list):
        return plays
    race = is_race(turn_start(state))
    best = max(plays, key=lambda play: score(play.result, race))
    return Checkers(best.moves, best.result)
