"""A ``.mat`` match file played elsewhere, read and replayed under our rules into a match of ours: its
options and its action log (the counterpart of ``matexport``), so that it can be analysed like our
own matches.

The files read are the Jellyfish text format as GNU Backgammon exports it (``export match mat``), as
eXtreme Gammon exports it (the same body after comment lines such as ``; [Site "eXtreme Gammon"]``),
and as Jellyfish writes it (see ``matfile`` for the layout)::

     7 point match

     Game 1
     Alice : 0                      Bob : 0
      1)                             31: 8/5 6/5
      2) 64: 24/18 18/14             52: 13/8 13/11*
      3)  Doubles => 2                Takes

Each numbered line holds one turn of each player, the first listed player on the left; a line's
first entry is in the right column when it starts far from the line number (a game that the second
player starts). A play is read as the steps it names (``from/to``, ``25`` or ``bar`` for the bar,
``0`` or ``off`` for off, ``*`` for a hit, ``(n)`` for n checkers, ``13/7*/4`` for one checker
moving on) and replayed as the legal play that reaches the same position; ``????`` or nothing is a
roll that cannot be played. ``Doubles => n``, ``Takes`` (``Take``, ``Accepts``), ``Drops`` (``Drop``,
``Pass``, ``Passes``, ``Rejects``); ``Wins n point(s)`` in the winner's column ends a game, and when
the game is not over on the board it is the other player resigning (which our rules allow on that
player's turn, before rolling or moving).

Anything our rules do not allow (a play, a double, a beaver, a score that does not add up, a money
session, a variation other than backgammon and nackgammon) is a ``MatImportError`` naming the line.
A file that is not a ``.mat`` file is told for what it is: a picture or an archive by its kind, other
binary files as binary (never their bytes), a text file by the start of its first line, quoted shortly.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.backgammon import cube
from engine.backgammon.actions import (
    COLOURS,
    AcceptResignation,
    Checkers,
    Double,
    OfferResignation,
    Opening,
    Pass,
    Phase,
    Roll,
    RollOn,
    Take,
)
from engine.backgammon.board import BAR, POINTS, Board, RuleSet
from engine.backgammon.game import BackgammonState
from engine.errors import GameError, NotationError
from engine.protocol import Action

MAX_BYTES = 1_000_000
"""The largest file read (a long match's file is some tens of kilobytes)."""
RIGHT_COLUMN = 20
"""A numbered line's first entry starting at or after this column is in the right column."""

_HEADER = re.compile(r"^\s*(\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\b", re.IGNORECASE)
_NAMES = re.compile(r"^\s*(.+?)\s*:\s*(\d+)\s+(.+?)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^(\s*\d+\))(.*)$")
_ENTRY = re.compile(
    r"(?<![\w/])(?:[1-6]{2}:|Doubles\b|Takes?\b|Accepts?\b|Drops?\b|Pass(?:es)?\b|Rejects?\b|Wins\b|Beavers?\b|Raccoons?\b)",
    re.IGNORECASE,
)
_VARIATION = re.compile(r'^\s*;\s*\[\s*Variation\s+"([^"]*)"\s*\]', re.IGNORECASE)
_STEP = re.compile(r"^(bar|\d+)((?:/(?:\d+|off)\*?)+)(?:\((\d)\))?$", re.IGNORECASE)
_NO_PLAY = ("", "????", "cannot move", "can't move", "no move", "no legal moves")
_KINDS = (
    (b"\x89PNG\r\n\x1a\n", "a PNG picture"),
    (b"\xff\xd8\xff", "a JPEG picture"),
    (b"GIF87a", "a GIF picture"),
    (b"GIF89a", "a GIF picture"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"\x1f\x8b", "a gzip archive"),
)
"""What a file that is no text is, by how it starts (to say so rather than show its bytes)."""
_NOT_TEXT = re.compile(rb"[\x00-\x08\x0e-\x19\x1c-\x1f\x7f]")
"""Bytes no text file holds (tabs, line ends, form feeds, DOS's end of file and escapes aside)."""
QUOTED = 40
"""Characters of a line quoted in a refusal."""


class MatImportError(NotationError):
    """A ``.mat`` file that cannot be read or replayed under our rules; ``line`` is where (0: the
    file as a whole), and the message says the line and why."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"Line {line}: {reason}" if line else reason)
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class ImportedMatch:
    """A match read from a file: its players' names as the file gives them (first listed = seat 0),
    the options and action log of the same match played here."""

    names: tuple[str, str]
    options: dict[str, Any]
    log: tuple[str, ...]
    games: int


def read_mat(data: bytes | str) -> ImportedMatch:
    """The match of a ``.mat`` file; ``MatImportError`` (with the line) when it cannot be read."""
    if isinstance(data, bytes):
        if len(data) > MAX_BYTES:
            raise MatImportError(0, f"The file is {len(data):,} bytes; at most {MAX_BYTES:,} are read.")
        kind = _binary_kind(data)
        if kind is not None:
            raise MatImportError(0, f"This is not a .mat file: it is {kind}, not text.")
        text = data.decode("utf-8", errors="replace")
    else:
        text = data
    return _Reader(text).read()


def _binary_kind(data: bytes) -> str | None:
    """What the file is when it is no text (None: text)."""
    for start, kind in _KINDS:
        if data.startswith(start):
            return kind
    return "binary" if _NOT_TEXT.search(data) else None


def _quoted(line: str) -> str:
    """The line, shortly: its first ``QUOTED`` characters, and "…" when there are more."""
    text = line.strip()
    return text if len(text) <= QUOTED else text[:QUOTED] + "\u2026"


class _Reader:
    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.log: list[str] = []
        self.state: BackgammonState | None = None
        self.names: tuple[str, str] | None = None
        self.games = 0
        self.game_open = False
        #: the next line gives the players and the score of the game just begun
        self.names_due = False
        self.game_start = 1
        self.score_at_start = (0, 0)
        #: the match was resigned: nothing may follow
        self.over = False
        #: a roll written with no play where a play exists: only a resignation may follow (what our
        #: own export writes for a player who rolled and then resigned)
        self.unplayed: str | None = None

    def read(self) -> ImportedMatch:
        rules = RuleSet.STANDARD
        length: int | None = None
        numbered = iter(enumerate(self.lines, start=1))
        for lineno, line in numbered:
            variation = _VARIATION.match(line)
            if variation:
                rules = _rules_of(variation[1], lineno)
                continue
            if not line.strip() or line.lstrip().startswith(";"):
                continue
            header = _HEADER.match(line)
            if header is None:
                raise MatImportError(
                    lineno,
                    f'This is not a .mat file: it starts with "{_quoted(line)}"; a .mat file starts '
                    'with a line such as " 7 point match".',
                )
            length = int(header[1])
            if length == 0:
                raise MatImportError(lineno, "This is a money session; only matches are read.")
            if length > cube.MAX_LENGTH:
                raise MatImportError(
                    lineno, f"A {length}-point match is longer than ours (1 to {cube.MAX_LENGTH})."
                )
            break
        if length is None:
            raise MatImportError(0, 'This is not a .mat file: it has no " N point match" line.')
        self.state = BackgammonState.new(rules, length)
        for lineno, line in numbered:
            self._line(lineno, line)
        if self.games == 0:
            raise MatImportError(0, "The file holds no game.")
        assert self.names is not None
        return ImportedMatch(
            names=self.names,
            options={"length": length, "rules": rules.value},
            log=tuple(self.log),
            games=self.games,
        )

    # -- lines ----------------------------------------------------------------------------------

    def _line(self, lineno: int, line: str) -> None:
        if not line.strip() or line.lstrip().startswith(";"):
            return
        game = _GAME.match(line)
        if game:
            self._new_game(lineno, int(game[1]))
            return
        if self.game_open and self.names_due:
            self._names(lineno, line)
            return
        if not self.game_open:
            raise MatImportError(
                lineno, f'"{line.strip()[:40]}" is not part of a game (a "Game N" line comes first).'
            )
        match = _NUMBERED.match(line)
        offset = len(match[1]) if match else 0
        rest = match[2] if match else line
        starts = [m.start() for m in _ENTRY.finditer(rest)]
        if not starts:
            if match and not rest.strip():
                return
            raise MatImportError(lineno, f'"{line.strip()[:40]}" is not a roll, a cube action or a result.')
        if rest[: starts[0]].strip():
            raise MatImportError(
                lineno, f'"{rest[: starts[0]].strip()[:40]}" is not a roll, a cube action or a result.'
            )
        right = offset + starts[0] >= RIGHT_COLUMN
        if len(starts) > 2 or (right and len(starts) > 1):
            raise MatImportError(lineno, "A line holds at most one entry for each player.")
        for index, (start, end) in enumerate(zip(starts, [*starts[1:], len(rest)], strict=True)):
            seat = 1 if right or index == 1 else 0
            self._entry(lineno, seat, rest[start:end].strip())

    def _new_game(self, lineno: int, number: int) -> None:
        state = self._state()
        if self.over:
            raise MatImportError(lineno, "The match was already won before this game.")
        if self.game_open and not self._game_over():
            raise MatImportError(lineno, f"Game {self.games} has no result before Game {number} starts.")
        if state.result is not None:
            raise MatImportError(lineno, "The match was already won before this game.")
        if number != self.games + 1:
            raise MatImportError(lineno, f"Game {number} comes after game {self.games}.")
        self.games = number
        self.game_open = True
        self.names_due = True
        self.game_start = state.game_number
        self.score_at_start = state.score

    def _names(self, lineno: int, line: str) -> None:
        found = _NAMES.match(line)
        if found is None:
            raise MatImportError(lineno, 'The players and the score ("Name : 0    Name : 0") are missing.')
        names = (found[1].strip(), found[3].strip())
        score = (int(found[2]), int(found[4]))
        if self.names is None:
            self.names = names
        elif names != self.names:
            raise MatImportError(
                lineno, f"The players are {self.names[0]} and {self.names[1]}, not {names[0]} and {names[1]}."
            )
        state = self._state()
        if score != state.score:
            raise MatImportError(
                lineno,
                f"The score {score[0]}-{score[1]} does not add up: the games before give {state.score[0]}-{state.score[1]}.",
            )
        self.names_due = False

    # -- entries --------------------------------------------------------------------------------

    def _entry(self, lineno: int, seat: int, text: str) -> None:
        if self.over:
            raise MatImportError(lineno, f'"{text}" comes after the end of the match.')
        if self._game_over() and not text.lower().startswith("wins"):
            raise MatImportError(lineno, f'"{text}" comes after the end of the game.')
        if self.unplayed is not None and not text.lower().startswith("wins"):
            raise MatImportError(lineno, f"{self.unplayed}; only the other player's win may follow.")
        word = text.split()[0].lower()
        if word[:2].isdigit():
            self._roll(lineno, seat, (int(text[0]), int(text[1])), text[3:].strip())
        elif word.startswith("doubles"):
            self._double(lineno, seat)
        elif word.startswith(("take", "accept")):
            self._answer(lineno, seat, Take())
        elif word.startswith(("drop", "pass", "reject")):
            self._answer(lineno, seat, Pass())
        elif word.startswith("wins"):
            self._wins(lineno, seat, text)
        else:
            raise MatImportError(lineno, "A beaver: our rules have no beavers.")

    def _roll(self, lineno: int, seat: int, dice: tuple[int, int], play: str) -> None:
        state = self._state()
        who = self._who(seat)
        if state.phase is Phase.OPENING:
            if dice[0] == dice[1]:
                raise MatImportError(
                    lineno, f"An opening roll of {dice[0]}-{dice[1]}: the opening roll is never a double."
                )
            high, low = max(dice), min(dice)
            self._apply(lineno, Opening(high, low) if seat == 0 else Opening(low, high))
        else:
            if state.turn_seat != seat or state.phase not in (Phase.DECIDE, Phase.ROLL):
                raise MatImportError(
                    lineno, f"{who} rolls {dice[0]}{dice[1]}, but it is not {who}'s turn to roll."
                )
            if state.phase is Phase.DECIDE:
                self._apply(lineno, RollOn())
            self._apply(lineno, Roll(*dice))
        state = self._state()
        if state.phase is not Phase.PLAY or state.turn_seat != seat:
            if play.lower().rstrip(".") not in _NO_PLAY:
                raise MatImportError(
                    lineno, f"{who} cannot move with {dice[0]}-{dice[1]} here, but the file plays {play}."
                )
            return
        if not play:
            self.unplayed = f"{who} rolled {dice[0]}-{dice[1]} and did not play"
            return
        target = _target(state.board, play, lineno)
        for legal in state.plays():
            if legal.result == target:
                self._apply(lineno, Checkers(legal.moves, legal.result))
                return
        raise MatImportError(
            lineno, f"{play or 'no play'} is not a legal play of {dice[0]}-{dice[1]} for {who} here."
        )

    def _double(self, lineno: int, seat: int) -> None:
        state = self._state()
        if state.phase is not Phase.DECIDE or state.turn_seat != seat:
            reason = state.why_not_double(seat)
            raise MatImportError(
                lineno, f"{self._who(seat)} doubles, but {reason or 'it is not their turn to double'}."
            )
        self._apply(lineno, Double())

    def _answer(self, lineno: int, seat: int, action: Take | Pass) -> None:
        state = self._state()
        if state.phase is not Phase.TAKE or state.to_move() != seat:
            raise MatImportError(lineno, f"{self._who(seat)} answers a double that was not offered.")
        self._apply(lineno, action)

    def _wins(self, lineno: int, seat: int, text: str) -> None:
        found = re.match(r"Wins\s+(\d+)\s+points?", text, re.IGNORECASE)
        if found is None:
            raise MatImportError(lineno, f'"{text}" does not say how many points were won.')
        points = int(found[1])
        state = self._state()
        self.unplayed = None
        if not self._game_over():
            # Not over on the board: the other player resigned.
            loser = 1 - seat
            level, extra = divmod(points, state.cube)
            offer = OfferResignation(level) if not extra and 1 <= level <= 3 else None
            if offer is None or state.turn_seat != loser or offer not in state.resign_offers():
                if state.score[seat] + points >= state.length:
                    # The match ends here, off the board, as a match resigned here ends: the log stops.
                    self.game_open = False
                    self.over = True
                    return
                raise MatImportError(
                    lineno,
                    f"{self._who(loser)} resigns here, which our rules allow only on their own turn, "
                    "before rolling or moving, in a match longer than one point.",
                )
            self._apply(lineno, offer)
            self._apply(lineno, AcceptResignation())
            state = self._state()
        won = self._won_points(seat)
        if won != points:
            raise MatImportError(
                lineno, f"{self._who(seat)} wins {points} points here, but the game gives {won}."
            )
        self.game_open = False

    # -- the match replayed ---------------------------------------------------------------------

    def _state(self) -> BackgammonState:
        assert self.state is not None
        return self.state

    def _apply(self, lineno: int, action: Action) -> None:
        try:
            after = self._state().apply(action)
        except GameError as error:
            raise MatImportError(lineno, f"{str(error)[:1].upper()}{str(error)[1:]}.") from error
        assert isinstance(after, BackgammonState)
        self.state = after
        self.log.append(action.notation)

    def _game_over(self) -> bool:
        state = self._state()
        return state.result is not None or state.game_number != self.game_start

    def _won_points(self, seat: int) -> int:
        state = self._state()
        if state.result is not None and state.result.winner == seat:
            return state.result.points
        return state.score[seat] - self.score_at_start[seat]

    def _who(self, seat: int) -> str:
        return self.names[seat] if self.names else COLOURS[seat]


def _rules_of(variation: str, lineno: int) -> RuleSet:
    name = variation.strip().lower()
    if name in ("backgammon", ""):
        return RuleSet.STANDARD
    if name == "nackgammon":
        return RuleSet.NACKGAMMON
    raise MatImportError(
        lineno, f"The variation {variation!r} is not played here (backgammon and nackgammon are)."
    )


def _steps(play: str, lineno: int) -> Iterator[tuple[int, int]]:
    """Each one-checker step ``(from, to)`` a play names, in order (25 the bar, 0 off)."""
    for token in play.replace(",", " ").split():
        found = _STEP.match(token)
        if found is None:
            raise MatImportError(lineno, f"{token!r} is not a checker move (from/to, such as 24/18 or 8/5*).")
        points = [found[1], *(p.rstrip("*") for p in found[2].strip("/").split("/"))]
        numbers = [25 if p.lower() == "bar" else 0 if p.lower() == "off" else int(p) for p in points]
        if any(not 0 <= n <= 25 for n in numbers):
            raise MatImportError(lineno, f"{token!r} names a point that does not exist (0 to 25).")
        for _ in range(int(found[3] or 1)):
            yield from itertools.pairwise(numbers)


def _target(board: Board, play: str, lineno: int) -> Board:
    """The position the steps of ``play`` reach from ``board`` (mover ``board[1]``), hits included;
    whether the play is legal is for the caller to check."""
    opp, me = list(board[0]), list(board[1])
    for src, dst in _steps(play, lineno):
        if src <= dst:
            raise MatImportError(lineno, f"{src}/{dst} moves a checker backwards.")
        index = BAR if src == 25 else src - 1
        if me[index] == 0:
            raise MatImportError(
                lineno,
                f"{src}/{dst}: there is no checker of the player on {'the bar' if src == 25 else f'point {src}'}.",
            )
        me[index] -= 1
        if dst == 0:
            continue
        me[dst - 1] += 1
        theirs = POINTS - dst  # the same point in the opponent's numbering, as an index
        if opp[theirs] == 1:
            opp[theirs] = 0
            opp[BAR] += 1
        elif opp[theirs] > 1:
            raise MatImportError(lineno, f"{src}/{dst}: point {dst} is held by the opponent.")
    return (tuple(opp), tuple(me))
