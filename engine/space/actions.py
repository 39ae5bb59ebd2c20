"""The actions of ``space`` and their canonical notation (read back by ``parse_action``).

Notation (units ``E1``..``E15`` / ``T1``..``T15``, cards by key such as ``nova-bomb``, dice by value):

- chance: ``shuffle 3,0,1,...`` (the new deck order), ``roll 3-5`` / ``roll 3-5-2`` / ``roll 4``
- ``roll`` (ask for the dice), ``pass`` (end a phase, or let a response window go by)
- ``discard ion-thrusters``, ``build T7``, ``move T3 by 5``, ``keep T1 T4``
- ``play <card>`` plus what the card names: ``play hyper-jump``, ``play ion-thrusters on 3``,
  ``play strategic-move from 8 by 5``, ``play space-combat-tactics T3 by 5``,
  ``play defend-the-homeworld T3``, ``play jam-transmission E4``, ``play reinforcements T9``,
  ``play major-offensive discard nova-bomb plasteel-armor``
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from engine.errors import NotationError
from engine.protocol import Action, WordAction
from engine.space.board import SECTORS, parse_unit, unit_label
from engine.space.cards import BY_KEY, CARDS, Card, Target


@dataclass(frozen=True, slots=True)
class Shuffle(Action):
    """Chance: the order of the new deck, as positions in the sorted cards being shuffled."""

    order: tuple[int, ...]

    @property
    def notation(self) -> str:
        return "shuffle " + ",".join(str(i) for i in self.order)


@dataclass(frozen=True, slots=True)
class Dice(Action):
    """Chance: the values of one, two or three dice."""

    values: tuple[int, ...]

    @property
    def notation(self) -> str:
        return "roll " + "-".join(str(v) for v in self.values)


@dataclass(frozen=True, slots=True)
class RollDice(WordAction):
    """The player on turn asks for the roll (after any Hyper Jump)."""

    word: ClassVar[str] = "roll"


@dataclass(frozen=True, slots=True)
class Pass(WordAction):
    """End the current phase (own turn) or let a response window go by."""

    word: ClassVar[str] = "pass"


@dataclass(frozen=True, slots=True)
class Discard(Action):
    kind: int

    @property
    def notation(self) -> str:
        return f"discard {CARDS[self.kind].key}"


@dataclass(frozen=True, slots=True)
class Build(Action):
    """Put a destroyed unit back on the homeworld (doubles)."""

    unit: int

    @property
    def notation(self) -> str:
        return f"build {unit_label(self.unit)}"


@dataclass(frozen=True, slots=True)
class Move(Action):
    """One unit moves forwards by one die."""

    unit: int
    die: int

    @property
    def notation(self) -> str:
        return f"move {unit_label(self.unit)} by {self.die}"


@dataclass(frozen=True, slots=True)
class Keep(Action):
    """The winner of a fight keeps these units; the others there are destroyed."""

    units: tuple[int, ...]

    @property
    def notation(self) -> str:
        return "keep " + " ".join(unit_label(u) for u in self.units)


@dataclass(frozen=True, slots=True)
class Play(Action):
    """Play a card, with what it names (see the module docstring)."""

    kind: int
    unit: int | None = None
    sector: int | None = None
    die: int | None = None
    discards: tuple[int, ...] = ()

    @property
    def card(self) -> Card:
        return CARDS[self.kind]

    @property
    def notation(self) -> str:
        card = self.card
        parts = ["play", card.key]
        t = card.target
        if t in (Target.OWN_UNIT, Target.ENEMY_UNIT, Target.SCRAPPED_UNIT, Target.UNIT_DIE):
            assert self.unit is not None
            parts.append(unit_label(self.unit))
        if t is Target.SECTOR_DIE:
            parts.append(f"from {self.sector}")
        if t is Target.DIE:
            parts.append(f"on {self.die}")
        if t in (Target.UNIT_DIE, Target.SECTOR_DIE):
            parts.append(f"by {self.die}")
        if t is Target.TWO_CARDS:
            parts.append("discard " + " ".join(CARDS[k].key for k in self.discards))
        return " ".join(parts)


_HELP = (
    "examples: 'roll', 'pass', 'move T3 by 5', 'build T7', 'keep T1 T4', 'discard nova-bomb', "
    "'play ion-thrusters on 3', 'play strategic-move from 8 by 5'"
)


def _unit(text: str) -> int:
    unit = parse_unit(text)
    if unit is None:
        raise NotationError(f"{text!r} is not a unit: units are E1 to E15 and T1 to T15")
    return unit


def _card(text: str) -> Card:
    card = BY_KEY.get(text)
    if card is None:
        raise NotationError(f"there is no card {text!r} (cards are written like 'nova-bomb')")
    return card


def _die(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 99:
        raise NotationError(f"{text!r} is not a die value")
    return int(text)


_DICE = re.compile(r"^roll ([1-6](?:-[1-6]){0,2})$")
_SHUFFLE = re.compile(r"^shuffle (\d+(?:,\d+)*)$")


def parse(text: str) -> Action:
    """Read an action's notation (not yet checked against a position); ``NotationError`` if unreadable."""
    cleaned = " ".join(text.strip().lower().split())
    words = cleaned.split(" ")
    if cleaned == "roll":
        return RollDice()
    if cleaned == "pass":
        return Pass()
    if m := _DICE.match(cleaned):
        return Dice(tuple(int(v) for v in m[1].split("-")))
    if m := _SHUFFLE.match(cleaned):
        return Shuffle(tuple(int(v) for v in m[1].split(",")))
    if words[0] == "discard" and len(words) == 2:
        return Discard(_card(words[1]).kind)
    if words[0] == "build" and len(words) == 2:
        return Build(_unit(words[1]))
    if words[0] == "move" and len(words) == 4 and words[2] == "by":
        return Move(_unit(words[1]), _die(words[3]))
    if words[0] == "keep" and len(words) >= 2:
        units = tuple(sorted(_unit(w) for w in words[1:]))
        if len(set(units)) != len(units):
            raise NotationError("name each unit to keep once")
        return Keep(units)
    if words[0] == "play" and len(words) >= 2:
        return _parse_play(_card(words[1]), words[2:])
    raise NotationError(f"cannot read {text!r} as a space action ({_HELP})")


def _parse_play(card: Card, rest: list[str]) -> Play:
    t = card.target
    usage = Play(card.kind, 0, 1, 1, (0, 0)).notation.replace(" E1", " <unit>")
    bad = NotationError(f"write this card as {usage!r} (with your own unit, sector, die or cards)")
    if t is Target.NONE:
        if rest:
            raise bad
        return Play(card.kind)
    if t is Target.DIE:
        if len(rest) != 2 or rest[0] != "on":
            raise bad
        return Play(card.kind, die=_die(rest[1]))
    if t in (Target.OWN_UNIT, Target.ENEMY_UNIT, Target.SCRAPPED_UNIT):
        if len(rest) != 1:
            raise bad
        return Play(card.kind, unit=_unit(rest[0]))
    if t is Target.UNIT_DIE:
        if len(rest) != 3 or rest[1] != "by":
            raise bad
        return Play(card.kind, unit=_unit(rest[0]), die=_die(rest[2]))
    if t is Target.SECTOR_DIE:
        if len(rest) != 4 or rest[0] != "from" or rest[2] != "by" or not rest[1].isdigit():
            raise bad
        sector = int(rest[1])
        if not 1 <= sector <= SECTORS:
            raise NotationError(f"there is no sector {sector}: sectors are numbered 1 to {SECTORS}")
        return Play(card.kind, sector=sector, die=_die(rest[3]))
    if len(rest) != 3 or rest[0] != "discard":
        raise bad
    discards = tuple(sorted(_card(w).kind for w in rest[1:]))
    return Play(card.kind, discards=discards)
