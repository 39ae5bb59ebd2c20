"""The world-class level, ``expert`` (issue 36): registered and offered in backgammon only, legal
checker plays through the move filters, and cube decisions in money sessions and matches."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.ai.backgammon_bgsage import COACH_LEVEL, for_money, ranked_plays
from engine.ai.backgammon_expert import EXPERT, ExpertPlayer
from engine.ai.backgammon_players import BENCHMARK
from engine.ai.levels import LEVEL_PLAYERS, LEVEL_TITLES, LEVELS, find_player, level_player, levels_of
from engine.ai.random_player import sample_outcome
from engine.backgammon.board import side_from
from engine.backgammon.game import BackgammonState, Beaver, Checkers, Double, Pass, Phase, RollOn, Take
from engine.backgammon.variant import VARIANT
from kits.backgammon import KIT
from tests.engine.test_backgammon_money import act, money

SHALLOW = replace(EXPERT, level="1ply")
"""The expert's logic (move filters, cube equities) at 1-ply: whole games in a few seconds."""


def test_expert_is_a_backgammon_level_at_the_hints_depth() -> None:
    assert KIT.players.get()["expert"] is EXPERT
    assert find_player("backgammon", "Expert") is EXPERT is level_player("backgammon", "expert")
    assert levels_of("backgammon") == ("easy", "medium", "hard", "expert")
    assert "expert" not in levels_of("ring") and "expert" not in levels_of("space")
    assert EXPERT.level == COACH_LEVEL == "3ply"
    assert isinstance(LEVEL_PLAYERS["backgammon"]["expert"], ExpertPlayer)
    assert set(LEVEL_TITLES) == set(LEVELS) and "world class" in LEVEL_TITLES["expert"]


def test_expert_plays_cubeless_money_in_the_arena() -> None:
    """The arena seats every level for cubeless money play; the expert too (bgsage at 3-ply)."""
    seated = BENCHMARK.seat(EXPERT)
    assert seated == for_money(EXPERT) and seated.sage.money and not EXPERT.sage.money


def play_out(state: BackgammonState, player: ExpertPlayer, seed: int) -> tuple[BackgammonState, set[str]]:
    """``player`` on both sides until the game in progress ends; every action it took is legal (the
    state accepts it, a checker play is one of the roll's legal plays). The kinds of decision taken."""
    chance, rng = random.Random(seed), random.Random(seed + 1)
    first, kinds = state.game_number, set()
    while state.outcome() is None and state.game_number == first:
        spec = state.chance()
        if spec is not None:
            state = state.apply(state.chance_action(sample_outcome(spec, chance)))
            continue
        action = player(state.view(state.to_move()), rng)
        if isinstance(action, Checkers):
            assert action.result in {p.result for p in state.plays()}
        kinds.add(f"{state.phase.value}:{type(action).__name__}")
        state = state.apply(action)
    return state, kinds


@pytest.mark.parametrize(
    ("options", "seed"), [({"length": 0, "jacoby": False}, 3), ({"length": 5}, 4), ({"length": 0}, 5)]
)
def test_expert_plays_a_whole_game_legally_with_the_cube(options: dict[str, object], seed: int) -> None:
    start = VARIANT.new_game(options)
    end, kinds = play_out(start, SHALLOW, seed)
    assert end.score != start.score  # the game was played to its end and scored
    assert any(kind.startswith("play:") for kind in kinds)
    assert any(kind.startswith("decide:") for kind in kinds), "the cube was considered"


def test_expert_best_play_is_ours_and_agrees_with_the_hint_at_the_opening() -> None:
    """After 3-1 (8/5 6/5), Black's 6-4: the filtered 3-ply choice is one of our plays, the hints' best."""
    rolled = act(money(), "roll")
    state = rolled.apply(rolled.chance_action((6, 4)))
    assert state.phase is Phase.PLAY
    play = EXPERT.best_play(state)
    assert play is not None and play in state.plays()
    assert play.result == ranked_plays(state, COACH_LEVEL)[0][1].result


def racing(**options: object) -> BackgammonState:
    """White to roll or double, far ahead in a race with no gammon left (see the money tests)."""
    sides = (side_from({1: 5, 2: 5, 3: 5}), side_from({4: 5, 5: 5, 6: 5}))
    return VARIANT.new_game(options).but(sides=sides, phase=Phase.DECIDE, turn_seat=0)


@pytest.mark.parametrize("options", [{"length": 0}, {"length": 7}])
def test_expert_doubles_and_passes_a_hopeless_race_in_money_and_match_play(
    options: dict[str, object],
) -> None:
    state = racing(**options)
    assert EXPERT(state.view(0), random.Random(1)) == Double()
    doubled = act(state, "double")
    assert EXPERT(doubled.view(1), random.Random(1)) == Pass()


def test_expert_takes_an_early_double_and_rolls_at_the_start() -> None:
    state = act(money(), "double")
    assert EXPERT(state.view(0), random.Random(1)) == Take()
    opening = act(VARIANT.new_game({"length": 5}), "opening 3-1", "8/5 6/5")
    assert opening.phase is Phase.DECIDE
    assert EXPERT(opening.view(1), random.Random(1)) == RollOn()


def test_expert_plays_a_single_game_without_the_cube() -> None:
    single, kinds = play_out(VARIANT.new_game({"length": 1}), SHALLOW, 7)
    assert single.outcome() is not None and not any(kind.startswith("decide:") for kind in kinds)


def test_expert_beavers_an_early_double_in_money_play_with_beavers() -> None:
    """Black doubles at once after White's good opening 3-1: bgsage's own 3-ply beaver."""
    state = act(money(beavers=True), "double")
    assert EXPERT(state.view(0), random.Random(1)) == Beaver()


def test_expert_plays_old_english_by_the_positions_our_plays_reach() -> None:
    """No engine knows the five-checker limit: the expert plays as every level does there (bgsage's
    evaluation of the positions OUR legal plays reach), at its depth."""
    state = act(VARIANT.new_game({"length": 1, "rules": "oldenglish"}), "opening 6-5")
    action = EXPERT(state.view(state.to_move()), random.Random(1))
    assert isinstance(action, Checkers) and action.result in {p.result for p in state.plays()}
