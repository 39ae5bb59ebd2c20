"""Reading a Jellyfish ``.mat`` match file (GNU Backgammon's and eXtreme Gammon's exports) into our
match options and action log, replayed with our rules (``matfile`` writes the format; its docstring
describes the layout).

Each numbered line holds the first listed player's entry (seat 0) in the left column and the other's
from about column 33; an entry is a roll and its play (``52: 13/8 13/11*``, ``66:`` when it cannot
be played), ``Doubles => 4``, ``Takes``, ``Drops``, or ``Wins N point(s)``. Whose entry it is comes
from the replay (the player to act), except for a game's opening roll and a ``Wins`` line that ends a
game before it is played out (a resignation), where the column tells. Comment lines (``;``) are
skipped, but for ``[Variation "NackGammon"]``. A line that cannot be read, or a play our rules do not
allow, raises ``MatReadError`` with the line number and the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.notation import parse_play, play_text
from engine.backgammon.variant import VARIANT
from engine.errors import GameError

_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_NAMES = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+(\S.*?)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^\s*\d+\)")
_ENTRY = re.compile(
    r"(?P<dice>[1-6])(?P<dice2>[1-6]):(?P<play>(?:[ \t]+(?:\d+/\d+\*?(?:\(\d\))?|\d+/\d+\*?/\S*))*)"
    r"|Doubles\s*=>\s*(?P<cube>\d+)|(?P<take>Takes)|(?P<pass>Drops|Passes)"
    r"|Wins\s+(?P<wins>\d+)\s+points?(?:\s+and\s+the\s+match)?",
    re.IGNORECASE,
)
RIGHT_COLUMN = 20
"""An entry starting at or after this column of its line is the second player's (Jellyfish: 33)."""


class MatReadError(ValueError):
    """The file is not a match we can replay; the message names the line and the reason."""


@dataclass(frozen=True, slots=True)
class ReadMatch:
    """A ``.mat`` file replayed: ``VARIANT.new_game(options)`` then ``log`` reach its last position."""

    options: dict[str, Any]
    log: tuple[str, ...]
    names: tuple[str, str]


def read_mat(text: str) -> ReadMatch:
    """The match written in ``text``; ``MatReadError`` if it cannot be read or replayed."""
    reader = _Reader()
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            reader.line(line)
        except (GameError, ValueError) as exc:
            raise MatReadError(f"line {number}: {exc}") from None
    if reader.state is None or not reader.log:
        raise MatReadError("no game in the file: a .mat file starts with 'N point match' and holds games")
    return ReadMatch(reader.options, tuple(reader.log), reader.names or ("Player 1", "Player 2"))


def read_mat_file(path: str) -> ReadMatch:
    """``read_mat`` of the file at ``path``; ``MatReadError`` too when it cannot be opened or decoded."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise MatReadError(f"cannot read the file ({exc.__class__.__name__})") from None
    return read_mat(text)


class _Reader:
    def __init__(self) -> None:
        self.options: dict[str, Any] = {}
        self.log: list[str] = []
        self.names: tuple[str, str] | None = None
        self.state: BackgammonState | None = None
        self.length: int | None = None

    def line(self, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            return
        if stripped.startswith(";"):
            if "nackgammon" in stripped.lower():
                self.options["rules"] = "nackgammon"
            return
        header = _HEADER.match(line)
        if header:
            self._start(int(header.group(1)))
            return
        if self.length is None:
            raise ValueError(f"a .mat file starts with 'N point match', not {stripped[:40]!r}")
        if _GAME.match(line):
            return
        names = _NAMES.match(line)
        if names and not _NUMBERED.match(line):
            self._names(names)
            return
        body = _NUMBERED.sub(lambda m: " " * len(m.group(0)), line, count=1)
        entries = list(_ENTRY.finditer(body))
        if not entries or _ENTRY.sub("", body).strip():
            raise ValueError(f"cannot read {stripped[:60]!r}")
        for entry in entries:
            self._entry(entry, 1 if entry.start() >= RIGHT_COLUMN else 0)

    def _start(self, length: int) -> None:
        if length < 1:
            raise ValueError("money sessions (0 point match) cannot be read yet")
        self.length = length
        self.options["length"] = length
        state = VARIANT.new_game(self.options)
        assert isinstance(state, BackgammonState)
        self.state = state

    def _names(self, found: re.Match[str]) -> None:
        names = (found.group(1), found.group(3))
        if self.names is None:
            self.names = names
        elif names != self.names:
            raise ValueError(f"the players {names} are not the match's {self.names}")
        state = self._current()
        score = (int(found.group(2)), int(found.group(4)))
        if score != state.score:
            raise ValueError(
                f"the score {score[0]}-{score[1]} is not the {state.score[0]}-{state.score[1]} played"
            )

    def _current(self) -> BackgammonState:
        if self.state is None:
            raise ValueError("a game before the 'N point match' line")
        return self.state

    def _do(self, notation: str) -> None:
        state = self._current()
        after = state.apply(VARIANT.parse_action(state, notation))
        assert isinstance(after, BackgammonState)
        self.log.append(notation)
        self.state = after

    def _entry(self, entry: re.Match[str], column: int) -> None:
        state = self._current()
        if entry.group("wins"):
            self._wins(int(entry.group("wins")), column)
        elif state.result is not None:
            raise ValueError("the match is over: nothing can follow")
        elif entry.group("dice"):
            self._roll(int(entry.group("dice")), int(entry.group("dice2")), entry.group("play"), column)
        elif entry.group("cube"):
            if state.phase is not Phase.DECIDE:
                raise ValueError("a double where no double can be made")
            self._do("double")
        elif entry.group("take") or entry.group("pass"):
            self._do("take" if entry.group("take") else "pass")

    def _roll(self, high: int, low: int, play: str, column: int) -> None:
        state = self._current()
        if state.phase is Phase.OPENING:
            if high == low:
                raise ValueError("an opening roll cannot be a double")
            dice = (max(high, low), min(high, low))
            self._do(f"opening {dice[0]}-{dice[1]}" if column == 0 else f"opening {dice[1]}-{dice[0]}")
        else:
            if state.phase is Phase.DECIDE:
                self._do("roll")
            self._do(f"roll {high}-{low}")
        state = self._current()
        if state.phase is not Phase.PLAY:
            if play.strip():
                raise ValueError(f"{high}{low} cannot be played here, yet the file plays {play.strip()!r}")
            return
        assert state.dice is not None
        chosen = parse_play(play, state.board, state.dice[0], state.dice[1], state.rules)
        self._do(play_text(chosen))

    def _wins(self, points: int, column: int) -> None:
        state = self._current()
        if state.result is not None or (state.phase is Phase.OPENING and self.log):
            return  # the game ended on the board (borne off, or passed): the line only says so
        level = points // state.cube
        if level * state.cube != points or not 1 <= level <= 3:
            raise ValueError(f"'Wins {points}' is no resignation with the cube at {state.cube}")
        if state.to_move() != 1 - column:
            raise ValueError("a game given up out of turn cannot be replayed")
        self._do(f"resign {('single', 'gammon', 'backgammon')[level - 1]}")
        self._do("accept")
