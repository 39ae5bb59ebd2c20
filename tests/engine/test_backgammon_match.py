"""Match play (RULINGS, backgammon 5-6): the doubling cube, the Crawford game, games following each
other, resignation offers, forfeits and the interchange codes of a match position."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.backgammon.board import side_from
from engine.backgammon.game import BackgammonState, BackgammonWin, Phase
from engine.backgammon.variant import VARIANT
from engine.errors import BadOptionsError, IllegalActionError
from engine.protocol import CHANCE, Forfeit, TurnConfirmation


def act(state: BackgammonState, *texts: str) -> BackgammonState:
    for text in texts:
        state = state.apply(VARIANT.parse_action(state, text))
    return state


def match(length: int, rules: str = "standard") -> BackgammonState:
    """White has opened with 3-1 (8/5 6/5); Black is on turn."""
    s = VARIANT.new_game({"length": length, "rules": rules})
    return act(s, "opening 3-1", "8/5 6/5")


def almost_won(seat: int, **fields: object) -> BackgammonState:
    """``seat`` to play 2-1 with one checker left on its 1 point (Black with all 15 at home)."""
    me, opp = side_from({1: 1}), side_from({19: 15})
    sides = (me, opp) if seat == 0 else (opp, me)
    base = BackgammonState(
        sides=sides,
        phase=Phase.PLAY,
        turn_seat=seat,
        dice=(2, 1),
        start=sides,
        dice_left=(2, 1),
        turn_number=9,
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def test_match_length_and_rule_set_are_options_with_limits() -> None:
    assert VARIANT.new_game({"length": 25}).length == 25
    for bad in ({"length": -1}, {"length": 26}, {"rules": "hypergammon"}, {"colour": "red"}):
        with pytest.raises(BadOptionsError):
            VARIANT.new_game(bad)
    assert (
        VARIANT.describe_options({"length": 7, "rules": "oldenglish"}) == "7-point match, Old English rules"
    )


def test_a_one_point_match_has_no_cube_and_rolls_by_itself() -> None:
    s = match(1)
    assert not s.uses_cube and s.phase is Phase.ROLL and s.chance() is not None
    with pytest.raises(IllegalActionError, match="without the doubling cube"):
        s.apply(VARIANT.parse_action(s, "double"))


def test_old_english_has_no_cube() -> None:
    s = match(5, "oldenglish")
    assert not s.uses_cube and s.phase is Phase.ROLL
    # A double asked for at any moment is refused for the reason that holds (issue 24: "/move double"
    # in Old English said "A double comes before the roll", as if there were a cube).
    for when in (s, act(s, "roll 6-5")):
        with pytest.raises(IllegalActionError, match="Old English is played without the doubling cube"):
            when.apply(VARIANT.parse_action(when, "double"))


def test_the_player_on_turn_may_double_before_rolling_with_a_centred_cube() -> None:
    s = match(5)
    assert s.phase is Phase.DECIDE and s.to_move() == 1
    assert {a.notation for a in s.legal_actions()} == {"roll", "double"}
    rolled = act(s, "roll")
    assert rolled.to_move() == CHANCE and rolled.chance() is not None
    with pytest.raises(IllegalActionError, match="before the roll"):
        act(rolled, "roll 6-5", "double")


def test_a_take_doubles_the_cube_and_gives_it_to_the_taker() -> None:
    s = act(match(5), "double")
    assert s.phase is Phase.TAKE and s.to_move() == 0 and s.turn == 1
    assert {a.notation for a in s.legal_actions()} == {"take", "pass"}
    s = act(s, "take")
    assert s.cube == 2 and s.cube_owner == 0 and s.phase is Phase.ROLL and s.turn == 1


def test_only_the_owner_of_the_cube_may_redouble() -> None:
    s = act(match(7), "double", "take", "roll 6-5", "24/13")
    assert s.turn == 0 and s.phase is Phase.DECIDE  # White owns the cube at 2
    s = act(s, "double", "take")
    assert s.cube == 4 and s.cube_owner == 1
    s = act(s, "roll 6-5", "24/13")
    assert s.turn == 1 and s.phase is Phase.DECIDE  # Black owns it now
    s = act(s, "roll", "roll 2-1", "13/11 6/5")
    assert s.turn == 0 and s.phase is Phase.ROLL  # White does not own it: no double offered


def test_a_pass_loses_the_game_at_the_value_before_the_double() -> None:
    s = act(match(7), "double", "take", "roll 6-5", "24/13", "double", "pass")
    assert s.score == (2, 0) and s.game_number == 2 and s.phase is Phase.OPENING
    assert s.cube == 1 and s.cube_owner is None  # a new game starts with the cube centred


def test_a_game_scores_its_level_times_the_cube() -> None:
    s = almost_won(0, length=9, cube=4, cube_owner=0)
    s = act(s, "move 1/off")
    assert s.score == (12, 0)  # a backgammon (Black has all 15 in White's home board) at 4
    outcome = s.outcome()
    assert outcome is not None and outcome.reason is BackgammonWin.BACKGAMMON and outcome.points == 12


def test_games_follow_each_other_until_the_match_is_won() -> None:
    s = act(almost_won(1, length=3, score=(0, 0)), "move 1/off")
    assert s.score == (0, 3) and s.is_terminal()
    s = almost_won(0, length=5, score=(1, 1), sides=(side_from({1: 1}), side_from({1: 14})))
    s = replace(s, start=s.sides)
    s = act(s, "move 1/off")
    assert s.score == (2, 1) and not s.is_terminal() and s.phase is Phase.OPENING and s.game_number == 2
    assert s.sides == VARIANT.new_game().sides and s.turn is None
    assert "Score: White 2, Black 1 (to 5)" in (s.last_text or "")


def test_the_crawford_game_follows_the_first_time_a_player_reaches_one_short_and_has_no_double() -> None:
    two_checkers = (side_from({1: 1}), side_from({1: 14}))
    s = almost_won(0, length=5, score=(3, 0), sides=two_checkers, start=two_checkers)
    s = act(s, "move 1/off")
    assert s.score == (4, 0) and s.crawford and "Crawford" in (s.last_text or "")
    s = act(s, "opening 3-1", "8/5 6/5")
    assert s.phase is Phase.ROLL  # nobody may double in the Crawford game
    assert "Crawford game" in s.phase_text
    # After the Crawford game the trailer may double again.
    post = almost_won(
        1, length=5, score=(4, 0), crawford=True, crawford_done=True, sides=(two_checkers[1], two_checkers[0])
    )
    post = replace(post, start=post.sides)
    post = act(post, "move 1/off")
    assert post.score == (4, 1) and not post.crawford and post.crawford_done
    post = act(post, "opening 1-3", "8/5 6/5")
    assert post.phase is Phase.DECIDE and post.turn == 0  # the leader may double too: the cube still matters


def test_no_double_is_offered_when_the_cube_already_decides_the_match() -> None:
    s = replace(match(3), score=(1, 1), cube=2, cube_owner=1)
    assert not s.may_double(1)


def test_a_resignation_offer_is_accepted_at_its_level_times_the_cube() -> None:
    s = act(match(7), "double", "take", "roll 6-5", "24/13")
    assert {o.notation for o in s.resign_offers()} == {"resign single", "resign gammon", "resign backgammon"}
    s = act(s, "resign gammon")
    assert s.phase is Phase.RESIGN and s.to_move() == 1
    assert {a.notation for a in s.legal_actions()} == {"accept", "decline"}
    s = act(s, "accept")
    assert s.score == (0, 4) and s.game_number == 2


def test_a_declined_resignation_returns_to_where_the_game_was() -> None:
    s = act(match(7), "roll", "roll 6-5", "24/13")
    before = s
    s = act(s, "resign single", "decline")
    assert s.phase is before.phase and s.to_move() == before.to_move() and s.score == (0, 0)


def test_resignation_offers_only_before_moving_and_not_in_a_one_point_match() -> None:
    assert match(1).resign_offers() == ()
    s = act(match(5), "roll", "roll 6-4", "move 24/18")
    assert s.resign_offers() == ()
    with pytest.raises(IllegalActionError):
        act(s, "resign single")


def test_a_forfeited_match_is_won_by_the_opponent_and_rated_at_its_length() -> None:
    s = match(7)
    outcome = VARIANT.forfeit(s, 1, Forfeit.TIMEOUT, "Black ran out of time")
    assert outcome.winner == 0 and outcome.length == 7 and outcome.reason is Forfeit.TIMEOUT


def test_a_played_out_match_is_rated_at_its_length() -> None:
    s = act(almost_won(0, length=1), "move 1/off")
    outcome = s.outcome()
    assert outcome is not None and outcome.length == 1 and outcome.points == 3


def test_cube_decisions_are_final_at_once_and_checker_moves_wait_for_confirm() -> None:
    s = match(5)
    assert VARIANT.confirmation_of(s, VARIANT.parse_action(s, "double")) is TurnConfirmation.EACH_STEP
    rolled = act(s, "roll", "roll 6-4")
    step = VARIANT.parse_action(rolled, "move 24/18")
    assert VARIANT.confirmation_of(rolled, step) is TurnConfirmation.CONFIRM
    assert (
        VARIANT.confirmation_of(rolled, VARIANT.parse_action(rolled, "24/14")) is TurnConfirmation.EACH_STEP
    )


def test_position_codes_are_the_gnubg_id_and_the_xgid() -> None:
    s = VARIANT.new_game({"length": 5})
    s = act(s, "opening 3-1")
    codes = dict(VARIANT.position_codes(s))
    assert codes["GNUBG ID"].startswith("4HPwATDgc/ABMA:")
    # GNUBG's player 0 is seat 0 (White), XG's top player: -1 in the turn field.
    assert codes["XGID"] == "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:0:0:0:5:10"
