"""``python -m engine move --game backgammon``: a computer level's play for one position and roll.

The answer is one line exactly as ``python -m engine plays`` prints a play (``cli.play_line``): the
play in standard notation, a TAB, the GNU Backgammon position ID it reaches (still the mover's view).
A position ID says nothing of a match, so the levels play as in the arena: cubeless money play.
With ``--stdin`` each ``POSITION_ID A-B`` line gets its one answer line, flushed at once; a line
that cannot be read gets ``error: <message>`` and the run goes on (the exit status says so).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TextIO

from engine.ai.arena import benchmark_player
from engine.ai.levels import ComputerPlayer
from engine.backgammon.board import Board, RuleSet
from engine.backgammon.cli import QueryError, parse_query, play_line
from engine.backgammon.game import BackgammonState, Checkers, MoveChecker, Phase
from engine.backgammon.plays import Play, legal_plays
from engine.backgammon.turn import roll_dice

MAX_STEPS = 4
"""A roll moves at most four checkers: a player answering one checker at a time is asked that often."""


def level_player(level: str) -> ComputerPlayer:
    """The backgammon player called ``level``, as the arena seats it (``UnknownPlayerError`` if none)."""
    return benchmark_player("backgammon", level)


def choose_play(
    player: ComputerPlayer, board: Board, d1: int, d2: int, rules: RuleSet, rng: random.Random
) -> Play:
    """The legal play (as ``legal_plays`` lists it) that ``player`` makes with ``board[1]`` on roll."""
    plays = legal_plays(board, d1, d2, rules)
    if len(plays) == 1:
        return plays[0]
    by_result = {play.result: play for play in plays}
    opp, me = board
    state = BackgammonState(
        sides=(me, opp),
        rules=rules,
        phase=Phase.PLAY,
        turn_seat=0,
        dice=(d1, d2),
        start=(me, opp),
        dice_left=roll_dice(d1, d2),
    )
    for _ in range(MAX_STEPS):
        action = player(state, rng)
        if isinstance(action, Checkers):
            return by_result[action.result]
        if not isinstance(action, MoveChecker):
            raise ValueError(f"a player answered {action.notation!r} to a roll")
        state = state.apply(action)
        if state.turn_seat != 0 or state.phase is not Phase.PLAY:
            return by_result[(state.sides[1], state.sides[0])]
    raise ValueError("the player did not finish its play within four checkers")


def move_line(player: ComputerPlayer, board: Board, d1: int, d2: int, rules: RuleSet, seed: int) -> str:
    """The answer line for one position and roll, the player drawing (if it does) from ``seed``."""
    return play_line(choose_play(player, board, d1, d2, rules, random.Random(seed)))


def serve_moves(lines: Iterable[str], out: TextIO, player: ComputerPlayer, rules: RuleSet, seed: int) -> bool:
    """Answer each non-blank ``POSITION_ID A-B`` line with one line; whether every line was answered.
    The player draws (if it does) from one random source seeded with ``seed`` for the whole run."""
    rng = random.Random(seed)
    ok = True
    for line in lines:
        if not line.strip():
            continue
        try:
            board, d1, d2 = parse_query(line)
            answer = play_line(choose_play(player, board, d1, d2, rules, rng))
        except QueryError as error:
            answer = f"error: {error}"
            ok = False
        out.write(answer + "\n")
        out.flush()
    return ok
