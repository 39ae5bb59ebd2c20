"""Pig: a tiny dice game, the game ``tests/test_new_game_recipe.py`` adds by the recipe alone.

On a turn the player rolls a die as often as they like. Each roll adds its value to the turn's total,
except a 1, which loses that total and ends the turn. Holding adds the turn's total to the player's
score and ends the turn. Whoever reaches 30 (score and turn's total together) wins at once. A turn
starts with a roll: holding nothing is not a move. Pink starts.

No secrets, so the state is its own view. The die is a chance step nobody is asked to trigger (its
``prompt_seat`` is ``None``), and a turn's first roll is the only legal action: the platform plays
both by itself, so a player's first click of a turn is Roll again or Hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from engine.errors import CorruptStateError, IllegalActionError, NotationError
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    EndReason,
    GameState,
    GameView,
    JSONDict,
    Outcome,
    Variant,
    WordAction,
)

GOAL = 30
NAMES = ("Pink", "Teal")


class PigWin(EndReason):
    GOAL = "goal"


@dataclass(frozen=True, slots=True)
class Roll(WordAction):
    word: ClassVar[str] = "roll"


@dataclass(frozen=True, slots=True)
class Hold(WordAction):
    word: ClassVar[str] = "hold"


@dataclass(frozen=True, slots=True)
class Die(Action):
    value: int

    @property
    def notation(self) -> str:
        return f"die {self.value}"


@dataclass(frozen=True, slots=True)
class PigState(GameState, GameView):
    scores: tuple[int, int] = (0, 0)
    seat: int = 0
    total: int = 0
    """The turn's total so far."""
    rolling: bool = False
    """A roll asked for, the die not cast yet."""
    die: int | None = None
    rolled: bool = False
    """Whether the last action was the die, whose line then replaces the roll's (``last_continues``)."""
    turn_number: int = 1
    last: str | None = None
    result: Outcome | None = None

    variant_key: ClassVar[str] = "pig"

    @property
    def turn(self) -> int | None:
        return self.seat

    def to_move(self) -> int:
        return CHANCE if self.rolling else self.seat

    def chance(self) -> ChanceSpec | None:
        return ChanceSpec(ChanceKind.DICE, 1, 6) if self.rolling and self.result is None else None

    def chance_action(self, outcome: Sequence[int]) -> Action:
        return Die(ChanceSpec(ChanceKind.DICE, 1, 6).check(outcome)[0])

    def legal_actions(self) -> tuple[Action, ...]:
        if self.result is not None or self.rolling:
            return ()
        return (Roll(),) if self.total == 0 else (Roll(), Hold())

    def outcome(self) -> Outcome | None:
        return self.result

    def apply(self, action: Action) -> PigState:
        name = NAMES[self.seat]
        if isinstance(action, Die):
            if not self.rolling or not 1 <= action.value <= 6:
                raise IllegalActionError(f"{action.notation} is not allowed now")
            if action.value == 1:
                text = f"{name} rolled 1 and loses {self.total}."
                return self._next_turn(replace(self, rolling=False, die=1, rolled=True, last=text))
            total = self.total + action.value
            rolled = replace(self, rolling=False, die=action.value, total=total, rolled=True)
            if self.scores[self.seat] + total >= GOAL:
                return rolled._won(f"{name} rolled {action.value}: {self.scores[self.seat] + total}.")
            return replace(rolled, last=f"{name} rolled {action.value}: {total} this turn.")
        if action not in self.legal_actions():
            raise IllegalActionError(f"{action.notation} is not allowed now")
        if isinstance(action, Roll):
            return replace(self, rolling=True, rolled=False, last=f"{name} rolls.")
        scores = list(self.scores)
        scores[self.seat] += self.total
        held = replace(
            self, scores=(scores[0], scores[1]), rolled=False, last=f"{name} holds: {scores[self.seat]}."
        )
        return self._next_turn(held)

    def _next_turn(self, state: PigState) -> PigState:
        return replace(state, seat=1 - state.seat, total=0, turn_number=state.turn_number + 1)

    def _won(self, text: str) -> PigState:
        score = self.scores[self.seat] + self.total
        description = f"{NAMES[self.seat]} wins: {score} points first."
        return replace(
            self, last=text, result=Outcome(winner=self.seat, reason=PigWin.GOAL, description=description)
        )

    def to_json(self) -> JSONDict:
        return {
            "schema": 1,
            "game": "pig",
            "scores": list(self.scores),
            "seat": self.seat,
            "total": self.total,
            "rolling": self.rolling,
            "die": self.die,
            "rolled": self.rolled,
            "turn_number": self.turn_number,
            "last": self.last,
            "result": None if self.result is None else self.result.to_json(),
        }

    def describe(self, action: Action) -> str:
        return f"{NAMES[self.seat]}: {action.notation}"

    @property
    def last_text(self) -> str | None:
        return self.last

    @property
    def last_continues(self) -> bool:
        return self.rolled

    @property
    def phase_text(self) -> str:
        if self.result is not None:
            return self.result.description
        name = NAMES[self.seat]
        return f"{name} to roll" if self.total == 0 else f"{name} to roll or hold: {self.total} this turn"


class PigVariant(Variant):
    key: ClassVar[str] = "pig"
    title: ClassVar[str] = "Pig"
    seat_names: ClassVar[tuple[str, str]] = NAMES
    schema_version: ClassVar[int] = 1
    win_reasons: ClassVar[type[EndReason]] = PigWin

    def new_game(self, options: Mapping[str, Any] | None = None) -> PigState:
        self.resolve_options(options)
        return PigState()

    def from_json(self, data: Mapping[str, Any]) -> PigState:
        try:
            return PigState(
                scores=(int(data["scores"][0]), int(data["scores"][1])),
                seat=int(data["seat"]),
                total=int(data["total"]),
                rolling=bool(data["rolling"]),
                die=None if data["die"] is None else int(data["die"]),
                rolled=bool(data["rolled"]),
                turn_number=int(data["turn_number"]),
                last=data["last"],
                result=None if data["result"] is None else Outcome.from_json(data["result"], self),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CorruptStateError(f"not a pig state: {exc}") from exc

    def parse_action(self, state: GameState, text: str) -> Action:
        words = text.strip().lower().split()
        if words == ["roll"]:
            return Roll()
        if words == ["hold"]:
            return Hold()
        if len(words) == 2 and words[0] == "die" and words[1].isdigit():
            return Die(int(words[1]))
        raise NotationError(f"cannot read {text!r}: write roll or hold")


VARIANT = PigVariant()
