"""Pig's computer players: ``random``, and ``greedy``, which holds at 20 this turn or on reaching 30."""

from __future__ import annotations

import random

from engine.ai.players import ComputerPlayer
from engine.ai.random_player import random_choice
from engine.pig import GOAL, Hold, PigState, Roll
from engine.protocol import Action, GameView


def greedy(view: GameView, rng: random.Random) -> Action:
    assert isinstance(view, PigState)
    enough = view.total >= 20 or view.scores[view.seat] + view.total >= GOAL
    return Hold() if enough and Hold() in view.legal_actions() else Roll()


PLAYERS: dict[str, ComputerPlayer] = {"random": random_choice, "greedy": greedy}
