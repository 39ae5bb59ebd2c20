"""What one seat sees of a space position (``SpaceView``): its own hand, never the opponent's or the
deck's order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from engine.protocol import (
    CHANCE,
    Action,
    GameView,
    JSONDict,
    Outcome,
)
from engine.space.actions import Build, Move, Play
from engine.space.board import DIRECTION, FORCE, SCRAP, owner, step
from engine.space.cards import card_of
from engine.space.state import FightRecord, MoveRecord, Phase, hand_limit

if TYPE_CHECKING:
    from engine.space.game import SpaceState


# ---------------------------------------------------------------------------------------------------
# What one seat sees


@dataclass(frozen=True, slots=True)
class SpaceView(GameView):
    """One seat's view of a space position: its own hand, the opponent's hand size, the deck size;
    never the opponent's cards (unless seen through Espionage this turn) nor the deck order."""

    seat: int | None
    turn_number: int
    turn_seat: int
    phase: Phase
    positions: tuple[int, ...]
    hand: tuple[str, ...]
    hand_sizes: tuple[int, int]
    deck_size: int
    vortex: tuple[str, ...]
    dice: tuple[int, ...]
    """Each die's value with the cards' additions (what moves use)."""
    dice_left: tuple[int, ...]
    jammed: tuple[int, ...]
    fight_sector: int
    attack_bonus: int
    defense_bonus: int
    extra_turns: int
    spied_hand: tuple[str, ...] | None
    deciding: int
    actions: tuple[Action, ...]
    result: Outcome | None
    last: str | None
    phase_words: str
    rolled: tuple[int, ...] = ()
    """Each die as rolled, before the cards' additions."""
    die_bonus: tuple[int, ...] = ()
    """Each die's additions by Ion Thrusters, Warp Overdrive and Maximum Burn (``dice`` = rolled + bonus)."""
    dice_used: tuple[bool, ...] = ()
    """Per die, whether it has been used in this move phase (moved by, or held by Hold Position)."""
    turn_moves: tuple[MoveRecord, ...] = ()
    """The moves since the last roll, in order (``MoveRecord``: number, unit, from, to, die, how)."""
    last_fight: FightRecord | None = None
    """The latest fight's result (sector, attacker, totals, winner, destroyed, kept), until the next roll."""
    public_last: str | None = None
    """The last action's words as everyone reads them (``last`` is this viewer's; the picture, the
    same for every viewer, writes these)."""

    variant_key: ClassVar[str] = "space"

    @classmethod
    def of(cls, state: SpaceState, viewer: int | None) -> SpaceView:
        spied = None
        if viewer is not None and state.spy is not None and state.spy[0] == viewer:
            spied = tuple(card_of(c).key for c in state.spy[1])
        return cls(
            seat=viewer,
            turn_number=state.turn_number,
            turn_seat=state.turn_seat,
            phase=state.phase,
            positions=state.positions,
            hand=tuple(card_of(c).key for c in state.hands[viewer]) if viewer is not None else (),
            hand_sizes=(len(state.hands[0]), len(state.hands[1])),
            deck_size=len(state.deck),
            vortex=tuple(card_of(c).key for c in state.vortex),
            dice=tuple(state.die_value(i) for i in range(len(state.dice))),
            dice_left=tuple(state.die_value(i) for i in state.dice_left),
            jammed=state.jammed,
            fight_sector=state.fight_sector,
            attack_bonus=state.attack_bonus,
            defense_bonus=state.defense_bonus,
            extra_turns=state.extra_turns,
            spied_hand=spied,
            deciding=state.to_move() if state.result is None else CHANCE,
            actions=state.legal_actions() if viewer is not None and state.to_move() == viewer else (),
            result=state.result,
            last=state.last.for_viewer(viewer) if state.last is not None else None,
            phase_words=state.phase_text,
            rolled=state.dice,
            die_bonus=state.bonus,
            dice_used=_dice_used(state),
            turn_moves=state.turn_moves,
            last_fight=state.last_fight,
            public_last=state.last_text,
        )

    @property
    def viewer(self) -> int | None:
        return self.seat

    def to_move(self) -> int:
        return self.deciding

    @property
    def turn(self) -> int | None:
        return self.turn_seat if self.turn_number > 0 else None

    def legal_actions(self) -> tuple[Action, ...]:
        return self.actions

    def outcome(self) -> Outcome | None:
        return self.result

    @property
    def last_text(self) -> str | None:
        return self.last

    @property
    def phase_text(self) -> str:
        return self.phase_words

    # -- what a panel may show as one choice (rules, so they are the engine's) ---------------------

    @property
    def discards_due(self) -> int:
        """How many cards the viewer must discard now to get down to their hand limit (0 when this is
        not their discard phase)."""
        if self.phase is not Phase.DISCARD or self.seat != self.deciding or self.seat is None:
            return 0
        return max(0, len(self.hand) - hand_limit(self.positions, self.seat))

    def lands_on(self, unit: int, die: int, forwards: bool = True) -> int:
        """The sector ``unit`` reaches with ``die`` in its side's direction (backwards: Space Combat
        Tactics)."""
        direction = DIRECTION[self.turn_seat] * (1 if forwards else -1)
        return step(self.positions[unit], direction * die)

    def sector_after(self, sector: int, die: int) -> int:
        """The sector a Strategic Move from ``sector`` with ``die`` reaches."""
        return step(sector, DIRECTION[self.turn_seat] * die)

    def unit_class(self, unit: int) -> tuple[object, ...]:
        """Units that cannot differ share a class: same side and force in the same sector, while none
        of them can have moved yet (no die used) or only one die is left (the moves end the same)."""
        if len(self.dice_left) == len(self.dice) or len(self.dice_left) <= 1:
            return (owner(unit), FORCE[unit], self.positions[unit])
        return (unit,)

    def choice_class(self, action: Action) -> tuple[object, ...]:
        """Actions that cannot differ here share a class (a build of one of two equal destroyed
        units, a move or a card on one of two equal units in one place): a player is offered one of
        each. Any other action is a class of its own."""
        if isinstance(action, Build):
            return ("build", FORCE[action.unit], owner(action.unit))
        if isinstance(action, Move):
            return ("move", *self.unit_class(action.unit), action.die)
        if isinstance(action, Play):
            if action.unit is None:
                return ("play", action.kind, action.sector, action.die, action.discards)
            if self.positions[action.unit] == SCRAP or self.phase is Phase.JAM:
                where = (owner(action.unit), FORCE[action.unit], self.positions[action.unit])
                return ("play", action.kind, *where, action.die)
            return ("play", action.kind, *self.unit_class(action.unit), action.die)
        return ("action", action.notation)

    def to_json(self) -> JSONDict:
        """Everything this viewer may see, as JSON."""
        return {
            "viewer": self.seat,
            "turn_number": self.turn_number,
            "turn": self.turn_seat,
            "phase": self.phase.value,
            "positions": list(self.positions),
            "hand": list(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "deck_size": self.deck_size,
            "vortex": list(self.vortex),
            "dice": list(self.dice),
            "dice_left": list(self.dice_left),
            "jammed": list(self.jammed),
            "fight_sector": self.fight_sector,
            "attack_bonus": self.attack_bonus,
            "defense_bonus": self.defense_bonus,
            "extra_turns": self.extra_turns,
            "spied_hand": list(self.spied_hand) if self.spied_hand is not None else None,
            "to_move": self.deciding,
            "actions": [a.notation for a in self.actions],
            "outcome": self.result.to_json() if self.result is not None else None,
            "last_text": self.last,
            "phase_text": self.phase_words,
            "rolled": list(self.rolled),
            "die_bonus": list(self.die_bonus),
            "dice_used": list(self.dice_used),
            "turn_moves": [m.to_json() for m in self.turn_moves],
            "last_fight": self.last_fight.to_json() if self.last_fight is not None else None,
            "public_last": self.public_last,
        }


def _dice_used(state: SpaceState) -> tuple[bool, ...]:
    """Per die, whether it is used up: in the move phase, not among the dice left."""
    if state.phase is not Phase.MOVE:
        return (False,) * len(state.dice)
    return tuple(i not in state.dice_left for i in range(len(state.dice)))
