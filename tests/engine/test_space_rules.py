"""The rules of space by name (shared/seeds/002 and RULINGS "space")."""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest

from engine.errors import GameError, IllegalActionError
from engine.protocol import CHANCE, Action, ChanceKind
from engine.space import cards as C
from engine.space.actions import Build, Dice, Discard, Keep, Move, Pass, Play, RollDice, Shuffle
from engine.space.board import (
    CYGNUS,
    DIRECTION,
    EARTH,
    FORCE,
    NIMROD,
    PLANET_X,
    SCRAP,
    UNIT_TYPES,
    step,
    unit_name,
)
from engine.space.cards import CARDS, Target
from engine.space.fights import may_keep
from engine.space.game import Phase, SpaceState, SpaceWin, hand_limit
from engine.space.variant import VARIANT
from tests.engine.space_helpers import make_state, notations, play, random_playout, units


def test_board_has_28_sectors_four_planets_and_directions() -> None:
    assert (EARTH, NIMROD, PLANET_X, CYGNUS) == (1, 8, 15, 22)
    assert step(28, 1) == 1 and step(1, -1) == 28
    assert DIRECTION == (-1, 1)  # the Empire (seat 0) counterclockwise, the Terrans clockwise


def test_units_fifteen_a_side_with_forces_and_names() -> None:
    for seat in (0, 1):
        assert sum(t.count for t in UNIT_TYPES[seat]) == 15
    assert FORCE[:15] == (5, 4, 4, 3, 3, 3, 2, 2, 2, 2, 1, 1, 1, 1, 1)
    assert FORCE[15:] == FORCE[:15]
    assert unit_name(units("T1")[0]) == "Sol-1 T1 (force 5)"
    assert unit_name(units("E15")[0]) == "Clone Troopers E15 (force 1)"


def test_new_game_shuffles_deals_five_each_and_the_empire_starts() -> None:
    state = VARIANT.new_game()
    spec = state.chance()
    assert spec is not None and spec.kind is ChanceKind.SHUFFLE and spec.count == 50
    assert spec.prompt_seat is None
    assert state.positions == (PLANET_X,) * 15 + (EARTH,) * 15
    state = state.apply(state.chance_action(list(range(50))))
    assert state.turn == 0 and state.turn_number == 1
    assert len(state.hands[1]) == 5
    assert len(state.hands[0]) == 7  # five dealt, two drawn in the first draw phase
    assert state.phase is Phase.DISCARD  # over the hand limit of 6
    state = state.apply(state.legal_actions()[0])
    assert len(state.hands[0]) == 6 and state.phase is Phase.ESPIONAGE
    assert state.to_move() == 1


def test_hand_limit_bonuses_and_homeworld_malus() -> None:
    state = make_state({"E1": NIMROD, "E2": CYGNUS}, home=["E3"])
    assert hand_limit(state.positions, 0) == 8
    state = make_state({"E1": NIMROD, "T1": PLANET_X, "E2": PLANET_X})
    assert hand_limit(state.positions, 0) == 5  # +1 Nimrod, -2 for the contested homeworld
    assert hand_limit(state.positions, 1) == 4  # no Earth


def test_draw_reshuffles_the_vortex_when_the_deck_runs_out() -> None:
    base = make_state({"T1": 10}, home=["E2", "T2"], phase=Phase.KEEP, fight_sector=10, keep_seat=1)
    # One card left in the deck, the rest in the vortex: the Terrans' draw needs a shuffle after one.
    state = replace(base, deck=base.deck[:1], vortex=base.deck[1:])
    state = play(state, "keep T1")
    assert state.phase is Phase.SHUFFLE and state.to_move() == CHANCE
    assert len(state.hands[1]) == 1
    spec = state.chance()
    assert spec is not None and spec.count == 49 and spec.prompt_seat is None
    state = state.apply(state.chance_action(list(range(spec.count))))
    assert len(state.hands[1]) == 2 and not state.vortex and len(state.deck) == 48


def test_draw_with_empty_deck_and_vortex_draws_nothing() -> None:
    base = make_state({"E1": 10, "T1": 10}, home=["E2", "T2"], phase=Phase.KEEP, fight_sector=10, keep_seat=1)
    state = replace(base, hands=(tuple(range(25)), tuple(range(25, 50))), deck=())
    state = play(state, "keep T1")
    assert state.turn == 1 and len(state.hands[1]) == 25 and state.phase is Phase.DISCARD


def test_roll_phase_rolls_two_dice_after_the_roll_request() -> None:
    state = make_state(home=["E1", "T1"], phase=Phase.ROLL)
    assert state.to_move() == 0 and notations(state.legal_actions()) == {"roll"}
    state = play(state, "roll")
    spec = state.chance()
    assert spec is not None and spec.kind is ChanceKind.DICE and spec.count == 2
    state = play(state, "roll 2-6")
    assert state.phase is Phase.ROLL_CARDS and state.dice == (2, 6)


def test_build_doubles_with_homeworld_control_rebuilds_one_unit() -> None:
    state = make_state(home=["E1", "T1"], phase=Phase.ROLL_CARDS, dice=(4, 4))
    state = play(state, "pass")
    assert state.phase is Phase.BUILD and "build E2" in notations(state.legal_actions())
    state = play(state, "build E2")
    assert state.positions[units("E2")[0]] == PLANET_X
    assert not any(a.notation.startswith("build") for a in state.legal_actions())


def test_build_without_doubles_offers_no_build() -> None:
    state = play(make_state(home=["E1", "T1"], phase=Phase.ROLL_CARDS, dice=(4, 5)), "pass")
    assert state.phase is Phase.BUILD
    assert notations(state.legal_actions()) == {"pass"}


def test_build_needs_control_of_the_homeworld() -> None:
    state = make_state({"E1": 20}, home=["T1"], phase=Phase.ROLL_CARDS, dice=(4, 4))
    state = play(state, "pass")
    assert state.phase is Phase.JAM


def test_jam_window_opens_for_the_opponent_whether_or_not_they_hold_the_card() -> None:
    state = play(make_state({"E1": 20}, home=["T1"], phase=Phase.ROLL_CARDS, dice=(4, 5)), "pass")
    assert state.phase is Phase.JAM and state.to_move() == 1
    assert notations(state.legal_actions()) == {"pass"}
    assert state.secret_decision()
    state = play(state, "pass")
    assert state.phase is Phase.MOVE and state.to_move() == 0


def test_espionage_window_opens_whether_or_not_the_opponent_holds_the_card() -> None:
    state = make_state(home=["E1", "T1"], phase=Phase.ESPIONAGE)
    assert state.to_move() == 1 and notations(state.legal_actions()) == {"pass"}
    assert state.secret_decision()
    assert play(state, "pass").phase is Phase.ROLL


def test_move_empire_counterclockwise_terrans_clockwise() -> None:
    state = play(make_state({"E5": 3}, home=["T1"], dice=(4, 5)), "move E5 by 4")
    assert state.positions[units("E5")[0]] == 27
    state = play(make_state({"T5": 26}, home=["E1"], turn=1, dice=(4, 5)), "move T5 by 4")
    assert state.positions[units("T5")[0]] == 2


def test_second_die_rule_unit_stopped_on_an_enemy_sector() -> None:
    state = make_state({"E5": 20, "E6": 25, "T5": 17}, dice=(3, 4))
    state = play(state, "move E5 by 3")  # lands on the Terrans at 17
    assert "move E5 by 4" not in notations(state.legal_actions())
    assert "move E6 by 4" in notations(state.legal_actions())


def test_must_use_both_dice_when_some_order_allows_it() -> None:
    state = make_state({"E5": 20, "T5": 17}, dice=(3, 4))
    legal = notations(state.legal_actions())
    assert "move E5 by 3" not in legal  # it would strand the 4
    assert "move E5 by 4" in legal
    with pytest.raises(IllegalActionError):
        play(state, "move E5 by 3")
    with pytest.raises(IllegalActionError):
        play(state, "pass")


def test_doubles_give_two_steps_not_four() -> None:
    state = play(make_state({"E5": 20}, home=["E1", "T1"], dice=(2, 2)), "move E5 by 2", "move E1 by 2")
    assert state.dice_left == ()
    assert notations(state.legal_actions()) == {"pass"}


def test_one_unit_takes_at_most_two_dice() -> None:
    state = make_state({"E5": 20}, home=["T1"], dice=(1, 2, 3))
    state = play(state, "move E5 by 1", "move E5 by 2")
    assert notations(state.legal_actions()) == {"pass"}


def test_fight_attacker_wins_and_keeps_up_to_the_difference() -> None:
    state = make_state({"E1": 10, "E2": 10, "T4": 10}, home=["T1"], phase=Phase.ATTACK, fight_sector=10)
    state = play(state, "pass", "pass")
    assert state.phase is Phase.KEEP and state.to_move() == 0 and state.keep_difference == 6
    assert state.positions[units("T4")[0]] == SCRAP
    assert notations(state.legal_actions()) == {"keep E1", "keep E2"}
    state = play(state, "keep E2")
    assert state.positions[units("E1")[0]] == SCRAP and state.positions[units("E2")[0]] == 10


def test_fight_winner_keeps_any_single_unit_even_above_the_difference() -> None:
    state = make_state({"E1": 10, "T11": 10}, home=["T1", "E2"], phase=Phase.ATTACK, fight_sector=10)
    state = play(state, "pass", "pass")
    assert state.keep_difference == 4
    assert notations(state.legal_actions()) == {"keep E1"}


def test_fight_winner_may_keep_fewer_but_at_least_one() -> None:
    state = make_state(
        {"E2": 10, "E11": 10, "E12": 10, "T15": 10}, home=["T1", "E1"], phase=Phase.ATTACK, fight_sector=10
    )
    state = play(state, "pass", "pass")
    assert state.keep_difference == 5
    assert notations(state.legal_actions()) == {"keep E2", "keep E11", "keep E11 E12", "keep E2 E11"}
    state = play(state, "keep E12")  # fewer than allowed, and any unit of a kind
    assert state.positions[units("E12")[0]] == 10 and state.positions[units("E2")[0]] == SCRAP
    with pytest.raises(IllegalActionError):
        play(state, "keep T1")


def test_fight_tie_goes_to_the_defender() -> None:
    state = make_state({"E1": 10, "T4": 10, "T7": 10}, home=["T1", "E2"], phase=Phase.ATTACK, fight_sector=10)
    state = play(state, "pass", "pass")
    assert state.keep_seat == 1 and state.to_move() == 1 and state.keep_difference == 0
    assert state.positions[units("E1")[0]] == SCRAP
    assert notations(state.legal_actions()) == {"keep T4", "keep T7"}


def test_fights_in_every_contested_sector_in_increasing_number() -> None:
    state = make_state({"E5": 12, "E6": 5, "T5": 12, "T6": 5}, home=["T1", "E1"], dice=())
    state = play(state, "pass")
    assert state.phase is Phase.ATTACK and state.fight_sector == 5
    state = play(state, "pass", "pass", "keep T6")
    assert state.phase is Phase.ATTACK and state.fight_sector == 12


def test_win_by_controlling_all_four_planets() -> None:
    state = make_state(
        {"E1": EARTH, "T15": EARTH, "E2": NIMROD, "E3": CYGNUS},
        home=["E4"],
        phase=Phase.ATTACK,
        fight_sector=EARTH,
    )
    state = play(state, "pass", "pass", "keep E1")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason is SpaceWin.ALL_PLANETS


def test_win_checked_after_a_move_with_no_fight() -> None:
    state = make_state({"E1": 4, "E2": NIMROD, "E3": CYGNUS, "T5": 20}, home=["E4"], dice=(3, 5))
    state = play(state, "move E1 by 3", "move E1 by 5")  # 4 -> 1 (Earth) -> 24
    assert state.outcome() is None
    state = make_state({"E1": 4, "E2": NIMROD, "E3": CYGNUS, "E5": 10}, home=["E4"], dice=(3, 5))
    state = play(state, "move E1 by 3", "move E5 by 5", "pass")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason is SpaceWin.ALL_PLANETS


def test_lose_with_no_unit_on_the_board_at_the_end_of_a_turn() -> None:
    state = make_state({"E1": 10, "T1": 10}, phase=Phase.ATTACK, fight_sector=10)
    state = play(state, "pass", "pass", "keep T1")
    outcome = state.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.reason is SpaceWin.NO_UNITS


def test_secret_decisions_are_the_card_phases_only() -> None:
    assert make_state(home=["E1", "T1"], phase=Phase.MOVE, dice=(1, 2)).secret_decision()
    keep = make_state({"E1": 10, "T1": 10}, phase=Phase.KEEP, fight_sector=10, keep_seat=1)
    assert not keep.secret_decision()


def test_view_shows_own_hand_and_only_the_size_of_the_other() -> None:
    state = make_state(home=["E1", "T1"], hands=((C.NOVA_BOMB,), (C.AMBUSH, C.ESPIONAGE)), phase=Phase.ROLL)
    mine = state.view(0)
    assert mine.hand == ("nova-bomb",) and mine.hand_sizes == (1, 2)
    assert "ambush" not in str(mine.to_json()) and "ambush" in str(state.view(1).to_json())
    spectator = state.view(None)
    assert spectator.hand == () and spectator.legal_actions() == ()
    assert state.view(1).legal_actions() == ()  # not Terran's decision


def test_windows_and_phases_do_not_depend_on_the_hands() -> None:
    """The same turn passed through with empty hands and with full hands goes through the same
    phases, deciding seats and secret decisions: a window's opening tells nothing about a hand."""
    full = (
        (C.HYPER_JUMP, C.ION_THRUSTERS, C.STRATEGIC_MOVE, C.NOVA_BOMB, C.REINFORCEMENTS),
        (C.ESPIONAGE, C.JAM_TRANSMISSION, C.AMBUSH, C.PLASTEEL_ARMOR),
    )
    script = ["pass", "roll", "roll 2-3", "pass", "pass", "pass", "move E5 by 2", "move E5 by 3", "pass"]
    script += ["pass", "pass", "keep T1"]
    traces = []
    for hands in (((), ()), full):
        state = make_state({"E5": 22, "T1": 17}, home=["E1", "T2"], hands=hands, phase=Phase.ESPIONAGE)
        trace = []
        for text in script:
            trace.append((state.phase, state.to_move(), state.secret_decision()))
            state = play(state, text)
        traces.append(trace)
    assert traces[0] == traces[1]
    assert (Phase.DEFEND, 1, True) in traces[0]


def candidate_actions(state: SpaceState) -> list[Action]:
    """Every action a player could try in ``state`` (nearly all of them illegal): each kind of
    action with every unit, sector, die value up to 14 and card named."""
    dice = range(1, 15)
    found: list[Action] = [Pass(), RollDice(), Dice((3, 4)), Shuffle(tuple(range(len(state.vortex))))]
    found += [Discard(k) for k in range(len(CARDS))]
    found += [Build(u) for u in range(30)]
    found += [Move(u, d) for u in range(30) for d in dice]
    for card in CARDS:
        t = card.target
        if t is Target.NONE:
            found.append(Play(card.kind))
        elif t is Target.DIE:
            found += [Play(card.kind, die=d) for d in dice]
        elif t is Target.UNIT_DIE:
            found += [Play(card.kind, unit=u, die=d) for u in range(30) for d in dice]
        elif t is Target.SECTOR_DIE:
            found += [Play(card.kind, sector=s, die=d) for s in range(1, 29) for d in dice]
        elif t is Target.TWO_CARDS:
            kinds = range(len(CARDS))
            found += [Play(card.kind, discards=(a, b)) for a in kinds for b in kinds if a <= b]
        else:
            found += [Play(card.kind, unit=u) for u in range(30)]
    return found


def test_apply_refuses_exactly_what_legal_actions_does_not_list() -> None:
    """``apply`` checks an action against the listed legal actions (by identity first, then by
    equality): on states of random games, every candidate action is accepted if and only if it is
    listed, whether it is the listed object itself or an equal one read from its notation. A
    choice of units to keep is accepted whenever it keeps what the rules allow (``may_keep``), as
    the list holds only one choice per kind of unit."""
    seen: set[Phase] = set()
    checked = 0

    def check(state: SpaceState) -> None:
        nonlocal checked
        if state.outcome() is not None or (state.turn_number % 10 and state.phase in seen):
            return
        seen.add(state.phase)
        legal = state.legal_actions()
        for action in legal:
            state.apply(action)  # the listed object itself
            state.apply(VARIANT.parse_action(state, action.notation))  # an equal one
        listed = set(legal)
        candidates = candidate_actions(state)
        if state.phase is Phase.KEEP:
            mine = state.units_at(state.fight_sector, state.keep_seat)
            candidates += [Keep(tuple(sorted(k))) for n in (1, 2) for k in combinations(range(30), n)]
        for action in candidates:
            try:
                state.apply(action)
                accepted = True
            except GameError:
                accepted = False
            if isinstance(action, Keep) and state.phase is Phase.KEEP:
                assert accepted == may_keep(mine, action.units, state.keep_difference), action
            elif state.to_move() == CHANCE:
                assert not accepted or isinstance(action, Dice | Shuffle)
            else:
                assert accepted == (action in listed), (state.phase, action)
        checked += 1

    for seed in (11, 12):
        random_playout(seed, check=check)
    assert checked > 30
    assert {Phase.MOVE, Phase.KEEP, Phase.ROLL_CARDS, Phase.DEFEND, Phase.DICE} <= seen
