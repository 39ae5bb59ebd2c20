"""One test (at least) for each of the 25 cards of space, named after it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.errors import IllegalActionError
from engine.protocol import CHANCE
from engine.space import cards as C
from engine.space.board import PLANET_X, SCRAP
from engine.space.cards import CARDS, DECK_SIZE, Timing, card_of
from engine.space.game import Phase, SpaceState
from tests.engine.space_helpers import make_state, notations, play, units


def at(state: SpaceState, label: str) -> int:
    return state.positions[units(label)[0]]


def fight(attacker: tuple[C.Card, ...] = (), defender: tuple[C.Card, ...] = ()) -> SpaceState:
    """Empire's Vindicator (5) attacks Terran Sol-1 (5) in sector 10."""
    return make_state(
        {"E1": 10, "T1": 10},
        home=["E2", "T2"],
        hands=(attacker, defender),
        phase=Phase.ATTACK,
        fight_sector=10,
    )


def test_deck_has_two_of_each_of_the_25_cards() -> None:
    assert len(CARDS) == 25 and DECK_SIZE == 50
    assert [card_of(i).kind for i in range(50)] == [k for k in range(25) for _ in range(2)]
    assert {c.timing for c in CARDS if c.timing in (Timing.DEFENSE, Timing.ESPIONAGE, Timing.JAM)}
    assert C.DISRUPTOR_CANNON.name == "Disruptor Cannon"


def roll_cards(hand: tuple[C.Card, ...], dice: tuple[int, ...]) -> SpaceState:
    return make_state(home=["E1", "T1"], hands=(hand, ()), phase=Phase.ROLL_CARDS, dice=dice)


def test_card_ion_thrusters_adds_one_to_a_die() -> None:
    state = play(roll_cards((C.ION_THRUSTERS,), (3, 5)), "play ion-thrusters on 5")
    assert state.die_value(1) == 6 and state.hands[0] == ()


def test_card_warp_overdrive_adds_two_to_a_die() -> None:
    state = play(roll_cards((C.WARP_OVERDRIVE,), (3, 5)), "play warp-overdrive on 3")
    assert state.die_value(0) == 5


def test_card_maximum_burn_adds_three_and_a_die_may_exceed_six() -> None:
    state = play(roll_cards((C.MAXIMUM_BURN, C.ION_THRUSTERS), (6, 5)), "play maximum-burn on 6")
    assert state.die_value(0) == 9
    state = play(state, "play ion-thrusters on 9", "pass")
    assert state.die_value(0) == 10
    assert state.phase is Phase.BUILD


def test_card_additions_do_not_break_doubles() -> None:
    state = play(roll_cards((C.ION_THRUSTERS,), (3, 3)), "play ion-thrusters on 3", "pass")
    assert state.builds == 1


def test_card_hyper_jump_rolls_a_third_die() -> None:
    state = make_state(home=["E1", "T1"], hands=((C.HYPER_JUMP, C.HYPER_JUMP), ()), phase=Phase.ROLL)
    state = play(state, "play hyper-jump")
    assert "play hyper-jump" not in notations(state.legal_actions())  # at most one a turn
    state = play(state, "roll")
    spec = state.chance()
    assert spec is not None and spec.count == 3
    state = play(state, "roll 1-2-3", "pass", "pass", "pass")  # roll cards, build, jam window
    assert state.phase is Phase.MOVE and len(state.dice_left) == 3


def test_card_battle_computers_rerolls_a_normal_die() -> None:
    state = play(roll_cards((C.BATTLE_COMPUTERS,), (3, 5)), "play battle-computers on 3")
    assert state.phase is Phase.REROLL and state.to_move() == CHANCE
    spec = state.chance()
    assert spec is not None and spec.count == 1
    state = play(state, "roll 5")
    assert state.dice == (5, 5) and state.phase is Phase.ROLL_CARDS
    assert play(state, "pass").builds == 1  # doubles once the rerolls are done


def test_card_battle_computers_cannot_reroll_the_hyper_jump_die() -> None:
    state = roll_cards((C.BATTLE_COMPUTERS,), (3, 5, 6))
    assert "play battle-computers on 6" not in notations(state.legal_actions())


def test_card_strategic_move_moves_every_unit_of_a_sector() -> None:
    state = make_state(
        {"E2": 20, "E3": 20, "E4": 20}, home=["T1"], hands=((C.STRATEGIC_MOVE,), ()), dice=(3, 4)
    )
    state = replace(state, jammed=(units("E4")[0],))
    state = play(state, "play strategic-move from 20 by 3")
    assert at(state, "E2") == 17 and at(state, "E3") == 17 and at(state, "E4") == 20  # jammed stays
    assert "move E2 by 4" in notations(state.legal_actions())  # may still take the other die


def test_card_space_combat_tactics_moves_backwards() -> None:
    state = make_state({"E5": 20}, home=["T1"], hands=((C.SPACE_COMBAT_TACTICS,), ()), dice=(3, 4))
    state = play(state, "play space-combat-tactics E5 by 3")
    assert at(state, "E5") == 23
    state = play(state, "move E5 by 4")  # the same unit takes the other die forwards
    assert at(state, "E5") == 19


def test_card_defend_the_homeworld_moves_a_unit_home_without_a_die() -> None:
    state = make_state({"E5": 3, "T1": PLANET_X}, hands=((C.DEFEND_THE_HOMEWORLD,), ()), dice=(3, 4))
    state = play(state, "play defend-the-homeworld E5")
    assert at(state, "E5") == PLANET_X and len(state.dice_left) == 2
    state = play(state, "pass")  # E5 is done moving, no other unit: the fight at Planet X follows
    assert state.phase is Phase.ATTACK and state.fight_sector == PLANET_X


def test_card_hold_position_leaves_one_die_unused() -> None:
    state = make_state({"E5": 20}, home=["T1"], hands=((C.HOLD_POSITION,), ()), dice=(3, 4))
    state = play(state, "play hold-position on 4", "move E5 by 3")
    assert state.dice_left == () and "pass" in notations(state.legal_actions())


@pytest.mark.parametrize(
    ("card", "bonus"),
    [
        (C.CONTINUOUS_WAVE_LASER, 1),
        (C.PLASMA_GENERATOR, 2),
        (C.DISRUPTOR_CANNON, 3),
        (C.ANTIMATTER_MISSILES, 4),
        (C.NOVA_BOMB, 5),
    ],
)
def test_card_attack_cards_add_force(card: C.Card, bonus: int) -> None:
    state = play(fight(attacker=(card,)), f"play {card.key}", "pass", "pass")
    assert state.keep_seat == 0 and state.keep_difference == bonus


def test_card_continuous_wave_laser_wins_a_tie() -> None:
    state = play(fight(attacker=(C.CONTINUOUS_WAVE_LASER,)), "play continuous-wave-laser", "pass", "pass")
    assert state.keep_seat == 0 and at(state, "T1") == SCRAP


def test_card_plasma_generator_adds_two() -> None:
    assert play(fight((C.PLASMA_GENERATOR,)), "play plasma-generator").attack_bonus == 2


def test_card_disruptor_cannon_adds_three() -> None:
    assert play(fight((C.DISRUPTOR_CANNON,)), "play disruptor-cannon").attack_bonus == 3


def test_card_antimatter_missiles_adds_four() -> None:
    assert play(fight((C.ANTIMATTER_MISSILES,)), "play antimatter-missiles").attack_bonus == 4


def test_card_nova_bomb_adds_five_and_cards_add_up() -> None:
    state = play(fight((C.NOVA_BOMB, C.NOVA_BOMB)), "play nova-bomb", "play nova-bomb")
    assert state.attack_bonus == 10 and len(state.vortex) == 2


def test_card_surprise_attack_rolls_a_die_for_the_attacker() -> None:
    state = play(fight((C.SURPRISE_ATTACK,)), "play surprise-attack")
    spec = state.chance()
    assert state.to_move() == CHANCE and spec is not None and spec.label == "Surprise Attack"
    state = play(state, "roll 4")
    assert state.attack_bonus == 4 and state.phase is Phase.ATTACK


@pytest.mark.parametrize(
    ("card", "bonus"),
    [
        (C.PLASTEEL_ARMOR, 1),
        (C.ELECTRONIC_COUNTERMEASURES, 2),
        (C.INERTIAL_FORCE_FIELD, 3),
        (C.EVASIVE_MANEUVER, 4),
        (C.ABLATIVE_ENERGY_SHIELDS, 5),
    ],
)
def test_card_defense_cards_add_force_in_the_response_window(card: C.Card, bonus: int) -> None:
    state = play(fight(attacker=(C.NOVA_BOMB,), defender=(card,)), "play nova-bomb", "pass")
    assert state.phase is Phase.DEFEND and state.to_move() == 1 and state.secret_decision()
    state = play(state, f"play {card.key}")
    assert state.defense_bonus == bonus and state.phase is Phase.DEFEND
    state = play(state, "pass")
    assert state.keep_seat == (1 if bonus == 5 else 0)  # the tie goes to the defender


def test_card_plasteel_armor_adds_one() -> None:
    assert play(fight((), (C.PLASTEEL_ARMOR,)), "pass", "play plasteel-armor").defense_bonus == 1


def test_card_electronic_countermeasures_adds_two() -> None:
    assert (
        play(
            fight((), (C.ELECTRONIC_COUNTERMEASURES,)), "pass", "play electronic-countermeasures"
        ).defense_bonus
        == 2
    )


def test_card_inertial_force_field_adds_three() -> None:
    assert play(fight((), (C.INERTIAL_FORCE_FIELD,)), "pass", "play inertial-force-field").defense_bonus == 3


def test_card_evasive_maneuver_adds_four() -> None:
    assert play(fight((), (C.EVASIVE_MANEUVER,)), "pass", "play evasive-maneuver").defense_bonus == 4


def test_card_ablative_energy_shields_adds_five() -> None:
    assert (
        play(fight((), (C.ABLATIVE_ENERGY_SHIELDS,)), "pass", "play ablative-energy-shields").defense_bonus
        == 5
    )


def test_card_defense_cards_cannot_be_played_by_the_attacker() -> None:
    with pytest.raises(IllegalActionError):
        play(fight((C.PLASTEEL_ARMOR,)), "play plasteel-armor")


def test_card_ambush_rolls_a_die_for_the_defender() -> None:
    state = play(fight((), (C.AMBUSH,)), "pass", "play ambush")
    spec = state.chance()
    assert spec is not None and spec.label == "Ambush"
    state = play(state, "roll 6")
    assert state.defense_bonus == 6 and state.phase is Phase.DEFEND


def test_card_espionage_shows_the_hand_to_the_spy_only() -> None:
    state = make_state(
        home=["E1", "T1"], hands=((C.NOVA_BOMB, C.AMBUSH), (C.ESPIONAGE,)), phase=Phase.ESPIONAGE
    )
    state = play(state, "play espionage")
    assert state.phase is Phase.ROLL
    assert state.view(1).spied_hand == ("nova-bomb", "ambush")
    assert state.view(0).spied_hand is None and state.view(None).spied_hand is None


def test_card_jam_transmission_stops_a_unit_for_the_turn() -> None:
    state = make_state(
        {"E5": 20},
        home=["T1"],
        hands=((C.SPACE_COMBAT_TACTICS,), (C.JAM_TRANSMISSION,)),
        phase=Phase.JAM,
        dice=(3, 4),
    )
    state = play(state, "play jam-transmission E5", "pass")
    assert state.phase is Phase.MOVE
    assert notations(state.legal_actions()) == {"pass"}  # neither by dice nor by card


def test_card_reinforcements_rebuilds_without_doubles() -> None:
    state = make_state(home=["E1", "T1"], hands=((C.REINFORCEMENTS,), ()), phase=Phase.BUILD, dice=(2, 5))
    state = play(state, "play reinforcements E3")
    assert at(state, "E3") == PLANET_X


def test_card_reinforcements_adds_to_the_doubles_build() -> None:
    state = make_state(
        home=["E1", "T1"], hands=((C.REINFORCEMENTS,), ()), phase=Phase.ROLL_CARDS, dice=(2, 2)
    )
    state = play(state, "pass", "build E2", "play reinforcements E3")
    assert at(state, "E2") == PLANET_X and at(state, "E3") == PLANET_X


def test_card_major_offensive_discards_two_and_takes_another_turn() -> None:
    hand = (C.MAJOR_OFFENSIVE, C.NOVA_BOMB, C.PLASTEEL_ARMOR)
    state = make_state({"E5": 20}, home=["T1"], hands=(hand, ()), dice=(3, 4))
    state = play(state, "play major-offensive discard nova-bomb plasteel-armor")
    assert state.hands[0] == () and len(state.vortex) == 3 and state.extra_turns == 1
    turn = state.turn_number
    state = play(state, "move E5 by 3", "move E5 by 4", "pass")
    assert state.turn == 0 and state.turn_number == turn + 1 and state.extra_turns == 0


def test_card_major_offensive_needs_two_other_cards() -> None:
    state = make_state({"E5": 20}, home=["T1"], hands=((C.MAJOR_OFFENSIVE, C.NOVA_BOMB), ()), dice=(3, 4))
    assert not any(a.notation.startswith("play major") for a in state.legal_actions())


def test_card_not_in_hand_cannot_be_played() -> None:
    with pytest.raises(IllegalActionError, match="holds no Nova Bomb"):
        play(fight(), "play nova-bomb")
