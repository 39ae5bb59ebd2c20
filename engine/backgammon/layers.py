"""A backgammon match in three layers, as python-chess keeps a board apart from a game: the match
(rules, length, score, Crawford, its result) holds the game being played (the cube, where the game
stands, offers), which holds the position (the checkers and the turn in progress).

``BackgammonState`` (``engine.backgammon.game``) wraps a ``Match`` and reads every field through it;
``LAYER_OF`` says which layer keeps each field, so a change given by field name (``state.but(
score=...)``) rebuilds only the layers it touches."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engine.backgammon.actions import LastPlay, Phase
from engine.backgammon.board import RuleSet, Side
from engine.backgammon.turn import Stepped
from engine.protocol import Outcome


@dataclass(frozen=True, slots=True)
class Position:
    """The checkers and the turn in progress: who is on roll, the dice, the moves made so far
    (``start``: the sides when the roll was made) and the latest completed play."""

    sides: tuple[Side, Side]
    turn_seat: int | None = None
    dice: tuple[int, int] | None = None
    start: tuple[Side, Side] | None = None
    dice_left: tuple[int, ...] = ()
    played: tuple[Stepped, ...] = ()
    last_play: LastPlay | None = None


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the match: its position, the doubling cube, where the game stands (``phase``),
    a resignation offer waiting for an answer (``offer``; ``resume``: the phase after a decline)."""

    position: Position
    game_number: int = 1
    cube: int = 1
    cube_owner: int | None = None
    phase: Phase = Phase.OPENING
    offer: int = 0
    resume: Phase | None = None
    automatic_doubles: int = 0


@dataclass(frozen=True, slots=True)
class MoneyRules:
    """The rules of a money session (match length 0): ``jacoby``: gammons count only once the cube
    has been turned; ``beavers``: a doubled player may beaver; ``automatic``: at most this many
    automatic doubles per game (equal opening dice); ``limit``: the session ends once a player is
    this many points ahead (0: no limit)."""

    jacoby: bool = True
    beavers: bool = False
    automatic: int = 0
    limit: int = 0


@dataclass(frozen=True, slots=True)
class Match:
    """The match to ``length`` points under ``rules``: the score, the Crawford rule, its result, and
    the game being played. A money session is ``length`` 0 with its ``money`` rules; ``stopping``
    is the seat that asked to stop it after the game in progress."""

    game: Game
    rules: RuleSet = RuleSet.STANDARD
    length: int = 1
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    crawford_done: bool = False
    result: Outcome | None = None
    money: MoneyRules | None = None
    stopping: int | None = None


POSITION_FIELDS = ("sides", "turn_seat", "dice", "start", "dice_left", "played", "last_play")
GAME_FIELDS = ("game_number", "cube", "cube_owner", "phase", "offer", "resume", "automatic_doubles")
MATCH_FIELDS = ("rules", "length", "score", "crawford", "crawford_done", "result", "money", "stopping")
LAYER_OF = {
    **{name: "position" for name in POSITION_FIELDS},
    **{name: "game" for name in GAME_FIELDS},
    **{name: "match" for name in MATCH_FIELDS},
}


def build(fields: dict[str, Any]) -> Match:
    """A match from fields given by name (``sides`` required), the others at their defaults."""
    position = Position(**{k: fields[k] for k in POSITION_FIELDS if k in fields})
    game = Game(position, **{k: fields[k] for k in GAME_FIELDS if k in fields})
    return Match(game, **{k: fields[k] for k in MATCH_FIELDS if k in fields})


def changed(match: Match, changes: dict[str, Any]) -> Match:
    """``match`` with ``changes`` (fields by name) made in the layers that keep them."""
    by_layer: dict[str, dict[str, Any]] = {"position": {}, "game": {}, "match": {}}
    for name, value in changes.items():
        by_layer[LAYER_OF[name]][name] = value
    game = match.game
    if by_layer["position"]:
        game = replace(game, position=replace(game.position, **by_layer["position"]))
    if by_layer["game"]:
        game = replace(game, **by_layer["game"])
    if game is not match.game or by_layer["match"]:
        match = replace(match, game=game, **by_layer["match"])
    return match


class MatchFields:
    """Every field of the three layers, read by name through ``match`` (``BackgammonState``'s one
    field for them): ``state.score`` is ``state.match.score``, ``state.sides`` the position's."""

    __slots__ = ()
    match: Match

    # -- the match ------------------------------------------------------------------------------

    @property
    def rules(self) -> RuleSet:
        return self.match.rules

    @property
    def length(self) -> int:
        return self.match.length

    @property
    def score(self) -> tuple[int, int]:
        return self.match.score

    @property
    def crawford(self) -> bool:
        return self.match.crawford

    @property
    def crawford_done(self) -> bool:
        return self.match.crawford_done

    @property
    def result(self) -> Outcome | None:
        return self.match.result

    @property
    def money(self) -> MoneyRules | None:
        return self.match.money

    @property
    def stopping(self) -> int | None:
        return self.match.stopping

    # -- the game -------------------------------------------------------------------------------

    @property
    def game_number(self) -> int:
        return self.match.game.game_number

    @property
    def cube(self) -> int:
        return self.match.game.cube

    @property
    def cube_owner(self) -> int | None:
        return self.match.game.cube_owner

    @property
    def phase(self) -> Phase:
        return self.match.game.phase

    @property
    def offer(self) -> int:
        return self.match.game.offer

    @property
    def resume(self) -> Phase | None:
        return self.match.game.resume

    @property
    def automatic_doubles(self) -> int:
        return self.match.game.automatic_doubles

    # -- the position ---------------------------------------------------------------------------

    @property
    def sides(self) -> tuple[Side, Side]:
        return self.match.game.position.sides

    @property
    def turn_seat(self) -> int | None:
        return self.match.game.position.turn_seat

    @property
    def dice(self) -> tuple[int, int] | None:
        return self.match.game.position.dice

    @property
    def start(self) -> tuple[Side, Side] | None:
        return self.match.game.position.start

    @property
    def dice_left(self) -> tuple[int, ...]:
        return self.match.game.position.dice_left

    @property
    def played(self) -> tuple[Stepped, ...]:
        return self.match.game.position.played

    @property
    def last_play(self) -> LastPlay | None:
        return self.match.game.position.last_play
