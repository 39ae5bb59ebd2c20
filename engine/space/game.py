"""The state of a ``space`` game and its phases (rules: shared/seeds/002, RULINGS "space").

A turn: draw two (shuffling the vortex into a new deck when the deck runs out: a ``SHUFFLE`` chance
step), discard down to the hand limit, roll (2 dice, 3 with Hyper Jump; a ``DICE`` chance step), the
roll cards, build, move, and a fight in every contested sector in increasing number.

Response windows. Cards marked "play on opponent's turn" are played by the player not on turn in a
window the engine opens for them: Espionage after the opponent's draws and discards, Jam
Transmission just before the opponent's move phase, defense cards in every fight. A window is opened
whenever the rules allow such a card, *whether or not that player holds one*, so that its opening
tells nothing about the hand; the player answers ``play ...`` or ``pass`` (the Discord layer passes
for them after a time limit). The same holds for the player's own phases: a phase in which a card
could be played waits for the player's ``pass`` even with no such card in hand.

Hidden information: the hands and the deck order live in the state (its JSON is complete) but a
seat reads the game only through ``view(seat)``, a ``SpaceView`` with that seat's own hand, the size
of the opponent's hand and never the order of the deck. The words of the last action are per viewer
(``LastEvent.for_viewer``): "You drew Hyper Jump and Espionage" for the drawer, "Evil Empire drew 2
cards" for everyone else.

One declaration of the fields. ``Table`` declares every field of a position once, as a mutable
slotted dataclass: it is the working copy while one action is applied. ``SpaceState`` is the same
class frozen: a subclass with the same slots that refuses assignment. Applying an action copies the
state into a ``Table`` (one copy), lets the turn's flow change it, and hands it back as a
``SpaceState`` by switching its class (same memory layout), so no field is listed twice and nothing
is copied twice.

Speed (``bench/selfplay.py``): the legal actions are listed once per state and kept with it
(``SpaceState.listed``), each made once for the whole game (``legal``'s ``_MOVE_ROWS``, ``_BY_DIE``,
...), so ``apply`` recognises the very object of the list (a driver's pick) and checks anything else
in full against the list; the must-use rule is decided without a search while the units free to
move are at least as many as the dice (``must_use``); the working copy is made by one generated
function (``state.working_copy``) from the field names; what an action does and what a phase lists
are found in tables, not chains of tests (``flow.STEPS``, ``legal.LISTERS``). The lists that never
change (a window with nothing to play, ``roll``) are shared tuples, the kinds of card in a hand are
worked out once per hand (in ``legal.list_actions``), and each action kind's step takes its own kind
of action directly (``flow.STEPS``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import FrozenInstanceError
from itertools import product
from typing import TYPE_CHECKING, Any, ClassVar

from engine.errors import GameOverError, IllegalActionError, NotYourTurnError
from engine.protocol import (
    CHANCE,
    Action,
    ChanceKind,
    ChanceSpec,
    GameState,
    JSONDict,
    Outcome,
)
from engine.space import cards as C
from engine.space.actions import Dice, Keep, Pass, Shuffle
from engine.space.board import (
    initial_positions,
)
from engine.space.fights import may_keep
from engine.space.flow import STEPS
from engine.space.legal import list_actions, why_illegal
from engine.space.state import (
    CHANCE_PHASES,
    SCHEMA,
    SECRET_PHASES,
    START_HAND,
    WINDOW_PHASES,
    FightRecord,
    LastEvent,
    MoveRecord,
    Phase,
    SpaceWin,
    Table,
    field_values,
    hand_limit,
    working_copy,
)
from engine.space.texts import describe, phase_text
from engine.space.view import SpaceView

__all__ = [
    "SCHEMA",
    "SECRET_PHASES",
    "WINDOW_PHASES",
    "FightRecord",
    "LastEvent",
    "MoveRecord",
    "Phase",
    "SpaceState",
    "SpaceView",
    "SpaceWin",
    "hand_limit",
    "new_state",
]

_ROLL_SPECS = {
    hyper: ChanceSpec(ChanceKind.DICE, count=3 if hyper else 2, sides=6, label="Roll")
    for hyper in (False, True)
}
_REROLL_SPEC = ChanceSpec(ChanceKind.DICE, count=1, sides=6, label="Battle Computers")
_FIGHT_DIE_SPECS = {
    attacker: ChanceSpec(ChanceKind.DICE, count=1, sides=6, label="Surprise Attack" if attacker else "Ambush")
    for attacker in (False, True)
}
_DICE = {values: Dice(values) for n in (1, 2, 3) for values in product(range(1, 7), repeat=n)}
"""Every roll's action, made once."""


class SpaceState(Table, GameState):
    """A position of space, immutable: the fields of ``Table`` (documented there), frozen. Seat 0
    is the Evil Empire (moves first), seat 1 the Terrans."""

    __slots__ = ()

    variant_key: ClassVar[str] = "space"
    one_board_per_turn: ClassVar[bool] = True

    if not TYPE_CHECKING:

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # The dataclass's own initialiser assigns the fields: run it on the mutable class.
            object.__setattr__(self, "__class__", Table)
            Table.__init__(self, *args, **kwargs)
            object.__setattr__(self, "__class__", SpaceState)

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}: a SpaceState is immutable")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}: a SpaceState is immutable")

    def __reduce__(self) -> tuple[type[SpaceState], tuple[Any, ...]]:
        return (SpaceState, field_values(self))

    # -- protocol ---------------------------------------------------------------------------------

    @property
    def turn(self) -> int | None:
        return self.turn_seat if self.turn_number > 0 else None

    def to_move(self) -> int:
        phase = self.phase
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase in WINDOW_PHASES:
            return 1 - self.turn_seat
        if phase is Phase.KEEP:
            return self.keep_seat
        return self.turn_seat

    def chance(self) -> ChanceSpec | None:
        phase = self.phase
        if phase not in CHANCE_PHASES:
            return None
        if phase is Phase.SHUFFLE:
            return ChanceSpec(ChanceKind.SHUFFLE, count=len(self.vortex), label="Shuffle")
        if phase is Phase.DICE:
            return _ROLL_SPECS[self.hyper]
        if phase is Phase.REROLL:
            return _REROLL_SPEC
        return _FIGHT_DIE_SPECS[self.die_for == self.turn_seat]

    def chance_action(self, outcome: Sequence[int]) -> Action:
        spec = self.chance()
        if spec is None:
            raise IllegalActionError("nothing is to be rolled or shuffled now")
        values = spec.check(outcome)
        if spec.kind is ChanceKind.SHUFFLE:
            return Shuffle(values)
        return _DICE.get(values) or Dice(values)

    def secret_decision(self) -> bool:
        return self.result is None and self.phase in SECRET_PHASES

    def holds_nothing(self) -> bool:
        return self.result is None and not self.hands[self.to_move()]

    def window_pass(self) -> Action | None:
        if self.result is None and self.phase in WINDOW_PHASES:
            return Pass()
        return None

    def outcome(self) -> Outcome | None:
        return self.result

    def view(self, viewer: int | None) -> SpaceView:
        return SpaceView.of(self, viewer)

    # -- legal actions --------------------------------------------------------------------------------

    def legal_actions(self) -> tuple[Action, ...]:
        """Every action of the deciding seat; listed once per state and kept with it."""
        listed = self.listed
        if listed is not None:
            return listed
        listed = list_actions(self)
        object.__setattr__(self, "listed", listed)
        return listed

    # -- applying ----------------------------------------------------------------------------------

    def apply(self, action: Action) -> SpaceState:
        # The very object of the list already made (a driver's pick) is legal; anything else is
        # checked in full (an action read from its notation, a chance outcome, a stale action).
        for candidate in self.listed or ():
            if candidate is action:
                break
        else:
            self._check(action)
        step = STEPS.get(type(action))
        if step is None:
            raise IllegalActionError(f"{action} is not an action of space")
        table = working_copy(self)
        step(table, action)
        # Freeze the working copy: the same slots, now the immutable class.
        object.__setattr__(table, "__class__", SpaceState)
        return table  # type: ignore[return-value]

    def _check(self, action: Action) -> None:
        """Raise a ``GameError`` if ``action`` may not be played now."""
        if self.result is not None:
            raise GameOverError("the game is over: no more actions can be played")
        if self.phase in CHANCE_PHASES:
            if type(action) is not Shuffle and type(action) is not Dice:
                raise NotYourTurnError(f"the next step is chance: {self.phase_text}")
            if not self._fits_chance(action):
                values = action.order if isinstance(action, Shuffle) else action.values
                if self.chance_action(values) != action:
                    raise IllegalActionError(f"{action.notation} does not fit this chance step")
        elif type(action) is Keep and self.phase is Phase.KEEP:
            # Any equivalent choice is accepted, not only the one listed per kind of unit.
            units = self.units_at(self.fight_sector, self.keep_seat)
            if not may_keep(units, action.units, self.keep_difference):
                raise IllegalActionError(
                    f"keep one unit, or units of total force {self.keep_difference} or less, "
                    f"from your units in sector {self.fight_sector}"
                )
        elif action not in self.legal_actions():
            raise IllegalActionError(why_illegal(self, action))

    def _fits_chance(self, action: Action) -> bool:
        """The dice of a roll checked directly (the common chance step); anything else is left to
        ``chance_action``'s full check."""
        if type(action) is not Dice or self.phase is Phase.SHUFFLE:
            return False
        values = action.values
        count = (3 if self.hyper else 2) if self.phase is Phase.DICE else 1
        return len(values) == count and all(1 <= v <= 6 for v in values)

    # -- JSON ----------------------------------------------------------------------------------------

    def to_json(self) -> JSONDict:
        return {
            "schema": SCHEMA,
            "game": self.variant_key,
            "positions": list(self.positions),
            "deck": list(self.deck),
            "hands": [list(h) for h in self.hands],
            "vortex": list(self.vortex),
            "phase": self.phase.value,
            "turn": self.turn_seat,
            "turn_number": self.turn_number,
            "to_draw": list(self.to_draw),
            "dice": list(self.dice),
            "bonus": list(self.bonus),
            "dice_left": list(self.dice_left),
            "hyper": self.hyper,
            "builds": self.builds,
            "reroll": self.reroll,
            "moved": [[u, n, s] for u, n, s in self.moved],
            "jammed": list(self.jammed),
            "fight_sector": self.fight_sector,
            "attack_bonus": self.attack_bonus,
            "defense_bonus": self.defense_bonus,
            "die_for": self.die_for,
            "keep_seat": self.keep_seat,
            "keep_difference": self.keep_difference,
            "extra_turns": self.extra_turns,
            "spy": [self.spy[0], list(self.spy[1])] if self.spy is not None else None,
            "turn_moves": [m.to_json() for m in self.turn_moves],
            "last_fight": self.last_fight.to_json() if self.last_fight is not None else None,
            "last": self.last.to_json() if self.last is not None else None,
            "outcome": self.result.to_json() if self.result is not None else None,
        }

    # -- words ---------------------------------------------------------------------------------------

    def describe(self, action: Action) -> str:
        return describe(self, action)

    @property
    def last_text(self) -> str | None:
        return self.last.text if self.last is not None else None

    @property
    def phase_text(self) -> str:
        return phase_text(self)


def new_state() -> SpaceState:
    """A new game: all units on their homeworlds, the 50 cards waiting to be shuffled and dealt."""
    return SpaceState(
        positions=initial_positions(),
        deck=(),
        hands=((), ()),
        vortex=tuple(range(C.DECK_SIZE)),
        phase=Phase.SHUFFLE,
        turn_seat=0,
        to_draw=(START_HAND, START_HAND),
    )
