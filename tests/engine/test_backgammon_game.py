"""One backgammon game without cube: opening roll, turns, scoring, JSON round trip."""

from __future__ import annotations

import json
import random

import pytest

from engine.backgammon.board import RuleSet, side_from
from engine.backgammon.game import (
    BackgammonState,
    BackgammonWin,
    Checkers,
    Phase,
    Roll,
    score,
)
from engine.errors import (
    CorruptStateError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
from engine.protocol import CHANCE


def test_opening_ties_are_rolled_again() -> None:
    s = BackgammonState.new()
    s2 = s.apply(s.chance_action((4, 4)))
    assert s2.phase is Phase.OPENING and s2.to_move() == CHANCE
    assert "roll again" in (s2.last_text or "")


def test_the_higher_opening_die_plays_both_dice() -> None:
    s = BackgammonState.new().apply(BackgammonState.new().chance_action((1, 3)))
    assert s.turn == 1 and s.to_move() == 1
    assert s.dice == (3, 1)
    assert "8/5 6/5" in {a.notation for a in s.legal_actions()}


def test_a_turn_is_roll_then_play_then_the_other_seat_rolls() -> None:
    s = BackgammonState.new()
    s = s.apply(s.chance_action((6, 1)))
    s = s.apply(s.parse("13/7 8/7"))
    assert s.phase is Phase.ROLL and s.turn == 1 and s.to_move() == CHANCE
    assert s.chance() is not None and s.chance().prompt_seat == 1  # type: ignore[union-attr]
    s = s.apply(s.chance_action((2, 2)))
    assert s.phase_text == "Black to play 2-2"
    assert s.sides[0][6] == 2  # White made its 7 point


def test_a_play_before_rolling_is_refused() -> None:
    s = BackgammonState.new()
    s = s.apply(s.chance_action((6, 1)))
    action = s.legal_actions()[0]
    s = s.apply(action)
    with pytest.raises(NotYourTurnError):
        s.apply(action)
    with pytest.raises(NotYourTurnError):
        s.parse("24/23")


def test_an_illegal_play_is_refused() -> None:
    s = BackgammonState.new()
    s = s.apply(s.chance_action((6, 1)))
    with pytest.raises(IllegalActionError):
        s.apply(Checkers((), s.board))
    with pytest.raises(NotationError):
        s.parse("13-7")


def test_a_single_game_scores_one() -> None:
    assert score(side_from({}), side_from({1: 3})) is BackgammonWin.SINGLE


def test_a_gammon_scores_two_when_the_loser_bore_off_none() -> None:
    assert score(side_from({}), side_from({1: 15})) is BackgammonWin.GAMMON


def test_a_backgammon_when_the_loser_still_has_a_checker_in_the_winners_home_board_or_on_the_bar() -> None:
    assert score(side_from({}), side_from({1: 14, 19: 1})) is BackgammonWin.BACKGAMMON
    assert score(side_from({}), side_from({1: 14, 25: 1})) is BackgammonWin.BACKGAMMON


def play_random(seed: int, rules: RuleSet = RuleSet.STANDARD) -> list[BackgammonState]:
    rng = random.Random(seed)
    s = BackgammonState.new(rules)
    states = [s]
    while not s.is_terminal():
        if s.to_move() == CHANCE:
            s = s.apply(s.chance_action((rng.randint(1, 6), rng.randint(1, 6))))
        else:
            s = s.apply(rng.choice(s.legal_actions()))
        states.append(s)
    return states


@pytest.mark.parametrize("rules", list(RuleSet))
def test_random_games_end_with_a_scored_outcome(rules: RuleSet) -> None:
    for seed in range(3):
        final = play_random(seed, rules)[-1]
        outcome = final.outcome()
        assert outcome is not None and outcome.winner in (0, 1)
        assert outcome.points == {"single": 1, "gammon": 2, "backgammon": 3}[str(outcome.reason)]
        assert sum(final.sides[outcome.winner]) == 0
        with pytest.raises(GameOverError):
            final.apply(Roll(1, 2))


def test_every_state_round_trips_through_json() -> None:
    for s in play_random(42):
        data = json.loads(s.canonical())
        back = BackgammonState.from_json(data)
        assert back == s
        assert back.canonical() == s.canonical()


def test_a_corrupt_saved_state_is_refused() -> None:
    data = BackgammonState.new().to_json()
    with pytest.raises(CorruptStateError):
        BackgammonState.from_json({**data, "schema": 99})
    with pytest.raises(CorruptStateError):
        BackgammonState.from_json({**data, "phase": "play"})
    with pytest.raises(CorruptStateError):
        BackgammonState.from_json({**data, "sides": [[1] * 25, [0] * 25]})
    with pytest.raises(CorruptStateError):
        BackgammonState.from_json({k: v for k, v in data.items() if k != "dice"})
