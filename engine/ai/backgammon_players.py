"""Backgammon's computer players by name, and how the arena seats them.

``easy``, ``medium`` and ``hard`` are the bgsage levels (``backgammon_bgsage``), ``expert`` the
world-class level at the hints' depth (``backgammon_expert``); ``pubeval`` is
Tesauro's benchmark evaluator, ``greedy`` a one-roll pip counter.

The arena measures backgammon as the field does, cubeless money play: every game is a single game (a
1-point match, which has no cube) scoring 1, 2 or 3 points, and the bgsage levels are told to play it
for money (gammons count) rather than as a 1-point match (``backgammon_bgsage.for_money``).
"""

from __future__ import annotations

from engine.ai import backgammon_bgsage, backgammon_expert, backgammon_greedy, pubeval
from engine.ai.arena import Benchmark
from engine.ai.random_player import random_choice

PLAYERS = {
    "random": random_choice,
    "greedy": backgammon_greedy.choose,
    "pubeval": pubeval.choose,
    "easy": backgammon_bgsage.EASY,
    "medium": backgammon_bgsage.MEDIUM,
    "hard": backgammon_bgsage.HARD,
    "expert": backgammon_expert.EXPERT,
}

BENCHMARK = Benchmark(
    options={"length": 1, "rules": "standard"}, points=True, seat=backgammon_bgsage.for_money
)
