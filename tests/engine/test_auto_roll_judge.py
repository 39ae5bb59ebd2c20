"""The judge of the ``auto_roll`` preference: a double is "not sensible" when no double beats it by a
wide margin at a cheap depth; a position where doubling is right is left to the player."""

from __future__ import annotations

from engine.ai.backgammon_hints import AUTO_ROLL_PLAYER, NOT_SENSIBLE, _cube, double_not_sensible
from engine.ai.coaches import double_not_sensible as judged
from engine.backgammon.board import RuleSet, side_from, starting_board
from engine.backgammon.game import BackgammonState, Phase


def deciding(sides: tuple[tuple[int, ...], tuple[int, ...]], phase: Phase = Phase.DECIDE) -> BackgammonState:
    return BackgammonState(sides=sides, length=5, turn_seat=0, phase=phase, turn_number=3)


def test_at_the_start_of_a_game_a_double_is_not_sensible() -> None:
    state = deciding(starting_board(RuleSet.STANDARD))
    assert double_not_sensible(state) and judged("backgammon", state)


def test_in_a_race_well_ahead_the_double_is_left_to_the_player() -> None:
    # White 60 pips against 75, all borne in: a double (the opponent passes or takes) is right.
    race = deciding((side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}), side_from({6: 5, 5: 5, 4: 5})))
    cube, _ = _cube(race, AUTO_ROLL_PLAYER)
    assert float(cube.equity_nd) - min(float(cube.equity_dt), float(cube.equity_dp)) < NOT_SENSIBLE
    assert not double_not_sensible(race)


def test_without_a_double_to_decide_there_is_nothing_to_judge() -> None:
    rolled = deciding(starting_board(RuleSet.STANDARD), phase=Phase.ROLL)
    assert rolled.roll_on() is None and not double_not_sensible(rolled)
    assert not judged("ring", rolled)  # a game without a judge never rolls by itself
