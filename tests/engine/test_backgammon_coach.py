"""Backgammon hints and match analysis (engine.ai.backgammon_hints, engine.ai.backgammon_analysis) and
the winning-chances chart (render.analysis_chart)."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import islice

import pytest
from PIL import Image

from engine.ai import backgammon_analysis as analysis_module
from engine.ai.backgammon_analysis import BLUNDER, DOUBTFUL, ERROR, analyse, category
from engine.ai.backgammon_bgsage import COACH, EASY, HARD, MEDIUM, SagePlayer, analyzer, context, sage_board
from engine.ai.backgammon_filter import roll_outlook
from engine.ai.backgammon_hints import hint
from engine.ai.coaching import (
    Analysis,
    AnalysisStopped,
    NoHintError,
    Scale,
    analysis_from_json,
    analysis_to_json,
)
from engine.ai.random_player import sample_outcome
from engine.ai.selfplay import notations_played
from engine.backgammon.board import Board, RuleSet, side_from
from engine.backgammon.game import BackgammonState, Checkers, Double, Opening, Phase, Roll, Take
from engine.backgammon.notation import play_text
from engine.backgammon.turn import roll_dice
from engine.backgammon.variant import VARIANT
from engine.backgammon.words import move_number
from engine.protocol import replay_states
from render import SEAT_STYLES
from render.analysis_chart import HEIGHT, WIDTH, render_chances

Player = SagePlayer


def match_log(
    options: Mapping[str, object], seed: int, players: Sequence[Player], limit: int = 100_000
) -> list[str]:
    """A match played by ``players`` (seat 0, seat 1) with dice from ``seed``: its action log."""
    return list(islice(notations_played(VARIANT, options, players, random.Random(seed)), limit))


def play_positions(log: Sequence[str], options: Mapping[str, object]) -> list[BackgammonState]:
    """The positions of ``log`` where a player chooses among several plays."""
    found = []
    for state in replay_states(VARIANT, options, log):
        assert isinstance(state, BackgammonState)
        if state.phase is Phase.PLAY and not state.played and len(state.plays()) > 1:
            found.append(state)
    return found


def _play_state(board: Board, dice: tuple[int, int], rules: RuleSet = RuleSet.STANDARD) -> BackgammonState:
    opp, me = board
    return BackgammonState(
        sides=(me, opp),
        rules=rules,
        length=1,
        phase=Phase.PLAY,
        turn_seat=0,
        dice=dice,
        start=(me, opp),
        dice_left=roll_dice(*dice),
    )


RACE_AHEAD = (side_from({6: 5, 5: 4, 4: 3, 3: 3}), side_from({6: 2, 5: 3, 4: 3, 3: 3, 2: 2, 1: 2}))
"""The roller (``board[1]``, 54 pips) 17 ahead of 71 in a race: a double and a pass."""


def _deciding(board: Board) -> BackgammonState:
    opp, me = board
    return BackgammonState(sides=(me, opp), length=7, phase=Phase.DECIDE, turn_seat=0)


# -- hints ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def medium_match() -> list[str]:
    return match_log({"length": 3}, 5, (MEDIUM, EASY))


def test_hints_are_ordered_by_equity_and_the_best_is_what_the_level_plays(medium_match: list[str]) -> None:
    positions = play_positions(medium_match, {"length": 3})
    assert len(positions) >= 10
    for state in positions[:12]:
        given = hint(state, player=MEDIUM)
        equities = [c.equity for c in given.choices]
        assert equities == sorted(equities, reverse=True)
        assert given.choices[0].best and given.choices[0].diff == 0.0
        assert not any(c.best for c in given.choices[1:])
        assert all(c.diff == pytest.approx(c.equity - equities[0]) for c in given.choices)
        assert len(given.choices) == min(5, given.total) and given.total == len(state.plays())
        assert given.scale is Scale.MATCH and given.level == "1-ply" and given.approximate is None
        action = MEDIUM(state, random.Random(0))
        assert isinstance(action, Checkers)
        chosen = next(p for p in state.plays() if p.result == action.result)
        assert given.choices[0].text == play_text(chosen)


def test_the_hint_is_the_coachs_play_one_ply_deeper_than_hard(medium_match: list[str]) -> None:
    state = play_positions(medium_match, {"length": 3})[3]
    given = hint(state)  # COACH by default: 3-ply in a match, hard plays 2-ply
    action = COACH(state, random.Random(0))
    assert isinstance(action, Checkers)
    chosen = next(p for p in state.plays() if p.result == action.result)
    assert given.level == "3-ply" and given.choices[0].text == play_text(chosen)
    assert HARD.match_level == "2ply"


def test_a_cube_hint_doubles_a_strong_race_and_the_taker_passes() -> None:
    deciding = _deciding(RACE_AHEAD)
    given = hint(deciding, player=MEDIUM)
    assert given.question == "Double or roll" and given.total == 2
    assert [c.text for c in given.choices] == ["Double to 2", "No double (roll)"]
    assert given.choices[0].best and given.choices[1].diff < 0
    assert "pass" in given.advice and given.chances is not None and given.chances[0] > 0.8
    ctx = context(deciding, 0, money=False)
    cube = analyzer("1ply", True).cube_action(sage_board(deciding.board), **ctx.kwargs())
    assert given.choices[0].equity == pytest.approx(min(cube.equity_dt, cube.equity_dp))
    taking = deciding.apply(Double())
    answer = hint(taking, player=MEDIUM)
    assert answer.question == "Take or pass" and answer.choices[0].text == "Pass"
    assert answer.choices[0].equity == pytest.approx(-cube.equity_dp)
    assert answer.choices[1].equity == pytest.approx(-cube.equity_dt)
    assert answer.chances is not None and answer.chances[0] < 0.2


def test_old_english_hints_are_flagged_approximate_and_money() -> None:
    state = _play_state(
        (side_from({24: 2, 13: 5, 8: 3, 6: 5}), side_from({24: 2, 13: 5, 8: 3, 6: 5})), (6, 5)
    )
    state = replace(state, rules=RuleSet.OLDENGLISH)
    given = hint(state, player=MEDIUM)
    assert given.approximate is not None and "five-checker limit" in given.approximate
    assert given.scale is Scale.MONEY
    assert "24/13" not in {c.text for c in given.choices}  # a sixth checker on the 13-point
    # At the hard level's depth, the plays its 1-ply screen leaves out are said to be left out.
    opening = replace(
        _play_state((side_from({24: 2, 13: 5, 8: 3, 6: 5}), side_from({24: 2, 13: 5, 8: 3, 6: 5})), (5, 2)),
        rules=RuleSet.OLDENGLISH,
    )
    deep = hint(opening)
    assert deep.level == "3-ply" and deep.approximate is not None
    assert len(deep.choices) < min(5, deep.total) and "not evaluated deeper" in deep.advice


def test_no_hint_before_the_roll_or_for_a_forced_play() -> None:
    rolling = replace(_deciding(RACE_AHEAD), phase=Phase.ROLL)
    with pytest.raises(NoHintError, match="before the roll"):
        hint(rolling, player=MEDIUM)
    forced = _play_state((side_from({24: 2, 13: 5, 8: 3, 6: 5}), side_from({1: 1})), (6, 5))
    with pytest.raises(NoHintError, match="nothing to choose"):
        hint(forced, player=MEDIUM)
    with pytest.raises(NoHintError, match="opening roll"):
        hint(BackgammonState.new(length=3), player=MEDIUM)


# -- the analysis --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def one_point() -> tuple[list[str], Analysis]:
    log = match_log({}, 11, (HARD, EASY))
    return log, analyse({}, log, level="2ply")  # hard's own depth: its plays lose nothing


def test_a_player_who_always_plays_the_engines_best_play_has_pr_zero(
    one_point: tuple[list[str], Analysis],
) -> None:
    log, result = one_point
    analysis = result
    best, noisy = analysis.players
    assert best.unforced > 5 and best.equity_lost == pytest.approx(0.0, abs=1e-9) and best.pr == 0.0
    assert (best.doubtful, best.errors, best.blunders) == (0, 0, 0)
    # The noisy player's counts are its decisions' categories, and its PR the mean loss x 500.
    mine = [d for d in analysis.decisions if d.seat == 1 and d.unforced]
    assert noisy.unforced == len(mine) > 5
    assert noisy.equity_lost == pytest.approx(sum(d.loss for d in mine))
    assert noisy.pr == pytest.approx(500 * noisy.equity_lost / noisy.unforced)
    assert noisy.doubtful == sum(DOUBTFUL <= d.loss < ERROR for d in mine)
    assert noisy.errors == sum(ERROR <= d.loss < BLUNDER for d in mine)
    assert noisy.blunders == sum(d.loss >= BLUNDER for d in mine)
    assert noisy.equity_lost > 0 and all(d.kind == "play" for d in analysis.decisions)
    # Each play keeps the roll it was made with, the higher die first, as the log rolled it.
    rolled = {}
    states = list(replay_states(VARIANT, {}, log))
    for state, after, text in zip(states, states[1:], log, strict=False):
        action = VARIANT.parse_action(state, text)
        if isinstance(action, Opening | Roll) and isinstance(after, BackgammonState):
            dice = (action.die0, action.die1) if isinstance(action, Opening) else (action.d1, action.d2)
            # A decision's place is game G, move M (words.move_number): one move holds a turn of each.
            rolled[(after.game_number, move_number(after), after.turn_seat)] = f"{max(dice)}-{min(dice)}"
    assert all(d.roll == rolled[(d.game, d.turn, d.seat)] for d in analysis.decisions)
    # A played-out game's curve closes at its winner; one point per roll before it.
    openings = sum(t.startswith("opening") and t[-1] != t[-3] for t in log)  # a tie is rolled again
    rolls = openings + sum(t.startswith("roll") for t in log)
    assert len(analysis.chances) == 1 and len(analysis.chances[0]) == rolls + 1
    final = list(replay_states(VARIANT, {}, log))[-1].outcome()
    assert final is not None and analysis.chances[0][-1] == (1.0 if final.winner == 0 else 0.0)
    assert analysis.scale is Scale.MATCH and analysis.approximate is None


def test_luck_is_the_sum_of_each_rolls_luck_as_the_engine_computes_it() -> None:
    """Each roll's luck at 1-ply (GNU Backgammon's 0-ply, its default for luck): our roll outlook,
    which agrees with bgsage's own luck of a 2-ply cube analysis (1-ply per roll) but where the two
    pick a different best play of a roll (bgsage's per-roll pick is internal to it)."""
    log = match_log({}, 3, (MEDIUM, MEDIUM), limit=24)
    analysis = analyse({}, log, level="2ply")
    sage = analyzer("2ply", True)
    expected = [0.0, 0.0]
    theirs = [0.0, 0.0]
    rolls = [0, 0]
    for state, text in zip(replay_states(VARIANT, {}, log), log, strict=False):
        assert isinstance(state, BackgammonState)
        action = VARIANT.parse_action(state, text)
        if isinstance(action, Opening) and action.die0 != action.die1:
            seat = 0 if action.die0 > action.die1 else 1
            board = (state.sides[1 - seat], state.sides[seat])
            dice, opening = (action.die0, action.die1), True
        elif isinstance(action, Roll):
            seat, board, dice, opening = state.turn_seat or 0, state.board, (action.d1, action.d2), False
        else:
            continue
        ctx = context(state, seat, money=False)
        expected[seat] += roll_outlook(sage_board(board), ctx).luck(dice, opening=opening)
        luck = sage.roll_luck(sage_board(board), *dice, **ctx.kwargs(), is_opening_roll=opening)
        theirs[seat] += luck.luck
        rolls[seat] += 1
    assert [p.rolls for p in analysis.players] == rolls and sum(rolls) >= 8
    assert [p.luck for p in analysis.players] == pytest.approx(expected, abs=1e-6)
    assert any(abs(x) > 0.01 for x in expected)
    assert expected == pytest.approx(theirs, abs=0.05)


def test_a_wrong_double_and_a_right_take_are_cube_decisions() -> None:
    # Three points, and the first player to decide doubles at once: too early.
    rng = random.Random(2)
    state = VARIANT.new_game({"length": 3})
    log: list[str] = []
    while not (isinstance(state, BackgammonState) and state.phase is Phase.DECIDE):
        spec = state.chance()
        action = state.chance_action(sample_outcome(spec, rng)) if spec is not None else MEDIUM(state, rng)
        log.append(action.notation)
        state = state.apply(action)
    log += [Double().notation, Take().notation]
    analysis = analyse({"length": 3}, log, level="2ply")
    cube = next(d for d in analysis.decisions if d.kind == "cube")
    take = next(d for d in analysis.decisions if d.kind == "take")
    assert cube.played == "Double" and cube.best == "No double" and cube.loss > ERROR and cube.unforced
    assert take.seat == 1 - cube.seat and take.played == take.best == "Take" and take.loss == 0.0
    assert analysis.players[cube.seat].unforced >= 1 and analysis.players[cube.seat].pr
    assert category(cube.loss) in ("error", "blunder")


def test_old_english_analysis_is_flagged_approximate() -> None:
    options = {"rules": "oldenglish"}
    log = match_log(options, 4, (HARD, EASY), limit=30)
    analysis = analyse(options, log, level="2ply")
    assert analysis.approximate is not None and analysis.scale is Scale.MONEY
    assert analysis.players[0].equity_lost == pytest.approx(0.0, abs=1e-9)


def test_the_analysis_round_trips_through_json_and_can_be_stopped(
    one_point: tuple[list[str], Analysis],
) -> None:
    log, analysis = one_point
    assert analysis_from_json(analysis_to_json(analysis)) == analysis
    # An analysis saved before plays kept their roll reads back, without rolls.
    older = analysis_to_json(analysis)
    for decision in older["decisions"]:
        del decision["roll"]
    assert all(d.roll is None for d in analysis_from_json(older).decisions)
    # Each decision keeps the candidates judged (the .sgf file's), through JSON text too; an analysis
    # saved before they were kept reads back without them.
    assert all(d.candidates for d in analysis.decisions)
    assert analysis_from_json(json.loads(json.dumps(analysis_to_json(analysis)))) == analysis
    for decision in older["decisions"]:
        del decision["candidates"]
    assert all(d.candidates == () for d in analysis_from_json(older).decisions)
    with pytest.raises(ValueError, match="not a saved analysis"):
        analysis_from_json(
            {"decisions": [{"candidates": [1]}], **{k: v for k, v in older.items() if k != "decisions"}}
        )
    with pytest.raises(ValueError, match="not a saved analysis"):
        analysis_from_json({"players": []})
    with pytest.raises(AnalysisStopped):
        analyse({}, log, should_stop=lambda: True)


def test_categories_follow_the_thresholds() -> None:
    assert [category(x) for x in (0.0, 0.019, 0.02, 0.039, 0.04, 0.079, 0.08, 1.0)] == [
        None,
        None,
        "doubtful",
        "doubtful",
        "error",
        "error",
        "blunder",
        "blunder",
    ]
    assert analysis_module.LEVEL == COACH.match_level == COACH.cube_level == "3ply"


# -- the chart -----------------------------------------------------------------------------------


def test_the_chart_is_a_png_of_the_expected_size(one_point: tuple[list[str], Analysis]) -> None:
    _, analysis = one_point
    styles = SEAT_STYLES["backgammon"]
    for games in (analysis.chances, ((0.5, 0.6, 1.0), (0.5, 0.2, 0.0), (0.5,)), ()):
        png = render_chances(games, 1, "bob (Black)", (styles[0], styles[1]))
        image = Image.open(io.BytesIO(png))
        assert image.format == "PNG" and image.size == (WIDTH, HEIGHT) == (800, 420)
    # Seat 1's curve is seat 0's turned over: the two pictures differ.
    assert render_chances(((0.5, 0.9, 1.0),), 0, "a", (styles[0], styles[1])) != render_chances(
        ((0.5, 0.9, 1.0),), 1, "a", (styles[0], styles[1])
    )


def test_a_match_ended_in_the_middle_of_a_turn_is_analysed_without_that_turns_play() -> None:
    """A forced step is saved at once; a resignation before the rest of the turn leaves the log in the
    middle of a turn (seen in the real process: a forced entry from the bar, then "resigned")."""
    analysis = analyse({"length": 1, "rules": "standard"}, ["opening 4-1", "move 24/23"])
    assert [d for d in analysis.decisions if d.kind == "play"] == []
    assert len(analysis.players) == 2
