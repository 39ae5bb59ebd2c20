"""The legal plays' generator gives exactly what it gave before it was made faster: the same plays,
with the same move lists, in the same order, for every rule set and every ordered roll.

gnubg-nn checks the positions reached (tests/engine/test_backgammon_vs_gnubg.py); it knows nothing
of which move list is kept for a position (the first found, higher die first, farthest checkers
first) nor of the order of the plays, which players see in hints and notation. A digest of
everything ``legal_plays`` returns over positions of seeded random games pins those down. The
digests were taken with the generator of commit c9603ac; a change to the rules that changes a play
on purpose updates them and says so.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from engine.backgammon.board import Board, RuleSet, borne_off, starting_board, swap
from engine.backgammon.plays import legal_plays

ORDERED_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]


def digest_of_plays(count: int, seed: int) -> dict[str, str]:
    """Per rule set: the sha256 of the repr of ``legal_plays`` for every ordered roll of ``count``
    positions from random games of that rule set."""
    out: dict[str, str] = {}
    for rules in RuleSet:
        rng = random.Random(seed)
        sha = hashlib.sha256()
        board: Board = starting_board(rules)
        for _ in range(count):
            for d1, d2 in ORDERED_ROLLS:
                sha.update(repr(legal_plays(board, d1, d2, rules)).encode())
            board = swap(rng.choice(legal_plays(board, rng.randint(1, 6), rng.randint(1, 6), rules)).result)
            if borne_off(board[0]) == 15:
                board = starting_board(rules)
        out[rules.value] = sha.hexdigest()[:16]
    return out


def test_plays_are_those_of_the_reference_generator() -> None:
    assert digest_of_plays(150, seed=5) == {
        "standard": "02c3b49b3caeac64",
        "nackgammon": "59913e7128191953",
        "oldenglish": "03f5af8b98acc8dc",
    }


@pytest.mark.slow
def test_plays_are_those_of_the_reference_generator_on_many_positions() -> None:
    assert digest_of_plays(2000, seed=6) == {
        "standard": "ce57143bcf70176b",
        "nackgammon": "265041e4d570b9b3",
        "oldenglish": "ea50b34a4861fdbc",
    }
