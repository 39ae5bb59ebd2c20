"""The backgammon tutor's check (``engine.ai.backgammon_tutor``) and the ``tutor`` match option:
a play or cube decision losing at least the analysis's error threshold is named with the better
choice and its cost; a good one is not; what is not a decision of the tutor's is never judged; a
match with the tutor is unrated; other games and Old English refuse the option, saying why."""

from __future__ import annotations

import random

import pytest

from engine import BadOptionsError, find_variant
from engine.ai.backgammon_tutor import tutor_check
from engine.ai.coaches import has_tutor
from engine.ai.coaches import tutor_check as game_tutor_check
from engine.ai.coaching import ERROR, THRESHOLDS, Analysis
from engine.ai.levels import seeded_move
from engine.ai.random_player import sample_outcome
from engine.backgammon.game import BackgammonState, MoveChecker, Phase

BACKGAMMON = find_variant("backgammon")


def first_play(seed: int = 5, length: int = 5) -> BackgammonState:
    """A match's first play (5-3 with seed 5: 8/3 6/3 is best)."""
    rng = random.Random(seed)
    state = BACKGAMMON.new_game({"length": length})
    while (spec := state.chance()) is not None:
        state = state.apply(state.chance_action(sample_outcome(spec, rng)))
    assert isinstance(state, BackgammonState) and state.phase is Phase.PLAY
    return state


def steps_to(state: BackgammonState, *moves: tuple[int, int]) -> list[str]:
    """The one-checker steps of ``moves`` (from, to), as the bot saves them."""
    steps: list[str] = []
    for src, dst in moves:
        step = next(
            a for a in state.legal_actions() if isinstance(a, MoveChecker) and (a.src, a.dst) == (src, dst)
        )
        steps.append(step.notation)
        state = state.apply(step)
    return steps


def first_cube_question(seed: int = 5) -> BackgammonState:
    rng = random.Random(seed)
    state = BACKGAMMON.new_game({"length": 5})
    while not (isinstance(state, BackgammonState) and state.phase is Phase.DECIDE):
        spec = state.chance()
        if spec is not None:
            state = state.apply(state.chance_action(sample_outcome(spec, rng)))
        else:
            state = state.apply(seeded_move("backgammon", "medium", state.view(state.to_move()), 1))
    return state


def test_the_tutor_warns_of_a_blunder_with_the_better_play_and_its_cost() -> None:
    state = first_play()
    assert state.dice == (5, 3)
    note = tutor_check(state, steps_to(state, (8, 3), (8, 5)))
    assert note is not None and note.what == "play"
    assert note.better == "8/3 6/3" and note.chosen == "8/5 8/3"
    assert note.loss >= ERROR
    assert note.text() == f"Tutor: this play loses {note.loss:.3f} against 8/3 6/3"


def test_the_tutor_says_nothing_of_the_best_play() -> None:
    state = first_play()
    assert tutor_check(state, steps_to(state, (8, 3), (6, 3))) is None


def test_the_tutors_threshold_is_the_analysis_error_threshold() -> None:
    assert ERROR == THRESHOLDS[1] == Analysis.__dataclass_fields__["thresholds"].default[1] == 0.04


def test_the_tutor_warns_of_a_wrong_double_and_a_wrong_pass() -> None:
    state = first_cube_question()
    double = tutor_check(state, ["double"])
    assert double is not None and double.what == "double" and double.better == "No double (roll)"
    assert tutor_check(state, ["roll"]) is None
    doubled = state.apply(state.parse("double"))
    assert isinstance(doubled, BackgammonState) and doubled.phase is Phase.TAKE
    dropped = tutor_check(doubled, ["pass"])
    assert dropped is not None and dropped.what == "pass" and dropped.better.startswith("Take")
    assert tutor_check(doubled, ["take"]) is None


def test_the_tutor_judges_only_checker_plays_and_cube_actions_of_backgammon() -> None:
    state = first_play()
    assert tutor_check(state, []) is None
    assert tutor_check(state, ["not a move"]) is None
    assert tutor_check(first_cube_question(), ["resign single"]) is None
    assert has_tutor("backgammon") and not has_tutor("ring") and not has_tutor("space")
    ring = find_variant("ring").new_game()
    assert game_tutor_check("ring", ring.view(0), ["anything"]) is None


def test_a_match_with_the_tutor_is_unrated_and_says_so() -> None:
    options = BACKGAMMON.resolve_options({"length": 5, "tutor": True})
    assert not BACKGAMMON.counts_for_rating(options)
    assert BACKGAMMON.describe_options(options) == "5-point match, tutor on: unrated"
    money = BACKGAMMON.resolve_options({"length": 0, "tutor": True})
    assert "tutor on: unrated" in BACKGAMMON.describe_options(money)


def test_a_match_without_the_tutor_saves_its_options_as_before() -> None:
    assert BACKGAMMON.resolve_options({"length": 5}) == {"length": 5, "rules": "standard"}
    assert BACKGAMMON.resolve_options({"length": 5, "tutor": False}) == {"length": 5, "rules": "standard"}


def test_the_tutor_option_is_refused_with_old_english_and_a_value_not_true_or_false() -> None:
    with pytest.raises(BadOptionsError, match="does not judge Old English"):
        BACKGAMMON.resolve_options({"tutor": True, "rules": "oldenglish"})
    with pytest.raises(BadOptionsError, match="tutor must be true or false"):
        BACKGAMMON.resolve_options({"tutor": "yes"})


def test_other_games_have_no_tutor_option() -> None:
    with pytest.raises(BadOptionsError, match="no option tutor"):
        find_variant("ring").resolve_options({"tutor": True})
