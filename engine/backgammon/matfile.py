"""Jellyfish ``.mat`` match files: the text format GNU Backgammon and eXtreme Gammon import ("import mat").

The writer works from a neutral record (``MatMatch``: games of seat actions in order), so it knows nothing
of how our matches are stored. The layout follows what GNU Backgammon's own exporter writes (``export.c``,
``ExportMatchMat``/``ExportGameJF``) and what its importer reads (``import.c``, ``ImportMatVariation``/
``ImportGame``/``ParseMatMove``)::

     3 point match

     Game 1
     Alice : 0                      Bob : 0
      1)                             31: 8/5 6/5
      2) 64: 24/18 18/14             52: 13/8 13/11*
      3) 43: 25/21 24/21              Doubles => 2
      4)  Takes                      66: 24/18 24/18 13/7 13/7
      5)  Doubles => 4                Drops
          Wins 2 points

- the header `` N point match`` (``0`` for money), a blank line, then per game `` Game k``, the names and
  scores (``" %-31s%s : %d"`` of ``"name : score"``), numbered lines ``"%3d) %-27s "`` with the first listed
  player (seat 0) in the left column and seat 1 from column 33; a game that seat 1 starts begins with an
  empty left column;
- a roll is its two dice, higher first, and ``:`` (``52:``), then each checker step of one die as
  ``from/to`` in the mover's numbering, ``25`` for the bar and ``0`` for off, ``*`` after a hit, in an
  order that can be played (``25/20* 13/7``, ``6/0 6/0``); doubles are written as four steps, never
  ``(2)``, and a checker moving on is written step by step (``13/7* 7/4``), as GNU Backgammon writes them;
  a roll that cannot be played is the dice alone (``66:``);
- `` Doubles => 4`` (the new cube value), `` Takes``, `` Drops``; in money play `` Beavers => 8`` (the
  doubled player takes and redoubles, keeping the cube), which GNU Backgammon's importer reads as a
  take and a redouble that the doubler's next roll takes; a game that ends before that roll (a
  resignation) writes the doubler's `` Takes`` after it, or the importer scores it at the cube before;
- `` Wins N point(s)`` in the winner's column (seat 1's on the line of seat 0's last entry when its right
  column is free, as after a pass by seat 0; otherwise on an unnumbered line of its own),
  with `` and the match`` when it ends the match (Jellyfish writes it; the importer reads only the number),
  then a blank line. The format has no resignation lines: an accepted resignation is the ``Wins`` line alone
  (GNU Backgammon's importer reads a ``Wins`` while the game is still on as the other side resigning, the
  level from the points and the cube), and offers that were declined are not written;
- line ends are ``\\n`` (the importer takes ``\\r\\n`` too); nackgammon adds the comment line
  ``; [Variation "NackGammon"]`` that GNU Backgammon writes and reads.

Importers assume the Crawford rule in match play (the file has no way to say otherwise), and GNU Backgammon
imports a money session (`` 0 point match``) with the Jacoby rule on.

``mat_text`` replays every game with our move generator, so each play is written as the steps of the legal
play the notation names, and a record that does not make a valid match raises ``MatRecordError``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.backgammon.board import Board, RuleSet, Side, borne_off, starting_board
from engine.backgammon.notation import parse_play
from engine.backgammon.plays import Play
from engine.errors import GameError

KINDS = ("roll", "rolled", "double", "take", "beaver", "pass", "resign", "accept", "decline", "win")
MAX_LENGTH = 25


@dataclass(frozen=True)
class MatAction:
    """One action of a game: ``seat`` 0 is the first listed player (left column), 1 the other.

    ``kind``: ``roll`` (``dice`` and ``play`` in our notation, ``""`` or ``"no play"`` when it cannot move),
    ``rolled`` (``dice`` left unplayed: the game was resigned after the roll, written as GNU Backgammon
    writes it, the dice alone), ``double``, ``take``, ``beaver`` (money play), ``pass``, ``resign`` (an
    offer of ``points``), ``accept``, ``decline``,
    ``win`` (the game won, ``points``).
    """

    seat: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    points: int = 0


@dataclass(frozen=True)
class MatGame:
    """One game: the score of seats 0 and 1 before it, and its actions in order (the opening roll is the
    first ``roll`` of the seat that starts, with both opening dice)."""

    score: tuple[int, int]
    actions: tuple[MatAction, ...]


@dataclass(frozen=True)
class MatMatch:
    """A match to ``length`` points (0 for money play) between ``names[0]`` (seat 0) and ``names[1]``.

    ``rules``: standard or nackgammon (the file says so in a comment line); Old English cannot be written.
    """

    length: int
    names: tuple[str, str]
    games: tuple[MatGame, ...]
    crawford: bool = True
    rules: RuleSet = RuleSet.STANDARD


class MatRecordError(ValueError):
    """The record cannot be written: an illegal play, an action out of turn, a score that does not add up."""


def mat_name(name: str) -> str:
    """A player name as the file can carry it: one line, no ``:`` (it ends the name for the importer) and no
    ``,`` (GridGammon files put a rating after one): both become ``.``."""
    cleaned = " ".join(name.split()).replace(":", ".").replace(",", ".")
    if not cleaned:
        raise MatRecordError("a player name is empty")
    return cleaned


def _points_text(points: int) -> str:
    return f"{points} point{'' if points == 1 else 's'}"


def _steps(play: Play) -> str:
    return " ".join(f"{m.src}/{m.dst}{'*' if m.hit else ''}" for m in play.moves)


def _game_value(loser: Side) -> int:
    """1, 2 or 3: single game, gammon or backgammon, once the winner has borne off all its checkers."""
    if borne_off(loser):
        return 1
    # The loser's checkers on the bar or in the winner's home board (the loser's points 19-24).
    return 3 if sum(loser[18:25]) else 2


@dataclass
class _Lines:
    """The game's lines: ``(number or None, left, right)``; ``None`` in a column is an empty one."""

    rows: list[tuple[int | None, str | None, str | None]] = field(default_factory=list)
    number: int = 0

    def add(self, seat: int, text: str) -> None:
        if self.rows and self.rows[-1][0] is not None and self.rows[-1][2] is None and seat == 1:
            number, left, _ = self.rows[-1]
            self.rows[-1] = (number, left, text)
            return
        self.number += 1
        self.rows.append((self.number, text, None) if seat == 0 else (self.number, None, text))

    def add_win(self, seat: int, text: str) -> None:
        if seat == 1 and self.rows and self.rows[-1][0] is not None and self.rows[-1][2] is None:
            self.add(1, text)
        else:
            self.rows.append((None, text, None) if seat == 0 else (None, None, text))

    def render(self) -> list[str]:
        out = []
        for number, left, right in self.rows:
            if number is None:
                out.append(f"     {left}" if left is not None else f"{'':33}{right}")
            elif right is None:
                out.append(f"{number:3d}) {left or '':<27} ")
            else:
                out.append(f"{number:3d}) {left or '':<27} {right}")
        return out


class _Game:
    """Replays one game of the record, checking it, and lays out its lines."""

    def __init__(self, match: MatMatch, index: int, crawford_game: bool) -> None:
        self.match = match
        self.index = index
        self.game = match.games[index]
        self.crawford_game = crawford_game
        start = starting_board(match.rules)
        self.sides: list[Side] = [start[0], start[1]]
        self.cube = 1
        self.owner: int | None = None
        self.on_roll: int | None = None
        self.offered: MatAction | None = None
        self.pending: tuple[str, int, int] | None = None
        """What must come next: (``"take-or-pass"``, doubler, _), (``"answer"``, resigner, points) or
        (``"win"``, winner, points)."""
        self.winner: tuple[int, int] | None = None
        self.beavered: int | None = None
        """The doubler whose double was beavered, until their next roll takes the redouble."""
        self.lines = _Lines()

    def fail(self, number: int, text: str) -> MatRecordError:
        return MatRecordError(f"game {self.index + 1}, action {number + 1}: {text}")

    def board(self, seat: int) -> Board:
        return (self.sides[1 - seat], self.sides[seat])

    def run(self) -> tuple[list[str], tuple[int, int] | None]:
        for number, action in enumerate(self.game.actions):
            if action.seat not in (0, 1):
                raise self.fail(number, f"seat {action.seat} is neither 0 nor 1")
            if action.kind not in KINDS:
                raise self.fail(number, f"unknown action {action.kind!r}; the actions are {', '.join(KINDS)}")
            if self.winner is not None:
                raise self.fail(number, "the game is already over")
            getattr(self, "_" + action.kind)(number, action)
        if self.pending is not None and self.pending[0] == "win":
            raise self.fail(len(self.game.actions), "the game is over but the record has no win")
        return self.lines.render(), self.winner

    def _expect(self, number: int, action: MatAction, kinds: tuple[str, ...]) -> None:
        if self.pending is None:
            if action.kind in ("take", "pass", "accept", "decline"):
                raise self.fail(number, f"{action.kind} with nothing offered")
            return
        what = self.pending[0]
        wanted = {
            "take-or-pass": ("take", "beaver", "pass"),
            "answer": ("accept", "decline"),
            "win": ("win",),
        }[what]
        if action.kind not in wanted or action.kind not in kinds:
            raise self.fail(number, f"{action.kind} where the record needs {' or '.join(wanted)}")

    def _turn(self, number: int, action: MatAction) -> None:
        if self.on_roll is not None and action.seat != self.on_roll:
            raise self.fail(number, f"seat {action.seat} acts on seat {self.on_roll}'s turn")

    def _roll(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ())
        self._turn(number, action)
        if action.dice is None or len(action.dice) != 2 or not all(1 <= d <= 6 for d in action.dice):
            raise self.fail(number, f"a roll needs two dice from 1 to 6, not {action.dice}")
        d1, d2 = action.dice
        if self.on_roll is None and d1 == d2:
            raise self.fail(number, "the opening roll cannot be a double")
        try:
            play = parse_play(action.play or "no play", self.board(action.seat), d1, d2, self.match.rules)
        except GameError as error:
            raise self.fail(number, str(error)) from None
        self.sides[action.seat], self.sides[1 - action.seat] = play.result[1], play.result[0]
        self.beavered = None
        high, low = max(d1, d2), min(d1, d2)
        self.lines.add(action.seat, f"{high}{low}: {_steps(play)}".rstrip())
        self.on_roll = 1 - action.seat
        if borne_off(self.sides[action.seat]) == 15:
            value = _game_value(self.sides[1 - action.seat])
            self.pending = ("win", action.seat, value * self.cube)

    def _rolled(self, number: int, action: MatAction) -> None:
        self._turn(number, action)
        if action.dice is None or len(action.dice) != 2 or not all(1 <= d <= 6 for d in action.dice):
            raise self.fail(number, f"a roll needs two dice from 1 to 6, not {action.dice}")
        rest = self.game.actions[number + 1 :]
        if not rest or any(later.kind not in ("resign", "accept", "decline", "win") for later in rest):
            raise self.fail(number, "dice left unplayed can only be followed by a resignation")
        self.lines.add(action.seat, f"{max(action.dice)}{min(action.dice)}:")

    def _double(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ())
        self._turn(number, action)
        if self.on_roll is None:
            raise self.fail(number, "nobody doubles before the opening roll")
        if not self.match.rules.uses_cube:
            raise self.fail(number, "this rule set has no cube")
        if self.crawford_game:
            raise self.fail(number, "no doubling in the Crawford game")
        if self.owner is not None and self.owner != action.seat:
            raise self.fail(number, f"seat {action.seat} doubles a cube it does not own")
        self.pending = ("take-or-pass", action.seat, 0)
        self.lines.add(action.seat, f" Doubles => {self.cube * 2}")

    def _take(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ("take",))
        assert self.pending is not None
        if action.seat == self.pending[1]:
            raise self.fail(number, "a player cannot take their own double")
        self.pending = None
        self.cube *= 2
        self.owner = action.seat
        self.lines.add(action.seat, " Takes")

    def _beaver(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ("beaver",))
        assert self.pending is not None
        if self.match.length != 0:
            raise self.fail(number, "a beaver is a rule of money play, not of a match")
        if action.seat == self.pending[1]:
            raise self.fail(number, "a player cannot beaver their own double")
        self.beavered = self.pending[1]
        self.pending = None
        self.cube *= 4
        self.owner = action.seat
        self.lines.add(action.seat, f" Beavers => {self.cube}")

    def _pass(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ("pass",))
        assert self.pending is not None
        if action.seat == self.pending[1]:
            raise self.fail(number, "a player cannot pass their own double")
        self.pending = ("win", self.pending[1], self.cube)
        self.lines.add(action.seat, " Drops")

    def _resign(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ())
        # An offer may come before the game's first roll is written (made after the opening roll,
        # before moving): the format writes only an accepted one, as its Wins line.
        if action.points not in (self.cube, 2 * self.cube, 3 * self.cube):
            raise self.fail(
                number, f"a resignation offers 1, 2 or 3 times the cube ({self.cube}), not {action.points}"
            )
        self.pending = ("answer", action.seat, action.points)

    def _accept(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ("accept",))
        assert self.pending is not None
        if action.seat == self.pending[1]:
            raise self.fail(number, "a player cannot accept their own resignation")
        self.pending = ("win", action.seat, self.pending[2])

    def _decline(self, number: int, action: MatAction) -> None:
        self._expect(number, action, ("decline",))
        assert self.pending is not None
        if action.seat == self.pending[1]:
            raise self.fail(number, "a player cannot decline their own resignation")
        self.pending = None

    def _win(self, number: int, action: MatAction) -> None:
        if self.pending is None or self.pending[0] != "win":
            raise self.fail(
                number, "a win before the game is over (a bear-off, a pass or an accepted resignation)"
            )
        _, seat, points = self.pending
        if action.seat != seat:
            raise self.fail(number, f"seat {seat} won, not seat {action.seat}")
        if action.points != points and not (self.match.length == 0 and 0 < action.points < points):
            # Money play may score less (the Jacoby rule), never more.
            raise self.fail(number, f"the game is worth {points}, not {action.points}")
        self.pending = None
        if self.beavered is not None:
            self.lines.add(self.beavered, " Takes")
        self.winner = (seat, action.points)
        score = self.game.score
        after = score[seat] + action.points
        ends = 0 < self.match.length <= after
        self.lines.add_win(seat, f" Wins {_points_text(action.points)}{' and the match' if ends else ''}")


def mat_text(match: MatMatch) -> str:
    """The match as a Jellyfish ``.mat`` file (``\\n`` line ends). ``MatRecordError`` if the record does not
    make a valid match: a play the rules do not allow, an action out of turn, scores that do not add up."""
    if not 0 <= match.length <= MAX_LENGTH:
        raise MatRecordError(f"a match is 1 to {MAX_LENGTH} points (0 for money), not {match.length}")
    if match.rules is RuleSet.OLDENGLISH:
        raise MatRecordError("the .mat format has no Old English rule set (five checkers a point, no cube)")
    names = (mat_name(match.names[0]), mat_name(match.names[1]))
    out: list[str] = []
    if match.rules is RuleSet.NACKGAMMON:
        out += ['; [Variation "NackGammon"]', ""]
    out += [f" {match.length} point match", ""]
    expected: tuple[int, int] | None = (0, 0)
    crawford_done = False
    for index, game in enumerate(match.games):
        score = game.score
        if len(score) != 2 or min(score) < 0:
            raise MatRecordError(f"game {index + 1}: a score is two counts, not {score}")
        if expected is not None and score != expected:
            raise MatRecordError(
                f"game {index + 1} starts at {score[0]}-{score[1]}, not {expected[0]}-{expected[1]}"
            )
        if match.length and max(score) >= match.length:
            raise MatRecordError(f"game {index + 1}: the match was over at {score[0]}-{score[1]}")
        crawford_game = (
            match.crawford and match.length > 0 and not crawford_done and match.length - 1 in score
        )
        crawford_done = crawford_done or (match.length > 0 and match.length - 1 in score)
        lines, winner = _Game(match, index, crawford_game).run()
        first = f"{names[0]} : {score[0]}"
        out += [f" Game {index + 1}", f" {first:<31}{' ' if len(first) >= 31 else ''}{names[1]} : {score[1]}"]
        out += lines
        out.append("")
        if winner is None:
            if index != len(match.games) - 1:
                raise MatRecordError(f"game {index + 1} has no winner but is not the last game")
            expected = None
        else:
            seat, points = winner
            expected = (score[0] + points, score[1]) if seat == 0 else (score[0], score[1] + points)
    return "\n".join(out) + "\n"
