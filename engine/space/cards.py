"""The 25 cards of ``space``, two of each in the deck (50 cards, ids 0..49; card ``c`` is of kind
``c // 2``), with their texts, when they are played and what they need named.

Timing (RULINGS space 8 and 11): most cards are played on the owner's own turn in the phase they act
on; defense cards, Espionage and Jam Transmission are played by the player not on turn in a response
window; Major Offensive on the owner's turn in any phase.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Timing(Enum):
    BEFORE_ROLL = "before the roll (own turn)"
    AFTER_ROLL = "roll phase, after the roll (own turn)"
    BUILD = "build phase (own turn)"
    MOVE = "move phase (own turn)"
    ATTACK = "fight, as the attacker (own turn)"
    DEFENSE = "fight, as the defender (opponent's turn)"
    ESPIONAGE = "opponent's draw phase, after draws and discards (opponent's turn)"
    JAM = "just before the opponent's move phase (opponent's turn)"
    ANY_OWN = "any phase of the own turn"


class Target(Enum):
    """What a play of the card names besides the card."""

    NONE = "none"
    DIE = "die"  # "on 5": a die by its value
    UNIT_DIE = "unit-die"  # "T3 by 5"
    SECTOR_DIE = "sector-die"  # "from 8 by 5"
    OWN_UNIT = "own-unit"  # "T3"
    ENEMY_UNIT = "enemy-unit"  # "E3"
    SCRAPPED_UNIT = "scrapped-unit"  # "T3" in the scrap heap
    TWO_CARDS = "two-cards"  # "discard ion-thrusters nova-bomb"


@dataclass(frozen=True, slots=True)
class Card:
    kind: int
    key: str
    name: str
    text: str
    timing: Timing
    target: Target
    force: int = 0
    """Fight bonus (attack or defense cards)."""
    die_bonus: int = 0
    rolls_die: bool = False
    """+1D6: the bonus is a die rolled when played."""


_LIST = (
    ("Ion Thrusters", "Add +1 to one die roll", Timing.AFTER_ROLL, Target.DIE, 0, 1, False),
    ("Warp Overdrive", "Add +2 to one die roll", Timing.AFTER_ROLL, Target.DIE, 0, 2, False),
    ("Maximum Burn", "Add +3 to one die roll", Timing.AFTER_ROLL, Target.DIE, 0, 3, False),
    ("Hyper Jump", "Roll one additional die in Roll Phase", Timing.BEFORE_ROLL, Target.NONE, 0, 0, False),
    (
        "Strategic Move",
        "Use one die roll to move all units in one space",
        Timing.MOVE,
        Target.SECTOR_DIE,
        0,
        0,
        False,
    ),
    ("Space Combat Tactics", "Use one die roll to move backwards", Timing.MOVE, Target.UNIT_DIE, 0, 0, False),
    (
        "Defend the Homeworld",
        "Move target unit directly to your homeworld",
        Timing.MOVE,
        Target.OWN_UNIT,
        0,
        0,
        False,
    ),
    ("Hold Position", "Do not use one die roll", Timing.MOVE, Target.DIE, 0, 0, False),
    (
        "Battle Computers",
        "Cause one of your die rolls to be rerolled",
        Timing.AFTER_ROLL,
        Target.DIE,
        0,
        0,
        False,
    ),
    ("Continuous Wave Laser", "Attacker +1 Force", Timing.ATTACK, Target.NONE, 1, 0, False),
    ("Plasma Generator", "Attacker +2 Force", Timing.ATTACK, Target.NONE, 2, 0, False),
    ("Disruptor Cannon", "Attacker +3 Force", Timing.ATTACK, Target.NONE, 3, 0, False),
    ("Antimatter Missiles", "Attacker +4 Force", Timing.ATTACK, Target.NONE, 4, 0, False),
    ("Nova Bomb", "Attacker +5 Force", Timing.ATTACK, Target.NONE, 5, 0, False),
    ("Surprise Attack", "Attacker +1D6 Force", Timing.ATTACK, Target.NONE, 0, 0, True),
    (
        "Plasteel Armor",
        "Defender +1 Force. Play on opponents turn.",
        Timing.DEFENSE,
        Target.NONE,
        1,
        0,
        False,
    ),
    (
        "Electronic Countermeasures",
        "Defender +2 Force. Play on opponents turn.",
        Timing.DEFENSE,
        Target.NONE,
        2,
        0,
        False,
    ),
    (
        "Inertial Force Field",
        "Defender +3 Force. Play on opponents turn.",
        Timing.DEFENSE,
        Target.NONE,
        3,
        0,
        False,
    ),
    (
        "Evasive Maneuver",
        "Defender +4 Force. Play on opponents turn.",
        Timing.DEFENSE,
        Target.NONE,
        4,
        0,
        False,
    ),
    (
        "Ablative Energy Shields",
        "Defender +5 Force. Play on opponents turn.",
        Timing.DEFENSE,
        Target.NONE,
        5,
        0,
        False,
    ),
    ("Ambush", "Defender +1D6 Force. Play on opponents turn.", Timing.DEFENSE, Target.NONE, 0, 0, True),
    (
        "Espionage",
        "Look at opponents hand. Play on opponents draw phase.",
        Timing.ESPIONAGE,
        Target.NONE,
        0,
        0,
        False,
    ),
    (
        "Jam Transmission",
        "Target enemy unit cannot move this turn. Play on opponents turn.",
        Timing.JAM,
        Target.ENEMY_UNIT,
        0,
        0,
        False,
    ),
    (
        "Reinforcements",
        "Rebuild one extra destroyed unit in build phase.",
        Timing.BUILD,
        Target.SCRAPPED_UNIT,
        0,
        0,
        False,
    ),
    (
        "Major Offensive",
        "Discard 2 cards and take another turn.",
        Timing.ANY_OWN,
        Target.TWO_CARDS,
        0,
        0,
        False,
    ),
)

CARDS: tuple[Card, ...] = tuple(
    Card(i, name.lower().replace(" ", "-"), name, text, timing, target, force, bonus, rolls)
    for i, (name, text, timing, target, force, bonus, rolls) in enumerate(_LIST)
)
COPIES = 2
DECK_SIZE = len(CARDS) * COPIES
BY_KEY = {c.key: c for c in CARDS}

(
    ION_THRUSTERS,
    WARP_OVERDRIVE,
    MAXIMUM_BURN,
    HYPER_JUMP,
    STRATEGIC_MOVE,
    SPACE_COMBAT_TACTICS,
    DEFEND_THE_HOMEWORLD,
    HOLD_POSITION,
    BATTLE_COMPUTERS,
    CONTINUOUS_WAVE_LASER,
    PLASMA_GENERATOR,
    DISRUPTOR_CANNON,
    ANTIMATTER_MISSILES,
    NOVA_BOMB,
    SURPRISE_ATTACK,
    PLASTEEL_ARMOR,
    ELECTRONIC_COUNTERMEASURES,
    INERTIAL_FORCE_FIELD,
    EVASIVE_MANEUVER,
    ABLATIVE_ENERGY_SHIELDS,
    AMBUSH,
    ESPIONAGE,
    JAM_TRANSMISSION,
    REINFORCEMENTS,
    MAJOR_OFFENSIVE,
) = CARDS


def card_of(card_id: int) -> Card:
    """The kind of card id ``card_id`` (0..49)."""
    return CARDS[card_id // COPIES]


def timed(timing: Timing) -> tuple[Card, ...]:
    return tuple(c for c in CARDS if c.timing is timing)


ATTACK_KINDS = frozenset(c.kind for c in CARDS if c.timing is Timing.ATTACK)
"""The kinds of card the attacker plays in a fight."""
DEFENSE_KINDS = frozenset(c.kind for c in CARDS if c.timing is Timing.DEFENSE)
"""The kinds of card the defender plays in a fight."""
DIE_BONUS_KINDS = (ION_THRUSTERS.kind, WARP_OVERDRIVE.kind, MAXIMUM_BURN.kind)
"""The cards that add to one die."""
ROLL_CARD_KINDS = frozenset({BATTLE_COMPUTERS.kind, *DIE_BONUS_KINDS})
"""The cards of the roll-card step (after the roll)."""
MOVE_CARD_KINDS = frozenset(
    {STRATEGIC_MOVE.kind, SPACE_COMBAT_TACTICS.kind, DEFEND_THE_HOMEWORLD.kind, HOLD_POSITION.kind}
)
"""The cards of the move phase."""
