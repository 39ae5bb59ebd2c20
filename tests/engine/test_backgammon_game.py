"""Backgammon games and turns (RULINGS, backgammon 1-4): the opening roll, rolling, moving one checker
at a time within the legal plays, forced and impossible rolls, scoring, saving."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engine.backgammon.board import RuleSet, side_from
from engine.backgammon.game import (
    BackgammonState,
    BackgammonWin,
    Checkers,
    MoveChecker,
    Phase,
    Roll,
    score,
)
from engine.backgammon.plays import legal_plays
from engine.backgammon.variant import VARIANT
from engine.errors import (
    CorruptStateError,
    GameOverError,
    IllegalActionError,
    NotationError,
    NotYourTurnError,
)
from engine.protocol import CHANCE


def opened(d0: int, d1: int, length: int = 1, rules: str = "standard") -> BackgammonState:
    s = VARIANT.new_game({"length": length, "rules": rules})
    return s.apply(s.chance_action((d0, d1)))


def playing(
    me: dict[int, int], opp: dict[int, int], dice: tuple[int, int], **fields: object
) -> BackgammonState:
    """Seat 0 to play ``dice``; ``me`` and ``opp`` as {point: checkers} in each side's own numbering."""
    sides = (side_from(me), side_from(opp))
    return BackgammonState(
        sides=sides,
        phase=Phase.PLAY,
        turn_seat=0,
        dice=dice,
        start=sides,
        dice_left=(dice[0],) * 4 if dice[0] == dice[1] else (max(dice), min(dice)),
        turn_number=5,
        **fields,  # type: ignore[arg-type]
    )


def test_opening_ties_are_rolled_again() -> None:
    s = BackgammonState.new()
    s2 = s.apply(s.chance_action((4, 4)))
    assert s2.phase is Phase.OPENING and s2.to_move() == CHANCE
    assert "roll again" in (s2.last_text or "")


def test_the_higher_opening_die_plays_both_dice() -> None:
    s = opened(1, 3)
    assert s.turn == 1 and s.to_move() == 1
    assert s.dice == (3, 1)
    assert VARIANT.parse_action(s, "8/5 6/5") == Checkers(
        VARIANT.parse_action(s, "8/5 6/5").moves,
        VARIANT.parse_action(s, "8/5 6/5").result,  # type: ignore[attr-defined]
    )
    assert "8/5 6/5" in {p for p in (s.apply(VARIANT.parse_action(s, "8/5 6/5")).last_text or "").split(": ")}


def test_without_a_cube_action_the_next_roll_happens_by_itself() -> None:
    s = opened(6, 1)
    s = s.apply(VARIANT.parse_action(s, "13/7 8/7"))
    assert s.phase is Phase.ROLL and s.turn == 1 and s.to_move() == CHANCE
    spec = s.chance()
    assert spec is not None and spec.prompt_seat is None
    s = s.apply(s.chance_action((2, 2)))
    assert s.phase_text == "Black to play 2-2"
    assert s.sides[0][6] == 2  # White made its 7 point


def test_checkers_move_one_at_a_time_and_only_moves_inside_a_legal_play_are_offered() -> None:
    s = opened(6, 4)
    steps = {a.notation for a in s.legal_actions()}
    assert steps == {"move 24/18", "move 13/7", "move 8/2", "move 24/20", "move 13/9", "move 8/4", "move 6/2"}
    s = s.apply(VARIANT.parse_action(s, "move 24/18"))
    assert s.phase is Phase.PLAY and s.dice_left == (4,)
    assert "24/18" in (s.last_text or "")
    assert {a.notation for a in s.legal_actions()} == {
        "move 24/20",
        "move 18/14",
        "move 13/9",
        "move 8/4",
        "move 6/2",
    }
    s = s.apply(VARIANT.parse_action(s, "move 18/14"))
    assert s.phase is Phase.ROLL and s.last_play is not None
    assert s.last_text == "White rolled 6-4: 24/14"


def test_a_step_that_leaves_no_legal_play_of_the_whole_roll_is_not_offered() -> None:
    # 6-3, the opponent holding my 9, 14 and 16 points: 7/1 is a legal move of the 6 by itself, but
    # after it the 3 cannot be played, while other plays use both dice (the must-play rule).
    s = playing({17: 1, 7: 1, 1: 13}, {11: 2, 16: 2, 9: 2}, (6, 3))
    assert {a.notation for a in s.legal_actions()} == {"move 17/11", "move 7/4"}
    with pytest.raises(IllegalActionError):
        VARIANT.parse_action(s, "move 7/1")
    assert all(len(p.moves) == 2 for p in legal_plays(s.board, 6, 3))


@pytest.mark.parametrize("seed", range(4))
def test_every_legal_play_and_only_those_can_be_made_by_steps(seed: int) -> None:
    rng = random.Random(seed)
    checked = 0
    while checked < 60:
        s = opened(rng.randint(2, 6), 1)
        for _ in range(rng.randint(0, 40)):
            if s.is_terminal():
                break
            if s.to_move() == CHANCE:
                s = s.apply(s.chance_action((rng.randint(1, 6), rng.randint(1, 6))))
            else:
                s = s.apply(rng.choice(s.legal_actions()))
        if s.phase is not Phase.PLAY or s.played:
            continue
        assert s.dice is not None
        expected = {p.result for p in legal_plays(s.board, *s.dice)}
        reached: set[object] = set()
        frontier = [s]
        while frontier:
            node = frontier.pop()
            if node.phase is not Phase.PLAY or node.turn != s.turn:
                reached.add((node.sides[1 - (s.turn or 0)], node.sides[s.turn or 0]))
                continue
            for action in node.legal_actions():
                frontier.append(node.apply(action))
        assert reached == expected
        checked += 1


def test_a_forced_play_is_the_only_action_and_is_said_to_be_forced() -> None:
    s = playing({13: 1, 1: 14}, {19: 2, 22: 2, 23: 2}, (6, 5))
    actions = s.legal_actions()
    assert len(actions) == 1 and isinstance(actions[0], Checkers)
    after = s.apply(actions[0])
    assert after.last_text is not None and after.last_text.endswith("(forced)")


def test_a_roll_that_cannot_be_played_passes_the_turn() -> None:
    s = playing({25: 1, 1: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}, (6, 6))
    s = replace(s, phase=Phase.ROLL, dice=None, start=None, dice_left=())
    after = s.apply(Roll(6, 6))
    assert after.turn == 1 and after.last_text == "White rolled 6-6 and cannot move"
    assert after.last_play is not None and after.last_play.moves == ()


def test_a_whole_play_can_be_typed_from_the_start_or_to_finish_a_turn() -> None:
    s = opened(3, 1)
    whole = s.apply(VARIANT.parse_action(s, "8/5 6/5"))
    assert whole.turn == 1 and whole.sides[0][4] == 2
    half = s.apply(VARIANT.parse_action(s, "move 8/5"))
    finished = half.apply(VARIANT.parse_action(half, "6/5"))
    assert finished.sides == whole.sides
    with pytest.raises(IllegalActionError, match="ways to finish"):
        VARIANT.parse_action(half, "24/21")


def test_bearing_off_with_a_higher_die_names_the_die_when_either_could() -> None:
    s = playing({3: 1, 2: 1}, {24: 15}, (6, 5))
    steps = {(stepped.move.src, stepped.move.dst, stepped.die) for stepped, _ in s.steps()}
    assert {(3, 0, 6), (3, 0, 5)} <= steps
    assert MoveChecker(3, 0, 6).notation == "move 3/off with 6"
    assert VARIANT.parse_action(s, "move 3/off with 6") == MoveChecker(3, 0, 6)
    after = s.apply(VARIANT.parse_action(s, "move 3/off"))
    assert after.dice_left == (6,)  # the smaller die that does the job


def test_bad_notation_says_what_was_not_understood_and_lists_the_legal_plays() -> None:
    s = opened(6, 1)
    with pytest.raises(NotationError, match=r"The legal plays are: .*13/7 8/7"):
        VARIANT.parse_action(s, "13-7")
    with pytest.raises(IllegalActionError, match="not a legal play"):
        VARIANT.parse_action(s, "24/17")
    with pytest.raises(IllegalActionError, match="not a move that leads"):
        VARIANT.parse_action(s, "move 6/4")


def test_a_play_before_rolling_is_refused() -> None:
    s = opened(6, 1)
    s = s.apply(VARIANT.parse_action(s, "13/7 8/7"))
    with pytest.raises(NotYourTurnError):
        VARIANT.parse_action(s, "24/23")
    with pytest.raises(NotYourTurnError):
        s.apply(Checkers((), s.board))


def test_a_single_game_scores_one() -> None:
    assert score(side_from({}), side_from({1: 3})) is BackgammonWin.SINGLE


def test_a_gammon_scores_two_when_the_loser_bore_off_none() -> None:
    assert score(side_from({}), side_from({1: 15})) is BackgammonWin.GAMMON


def test_a_backgammon_when_the_loser_still_has_a_checker_in_the_winners_home_board_or_on_the_bar() -> None:
    assert score(side_from({}), side_from({1: 14, 19: 1})) is BackgammonWin.BACKGAMMON
    assert score(side_from({}), side_from({1: 14, 25: 1})) is BackgammonWin.BACKGAMMON


def test_bearing_off_the_last_checker_wins_the_game_at_its_level() -> None:
    s = playing({1: 1}, {24: 15}, (2, 1))
    after = s.apply(VARIANT.parse_action(s, "move 1/off"))
    outcome = after.outcome()
    assert outcome is not None and outcome.winner == 0
    assert outcome.reason is BackgammonWin.BACKGAMMON and outcome.points == 3
    with pytest.raises(GameOverError):
        after.apply(Roll(1, 2))


def play_random(seed: int, rules: str = "standard", length: int = 1) -> list[BackgammonState]:
    rng = random.Random(seed)
    s = VARIANT.new_game({"rules": rules, "length": length})
    states = [s]
    while not s.is_terminal():
        if s.to_move() == CHANCE:
            s = s.apply(s.chance_action((rng.randint(1, 6), rng.randint(1, 6))))
        else:
            s = s.apply(rng.choice(s.legal_actions()))
        states.append(s)
    return states


@pytest.mark.parametrize("rules", list(RuleSet))
@pytest.mark.parametrize("length", [1, 3])
def test_random_matches_end_with_a_scored_outcome(rules: RuleSet, length: int) -> None:
    for seed in range(2):
        final = play_random(seed, rules.value, length)[-1]
        outcome = final.outcome()
        assert outcome is not None and outcome.winner in (0, 1) and outcome.length == length
        assert final.score[outcome.winner] >= length
        assert (
            max(s.cube for s in play_random(seed, rules.value, length)) == 1
            or rules is not RuleSet.OLDENGLISH
        )


def test_every_state_round_trips_through_json_and_every_action_through_its_notation() -> None:
    rng = random.Random(5)
    s = VARIANT.new_game({"length": 3})
    while not s.is_terminal():
        if s.to_move() == CHANCE:
            action = s.chance_action((rng.randint(1, 6), rng.randint(1, 6)))
        else:
            action = rng.choice(s.legal_actions())
        assert VARIANT.parse_action(s, action.notation) == action or isinstance(action, Checkers)
        s = s.apply(action)
        data = json.loads(s.canonical())
        back = VARIANT.from_json(data)
        assert back == s and back.canonical() == s.canonical()


def test_a_corrupt_saved_state_is_refused() -> None:
    data = opened(6, 4, length=5).to_json()
    bad = [
        {**data, "schema": 99},
        {**data, "phase": "opening"},
        {**data, "sides": [[1] * 25, [0] * 25]},
        {k: v for k, v in data.items() if k != "dice"},
        {**data, "cube": 3},
        {**data, "score": [5, 0]},
        {**data, "played": [[24, 12, 0, 6]]},
        {**data, "extra": 1},
        {**data, "turn_seat": True},
    ]
    for case in bad:
        with pytest.raises(CorruptStateError):
            VARIANT.from_json(case)
