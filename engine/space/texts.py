"""Words of space for players: an action described, the phase in a sentence."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.protocol import (
    Action,
)
from engine.space.actions import Build, Discard, Keep, Move, Pass, Play, RollDice
from engine.space.board import (
    DIRECTION,
    SIDES,
    sector_name,
    step,
    unit_label,
    unit_name,
)
from engine.space.cards import CARDS, Target
from engine.space.state import Phase, hand_limit

if TYPE_CHECKING:
    from engine.space.game import SpaceState


# ---------------------------------------------------------------------------------------------------
# Words


def describe(state: SpaceState, action: Action) -> str:
    if isinstance(action, Move):
        target = step(state.positions[action.unit], DIRECTION[state.turn_seat] * action.die)
        return f"move {unit_name(action.unit)} to {sector_name(target)} with the {action.die}"
    if isinstance(action, Build):
        return f"rebuild {unit_name(action.unit)} on your homeworld"
    if isinstance(action, Keep):
        return "keep " + ", ".join(unit_name(u) for u in action.units)
    if isinstance(action, Discard):
        return f"discard {CARDS[action.kind].name}"
    if isinstance(action, Play):
        card = action.card
        extra = {
            Target.DIE: f" on the {action.die}",
            Target.UNIT_DIE: f" on {unit_label(action.unit or 0)} with the {action.die}",
            Target.SECTOR_DIE: f" from sector {action.sector} with the {action.die}",
        }.get(card.target, "")
        if card.target in (Target.OWN_UNIT, Target.ENEMY_UNIT, Target.SCRAPPED_UNIT):
            extra = f" on {unit_name(action.unit or 0)}"
        if card.target is Target.TWO_CARDS:
            extra = " discarding " + " and ".join(CARDS[k].name for k in action.discards)
        return f"play {card.name}{extra} ({card.text})"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, RollDice):
        return "roll the dice"
    return action.notation


def phase_text(state: SpaceState) -> str:
    if state.result is not None:
        return state.result.description
    name = SIDES[state.turn_seat]
    other = SIDES[1 - state.turn_seat]
    p = state.phase
    if p is Phase.SHUFFLE:
        return "The vortex is shuffled into a new deck"
    if p is Phase.DISCARD:
        return f"{name}: discard down to {hand_limit(state.positions, state.turn_seat)} cards"
    if p is Phase.ESPIONAGE:
        return f"{other} may play Espionage"
    if p is Phase.ROLL:
        return f"{name} to roll"
    if p in (Phase.DICE, Phase.REROLL, Phase.FIGHT_DIE):
        return "Rolling"
    dice = ", ".join(str(state.die_value(i)) for i in state.dice_left)
    if p is Phase.ROLL_CARDS:
        return f"{name} rolled {', '.join(str(state.die_value(i)) for i in range(len(state.dice)))}: roll cards or pass"
    if p is Phase.BUILD:
        return f"{name}: build phase"
    if p is Phase.JAM:
        return f"{other} may play Jam Transmission"
    if p is Phase.MOVE:
        return f"{name} to move: {dice or 'no dice'} left"
    if p is Phase.ATTACK:
        return f"Fight in sector {sector_name(state.fight_sector)}: {name} may play attack cards"
    if p is Phase.DEFEND:
        return f"Fight in sector {sector_name(state.fight_sector)}: {other} may play defense cards"
    return f"{SIDES[state.keep_seat]} won in sector {state.fight_sector}: choose the units to keep (force {state.keep_difference} or one unit)"
