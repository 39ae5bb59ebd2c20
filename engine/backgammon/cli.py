"""``python -m engine plays``: every legal play of a roll in a GNU Backgammon position, for engine authors.

One play a line: the play in standard notation (``play_text``), a TAB, and the GNU Backgammon position ID
of the position it reaches, still from the mover's view (before the roll passes). A roll with no legal
play is one line, ``no play`` and the unchanged position's ID.

With ``--stdin`` the queries come one a line, ``POSITION_ID A-B`` (blank lines ignored); each answer is
its lines and then one empty line, flushed at once, so one process can serve a whole test run. A line that
cannot be answered gets ``error: <message>`` and the empty line, and the run goes on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TextIO

from engine.backgammon.board import Board, RuleSet
from engine.backgammon.formats import FormatError, board_from_position_id, position_id
from engine.backgammon.notation import play_text
from engine.backgammon.plays import Play, legal_plays

GAMES = ("backgammon",)
"""The games ``plays`` knows (backgammon is not in ``engine.registry`` yet)."""

_DICE = re.compile(r"^([1-6])-([1-6])$")


class QueryError(ValueError):
    """A position ID or a roll that cannot be read; the message says which and why."""


def check_game(name: str) -> None:
    """Raise ``QueryError`` unless ``name`` is a game ``plays`` knows."""
    if name.strip().lower() not in GAMES:
        raise QueryError(f"plays knows only these games: {', '.join(GAMES)} (not {name!r})")


def parse_dice(text: str) -> tuple[int, int]:
    """``"6-4"`` -> ``(6, 4)``; ``QueryError`` unless both dice are 1 to 6."""
    match = _DICE.match(text.strip())
    if match is None:
        raise QueryError(f"dice are written A-B with A and B from 1 to 6, like 6-4, not {text!r}")
    return int(match.group(1)), int(match.group(2))


def parse_position(text: str) -> Board:
    """The board of a GNU Backgammon position ID (``board[1]`` on roll); ``QueryError`` if it is not one."""
    try:
        return board_from_position_id(text.strip())
    except FormatError as error:
        raise QueryError(str(error)) from None


def play_line(play: Play) -> str:
    """One answer line: ``play<TAB>position ID`` of the position it reaches (``no play`` when empty);
    ``python -m engine move`` prints its choice the same way."""
    return f"{play_text(play)}\t{position_id(play.result)}"


def play_lines(board: Board, d1: int, d2: int, rules: RuleSet = RuleSet.STANDARD) -> list[str]:
    """The answer's lines: ``play<TAB>position ID`` for each legal play (``no play`` when there is none)."""
    return [play_line(play) for play in legal_plays(board, d1, d2, rules)]


def parse_query(line: str) -> tuple[Board, int, int]:
    """The board and dice of one ``POSITION_ID A-B`` query line; ``QueryError`` if it cannot be read."""
    fields = line.split()
    if len(fields) != 2:
        raise QueryError(
            f"a query is a position ID and the dice, like '4HPwATDgc/ABMA 3-1', not {line.strip()!r}"
        )
    board = parse_position(fields[0])
    d1, d2 = parse_dice(fields[1])
    return board, d1, d2


def answer_line(line: str, rules: RuleSet = RuleSet.STANDARD) -> list[str]:
    """The answer to one ``POSITION_ID A-B`` query line; ``QueryError`` if the line cannot be read."""
    return play_lines(*parse_query(line), rules)


def serve(lines: Iterable[str], out: TextIO, rules: RuleSet = RuleSet.STANDARD) -> bool:
    """Answer each non-blank query line, each answer followed by an empty line and flushed.

    Returns whether every line was answered (a bad line answers ``error: ...`` and the rest go on).
    """
    ok = True
    for line in lines:
        if not line.strip():
            continue
        try:
            answer = answer_line(line, rules)
        except QueryError as error:
            answer = [f"error: {error}"]
            ok = False
        out.write("".join(f"{text}\n" for text in answer) + "\n")
        out.flush()
    return ok
