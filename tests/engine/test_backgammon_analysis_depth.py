"""Issue 24: hints and analyses at one depth, deeper than any computer level; the issue's two positions
against GNU Backgammon's 2-ply; "too good to double"; match equity in cube hints."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import islice

import pytest
from bgbot_cpp import get_met

from engine.ai import backgammon_analysis as analysis_module
from engine.ai.backgammon_analysis import ERROR, Cubes, analyse, category, double_decision, play_decision
from engine.ai.backgammon_bgsage import COACH, COACH_LEVEL, LEVELS, MEDIUM, analyzer, context, sage_board
from engine.ai.backgammon_hints import TOO_GOOD, hint, match_words
from engine.ai.selfplay import notations_played
from engine.backgammon.board import Board, RuleSet, side_from
from engine.backgammon.formats import board_from_position_id, match_info_from_id
from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.notation import play_text
from engine.backgammon.variant import VARIANT
from tests.engine.test_backgammon_coach import _play_state


def _plies(level: str) -> int:
    return int(level.removesuffix("ply"))


def test_hints_and_analyses_are_one_ply_deeper_than_every_level() -> None:
    coach = {_plies(COACH.eval_level), _plies(COACH.match_level), _plies(COACH.cube_level)}
    assert coach == {_plies(COACH_LEVEL)} == {_plies(analysis_module.LEVEL)}
    for player in LEVELS.values():
        deepest = max(_plies(player.eval_level), _plies(player.match_level), _plies(player.cube_level))
        assert deepest < _plies(COACH_LEVEL), player.name


def _issue_state(gnubg: str, rules: RuleSet) -> BackgammonState:
    """The position of a ``POSITIONID:MATCHID`` with its roll (seat 0 on roll, as in both of the issue's)."""
    position, match = gnubg.split(":")
    info = match_info_from_id(match)
    assert info.on_roll == 0
    state = _play_state(board_from_position_id(position), info.dice, rules)
    return replace(state, length=info.match_length, score=info.score)


def _loss(state: BackgammonState, text: str) -> float:
    play = next(p for p in state.plays() if play_text(p) == text)
    return play_decision(state, play.result).loss


@pytest.mark.parametrize(
    ("gnubg", "rules", "played", "gnubg_loss"),
    [
        # 13-point nackgammon, 2-0, 5-1: GNU Backgammon 2-ply has 6/5* 6/1* best (the old analysis: -0.077).
        ("4Bw8OCGYZ8OAIQ:MIG0ASAAAAAE", RuleSet.NACKGAMMON, "6/5* 6/1*", 0.0),
        # 6-8 in 13 points, 4-3: GNU Backgammon 2-ply charges 23/16 -0.033 (the old analysis: a blunder).
        ("4DljwDDgOXiAKQ:MAGuAWAAQAAE", RuleSet.STANDARD, "23/16", 0.033),
    ],
)
def test_the_issues_positions_agree_with_the_hint_and_with_gnubg(
    gnubg: str, rules: RuleSet, played: str, gnubg_loss: float
) -> None:
    state = _issue_state(gnubg, rules)
    given = hint(state)
    assert given.level == "3-ply"
    # The play the hint names best is never charged by the analysis.
    assert _loss(state, given.choices[0].text) == 0.0
    loss = _loss(state, played)
    assert category(loss) in (None, "doubtful") and loss < ERROR
    assert loss == pytest.approx(gnubg_loss, abs=0.02)


def test_the_medium_computer_is_not_judged_by_its_own_depth() -> None:
    """Before, the analysis played medium's own 1-ply: its PR came out 0.0 by construction."""
    options = {"length": 1}
    log = list(islice(notations_played(VARIANT, options, (MEDIUM, MEDIUM), random.Random(3)), 70))
    analysis = analyse(options, log)
    assert analysis.level == "3-ply"
    assert sum(p.unforced for p in analysis.players) >= 10
    assert sum(p.equity_lost for p in analysis.players) > 0


TOO_GOOD_BOARD: Board = (
    side_from({25: 2, 13: 6, 8: 4, 6: 3}),
    side_from({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 13: 2}),
)
"""The roller (``board[1]``) has a closed board, two checkers on the bar against it: a gammon
more often than not. The opponent would pass a double: playing on wins more."""


def _deciding(board: Board, length: int = 7, score: tuple[int, int] = (0, 0)) -> BackgammonState:
    opp, me = board
    return BackgammonState(sides=(me, opp), length=length, score=score, phase=Phase.DECIDE, turn_seat=0)


def test_too_good_to_double_is_named_in_the_hint_and_a_double_there_is_charged() -> None:
    state = _deciding(TOO_GOOD_BOARD)
    ctx = context(state, 0, money=False)
    cube = analyzer(COACH_LEVEL, True).cube_action(sage_board(state.board), **ctx.kwargs())
    assert cube.equity_nd > cube.equity_dp and cube.equity_dt > cube.equity_dp
    given = hint(state)
    assert given.choices[0].text == f"{TOO_GOOD} (roll)" and given.choices[0].best
    assert given.advice.startswith("Too good to double")
    cubes = Cubes(COACH_LEVEL)
    doubled = double_decision(state, True, cubes)
    assert doubled.best == TOO_GOOD and doubled.played == "Double"
    assert doubled.loss == pytest.approx(cube.equity_nd - cube.equity_dp) and doubled.loss > 0.5
    assert double_decision(state, False, cubes).loss == 0.0


RACE_AHEAD: Board = (side_from({6: 5, 5: 4, 4: 3, 3: 3}), side_from({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}))
"""The roller 17 pips ahead of 71 in a race: a double and a pass."""


def test_cube_hints_in_a_match_give_match_winning_chances_the_take_point_and_the_away_score() -> None:
    state = _deciding(RACE_AHEAD, length=7, score=(4, 5))  # 3-away / 2-away
    given = hint(state)
    assert "3-away / 2-away" in given.advice
    # A pass gives the doubler 1 point: 2-away / 2-away, 50% by the match equity table.
    assert f"double/pass {get_met(2, 2, False):.1%}" in given.advice and "take point" in given.advice
    answer = hint(replace(state, phase=Phase.TAKE))
    assert answer.advice.startswith("2-away / 3-away") and "pass 50.0%" in answer.advice
    assert "your take point" in answer.advice
    # Nothing of the kind outside match play (money play has no score to speak of).
    assert match_words(replace(state, length=0, score=(0, 0)), 0, 0.5, 1.0, 1.0) == ""


def test_a_roll_with_a_dead_cube_is_no_cube_decision() -> None:
    """As GNU Backgammon counts them: when a single win at the current cube already wins the match,
    rolling on is no decision (the bot still lets the player double, and a double still counts)."""
    cubes = Cubes(COACH_LEVEL)
    alive = _deciding(RACE_AHEAD, length=7, score=(4, 5))
    assert double_decision(alive, False, cubes).unforced
    # Two checkers left on the 1-point against fifteen: the game is won, and at 5-3 with the cube at
    # 2 a win is the match. No double, double/take and double/pass are all worth the match.
    won = _deciding((side_from({6: 3, 5: 3, 4: 3, 3: 3, 2: 3}), side_from({1: 2})), length=7, score=(5, 3))
    dead = replace(won, cube=2, cube_owner=0)
    cube = cubes.of(dead.board, dead, 0)
    assert cube.equity_nd == cube.equity_dt == pytest.approx(1.0)
    assert not double_decision(dead, False, cubes).unforced
    assert double_decision(dead, True, cubes).unforced


def test_an_analysis_tells_its_progress_position_by_position_up_to_a_total_known_from_the_start() -> None:
    """The progress a running analysis's message shows ("decision 80 of 154"): one report per
    position judged, counted from 1 to a total that never changes, the last one equal to it."""
    log = list(notations_played(VARIANT, {"length": 1}, (MEDIUM, MEDIUM), random.Random(3)))
    seen: list[tuple[int, int]] = []
    analyse({"length": 1}, log, level="2ply", progress=lambda done, total: seen.append((done, total)))
    totals = {total for _, total in seen}
    assert len(totals) == 1
    (total,) = totals
    assert [done for done, _ in seen] == list(range(1, total + 1))
    assert 0 < total <= len(log)
