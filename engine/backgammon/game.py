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

A money session (``length`` 0, ``money``: its ``MoneyRules``) plays games until a player stops it
(``StopAfterGame``, either seat at any time, no move of a game: left out of ``legal_actions`` too)
or one is ``limit`` points ahead; the cube has no Crawford rule, a doubled player may ``Beaver``
when the session allows it, and equal opening dice may double the cube (``automatic``).

Seats: ``sides[seat]`` holds that seat's checkers in its own numbering (a ``board.Side``); the GNUBG
board of the seat on turn is ``(sides[1 - seat], sides[seat])`` (``BackgammonState.board``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from engine.backgammon import cube, state_texts
from engine.backgammon.actions import (
    COLOURS,
    LEVEL_WORDS,
    LEVELS,
    POINTS,
    SCHEMA,
    AcceptResignation,
    BackgammonWin,
    Beaver,
    Checkers,
    DeclineResignation,
    Double,
    LastPlay,
    MoveChecker,
    OfferResignation,
    Opening,
    Pass,
    Phase,
    Roll,
    RollOn,
    StopAfterGame,
    Take,
    score,
)
from engine.backgammon.board import (
    Board,
    RuleSet,
    Side,
    check_board,
    pip_count,
    starting_board,
)
from engine.backgammon.flow import apply_action
from engine.backgammon.layers import Match, MatchFields, MoneyRules, build, changed
from engine.backgammon.plays import Move, Play
from engine.backgammon.turn import Stepped, TurnInProgress, turn_of
from engine.backgammon.words import move_label, parse_action
from engine.errors import (
    CorruptStateError,
    IllegalActionError,
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
from engine.saved import SavedReader

__all__ = [
    "COLOURS",
    "LEVELS",
    "LEVEL_WORDS",
    "POINTS",
    "SCHEMA",
    "AcceptResignation",
    "BackgammonState",
    "BackgammonWin",
    "Beaver",
    "Checkers",
    "DeclineResignation",
    "Double",
    "LastPlay",
    "MoneyRules",
    "MoveChecker",
    "OfferResignation",
    "Opening",
    "Pass",
    "Phase",
    "Roll",
    "RollOn",
    "StopAfterGame",
    "Take",
    "score",
]


@dataclass(frozen=True, slots=True, init=False)
class BackgammonState(MatchFields, GameState, GameView):
    """A position in a backgammon match: the match ∘ game ∘ position layers (``layers``; every field
    of theirs is read by name, ``state.score``, ``state.sides``), and what is said of it. No
    secrets: the state is its own view.

    ``start``, ``dice_left`` and ``played`` describe the play in progress (``PLAY``): the sides when
    the roll was made, the dice still to use and the moves made (``Stepped``, each with its die).
    ``offer`` is the resignation level waiting for an answer (``RESIGN``), ``resume`` the phase the
    game returns to if it is declined. Made from fields by name (``BackgammonState(sides=...,
    score=...)``), changed with ``but`` (or ``dataclasses.replace``) the same way.
    """

    match: Match
    turn_number: int = 0
    game_start_turn: int = 0
    """``turn_number`` when this game began (``words.move_number`` counts the game's turns from it)."""
    last: str | None = None
    continues: bool = False
    seen_by: int | None = field(default=None, compare=False)
    """The seat this state is shown to (``view``): its pictures put that seat at the bottom. Not saved."""

    def __init__(
        self,
        *,
        match: Match | None = None,
        turn_number: int = 0,
        game_start_turn: int = 0,
        last: str | None = None,
        continues: bool = False,
        seen_by: int | None = None,
        **fields: Any,
    ) -> None:
        layers = build(fields) if match is None else changed(match, fields) if fields else match
        object.__setattr__(self, "match", layers)
        object.__setattr__(self, "turn_number", turn_number)
        object.__setattr__(self, "game_start_turn", game_start_turn)
        object.__setattr__(self, "last", last)
        object.__setattr__(self, "continues", continues)
        object.__setattr__(self, "seen_by", seen_by)

    def but(self, **changes: Any) -> BackgammonState:
        """This state with ``changes`` made, fields by name, in whichever layer keeps each."""
        return BackgammonState(
            match=self.match,
            turn_number=changes.pop("turn_number", self.turn_number),
            game_start_turn=changes.pop("game_start_turn", self.game_start_turn),
            last=changes.pop("last", self.last),
            continues=changes.pop("continues", self.continues),
            seen_by=changes.pop("seen_by", self.seen_by),
            **changes,
        )

    variant_key: ClassVar[str] = "backgammon"

    @classmethod
    def new(
        cls, rules: RuleSet = RuleSet.STANDARD, length: int = 1, money: MoneyRules | None = None
    ) -> BackgammonState:
        """The match before the first opening roll; ``length`` 0 is a money session under ``money``
        (default: ``MoneyRules()``)."""
        if not 0 <= length <= cube.MAX_LENGTH:
            raise ValueError(f"a match is 1 to {cube.MAX_LENGTH} points (0: money), not {length}")
        if length == cube.MONEY:
            if not rules.uses_cube:
                raise ValueError("money play needs the doubling cube, which these rules do not have")
            money = money or MoneyRules()
        elif money is not None:
            raise ValueError("money rules are for money play (length 0)")
        return cls(sides=starting_board(rules), rules=rules, length=length, money=money)

    @property
    def is_money(self) -> bool:
        """Whether this is a money session (single games scored on their own, until a player stops)."""
        return self.money is not None

    # -- reading the position --------------------------------------------------------------------

    @property
    def board(self) -> Board:
        """The GNUBG board of the seat on turn (``board[1]``); seat 0 before the first turn."""
        seat = self.turn_seat or 0
        return (self.sides[1 - seat], self.sides[seat])

    def _board_of(self, sides: tuple[Side, Side]) -> Board:
        seat = self.turn_seat or 0
        return (sides[1 - seat], sides[seat])

    def sides_of(self, board: Board) -> tuple[Side, Side]:
        """The two sides in seat order (``sides``) of a GNUBG ``board`` of the seat on turn."""
        opp, me = board
        return (me, opp) if (self.turn_seat or 0) == 0 else (opp, me)

    def pips(self, seat: int) -> int:
        return pip_count(self.sides[seat])

    @property
    def uses_cube(self) -> bool:
        """Whether this match has a doubling cube at all (not in 1-point matches or Old English)."""
        return cube.cube_in_play(self.rules, self.length)

    def may_double(self, seat: int) -> bool:
        return not self.why_not_double(seat)

    def why_not_double(self, seat: int) -> str:
        """Why ``seat`` may not double here (the rules, the cube, the score), or "" when it may."""
        return cube.why_not_double(
            seat,
            rules=self.rules,
            length=self.length,
            score=self.score,
            value=self.cube,
            owner=self.cube_owner,
            crawford=self.crawford,
        )

    def may_beaver(self) -> bool:
        """Whether the doubled player may beaver now: money play with beavers, a double waiting."""
        money = self.money
        return (
            self.phase is Phase.TAKE
            and money is not None
            and money.beavers
            and self.cube * 4 <= cube.MAX_CUBE
        )

    def may_stop(self, seat: int) -> bool:
        """Whether ``seat`` may still ask to end this money session after the game in progress."""
        return self.money is not None and self.result is None and self.stopping is None and seat in (0, 1)

    def turn_in_progress(self) -> TurnInProgress:
        """The roll being played (``PLAY`` only): its legal plays from the position it started from."""
        assert self.start is not None and self.dice is not None
        return turn_of(self._board_of(self.start), *self.dice, self.rules)

    def steps(self) -> list[tuple[Stepped, Board]]:
        """The single moves that may come next in the play in progress (empty outside it)."""
        if self.phase is not Phase.PLAY:
            return []
        return self.turn_in_progress().steps(self.board, self.dice_left, len(self.played))

    def plays(self) -> tuple[Play, ...]:
        """The legal ways to finish the play in progress (from the turn's start: the legal plays)."""
        if self.phase is not Phase.PLAY:
            return ()
        return self.turn_in_progress().completions(self.board, self.dice_left, len(self.played))

    def resign_offers(self) -> tuple[OfferResignation, ...]:
        """The resignations the player on turn may offer now: before rolling or before moving, once
        the game has seen a play, in a match longer than one point (in a 1-point match any loss loses
        the match: resign the match)."""
        if self.length == 1 or self.last_play is None:
            return ()
        # Under the Jacoby rule, with the cube still in the middle, a gammon is worth a single game.
        money = self.money
        levels = (1,) if money is not None and money.jacoby and self.cube_owner is None else (1, 2, 3)
        # ROLL: before a roll that comes by itself (no double possible); a board never waits there,
        # but a match file read in (``matimport``) has players resigning at that point.
        if self.phase in (Phase.DECIDE, Phase.ROLL) or (self.phase is Phase.PLAY and not self.played):
            return tuple(OfferResignation(level) for level in levels)
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
    def mid_turn(self) -> bool:
        return self.phase is Phase.PLAY

    def public_view_from(self, seat: int) -> BackgammonState:
        return self.view(seat)  # backgammon has no secrets: a seat's view only turns the board

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
            return (Take(), Pass(), Beaver()) if self.may_beaver() else (Take(), Pass())
        if self.phase is Phase.RESIGN:
            return (AcceptResignation(), DeclineResignation())
        if self.phase is not Phase.PLAY:
            return ()
        turn = self.turn_in_progress()
        if len(turn.finishes(self.board, self.dice_left, len(self.played))) == 1:
            finishes = self.plays()
            return (Checkers(finishes[0].moves, finishes[0].result),)
        return tuple(MoveChecker(s.move.src, s.move.dst, s.die, s.move.hit) for s, _ in self.steps())

    def outcome(self) -> Outcome | None:
        return self.result

    def apply(self, action: Action) -> BackgammonState:
        after = apply_action(self, action)
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

    def roll_on(self) -> Action | None:
        return RollOn() if self.phase is Phase.DECIDE else None

    # -- the opening and the roll ----------------------------------------------------------------

    # -- the play --------------------------------------------------------------------------------

    # -- the cube --------------------------------------------------------------------------------

    # -- resignation offers ----------------------------------------------------------------------

    # -- the end of a game -----------------------------------------------------------------------

    # -- words -----------------------------------------------------------------------------------

    def parse(self, text: str) -> Action:
        """The action ``text`` describes here (``words.parse_action``)."""
        return parse_action(self, text)

    @property
    def dice_text(self) -> str:
        return f"{max(self.dice)}-{min(self.dice)}" if self.dice else "no dice"

    def describe(self, action: Action) -> str:
        return state_texts.describe(action)

    @property
    def last_text(self) -> str | None:
        return self.last

    def away(self, seat: int) -> int:
        """How many points ``seat`` still needs to win the match ("3-away", as players say it)."""
        return self.length - self.score[seat]

    @property
    def turn_label(self) -> str:
        """ "Game 2, move 7" (``words.move_label``): the turn as players count it, as the .mat file does."""
        return move_label(self).capitalize()

    @property
    def score_text(self) -> str:
        """The match score as players say it, and the cube (``state_texts.score_text``)."""
        return state_texts.score_text(self)

    @property
    def phase_text(self) -> str:
        return state_texts.phase_text(self)

    # -- saving ----------------------------------------------------------------------------------

    def to_json(self) -> JSONDict:
        return saved_form(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> BackgammonState:
        """Read back ``to_json``; anything impossible raises ``CorruptStateError``."""
        return SAVED.read(lambda saved: _read_state(cls, saved), data)


def saved_form(state: BackgammonState) -> JSONDict:
    """The saved form of ``state`` (schema ``SCHEMA``), read back by ``BackgammonState.from_json``."""
    return {
        "schema": SCHEMA,
        "game": state.variant_key,
        "rules": state.rules.value,
        "length": state.length,
        "score": list(state.score),
        "cube": state.cube,
        "cube_owner": state.cube_owner,
        "crawford": state.crawford,
        "crawford_done": state.crawford_done,
        "game_number": state.game_number,
        "sides": [list(s) for s in state.sides],
        "phase": state.phase.value,
        "turn_seat": state.turn_seat,
        "dice": list(state.dice) if state.dice else None,
        "start": [list(s) for s in state.start] if state.start else None,
        "dice_left": list(state.dice_left),
        "played": [[s.move.src, s.move.dst, int(s.move.hit), s.die] for s in state.played],
        "offer": state.offer,
        "resume": state.resume.value if state.resume else None,
        "last_play": None
        if state.last_play is None
        else {
            "seat": state.last_play.seat,
            "dice": list(state.last_play.dice),
            "moves": [[m.src, m.dst, int(m.hit)] for m in state.last_play.moves],
        },
        "turn_number": state.turn_number,
        "game_start_turn": state.game_start_turn,
        "last": state.last,
        "continues": state.continues,
        "result": state.result.to_json() if state.result else None,
    } | _money_form(state)


def _money_form(state: BackgammonState) -> JSONDict:
    """A money session's own fields; none in a match, whose saved form stays as it always was."""
    money = state.money
    if money is None:
        return {}
    return {
        "money": {
            "jacoby": money.jacoby,
            "beavers": money.beavers,
            "automatic": money.automatic,
            "limit": money.limit,
            "stopping": state.stopping,
            "automatic_doubles": state.automatic_doubles,
        }
    }


def _read_money(raw: Any) -> tuple[MoneyRules | None, int | None, int]:
    """The money rules, the seat that asked to stop and the automatic doubles of the game, as
    ``_money_form`` saved them (none of them in a match saved before money play existed)."""
    if raw is None:
        return None, None, 0
    rules = MoneyRules(
        jacoby=bool(raw["jacoby"]),
        beavers=bool(raw["beavers"]),
        automatic=int(raw["automatic"]),
        limit=int(raw["limit"]),
    )
    doubles = int(raw["automatic_doubles"])
    if not 0 <= rules.automatic <= cube.MAX_AUTOMATIC or not 0 <= rules.limit <= cube.MAX_LIMIT:
        raise CorruptStateError("the money session's rules are impossible")
    if not 0 <= doubles <= rules.automatic:
        raise CorruptStateError("more automatic doubles than the session allows")
    return rules, SAVED.seat(raw["stopping"], "the player who stopped the session"), doubles


def _sides(raw: Any) -> tuple[Side, Side]:
    sides = (tuple(int(n) for n in raw[0]), tuple(int(n) for n in raw[1]))
    if len(raw) != 2:
        raise CorruptStateError("a board has two sides")
    try:
        check_board((sides[0], sides[1]))
    except ValueError as err:
        raise CorruptStateError(f"impossible board: {err}") from None
    return sides


SAVED = SavedReader("the saved backgammon match")
ADDED_FIELDS = frozenset({"game_start_turn"})
"""Saved fields newer than the schema: a saved match without them reads them as their defaults."""
_WIN_KEYS = frozenset(win.value for win in BackgammonWin)
"""The saved keys of ``BackgammonWin``; any other reason of a saved result is a ``Forfeit``."""


def _read_state(cls: type[BackgammonState], data: Mapping[str, Any]) -> BackgammonState:
    if data["schema"] != SCHEMA or data["game"] != cls.variant_key:
        raise CorruptStateError("this is not a saved backgammon match of a known schema")
    rules = RuleSet(data["rules"])
    length = int(data["length"])
    score_t = (int(data["score"][0]), int(data["score"][1]))
    value = int(data["cube"])
    owner = SAVED.seat(data["cube_owner"], "the cube's owner")
    phase = Phase(data["phase"])
    seat = SAVED.seat(data["turn_seat"], "the seat on turn")
    money, stopping, automatic_doubles = _read_money(data.get("money"))
    _check_match(rules, length, score_t, money, value, owner)
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
    last_play = None if data["last_play"] is None else _read_last_play(data["last_play"])
    result = None if data["result"] is None else _read_result(data["result"])
    if (result is None) == (phase is Phase.OVER):
        raise CorruptStateError("the result does not fit the phase")
    if not 0 <= int(data.get("game_start_turn", 0)) <= int(data["turn_number"]):
        raise CorruptStateError("the game began after the turn under way")
    if result is None and money is None and max(score_t) >= length:
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
        # Saved before issue 24: exact in a match's first game; a later game under way then counts
        # its moves from the match's first turn until it ends.
        game_start_turn=int(data.get("game_start_turn", 0)),
        last=None if data["last"] is None else str(data["last"]),
        continues=bool(data["continues"]),
        result=result,
        money=money,
        stopping=stopping,
        automatic_doubles=automatic_doubles,
    )
    _check_turn(state)
    return state


def _check_match(
    rules: RuleSet,
    length: int,
    score: tuple[int, int],
    money: MoneyRules | None,
    value: int,
    owner: int | None,
) -> None:
    """The match length and score, the cube's value and whether the match has a cube at all."""
    if not 0 <= length <= cube.MAX_LENGTH or min(score) < 0 or (length == cube.MONEY) != (money is not None):
        raise CorruptStateError("the match length or score is impossible")
    if value < 1 or value & (value - 1) or value > cube.MAX_CUBE:
        raise CorruptStateError(f"{value} is not a cube value")
    if (value > 1 or owner is not None) and not cube.cube_in_play(rules, length):
        raise CorruptStateError("this match has no doubling cube")


def _read_last_play(raw: Any) -> LastPlay:
    return LastPlay(
        SAVED.seat(raw["seat"], "the last player") or 0,
        (int(raw["dice"][0]), int(raw["dice"][1])),
        tuple(Move(int(s), int(d), bool(h)) for s, d, h in raw["moves"]),
    )


def _read_result(raw: Any) -> Outcome:
    """A saved result: its reason one of ``BackgammonWin`` or else a ``Forfeit``."""
    key = str(raw["reason"])
    reason: EndReason = BackgammonWin(key) if key in _WIN_KEYS else Forfeit(key)
    return Outcome(
        winner=SAVED.seat(raw["winner"], "the winner"),
        reason=reason,
        description=str(raw["description"]),
        points=int(raw["points"]),
        length=int(raw["length"]),
    )


def _check_turn(state: BackgammonState) -> None:
    """The play in progress leads to a legal play (only a play has one), and a player asked to roll
    or double may double."""
    if state.phase is Phase.PLAY:
        if state.start is None:
            raise CorruptStateError("a play in progress needs the position it started from")
        turn = state.turn_in_progress()
        if not turn.finishes(state.board, state.dice_left, len(state.played)) and not state.is_terminal():
            raise CorruptStateError("the moves made so far lead to no legal play of the dice")
    elif state.start is not None or state.played or state.dice_left:
        raise CorruptStateError("only a play in progress has moves made so far")
    seat = state.turn_seat
    if state.phase is Phase.DECIDE and seat is not None and not state.may_double(seat):
        raise CorruptStateError("the player on turn may not double here")
