"""Differential test: our legal plays reach exactly the positions gnubg-nn's move generator reaches.

gnubg-nn (GPL, a test-only dependency) lists one entry per distinct position after a legal play:
``gnubg_nn.moves(board, d1, d2, 1)`` -> ``[(position_key, moves), ...]``; its board is the same
``(opponent, player on roll)`` pair of 25-int sides as ours. An empty list means no play.
"""

from __future__ import annotations

import random

import pytest

from engine.backgammon.board import Board, RuleSet, borne_off, starting_board, swap
from engine.backgammon.plays import legal_plays
from tests import oracles

gnubg_nn = oracles.import_oracle("gnubg_nn")

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]


def game_positions(count: int, seed: int, rules: RuleSet = RuleSet.STANDARD) -> list[Board]:
    """Positions from random games played to the end (contact, hits, the bar and bear-offs)."""
    rng = random.Random(seed)
    out: list[Board] = []
    b = starting_board(rules)
    while len(out) < count:
        out.append(b)
        play = rng.choice(legal_plays(b, rng.randint(1, 6), rng.randint(1, 6), rules))
        b = swap(play.result)
        if borne_off(b[0]) == 15:
            b = starting_board(rules)
    return out


def gnubg_results(b: Board, d1: int, d2: int) -> set[Board]:
    entries = gnubg_nn.moves([list(b[0]), list(b[1])], d1, d2, 1)
    if not entries:
        return {b}
    return {(tuple(r[0]), tuple(r[1])) for r in (gnubg_nn.board_from_position_key(key) for key, _ in entries)}


def check(positions: list[Board]) -> dict[str, int]:
    kinds = {"bar": 0, "bear-off": 0, "no play": 0}
    for b in positions:
        kinds["bar"] += b[1][24] > 0
        kinds["bear-off"] += sum(b[1][6:]) == 0
        for d1, d2 in ROLLS:
            ours = {p.result for p in legal_plays(b, d1, d2)}
            assert ours == gnubg_results(b, d1, d2), (b, d1, d2)
            kinds["no play"] += ours == {b}
    return kinds


def test_plays_match_gnubg_on_random_game_positions() -> None:
    kinds = check(game_positions(300, seed=11))
    assert all(kinds.values()), kinds


def test_plays_match_gnubg_on_nackgammon_positions() -> None:
    check(game_positions(100, seed=12, rules=RuleSet.NACKGAMMON))


@pytest.mark.slow
def test_plays_match_gnubg_on_many_positions() -> None:
    kinds = check(game_positions(6000, seed=2026))
    assert kinds["bar"] > 100 and kinds["bear-off"] > 100 and kinds["no play"] > 100, kinds
