"""What a space view holds for the picture and the story: the dice with their card additions, the
moves of the turn in order, the last fight's record, and words per viewer (the drawer's own cards,
the spy's look at a hand), saved in the state's JSON and read back from older saves."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from engine.space import cards as C
from engine.space.board import EARTH, PLANET_X, SCRAP
from engine.space.game import FightRecord, MoveRecord, Phase, SpaceState
from engine.space.variant import VARIANT
from tests.engine.space_helpers import make_state, play, random_playout, units


def unit(label: str) -> int:
    return units(label)[0]


def test_dice_show_the_roll_and_each_card_addition_per_die() -> None:
    state = make_state(
        home=["E1", "T1"],
        hands=((C.ION_THRUSTERS, C.WARP_OVERDRIVE), ()),
        phase=Phase.ROLL_CARDS,
        dice=(3, 6),
    )
    state = play(state, "play warp-overdrive on 3", "play ion-thrusters on 6")
    view = state.view(None)
    assert view.rolled == (3, 6) and view.die_bonus == (2, 1) and view.dice == (5, 7)
    assert view.dice_used == (False, False)
    assert "The 6 becomes 7." in (state.last_text or "")
    data = view.to_json()
    assert data["rolled"] == [3, 6] and data["die_bonus"] == [2, 1]


def test_dice_used_in_the_move_phase_are_marked_per_die() -> None:
    state = make_state({"E2": 20, "E3": 18}, home=["T1"], dice=(4, 4))
    assert state.view(None).dice_used == (False, False)
    state = play(state, "move E2 by 4")
    assert state.view(None).dice_used == (True, False)


def test_the_moves_of_the_turn_are_recorded_in_order_with_how_they_were_made() -> None:
    state = make_state(
        {"E2": 20, "E3": 20, "E5": 10, "E6": 6},
        home=["T1"],
        hands=((C.STRATEGIC_MOVE, C.SPACE_COMBAT_TACTICS, C.DEFEND_THE_HOMEWORLD), ()),
        dice=(3, 4, 2),
    )
    state = play(
        state,
        "play strategic-move from 20 by 3",  # E2 and E3: 20 -> 17, one move numbered 1
        "play space-combat-tactics E5 by 4",  # backwards: 10 -> 14
        "move E6 by 2",  # 6 -> 4
        "play defend-the-homeworld E6",  # straight home
    )
    moves = state.view(None).turn_moves
    assert moves == (
        MoveRecord(1, unit("E2"), 20, 17, 3, "strategic-move"),
        MoveRecord(1, unit("E3"), 20, 17, 3, "strategic-move"),
        MoveRecord(2, unit("E5"), 10, 14, 4, "space-combat-tactics"),
        MoveRecord(3, unit("E6"), 6, 4, 2, "die"),
        MoveRecord(4, unit("E6"), 4, PLANET_X, 0, "defend-the-homeworld"),
    )
    # Saved with the state, and shown to every viewer alike.
    assert VARIANT.from_json(json.loads(json.dumps(state.to_json()))) == state
    assert state.view(0).turn_moves == state.view(1).turn_moves == moves


def test_the_turn_moves_stay_until_the_next_roll() -> None:
    state = make_state({"E2": 20}, home=["T1"], dice=(3, 4))
    state = play(state, "move E2 by 3", "move E2 by 4", "pass")
    assert state.turn_seat == 1 and len(state.turn_moves) == 2  # the handover shows the whole turn
    while state.phase is not Phase.DICE:
        state = play(state, "pass" if state.phase is not Phase.ROLL else "roll")
    state = play(state, "roll 2-5")
    assert state.turn_moves == () and state.last_fight is None


def fought() -> SpaceState:
    """The Empire (E1 force 5, E7 force 2) attacks the Terrans' T2 (4) and T12 (1) in sector 10."""
    state = make_state(
        {"E1": 10, "E7": 10, "T2": 10, "T12": 10, "T3": 1}, phase=Phase.ATTACK, dice=(3, 4), fight_sector=10
    )
    return play(state, "pass", "pass")


def test_a_fight_record_has_the_totals_the_winner_and_the_units_destroyed() -> None:
    state = fought()
    fight = state.view(None).last_fight
    assert fight == FightRecord(5, 10, 0, 7, 5, 0, (unit("T2"), unit("T12")))
    assert not fight.settled and fight.destroyed_of(1) == (unit("T2"), unit("T12"))
    text = state.last_text or ""
    assert "Evil Empire 7 against Terran Defense Force 5" in text
    assert "Stellar Navy T2 (force 4)" in text and "Planetary Patrol T12 (force 1)" in text
    # The winner keeps one unit of its choice: the record completes with what it kept and lost.
    state = play(state, "keep E7")
    fight = state.last_fight
    assert fight is not None and fight.settled
    assert fight.kept == (unit("E7"),) and fight.destroyed_of(0) == (unit("E1"),)
    assert "Vindicator E1 (force 5)" in (state.last_text or "")
    assert state.positions[unit("E1")] == SCRAP
    assert VARIANT.from_json(json.loads(json.dumps(state.to_json()))) == state


def test_the_drawer_reads_its_cards_everyone_else_only_how_many() -> None:
    state = make_state(home=["E1", "T1"], phase=Phase.KEEP)  # any phase; the turn starts below
    state = replace(
        state,
        phase=Phase.MOVE,
        turn_seat=1,
        deck=(C.HYPER_JUMP.kind * 2, C.ESPIONAGE.kind * 2, *state.deck[2:]),
        dice=(1, 2),
        dice_left=(),
    )
    state = play(state, "pass")  # the Terrans end the move phase: the Empire's turn, drawing two
    assert state.turn_seat == 0
    assert "You drew Hyper Jump and Espionage." in state.view(0).last_text
    for viewer in (1, None):
        words = state.view(viewer).last_text or ""
        assert "Evil Empire drew 2 cards." in words
        assert "Hyper Jump" not in words and "Espionage" not in words
    assert state.last_text == state.view(None).last_text  # the state's own words are the public ones


def test_the_spy_reads_the_hand_it_saw() -> None:
    state = make_state(
        home=["E1", "T1"], hands=((C.NOVA_BOMB, C.AMBUSH), (C.ESPIONAGE,)), phase=Phase.ESPIONAGE
    )
    state = play(state, "play espionage")
    assert "Evil Empire holds Nova Bomb and Ambush" in (state.view(1).last_text or "")
    for viewer in (0, None):
        words = state.view(viewer).last_text or ""
        assert "Terran Defense Force played Espionage." in words and "Nova Bomb" not in words


def test_the_first_deal_tells_each_side_its_own_five() -> None:
    state = VARIANT.new_game()
    state = state.apply(state.chance_action(list(range(50))))
    mine = state.view(1).last_text or ""
    assert "You drew" in mine and "Evil Empire drew 5 cards." in mine
    assert "Terran Defense Force drew 5 cards." in (state.view(0).last_text or "")


def test_saves_written_before_the_view_records_are_read_as_without_them() -> None:
    final, _ = random_playout(5)
    state = fought()
    for old in (final, state, play(state, "keep E7")):
        data = json.loads(json.dumps(old.to_json()))
        del data["turn_moves"], data["last_fight"]
        if data["last"] is not None:
            del data["last"]["own"]
        again = VARIANT.from_json(data)
        assert again.turn_moves == () and again.last_fight is None
        assert again.last_text == old.last_text
        assert again.view(0).last_text == old.last_text  # the older words are everyone's


def test_views_are_the_same_for_every_seat_except_hands_and_own_words() -> None:
    state = fought()
    a, b = state.view(0).to_json(), state.view(None).to_json()
    for key in ("turn_moves", "last_fight", "rolled", "die_bonus", "dice_used", "positions", "dice"):
        assert a[key] == b[key]
    assert state.positions[unit("T3")] == EARTH


def test_the_view_says_where_a_move_lands_and_which_choices_cannot_differ() -> None:
    """The panel's rules are the engine's: ``lands_on`` is where the move takes the unit, and two
    actions of one ``choice_class`` lead to positions that differ only in which equal unit moved."""
    from engine.ai.selfplay import random_states
    from engine.space.actions import Move
    from engine.space.board import FORCE, owner

    checked = 0
    for state in random_states(VARIANT, random.Random(11)):
        seat = state.to_move()
        if seat < 0 or state.outcome() is not None:
            continue
        view = state.view(seat)
        classes: dict[tuple[object, ...], list[Move]] = {}
        for action in view.legal_actions():
            if isinstance(action, Move):
                after = state.apply(action)
                assert after.positions[action.unit] == view.lands_on(action.unit, action.die)
                classes.setdefault(view.choice_class(action), []).append(action)
                checked += 1
        for moves in classes.values():
            first = moves[0]
            for other in moves[1:]:
                assert (owner(other.unit), FORCE[other.unit], view.positions[other.unit], other.die) == (
                    owner(first.unit),
                    FORCE[first.unit],
                    view.positions[first.unit],
                    first.die,
                )
    assert checked > 100
