"""Luck and the luck-adjusted result as GNU Backgammon counts them (engine.ai.backgammon_luck), kept in
each player's report of an analysis (engine.ai.backgammon_analysis); old saved analyses still load."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import islice
from types import SimpleNamespace
from typing import cast

import pytest
from bgbot_cpp import get_met

from engine.ai.backgammon_analysis import analyse
from engine.ai.backgammon_bgsage import MEDIUM, context, sage_board
from engine.ai.backgammon_filter import ROLLS, roll_outlook
from engine.ai.backgammon_luck import (
    MWC,
    POINTS,
    LuckTally,
    luck_adjusted,
    luck_in_result_units,
    match_result,
    match_winning_chances,
    opening_luck,
    with_luck,
)
from engine.ai.coaching import Analysis, PlayerReport, Scale, analysis_from_json, analysis_to_json
from engine.ai.selfplay import notations_played
from engine.backgammon.game import BackgammonState, Opening
from engine.backgammon.variant import VARIANT
from engine.protocol import replay_states

NON_DOUBLES = [roll for roll in ROLLS if roll[0] != roll[1]]


def start(options: dict[str, object]) -> BackgammonState:
    state = VARIANT.new_game(options)
    assert isinstance(state, BackgammonState)
    return state


def test_an_opening_roll_is_averaged_over_the_thirty_ways_the_opening_could_go() -> None:
    mine = {roll: 0.1 for roll in ROLLS}
    mine[(1, 3)] = 0.4
    theirs = {roll: 0.1 for roll in NON_DOUBLES}
    # (14 x 0.1 + 0.4 - 15 x 0.1) / 30 = 0.01: the average of the 30 outcomes from the roller's view.
    assert opening_luck(mine, theirs, (3, 1)) == pytest.approx(0.4 - 0.01)
    assert opening_luck(mine, theirs, (6, 5)) == pytest.approx(0.1 - 0.01)


def test_winning_the_opening_roll_is_luck_when_the_first_move_is_worth_something() -> None:
    mine = {roll: 0.05 for roll in ROLLS}
    theirs = {roll: 0.05 for roll in NON_DOUBLES}  # the same worth to either player moving first
    assert opening_luck(mine, theirs, (4, 2)) == pytest.approx(0.05)


def test_an_opening_tie_has_no_luck_and_missing_rolls_are_refused() -> None:
    mine = {roll: 0.0 for roll in ROLLS}
    with pytest.raises(ValueError, match="tie"):
        opening_luck(mine, mine, (3, 3))
    with pytest.raises(ValueError, match="15 non-doubles"):
        opening_luck(mine, {(1, 2): 0.0}, (2, 1))


def test_luck_in_a_match_is_in_match_winning_chances_by_the_match_equity_table() -> None:
    state = start({"length": 3})
    # 0-0 in 3 with the cube at 1: a single win makes it 2-away/3-away, a loss 3-away/2-away.
    swing = (get_met(2, 3, False) - get_met(3, 2, False)) / 2
    assert luck_in_result_units(0.2, state, 0) == pytest.approx(0.2 * swing, abs=1e-6)
    assert luck_in_result_units(-0.2, state, 1) == pytest.approx(-0.2 * swing, abs=1e-6)
    # A 1-point match: a game is the match, an equity of 1 is 50% more.
    assert luck_in_result_units(0.3, start({"length": 1}), 0) == pytest.approx(0.15, abs=1e-6)


def test_luck_in_a_money_session_is_in_points_of_the_cube() -> None:
    state = start({"length": 0})
    assert luck_in_result_units(0.25, state, 0) == pytest.approx(0.25)
    doubled_twice = cast(BackgammonState, SimpleNamespace(is_money=True, length=0, cube=4))
    assert luck_in_result_units(0.25, doubled_twice, 0) == 1.0


def test_the_result_of_a_finished_match_is_half_the_match_for_the_winner() -> None:
    log = list(islice(notations_played(VARIANT, {"length": 3}, (MEDIUM, MEDIUM), random.Random(2)), 10_000))
    states = list(replay_states(VARIANT, {"length": 3}, log))
    first, last = states[0], states[-1]
    assert isinstance(first, BackgammonState) and isinstance(last, BackgammonState)
    assert last.result is not None and last.result.winner is not None
    winner = last.result.winner
    assert match_result(first, last, winner) == pytest.approx(0.5)
    assert match_result(first, last, 1 - winner) == pytest.approx(-0.5)


def test_match_winning_chances_are_one_and_zero_once_the_match_is_decided() -> None:
    assert match_winning_chances(5, (5, 3), 0) == 1.0
    assert match_winning_chances(5, (5, 3), 1) == 0.0
    assert match_winning_chances(5, (0, 0), 0) == pytest.approx(0.5)


def test_the_luck_adjusted_result_takes_away_ones_own_luck_and_gives_back_the_opponents() -> None:
    # Named cases (MWC): a lucky winner, an unlucky winner, a lucky loser.
    assert luck_adjusted(0.5, 0.30, 0.10) == pytest.approx(0.30)  # won, but mostly by the dice
    assert luck_adjusted(0.5, -0.10, 0.20) == pytest.approx(0.80)  # won against the dice
    assert luck_adjusted(-0.5, 0.40, -0.05) == pytest.approx(-0.95)  # lost with the dice on their side


def test_the_luck_adjusted_results_of_the_two_players_add_up_to_zero() -> None:
    first = start({"length": 3})
    tallies = (LuckTally(), LuckTally())
    tallies[0].add(0.2, first, 0)
    tallies[1].add(-0.1, first, 1)
    report = PlayerReport(0, 0, 0.0, 0, 0, 0, 0.0, 1)
    mine, theirs = with_luck((report, replace(report, seat=1)), tallies, first, first)
    assert mine.luck_total == pytest.approx(0.2) and theirs.luck_total == pytest.approx(-0.1)
    assert mine.result == theirs.result == 0.0  # nothing played yet
    assert mine.luck_adjusted == pytest.approx(-(theirs.luck_adjusted or 0.0))
    assert mine.luck_unit == MWC
    money = start({"length": 0})
    assert with_luck((report, report), tallies, money, money)[0].luck_unit == POINTS


def test_an_analysis_gives_each_player_gnubgs_luck_in_mwc_and_the_luck_adjusted_result() -> None:
    options = {"length": 1}
    log = list(islice(notations_played(VARIANT, options, (MEDIUM, MEDIUM), random.Random(4)), 10_000))
    analysis = analyse(options, log, level="1ply")
    one, two = analysis.players
    assert one.luck_total is not None and two.luck_total is not None
    assert one.luck_result is not None and two.luck_result is not None
    # A 1-point match, the cube out of play: MWC is half the equity, roll by roll.
    assert one.luck_result == pytest.approx(one.luck_total / 2, abs=1e-5)
    assert sorted([one.result, two.result]) == [-0.5, 0.5]  # type: ignore[type-var]
    assert one.luck_adjusted == pytest.approx((one.result or 0.0) - one.luck_result + two.luck_result)
    assert one.luck_unit == two.luck_unit == MWC
    # GNU Backgammon's opening luck differs from the 15-roll one by the first move's worth only.
    states = list(replay_states(VARIANT, options, log))
    opening = VARIANT.parse_action(states[0], log[0])
    assert isinstance(opening, Opening)
    roller = 0 if opening.die0 > opening.die1 else 1
    state = states[0]
    assert isinstance(state, BackgammonState)
    board = (state.sides[1 - roller], state.sides[roller])
    mine = roll_outlook(sage_board(board), context(state, roller, money=False)).equities
    theirs = roll_outlook(sage_board((board[1], board[0])), context(state, 1 - roller, money=False)).equities
    first_move = (sum(mine[r] for r in NON_DOUBLES) + sum(theirs[r] for r in NON_DOUBLES)) / 30
    ours = analysis.players[roller]
    assert ours.luck_total == pytest.approx(ours.luck + first_move, abs=1e-5)


def test_an_analysis_saved_before_luck_was_kept_still_loads() -> None:
    report = PlayerReport(0, 10, 0.2, 1, 0, 0, 0.3, 20)
    saved = analysis_to_json(Analysis((report, report), (), ((0.5, 1.0),), Scale.MATCH, "2-ply"))
    for player in saved["players"]:
        for name in ("luck_total", "luck_result", "result", "luck_adjusted", "luck_unit"):
            del player[name]
    loaded = analysis_from_json(saved)
    assert loaded.players[0].luck == 0.3
    assert loaded.players[0].luck_result is None and loaded.players[0].luck_adjusted is None
    assert loaded.players[0].luck_unit is None
