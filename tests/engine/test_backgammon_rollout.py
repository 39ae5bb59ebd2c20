"""Rollouts of a backgammon decision (``engine.ai.backgammon_rollout``, issue 36): reproducible with a
seed, standard errors that shrink as the games grow, a stop that stops, progress over every
candidate, the candidates of each kind of decision, and the positions refused."""

from __future__ import annotations

import pytest

from engine.ai.backgammon_bgsage import ranked_plays
from engine.ai.backgammon_rollout import (
    BATCH,
    CUBE,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NO_DOUBLE,
    PASS,
    PLAY,
    TAKE,
    Rollout,
    RolloutRefused,
    RolloutSettings,
    RolloutStopped,
    rollout,
    rollout_json,
)
from engine.backgammon.actions import Double
from engine.backgammon.board import BAR, RuleSet, Side
from engine.backgammon.formats import MatchInfo
from engine.backgammon.game import BackgammonState
from engine.backgammon.layers import MoneyRules
from engine.backgammon.notation import play_text
from engine.backgammon.position_start import PastedPosition, start_from


def side(points: dict[int, int]) -> Side:
    row = [0] * 25
    for point, n in points.items():
        row[point - 1] = n
    row[BAR] = 0
    return tuple(row)


def position(
    on_roll: dict[int, int], other: dict[int, int], dice: tuple[int, int] = (0, 0)
) -> BackgammonState:
    info = MatchInfo(dice=dice)
    pasted = PastedPosition((side(other), side(on_roll)), info, "test")
    return start_from(pasted, RuleSet.STANDARD, 0, MoneyRules(jacoby=False))


BEAR_OFF = position({5: 2, 4: 2, 3: 2}, {6: 2, 4: 2, 2: 2})
"""Six checkers each, 24 pips each, the cube centred: a cube decision (quick games)."""
RACE = position({6: 3, 5: 3, 4: 3, 3: 2, 8: 2, 9: 2}, {6: 4, 5: 3, 4: 3, 3: 2, 2: 1, 8: 2}, dice=(6, 3))
"""A race, 6-3 to play."""


def test_a_rollout_with_the_same_seed_gives_the_same_figures_and_another_seed_others() -> None:
    first = rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=5))
    again = rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=5))
    other = rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=6))
    assert first == again
    assert first.candidates[0].equity != other.candidates[0].equity


def test_standard_errors_shrink_as_the_games_per_candidate_grow() -> None:
    few = rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=3))
    many = rollout(BEAR_OFF, RolloutSettings(trials=8 * BATCH, seed=3))
    for a, b in zip(few.candidates[:2], many.candidates[:2], strict=True):
        assert 0 < b.se < a.se * 0.6  # about 1/sqrt(8) of it
        assert abs(a.equity - b.equity) < 3 * a.se


def test_a_cube_decision_rolls_out_no_double_double_take_and_double_pass_for_the_doubler() -> None:
    found = rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=1))
    assert found.kind == CUBE and found.seat == BEAR_OFF.turn_seat
    assert [c.label for c in found.candidates] == [NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS]
    assert found.candidates[2].equity == 1.0 and found.candidates[2].chances is None
    chances = found.candidates[0].chances
    assert chances is not None and 0.5 < chances.win < 1.0 and chances.win_gammon == 0.0


def test_the_answer_to_a_double_rolls_out_take_and_pass_for_the_player_who_answers() -> None:
    doubled = BEAR_OFF.apply(Double())
    found = rollout(doubled, RolloutSettings(trials=BATCH, seed=1))
    assert isinstance(doubled, BackgammonState)
    assert found.kind == CUBE and found.seat == doubled.to_move()
    assert [c.label for c in found.candidates] == [TAKE, PASS]
    assert found.candidates[1].equity == -1.0
    doubler = rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=1))
    assert found.candidates[0].equity == pytest.approx(-doubler.candidates[1].equity)


def test_a_checker_play_rolls_out_the_best_plays_and_the_one_played_best_first_with_progress() -> None:
    told: list[tuple[int, int]] = []
    found = rollout(
        RACE, RolloutSettings(trials=BATCH, seed=2, plays=1), progress=lambda d, t: told.append((d, t))
    )
    assert found.kind == PLAY
    assert len(found.candidates) in (1, 2)
    equities = [c.equity for c in found.candidates]
    assert equities == sorted(equities, reverse=True)
    assert told and told[-1] == (len(found.candidates) * BATCH, len(found.candidates) * BATCH)
    assert all(d <= t for d, t in told)


def test_the_play_made_is_rolled_out_and_marked_even_when_the_screen_drops_it() -> None:
    worst = play_text(ranked_plays(RACE, "1ply")[-1][1])
    found = rollout(RACE, RolloutSettings(trials=BATCH, seed=2, plays=1), keep=worst)
    marked = [c for c in found.candidates if c.played]
    assert [c.label for c in marked] == [worst]
    assert len(found.candidates) == 2  # the screen's best, and the one made


def test_a_rollout_stops_between_two_batches_once_told_to() -> None:
    asked = [0]

    def stop() -> bool:
        asked[0] += 1
        return asked[0] > 2

    with pytest.raises(RolloutStopped):
        rollout(BEAR_OFF, RolloutSettings(trials=50 * BATCH, seed=1), should_stop=stop)
    assert asked[0] == 3  # two batches played, then stopped: not the fifty


def test_a_rollout_reads_back_from_its_json() -> None:
    data = rollout_json(BEAR_OFF.to_json(), None, BATCH, 4)
    assert Rollout.from_json(data) == rollout(BEAR_OFF, RolloutSettings(trials=BATCH, seed=4))


def test_old_english_is_refused_with_the_reason() -> None:
    state = start_from(
        PastedPosition(
            (side({6: 5, 5: 5, 4: 5}), side({6: 5, 5: 5, 4: 5})), MatchInfo(match_length=3), "test"
        ),
        RuleSet.OLDENGLISH,
        3,
    )
    with pytest.raises(RolloutRefused, match="five-checker limit"):
        rollout(state, RolloutSettings(trials=BATCH))


def test_a_position_without_a_decision_is_refused() -> None:
    opening = BackgammonState.new(RuleSet.STANDARD, 0)
    with pytest.raises(RolloutRefused, match="no decision to roll out"):
        rollout(opening, RolloutSettings(trials=BATCH))


def test_games_per_candidate_are_a_multiple_of_36_within_the_bounds() -> None:
    for bad in (0, 35, 40, 100_000):
        with pytest.raises(ValueError):
            RolloutSettings(trials=bad)
