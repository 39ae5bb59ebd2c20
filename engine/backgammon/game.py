"""A backgammon match to N points as one ``GameState``: games, the doubling cube, the Crawford rule.

RULINGS, backgammon 2-7. A match to ``length`` points is a series of games; each game starts with
the opening roll (one die each, ties roll again, the higher die plays both dice). A turn is:

- ``DECIDE``: when the player may double (``cube.may_double``), roll or double; otherwise the roll
  happens by itself (``ROLL``, a chance step nobody is asked for);
- ``TAKE``: after a double the opponent takes (the cube doubles and is theirs) or passes (the game is
  lost at the cube's value before the double);
- ``PLAY``: the roll is played one checker at a time (``MoveChecker``, only moves that stay inside
  some legal play, see ``turn``) or as a whole (``Checkers``, what a player types); a roll that
  cannot be played passes the turn at once, and a single legal play is the only action offered.

A game ends when a side bears off its 15th checker (1, 2 or 3 points times the cube, see
``score``), on a pass, or when a resignation offer is accepted: the player on turn offers to give up
a single game, a gammon or a backgammon (``OfferResignation``) and the opponent accepts or declines.
An offer ends a game by agreement, so it is no move of the game: ``resign_offers`` lists those
open now, and ``legal_actions`` leaves them out (a forced play stays forced, a random player never
offers). The next game starts by itself until a side has ``length`` points.

Seats: ``sides[seat]`` holds that seat's checkers in its own numbering (a ``board.Side``); the GNUBG
board of the seat on turn is ``(sides[1 - seat], sides[seat])`` (``BackgammonState.board``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, ClassVar

from engine.backgammon import cube
from engine.backgammon.board import (
    BAR_POINT,
    CHECKERS,
    OFF_POINT,
    Board,
    RuleSet,
    Side,
    borne_off,
    check_board,
    pip_count,
    starting_board,
)
from engine.backgammon.notation import NO_PLAY, parse_among, play_text
from engine.backgammon.plays import Move, Play
from engine.backgammon.turn import Stepped, TurnInProgress, roll_dice, turn_of, without
from engine.errors import (
    CorruptStateError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    EndReason,
    Forfeit,
    GameState,
    GameView,
    JSONDict,
    Outcome,
)

SCHEMA = 2
COLOURS = ("White", "Black")


class Phase(Enum):
    OPENING = "opening"
    DECIDE = "decide"
    ROLL = "roll"
    PLAY = "play"
    TAKE = "take"
    RESIGN = "resign"
    OVER = "over"


class BackgammonWin(EndReason):
    """How the last game of a match was won: by the points it scored, or by a passed double."""

    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    PASSED = "passed"


LEVELS = (BackgammonWin.SINGLE, BackgammonWin.GAMMON, BackgammonWin.BACKGAMMON)
"""A game's result by the points it is worth before the cube: ``LEVELS[points - 1]``."""
LEVEL_WORDS = {
    BackgammonWin.SINGLE: "a single game",
    BackgammonWin.GAMMON: "a gammon",
    BackgammonWin.BACKGAMMON: "a backgammon",
}


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


# --- actions ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Opening(Action):
    """Chance: one die for each seat (seat 0's first); a tie is rolled again."""

    die0: int
    die1: int

    @property
    def notation(self) -> str:
        return f"opening {self.die0}-{self.die1}"


@dataclass(frozen=True, slots=True)
class Roll(Action):
    """Chance: the two dice of a turn."""

    d1: int
    d2: int

    @property
    def notation(self) -> str:
        return f"roll {self.d1}-{self.d2}"


@dataclass(frozen=True, slots=True)
class RollOn(Action):
    """The player on turn rolls instead of doubling."""

    @property
    def notation(self) -> str:
        return "roll"


@dataclass(frozen=True, slots=True)
class Double(Action):
    """The player on turn offers the cube at twice its value, before rolling."""

    @property
    def notation(self) -> str:
        return "double"


@dataclass(frozen=True, slots=True)
class Take(Action):
    """The doubled player takes: the game goes on at twice the value, and the cube is theirs."""

    @property
    def notation(self) -> str:
        return "take"


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """The doubled player passes: the game is lost at the cube's value before the double."""

    @property
    def notation(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class OfferResignation(Action):
    """The player on turn offers to lose the game as a single game (1), a gammon (2) or a backgammon (3)."""

    level: int

    @property
    def notation(self) -> str:
        return f"resign {LEVELS[self.level - 1].value}"


@dataclass(frozen=True, slots=True)
class AcceptResignation(Action):
    @property
    def notation(self) -> str:
        return "accept"


@dataclass(frozen=True, slots=True)
class DeclineResignation(Action):
    @property
    def notation(self) -> str:
        return "decline"


def _path(move: Move) -> str:
    point = {BAR_POINT: "bar", OFF_POINT: "off"}
    src = point.get(move.src, str(move.src))
    dst = point.get(move.dst, str(move.dst))
    return f"{src}/{dst}{'*' if move.hit else ''}"


@dataclass(frozen=True, slots=True)
class MoveChecker(Action):
    """One checker moved by one die, a step of the play in progress (``move 24/18``, ``move bar/22*``;
    a bear-off by a higher die names it: ``move 3/off with 6``)."""

    src: int
    dst: int
    die: int
    hit: bool = False

    @property
    def move(self) -> Move:
        return Move(self.src, self.dst, self.hit)

    @property
    def notation(self) -> str:
        pips = self.src - self.dst
        return f"move {_path(self.move)}" + (f" with {self.die}" if pips != self.die else "")


@dataclass(frozen=True, slots=True)
class Checkers(Action):
    """The rest of the play (from the start of the turn: all of it), in standard notation."""

    moves: tuple[Move, ...]
    result: Board

    @property
    def notation(self) -> str:
        return play_text(Play(self.moves, self.result))


def score(winner: Side, loser: Side) -> BackgammonWin:
    """Single, gammon or backgammon, from the two sides once the winner has borne off all 15."""
    if borne_off(loser) > 0:
        return BackgammonWin.SINGLE
    # The winner's home board is the loser's points 19-24 (indices 18-23); index 24 is the bar.
    if sum(loser[18:25]) > 0:
        return BackgammonWin.BACKGAMMON
    return BackgammonWin.GAMMON


POINTS = {BackgammonWin.SINGLE: 1, BackgammonWin.GAMMON: 2, BackgammonWin.BACKGAMMON: 3}


@dataclass(frozen=True, slots=True)
class LastPlay:
    """The latest completed play: who, the dice, and the moves (in the mover's numbering)."""

    seat: int
    dice: tuple[int, int]
    moves: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class BackgammonState(GameState, GameView):
    """A position in a backgammon match. No secrets: the state is its own view.

    ``start``, ``dice_left`` and ``played`` describe the play in progress (``PLAY``): the sides when
    the roll was made, the dice still to use and the moves made (``Stepped``, each with its die).
    ``offer`` is the resignation level waiting for an answer (``RESIGN``), ``resume`` the phase the
    game returns to if it is declined.
    """

    sides: tuple[Side, Side]
    rules: RuleSet = RuleSet.STANDARD
    length: int = 1
    score: tuple[int, int] = (0, 0)
    cube: int = 1
    cube_owner: int | None = None
    crawford: bool = False
    crawford_done: bool = False
    game_number: int = 1
    phase: Phase = Phase.OPENING
    turn_seat: int | None = None
    dice: tuple[int, int] | None = None
    start: tuple[Side, Side] | None = None
    dice_left: tuple[int, ...] = ()
    played: tuple[Stepped, ...] = ()
    offer: int = 0
    resume: Phase | None = None
    last_play: LastPlay | None = None
    turn_number: int = 0
    last: str | None = None
    continues: bool = False
    result: Outcome | None = None
    seen_by: int | None = field(default=None, compare=False)
    """The seat this state is shown to (``view``): its pictures put that seat at the bottom. Not saved."""

    variant_key: ClassVar[str] = "backgammon"

    @classmethod
    def new(cls, rules: RuleSet = RuleSet.STANDARD, length: int = 1) -> BackgammonState:
        """The match before the first opening roll."""
        if not 1 <= length <= cube.MAX_LENGTH:
            raise ValueError(f"a match is 1 to {cube.MAX_LENGTH} points, not {length}")
        return cls(sides=starting_board(rules), rules=rules, length=length)

    # -- reading the position --------------------------------------------------------------------

    @property
    def board(self) -> Board:
        """The GNUBG board of the seat on turn (``board[1]``); seat 0 before the first turn."""
        seat = self.turn_seat or 0
        return (self.sides[1 - seat], self.sides[seat])

    def _board_of(self, sides: tuple[Side, Side]) -> Board:
        seat = self.turn_seat or 0
        return (sides[1 - seat], sides[seat])

    def _sides_of(self, board: Board) -> tuple[Side, Side]:
        opp, me = board
        return (me, opp) if (self.turn_seat or 0) == 0 else (opp, me)

    def pips(self, seat: int) -> int:
        return pip_count(self.sides[seat])

    @property
    def uses_cube(self) -> bool:
        """Whether this match has a doubling cube at all (not in 1-point matches or Old English)."""
        return cube.cube_in_play(self.rules, self.length)

    def may_double(self, seat: int) -> bool:
        return cube.may_double(
            seat,
            rules=self.rules,
            length=self.length,
            score=self.score,
            value=self.cube,
            owner=self.cube_owner,
            crawford=self.crawford,
        )

    def _turn(self) -> TurnInProgress:
        assert self.start is not None and self.dice is not None
        return turn_of(self._board_of(self.start), *self.dice, self.rules)

    def steps(self) -> list[tuple[Stepped, Board]]:
        """The single moves that may come next in the play in progress (empty outside it)."""
        if self.phase is not Phase.PLAY:
            return []
        return self._turn().steps(self.board, self.dice_left, len(self.played))

    def plays(self) -> tuple[Play, ...]:
        """The legal ways to finish the play in progress (from the turn's start: the legal plays)."""
        if self.phase is not Phase.PLAY:
            return ()
        return self._turn().completions(self.board, self.dice_left, len(self.played))

    def resign_offers(self) -> tuple[OfferResignation, ...]:
        """The resignations the player on turn may offer now: before rolling or before moving, once
        the game has seen a play, in a match longer than one point (in a 1-point match any loss loses
        the match: resign the match)."""
        if self.length == 1 or self.last_play is None:
            return ()
        if self.phase is Phase.DECIDE or (self.phase is Phase.PLAY and not self.played):
            return tuple(OfferResignation(level) for level in (1, 2, 3))
        return ()

    # -- protocol --------------------------------------------------------------------------------

    @property
    def viewer(self) -> int | None:
        return self.seen_by

    def view(self, viewer: int | None) -> BackgammonState:
        """The position as ``viewer`` sees it: all of it (backgammon has no secrets), drawn from that
        seat's side of the board in its own pictures."""
        return self if viewer == self.seen_by else replace(self, seen_by=viewer)

    @property
    def last_continues(self) -> bool:
        return self.continues

    @property
    def turn(self) -> int | None:
        return self.turn_seat

    def to_move(self) -> int:
        if self.phase in (Phase.DECIDE, Phase.PLAY):
            assert self.turn_seat is not None
            return self.turn_seat
        if self.phase in (Phase.TAKE, Phase.RESIGN):
            assert self.turn_seat is not None
            return 1 - self.turn_seat
        return CHANCE

    def chance(self) -> ChanceSpec | None:
        if self.phase is Phase.OPENING:
            return ChanceSpec(ChanceKind.DICE, count=2, sides=6, prompt_seat=None, label="Roll to start")
        if self.phase is Phase.ROLL:
            return ChanceSpec(ChanceKind.DICE, count=2, sides=6, prompt_seat=None, label="Roll")
        return None

    def chance_action(self, outcome: Sequence[int]) -> Action:
        spec = self.chance()
        if spec is None:
            raise IllegalActionError("no dice are to be rolled now")
        a, b = spec.check(outcome)
        return Opening(a, b) if self.phase is Phase.OPENING else Roll(a, b)

    def legal_actions(self) -> tuple[Action, ...]:
        if self.phase is Phase.DECIDE:
            return (RollOn(), Double())
        if self.phase is Phase.TAKE:
            return (Take(), Pass())
        if self.phase is Phase.RESIGN:
            return (AcceptResignation(), DeclineResignation())
        if self.phase is not Phase.PLAY:
            return ()
        turn = self._turn()
        if len(turn.finishes(self.board, self.dice_left, len(self.played))) == 1:
            finishes = self.plays()
            return (Checkers(finishes[0].moves, finishes[0].result),)
        return tuple(MoveChecker(s.move.src, s.move.dst, s.die, s.move.hit) for s, _ in self.steps())

    def outcome(self) -> Outcome | None:
        return self.result

    def apply(self, action: Action) -> BackgammonState:
        after = self._apply(action)
        # A checker's move continues the text of the roll, or of the play so far, of this turn:
        # "White rolled 6-4" becomes "White rolled 6-4: 24/18", then "White rolled 6-4: 24/14".
        said = f"{COLOURS[self.turn_seat or 0]} rolled {self.dice_text}"
        continues = (
            isinstance(action, MoveChecker | Checkers)
            and self.last is not None
            and (self.last == said or self.last.startswith(said + ":"))
        )
        if after.continues != continues or after.seen_by is not None:
            after = replace(after, continues=continues, seen_by=None)
        return after

    def _apply(self, action: Action) -> BackgammonState:
        if self.result is not None:
            raise GameOverError("the match is over")
        if isinstance(action, Opening):
            return self._opening(action)
        if isinstance(action, Roll):
            return self._roll(action)
        if isinstance(action, MoveChecker):
            return self._move(action)
        if isinstance(action, Checkers):
            return self._checkers(action)
        if isinstance(action, RollOn | Double):
            return self._decide(action)
        if isinstance(action, Take | Pass):
            return self._answer_double(action)
        if isinstance(action, OfferResignation):
            return self._offer(action)
        if isinstance(action, AcceptResignation | DeclineResignation):
            return self._answer_offer(action)
        raise IllegalActionError(f"{action} is not a backgammon action")

    # -- the opening and the roll ----------------------------------------------------------------

    def _opening(self, action: Opening) -> BackgammonState:
        if self.phase is not Phase.OPENING:
            raise IllegalActionError("the opening roll is over")
        if action.die0 == action.die1:
            return replace(self, last=f"Both rolled {action.die0} to start: roll again")
        seat = 0 if action.die0 > action.die1 else 1
        dice = (max(action.die0, action.die1), min(action.die0, action.die1))
        game = f"Game {self.game_number}: " if self.length > 1 else ""
        opened = replace(self, turn_seat=seat, turn_number=self.turn_number + 1)
        return opened._rolled(
            dice,
            f"{game}{COLOURS[0]} rolled {action.die0}, {COLOURS[1]} {action.die1}: "
            f"{COLOURS[seat]} starts with {dice[0]}-{dice[1]}",
        )

    def _roll(self, action: Roll) -> BackgammonState:
        if self.phase is not Phase.ROLL:
            raise NotYourTurnError("the dice are not to be rolled now")
        rolled = replace(self, turn_number=self.turn_number + 1)
        high, low = max(action.d1, action.d2), min(action.d1, action.d2)
        return rolled._rolled((action.d1, action.d2), f"{COLOURS[self.turn_seat or 0]} rolled {high}-{low}")

    def _rolled(self, dice: tuple[int, int], text: str) -> BackgammonState:
        """The play phase of ``dice``; a roll that cannot be played passes the turn at once."""
        state = replace(
            self,
            phase=Phase.PLAY,
            dice=dice,
            start=self.sides,
            dice_left=roll_dice(*dice),
            played=(),
            last=text,
        )
        if state._turn().need == 0:
            seat = self.turn_seat or 0
            return state._next_turn(LastPlay(seat, dice, ()), f"{text} and cannot move")
        return state

    # -- the play --------------------------------------------------------------------------------

    def _check_play_phase(self) -> None:
        if self.phase is not Phase.PLAY:
            if self.phase is Phase.DECIDE:
                raise NotYourTurnError("roll first (or double): the dice are not rolled yet")
            raise NotYourTurnError("no checker is to be moved now")

    def _move(self, action: MoveChecker) -> BackgammonState:
        self._check_play_phase()
        turn = self._turn()
        wanted = Stepped(action.move, action.die)
        for stepped, after in turn.steps(self.board, self.dice_left, len(self.played)):
            if stepped == wanted:
                state = replace(
                    self,
                    sides=self._sides_of(after),
                    dice_left=without(self.dice_left, action.die),
                    played=(*self.played, stepped),
                )
                return state._after_moves(turn)
        raise IllegalActionError(
            f"{_path(action.move)} is not a move that leads to a legal play of {self.dice_text}"
        )

    def _checkers(self, action: Checkers) -> BackgammonState:
        self._check_play_phase()
        turn = self._turn()
        finishes = {p.result: p for p in turn.completions(self.board, self.dice_left, len(self.played))}
        if action.result not in finishes:
            raise IllegalActionError(f"{action.notation} is not a legal play of {self.dice_text} here")
        moves = finishes[action.result].moves if not action.moves else action.moves
        steps = tuple(Stepped(m, 0) for m in moves)
        state = replace(
            self, sides=self._sides_of(action.result), dice_left=(), played=(*self.played, *steps)
        )
        return state._after_moves(turn, forced=len(finishes) == 1 and not self.played)

    def _after_moves(self, turn: TurnInProgress, forced: bool = False) -> BackgammonState:
        seat = self.turn_seat or 0
        assert self.dice is not None
        moves = tuple(s.move for s in self.played)
        text = f"{COLOURS[seat]} rolled {self.dice_text}: {play_text(Play(moves, self.board))}"
        if forced:
            text += " (forced)"
        if borne_off(self.sides[seat]) == CHECKERS:
            kind = score(self.sides[seat], self.sides[1 - seat])
            done = replace(self, last_play=LastPlay(seat, self.dice, moves), last=text)
            return done._game_won(
                seat, kind, POINTS[kind] * self.cube, f"{COLOURS[seat]} wins {LEVEL_WORDS[kind]}"
            )
        if len(self.played) < turn.need:
            return replace(self, last=text)
        return self._next_turn(LastPlay(seat, self.dice, moves), text)

    def _next_turn(self, last_play: LastPlay, text: str) -> BackgammonState:
        nxt = 1 - (self.turn_seat or 0)
        state = replace(
            self,
            turn_seat=nxt,
            dice=None,
            start=None,
            dice_left=(),
            played=(),
            last_play=last_play,
            last=text,
        )
        return replace(state, phase=Phase.DECIDE if state.may_double(nxt) else Phase.ROLL)

    # -- the cube --------------------------------------------------------------------------------

    def _decide(self, action: RollOn | Double) -> BackgammonState:
        if self.phase is not Phase.DECIDE:
            if isinstance(action, Double) and self.phase in (Phase.PLAY, Phase.ROLL):
                raise IllegalActionError(self._no_double_reason())
            raise NotYourTurnError("there is no roll or double to decide now")
        seat = self.turn_seat or 0
        if isinstance(action, RollOn):
            # The dice follow at once and say it all ("White rolled 6-4"): no words of its own.
            return replace(self, phase=Phase.ROLL, last=None)
        return replace(self, phase=Phase.TAKE, last=f"{COLOURS[seat]} doubles to {self.cube * 2}")

    def _no_double_reason(self) -> str:
        seat = self.turn_seat or 0
        if self.phase is Phase.PLAY:
            return "a double comes before the roll: these dice are rolled already"
        return cube.why_not_double(
            seat,
            rules=self.rules,
            length=self.length,
            score=self.score,
            value=self.cube,
            owner=self.cube_owner,
            crawford=self.crawford,
        )

    def _answer_double(self, action: Take | Pass) -> BackgammonState:
        if self.phase is not Phase.TAKE:
            raise NotYourTurnError("no double waits for an answer")
        seat = self.turn_seat or 0
        taker = 1 - seat
        if isinstance(action, Take):
            return replace(
                self,
                phase=Phase.ROLL,
                cube=self.cube * 2,
                cube_owner=taker,
                last=f"{COLOURS[taker]} takes: the cube is at {self.cube * 2}, {COLOURS[taker]}'s",
            )
        passed = replace(self, last=f"{COLOURS[taker]} passes")
        return passed._game_won(
            seat, BackgammonWin.PASSED, self.cube, f"{COLOURS[seat]} wins: the double was passed"
        )

    # -- resignation offers ----------------------------------------------------------------------

    def _offer(self, action: OfferResignation) -> BackgammonState:
        if action not in self.resign_offers():
            if self.phase is Phase.PLAY:
                raise IllegalActionError("a resignation is offered before moving: take your moves back first")
            raise NotYourTurnError("you can offer to resign on your turn, before rolling or moving")
        seat = self.turn_seat or 0
        kind = LEVELS[action.level - 1]
        worth = action.level * self.cube
        return replace(
            self,
            phase=Phase.RESIGN,
            offer=action.level,
            resume=self.phase,
            last=f"{COLOURS[seat]} offers to resign {LEVEL_WORDS[kind]} ({_points(worth)})",
        )

    def _answer_offer(self, action: AcceptResignation | DeclineResignation) -> BackgammonState:
        if self.phase is not Phase.RESIGN or self.resume is None:
            raise NotYourTurnError("no resignation waits for an answer")
        seat = self.turn_seat or 0
        winner = 1 - seat
        if isinstance(action, DeclineResignation):
            return replace(
                self, phase=self.resume, offer=0, resume=None, last=f"{COLOURS[winner]} declines: play on"
            )
        kind = LEVELS[self.offer - 1]
        accepted = replace(self, offer=0, resume=None, last=f"{COLOURS[winner]} accepts")
        return accepted._game_won(
            winner,
            kind,
            self.offer * self.cube,
            f"{COLOURS[winner]} wins {LEVEL_WORDS[kind]}: {COLOURS[seat]} resigned",
        )

    # -- the end of a game -----------------------------------------------------------------------

    def _game_won(self, winner: int, reason: BackgammonWin, points: int, words: str) -> BackgammonState:
        """Score a finished game; start the next one, or end the match."""
        new_score = list(self.score)
        new_score[winner] += points
        scored = (new_score[0], new_score[1])
        said = f"{words}: {_points(points)}"
        if self.length > 1:
            said += f". Score: {COLOURS[0]} {scored[0]}, {COLOURS[1]} {scored[1]} (to {self.length})"
        text = f"{self.last}. {said}" if self.last else said
        if scored[winner] >= self.length:
            if self.length > 1:
                description = f"{COLOURS[winner]} wins the {self.length}-point match {scored[winner]}-{scored[1 - winner]}"
            else:
                description = f"{words} ({_points(points)})"
            outcome = Outcome(
                winner=winner, reason=reason, description=description, points=points, length=self.length
            )
            return replace(
                self,
                score=scored,
                phase=Phase.OVER,
                dice=None,
                start=None,
                dice_left=(),
                played=(),
                last=text,
                result=outcome,
            )
        crawford, done = cube.after_game(
            scored, winner, length=self.length, crawford=self.crawford, crawford_done=self.crawford_done
        )
        if crawford:
            text += ". The next game is the Crawford game: no doubling"
        return replace(
            self,
            sides=starting_board(self.rules),
            score=scored,
            cube=1,
            cube_owner=None,
            crawford=crawford,
            crawford_done=done,
            game_number=self.game_number + 1,
            phase=Phase.OPENING,
            turn_seat=None,
            dice=None,
            start=None,
            dice_left=(),
            played=(),
            last_play=None,
            last=text,
        )

    # -- words -----------------------------------------------------------------------------------

    def parse(self, text: str) -> Action:
        """The action ``text`` describes here: a keyword, ``move 24/18`` for one checker, or the rest
        of the play in standard notation (errors list the legal plays)."""
        words = " ".join(text.strip().lower().split())
        simple: dict[str, Action] = {
            "roll": RollOn(),
            "double": Double(),
            "take": Take(),
            "pass": Pass(),
            "drop": Pass(),
            "accept": AcceptResignation(),
            "decline": DeclineResignation(),
        }
        if words in simple and not (words == "pass" and self.phase is Phase.PLAY):
            return simple[words]
        if words.startswith("resign"):
            level = words.removeprefix("resign").strip() or "single"
            names = {k.value: i + 1 for i, k in enumerate(LEVELS)} | {"game": 1, "1": 1, "2": 2, "3": 3}
            if level not in names:
                raise NotationError(
                    "offer to resign a single game, a gammon or a backgammon: resign single|gammon|backgammon"
                )
            return OfferResignation(names[level])
        for prefix, kind in (("opening ", Opening), ("roll ", Roll)):
            if words.startswith(prefix):
                dice = words.removeprefix(prefix).split("-")
                if len(dice) != 2 or not all(d.isdigit() for d in dice):
                    raise NotationError(f"{text.strip()!r}: dice are written like 6-4")
                return kind(int(dice[0]), int(dice[1]))
        if self.phase is not Phase.PLAY or self.dice is None:
            if self.phase is Phase.DECIDE:
                raise NotYourTurnError("roll first (or double): the dice are not rolled yet")
            raise NotYourTurnError("no checker is to be moved now")
        if words.startswith("move "):
            return self._parse_step(words.removeprefix("move "))
        if words in (NO_PLAY, "-", ""):
            raise IllegalActionError(f"{self.dice_text} can be played, so you must play it")
        done = play_text(Play(tuple(s.move for s in self.played), self.board)) if self.played else ""
        play = parse_among(words, self.board, self.plays(), self.dice_text, already=done)
        return Checkers(play.moves, play.result)

    def _parse_step(self, text: str) -> MoveChecker:
        body, _, die_text = text.partition(" with ")
        hit = body.endswith("*")
        src_text, _, dst_text = body.rstrip("*").partition("/")
        points = {"bar": BAR_POINT, "b": BAR_POINT, "off": OFF_POINT, "o": OFF_POINT}
        try:
            src = points.get(src_text) or int(src_text)
            dst = points[dst_text] if dst_text in points else int(dst_text)
            die = int(die_text) if die_text else None
        except ValueError:
            raise NotationError(f"{text!r} is not one checker's move like 24/18, bar/22* or 6/off") from None
        candidates = [s for s, _ in self.steps() if (s.move.src, s.move.dst) == (src, dst)]
        if die is not None:
            candidates = [s for s in candidates if s.die == die]
        if not candidates:
            options = ", ".join(sorted({_path(s.move) for s, _ in self.steps()}))
            raise IllegalActionError(
                f"{body} is not a move that leads to a legal play of {self.dice_text}; moves now: {options}"
            )
        chosen = min(candidates, key=lambda s: s.die)
        del hit  # a move hits or not by the position; the mark is not needed to tell moves apart
        return MoveChecker(chosen.move.src, chosen.move.dst, chosen.die, chosen.move.hit)

    @property
    def dice_text(self) -> str:
        return f"{max(self.dice)}-{min(self.dice)}" if self.dice else "no dice"

    def describe(self, action: Action) -> str:
        if isinstance(action, MoveChecker):
            return f"move {_path(action.move)}"
        if isinstance(action, Checkers):
            return f"play {action.notation}"
        if isinstance(action, Roll):
            return f"roll {action.d1}-{action.d2}"
        if isinstance(action, Opening):
            return f"{COLOURS[0]} rolls {action.die0}, {COLOURS[1]} rolls {action.die1} to start"
        if isinstance(action, OfferResignation):
            return f"offer to resign {LEVEL_WORDS[LEVELS[action.level - 1]]}"
        if isinstance(action, RollOn):
            return ""  # the dice that follow at once say it
        return action.notation

    @property
    def last_text(self) -> str | None:
        return self.last

    @property
    def score_text(self) -> str:
        """The match score and the cube in words, empty for a 1-point match."""
        if self.length == 1:
            return ""
        parts = [f"Score {COLOURS[0]} {self.score[0]}, {COLOURS[1]} {self.score[1]} (to {self.length})"]
        if self.crawford:
            parts.append("Crawford game")
        elif self.uses_cube:
            owner = "centred" if self.cube_owner is None else f"{COLOURS[self.cube_owner]}'s"
            parts.append(f"cube {self.cube}, {owner}")
        return " · ".join(parts)

    @property
    def phase_text(self) -> str:
        if self.result is not None:
            return self.result.description
        if self.phase is Phase.OPENING:
            now = "Roll to see who starts"
        else:
            name = COLOURS[self.turn_seat or 0]
            other = COLOURS[1 - (self.turn_seat or 0)]
            if self.phase is Phase.DECIDE:
                now = f"{name} to roll or double"
            elif self.phase is Phase.ROLL:
                now = f"{name} to roll"
            elif self.phase is Phase.TAKE:
                now = f"{other} to take or pass the cube at {self.cube * 2}"
            elif self.phase is Phase.RESIGN:
                kind = LEVELS[self.offer - 1]
                now = f"{other} to accept or decline {name}'s resignation of {LEVEL_WORDS[kind]}"
            else:
                left = "-".join(str(d) for d in self.dice_left)
                now = f"{name} to play {self.dice_text}" + (f" ({left} left)" if self.played else "")
        return f"{now} · {self.score_text}" if self.score_text else now

    # -- saving ----------------------------------------------------------------------------------

    def to_json(self) -> JSONDict:
        return {
            "schema": SCHEMA,
            "game": self.variant_key,
            "rules": self.rules.value,
            "length": self.length,
            "score": list(self.score),
            "cube": self.cube,
            "cube_owner": self.cube_owner,
            "crawford": self.crawford,
            "crawford_done": self.crawford_done,
            "game_number": self.game_number,
            "sides": [list(s) for s in self.sides],
            "phase": self.phase.value,
            "turn_seat": self.turn_seat,
            "dice": list(self.dice) if self.dice else None,
            "start": [list(s) for s in self.start] if self.start else None,
            "dice_left": list(self.dice_left),
            "played": [[s.move.src, s.move.dst, int(s.move.hit), s.die] for s in self.played],
            "offer": self.offer,
            "resume": self.resume.value if self.resume else None,
            "last_play": None
            if self.last_play is None
            else {
                "seat": self.last_play.seat,
                "dice": list(self.last_play.dice),
                "moves": [[m.src, m.dst, int(m.hit)] for m in self.last_play.moves],
            },
            "turn_number": self.turn_number,
            "last": self.last,
            "continues": self.continues,
            "result": self.result.to_json() if self.result else None,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BackgammonState:
        """Read back ``to_json``; anything impossible raises ``CorruptStateError``."""
        try:
            return _read_state(cls, data)
        except CorruptStateError:
            raise
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
            raise CorruptStateError(f"the saved backgammon match cannot be read: {err}") from None


def _sides(raw: Any) -> tuple[Side, Side]:
    sides = (tuple(int(n) for n in raw[0]), tuple(int(n) for n in raw[1]))
    if len(raw) != 2:
        raise CorruptStateError("a board has two sides")
    try:
        check_board((sides[0], sides[1]))
    except ValueError as err:
        raise CorruptStateError(f"impossible board: {err}") from None
    return sides


def _seat(value: Any, what: str) -> int | None:
    if value not in (None, 0, 1) or isinstance(value, bool):
        raise CorruptStateError(f"{what} must be 0, 1 or null")
    return value  # type: ignore[no-any-return]


def _read_state(cls: type[BackgammonState], data: Mapping[str, Any]) -> BackgammonState:
    if data["schema"] != SCHEMA or data["game"] != cls.variant_key:
        raise CorruptStateError("this is not a saved backgammon match of a known schema")
    rules = RuleSet(data["rules"])
    length = int(data["length"])
    score_t = (int(data["score"][0]), int(data["score"][1]))
    value = int(data["cube"])
    owner = _seat(data["cube_owner"], "the cube's owner")
    phase = Phase(data["phase"])
    seat = _seat(data["turn_seat"], "the seat on turn")
    if not 1 <= length <= cube.MAX_LENGTH or min(score_t) < 0:
        raise CorruptStateError("the match length or score is impossible")
    if value < 1 or value & (value - 1) or value > cube.MAX_CUBE:
        raise CorruptStateError(f"{value} is not a cube value")
    if (value > 1 or owner is not None) and not cube.cube_in_play(rules, length):
        raise CorruptStateError("this match has no doubling cube")
    if (seat is None) != (phase is Phase.OPENING) and phase is not Phase.OVER:
        raise CorruptStateError("the seat on turn does not fit the phase")
    dice = data["dice"]
    dice_t = None if dice is None else (int(dice[0]), int(dice[1]))
    if (dice_t is None) == (phase is Phase.PLAY) or (dice_t and not all(1 <= d <= 6 for d in dice_t)):
        raise CorruptStateError("the dice do not fit the phase")
    start = None if data["start"] is None else _sides(data["start"])
    played = tuple(
        Stepped(Move(int(src), int(dst), bool(hit)), int(die)) for src, dst, hit, die in data["played"]
    )
    resume = None if data["resume"] is None else Phase(data["resume"])
    last_play = None
    if data["last_play"] is not None:
        lp = data["last_play"]
        last_play = LastPlay(
            _seat(lp["seat"], "the last player") or 0,
            (int(lp["dice"][0]), int(lp["dice"][1])),
            tuple(Move(int(s), int(d), bool(h)) for s, d, h in lp["moves"]),
        )
    res = data["result"]
    result = None
    if res is not None:
        key = str(res["reason"])
        reason: EndReason = BackgammonWin(key) if key in BackgammonWin._value2member_map_ else Forfeit(key)
        result = Outcome(
            winner=_seat(res["winner"], "the winner"),
            reason=reason,
            description=str(res["description"]),
            points=int(res["points"]),
            length=int(res["length"]),
        )
    if (result is None) == (phase is Phase.OVER):
        raise CorruptStateError("the result does not fit the phase")
    if result is None and max(score_t) >= length:
        raise CorruptStateError("the score has already won the match")
    if (phase is Phase.RESIGN) != (resume is not None) or (phase is Phase.RESIGN) != (
        int(data["offer"]) in (1, 2, 3)
    ):
        raise CorruptStateError("the resignation offer does not fit the phase")
    state = cls(
        sides=_sides(data["sides"]),
        rules=rules,
        length=length,
        score=score_t,
        cube=value,
        cube_owner=owner,
        crawford=bool(data["crawford"]),
        crawford_done=bool(data["crawford_done"]),
        game_number=int(data["game_number"]),
        phase=phase,
        turn_seat=seat,
        dice=dice_t,
        start=start,
        dice_left=tuple(int(d) for d in data["dice_left"]),
        played=played,
        offer=int(data["offer"]),
        resume=resume,
        last_play=last_play,
        turn_number=int(data["turn_number"]),
        last=None if data["last"] is None else str(data["last"]),
        continues=bool(data["continues"]),
        result=result,
    )
    if phase is Phase.PLAY:
        if start is None:
            raise CorruptStateError("a play in progress needs the position it started from")
        turn = state._turn()
        if not turn.finishes(state.board, state.dice_left, len(played)) and not state.is_terminal():
            raise CorruptStateError("the moves made so far lead to no legal play of the dice")
    elif start is not None or played or state.dice_left:
        raise CorruptStateError("only a play in progress has moves made so far")
    if phase is Phase.DECIDE and seat is not None and not state.may_double(seat):
        raise CorruptStateError("the player on turn may not double here")
    return state
