"""What a review shows of each analysed decision (engine.ai.review, the fields an analysis keeps for
it): the position it was made in, the equities of the choice made and of the best one, and the
choice's rank."""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import islice
from typing import Any

import pytest

from engine.ai.backgammon_analysis import analyse
from engine.ai.backgammon_bgsage import EASY, MEDIUM
from engine.ai.coaching import Analysis, Decision, analysis_from_json, analysis_to_json
from engine.ai.review import decision_state
from engine.ai.selfplay import notations_played
from engine.backgammon.game import BackgammonState, Double, Phase, Take
from engine.backgammon.variant import VARIANT
from engine.backgammon.words import move_number
from engine.protocol import JSONDict, replay_states


@pytest.fixture(scope="module")
def analysed() -> tuple[list[str], Analysis]:
    log = list(islice(notations_played(VARIANT, {}, (MEDIUM, EASY), random.Random(11)), 60))
    return log, analyse({}, log, level="2ply")


def test_each_checker_play_keeps_its_equities_rank_and_position(analysed: tuple[list[str], Analysis]) -> None:
    log, analysis = analysed
    plays = [d for d in analysis.decisions if d.kind == "play"]
    assert len(plays) > 5 and any(d.loss > 0 for d in plays)
    for d in plays:
        assert d.played_equity is not None and d.best_equity is not None
        assert d.rank is not None and d.choices is not None and 1 <= d.rank <= d.choices
        assert d.loss == pytest.approx(d.best_equity - d.played_equity)
        assert (d.rank == 1) == (d.loss == 0.0)
        state = decision_state(VARIANT, {}, log, d)
        assert isinstance(state, BackgammonState) and state.phase is Phase.PLAY and not state.played
        assert (state.game_number, move_number(state), state.to_move()) == (d.game, d.turn, d.seat)
        assert state.dice_text == d.roll and len(state.plays()) == d.choices
        assert d.action is not None and state.apply(VARIANT.parse_action(state, log[d.action]))


def saved_before_reviews(
    analysis: Analysis, log: list[str], options: dict[str, Any] | None = None
) -> JSONDict:
    """``analysis`` as it was saved before reviews: no equities, rank, choices nor action index, and
    each decision's ``turn`` the state's turn counter (not yet the move players count)."""
    saved = analysis_to_json(analysis)
    states = list(replay_states(VARIANT, options or {}, log))
    for d in saved["decisions"]:
        d["turn"] = states[d["action"]].turn_number
        for name in ("played_equity", "best_equity", "rank", "choices", "action"):
            del d[name]
    return saved


def test_an_analysis_saved_before_these_fields_finds_its_positions_by_game_and_turn(
    analysed: tuple[list[str], Analysis],
) -> None:
    log, analysis = analysed
    old = analysis_from_json(saved_before_reviews(analysis, log))
    assert all(d.rank is None and d.action is None for d in old.decisions)
    for before, now in zip(old.decisions, analysis.decisions, strict=True):
        assert decision_state(VARIANT, {}, log, before) == decision_state(VARIANT, {}, log, now)
    # A decision the log does not hold has no position.
    stray = replace(old.decisions[0], game=9)
    assert decision_state(VARIANT, {}, log, stray) is None
    assert decision_state(VARIANT, {}, log, replace(stray, action=len(log))) is None


def doubled_at_once(options: dict[str, object]) -> list[str]:
    """A match played by the medium computer until a player may first double, who then doubles (too
    early) and is taken."""
    log: list[str] = []
    state = VARIANT.new_game(options)
    for text in notations_played(VARIANT, options, (MEDIUM, MEDIUM), random.Random(2)):
        if isinstance(state, BackgammonState) and state.phase is Phase.DECIDE:
            return [*log, Double().notation, Take().notation]
        log.append(text)
        state = state.apply(VARIANT.parse_action(state, text))
    raise AssertionError("no cube decision in the whole match")


def test_a_wrong_double_ranks_second_of_two_and_the_take_first() -> None:
    log = doubled_at_once({"length": 3})
    analysis = analyse({"length": 3}, log, level="2ply")
    cube = next(d for d in analysis.decisions if d.kind == "cube")
    take = next(d for d in analysis.decisions if d.kind == "take")
    assert (cube.rank, cube.choices, take.rank, take.choices) == (2, 2, 1, 2)
    assert cube.played_equity is not None and cube.best_equity is not None
    assert cube.loss == pytest.approx(cube.best_equity - cube.played_equity)
    for d, phase in ((cube, Phase.DECIDE), (take, Phase.TAKE)):
        found = decision_state(VARIANT, {"length": 3}, log, d)
        assert isinstance(found, BackgammonState) and found.phase is phase
        old = replace(d, action=None, turn=found.turn_number)  # as saved before the action index
        assert decision_state(VARIANT, {"length": 3}, log, old) == found


def test_a_decision_of_old_keeps_loading_with_none() -> None:
    old = {"seat": 0, "game": 1, "turn": 3, "kind": "play", "played": "24/18", "best": "13/7",
           "loss": 0.05, "unforced": True, "roll": "6-1"}  # fmt: skip
    assert Decision(**old).rank is None and Decision(**old).played_equity is None
