"""Money play (``length`` 0): single games one after another, each scored on its own, until a
player stops or a limit is reached; the Jacoby rule, beavers (no raccoons), automatic doubles with a
cap, no Crawford rule, and saved sessions read back."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from engine.backgammon.board import side_from
from engine.backgammon.game import BackgammonState, BackgammonWin, MoneyRules, Phase, StopAfterGame
from engine.backgammon.variant import VARIANT
from engine.errors import BadOptionsError, IllegalActionError
from engine.protocol import CHANCE, Action, Forfeit
from tests import oracles
from tests.engine.test_backgammon_matfile import gnubg_import, needs_gnubg


def act(state: BackgammonState, *texts: str) -> BackgammonState:
    for text in texts:
        state = state.apply(VARIANT.parse_action(state, text))
    return state


def money(**options: object) -> BackgammonState:
    """A money game; White has opened with 3-1 (8/5 6/5), Black is on turn."""
    return act(VARIANT.new_game({"length": 0, **options}), "opening 3-1", "8/5 6/5")


def gammon_next(state: BackgammonState, **fields: object) -> BackgammonState:
    """``state`` changed so that White, to play 2-1, bears off its last checker for a gammon
    (Black has all 15 checkers on its 7-point, none borne off)."""
    sides = (side_from({1: 1}), side_from({7: 15}))
    return state.but(
        sides=sides, phase=Phase.PLAY, turn_seat=0, dice=(2, 1), start=sides, dice_left=(2, 1), **fields
    )


def test_money_game_is_length_0_with_its_options_and_a_match_refuses_them() -> None:
    s = VARIANT.new_game({"length": 0})
    assert s.is_money and s.money == MoneyRules(jacoby=True, beavers=False, automatic=0, limit=0)
    # The Jacoby rule is named, on or off (issue 33: jacoby:true was confirmed nowhere).
    assert VARIANT.describe_options(VARIANT.resolve_options({"length": 0})) == "money game, Jacoby rule"
    off = VARIANT.resolve_options({"length": 0, "jacoby": False, "beavers": True, "clock": "5m"})
    assert VARIANT.describe_options(off) == "money game, no Jacoby rule, beavers, clock 5m"
    for given in (
        {"length": 5, "jacoby": False},
        {"beavers": True},
        {"limit": 5},
        {"length": 3, "automatic": 1},
    ):
        with pytest.raises(BadOptionsError, match="money play"):
            VARIANT.new_game(given)
    with pytest.raises(BadOptionsError, match="Old English"):
        VARIANT.new_game({"length": 0, "rules": "oldenglish"})
    with pytest.raises(BadOptionsError, match="at most 3"):
        VARIANT.new_game({"length": 0, "automatic": 4})
    # A match's options stay as they were before money play: nothing of money play in them.
    assert VARIANT.resolve_options({"length": 5}) == {"length": 5, "rules": "standard"}
    assert not VARIANT.counts_for_rating(VARIANT.resolve_options({"length": 0}))
    assert VARIANT.counts_for_rating(VARIANT.resolve_options({"length": 5}))


def test_no_crawford_in_money_play_the_cube_is_always_there() -> None:
    s = money()
    assert s.uses_cube and s.phase is Phase.DECIDE
    s = act(s, "double", "take")
    assert s.cube == 2 and s.cube_owner == 0
    # Far ahead on points: still no Crawford game and the cube stays live.
    s = gammon_next(s.but(score=(40, 0), cube=1, cube_owner=None))
    s = act(s, "1/off")
    assert s.phase is Phase.OPENING and not s.crawford and s.result is None
    s = act(s, "opening 5-2", "13/11 13/8")
    assert s.phase is Phase.DECIDE and s.may_double(1)


def test_jacoby_on_a_gammon_with_the_cube_never_turned_counts_one_point() -> None:
    s = act(gammon_next(money()), "1/off")
    assert s.score == (1, 0)
    assert "Jacoby" in (s.last or "")


def test_jacoby_on_a_gammon_after_a_double_counts_double_the_cube() -> None:
    s = act(gammon_next(money(), cube=2, cube_owner=1), "1/off")
    assert s.score == (4, 0)


def test_jacoby_off_a_gammon_counts_with_the_cube_in_the_middle() -> None:
    s = act(gammon_next(money(jacoby=False)), "1/off")
    assert s.score == (2, 0)


def test_jacoby_on_only_a_single_game_may_be_offered_in_resignation_with_the_cube_in_the_middle() -> None:
    s = money()
    assert [o.level for o in s.resign_offers()] == [1]
    assert [o.level for o in act(s, "double", "take", "roll 6-5", "24/13").resign_offers()] == [1, 2, 3]
    assert [o.level for o in money(jacoby=False).resign_offers()] == [1, 2, 3]


def test_beaver_takes_and_redoubles_keeping_the_cube() -> None:
    s = act(money(beavers=True), "double")
    assert [a.notation for a in s.legal_actions()] == ["take", "pass", "beaver"]
    assert "beaver" in s.phase_text
    s = act(s, "beaver")
    # Black doubled to 2; White beavered: the cube is at 4 and White's, and Black must play on.
    assert (s.cube, s.cube_owner, s.phase) == (4, 0, Phase.ROLL)
    assert "White beavers" in (s.last or "")


def test_beaver_is_refused_without_the_option_and_in_matches_and_no_raccoon() -> None:
    with pytest.raises(IllegalActionError, match="without beavers"):
        act(money(), "double", "beaver")
    match = act(VARIANT.new_game({"length": 5}), "opening 3-1", "8/5 6/5", "double")
    with pytest.raises(IllegalActionError, match="money play"):
        act(match, "beaver")
    # No raccoon: after a beaver the doubler only rolls; nothing is asked of them.
    s = act(money(beavers=True), "double", "beaver")
    assert s.phase is Phase.ROLL and s.legal_actions() == ()


def test_automatic_doubles_up_to_the_cap_cube_stays_in_the_middle() -> None:
    s = VARIANT.new_game({"length": 0, "automatic": 2})
    s = act(s, "opening 4-4")
    assert (s.cube, s.cube_owner, s.automatic_doubles) == (2, None, 1)
    s = act(s, "opening 2-2")
    assert s.cube == 4
    s = act(s, "opening 6-6")
    assert s.cube == 4  # the cap: two automatic doubles a game
    s = act(s, "opening 6-1")
    assert s.phase is Phase.PLAY and s.cube == 4 and s.cube_owner is None
    assert VARIANT.from_json(s.to_json()) == s


def test_automatic_doubles_off_by_default() -> None:
    s = act(VARIANT.new_game({"length": 0}), "opening 4-4")
    assert s.cube == 1


def test_automatic_doubles_start_again_each_game() -> None:
    s = act(VARIANT.new_game({"length": 0, "automatic": 1}), "opening 4-4", "opening 5-2")
    s = act(gammon_next(s), "1/off")
    assert s.phase is Phase.OPENING and s.cube == 1 and s.automatic_doubles == 0
    assert act(s, "opening 3-3").cube == 2


def test_games_follow_each_other_until_a_player_stops_after_this_game() -> None:
    s = act(gammon_next(money(jacoby=False)), "1/off")
    assert s.result is None and s.game_number == 2
    s = act(s, "opening 5-2", "stop black")
    assert s.stopping == 1 and s.result is None and "last game" in s.score_text
    with pytest.raises(IllegalActionError, match="already asked"):
        act(s, "stop white")
    s = act(gammon_next(s), "1/off")
    assert s.result is not None and s.phase is Phase.OVER
    assert (s.result.winner, s.result.points, s.result.length) == (0, 4, 0)
    assert s.result.reason is BackgammonWin.SESSION
    assert s.result.description == "White wins the money session by 4 points (4-0)"


def test_either_player_may_stop_even_when_not_on_turn() -> None:
    s = money()
    assert s.to_move() == 1
    stopped = act(s, "stop white")
    assert stopped.stopping == 0 and stopped.to_move() == 1
    assert VARIANT.from_json(stopped.to_json()) == stopped


def test_stop_between_games_ends_the_session_at_once_level_is_a_draw() -> None:
    s = act(VARIANT.new_game({"length": 0}), "stop white")
    assert s.result is not None and s.result.winner is None
    assert s.result.description == "The money session ends level at 0-0"


def test_stop_is_refused_in_a_match() -> None:
    with pytest.raises(IllegalActionError, match="only a money session"):
        act(VARIANT.new_game({"length": 3}), "stop white")


def test_limit_ends_the_session_once_a_player_is_that_many_points_ahead() -> None:
    s = act(gammon_next(money(jacoby=False, limit=3)), "1/off")
    assert s.result is None and s.score == (2, 0)
    s = act(gammon_next(act(s, "opening 5-2", "13/11 13/8")), "1/off")
    assert s.result is not None and s.score == (4, 0)
    assert s.result.description == "White wins the money session by 4 points (4-0)"


def test_resigning_a_money_session_loses_the_game_in_progress_at_the_cube() -> None:
    s = act(money(), "double", "take")
    s = s.but(score=(3, 0))
    outcome = VARIANT.forfeit(s, 0, Forfeit.RESIGNATION, "")
    # White resigns while 3 points up; the game in progress (cube 2) goes to Black: White still leads.
    assert (outcome.winner, outcome.points, outcome.length) == (0, 1, 0)
    assert outcome.description.startswith(
        "White resigned, losing the game in progress: White wins the money session by 1 point"
    )


def test_saved_money_session_reads_back_and_saved_matches_have_no_money_fields() -> None:
    s = act(money(beavers=True, automatic=1, limit=7, jacoby=False), "stop black")
    saved = s.to_json()
    assert saved["money"] == {
        "jacoby": False,
        "beavers": True,
        "automatic": 1,
        "limit": 7,
        "stopping": 1,
        "automatic_doubles": 0,
    }
    assert VARIANT.from_json(saved) == s
    assert "money" not in VARIANT.new_game({"length": 5}).to_json()
    broken = dict(saved, length=5)
    with pytest.raises(Exception, match="impossible"):
        VARIANT.from_json(broken)
    assert replace(s).money == s.money


def random_session(seed: int, **options: object) -> tuple[dict[str, object], list[str], BackgammonState]:
    """A money session of random legal actions (beavers, resignations and a Stop by seat 1 in its
    fourth game included) to its end."""
    rng = random.Random(seed)
    given: dict[str, object] = {"length": 0, **options}
    state = VARIANT.new_game(given)
    log = []
    while not state.is_terminal():
        if state.game_number == 4 and state.may_stop(1) and state.phase is Phase.DECIDE:
            action: Action = StopAfterGame(1)
        elif state.to_move() == CHANCE:
            action = state.chance_action((rng.randint(1, 6), rng.randint(1, 6)))
        else:
            action = rng.choice([*state.legal_actions(), *state.resign_offers()])
        log.append(action.notation)
        state = state.apply(action)
    return given, log, state


def test_export_of_a_money_session_is_a_0_point_match_with_the_points_of_each_game() -> None:
    given, log, state = random_session(8, beavers=True)
    text = VARIANT.export_match(given, log, ("Alice", "Bob"))
    assert text is not None
    mat = text.data.decode()
    assert mat.startswith(" 0 point match\n")
    assert mat.count(" Game ") == state.game_number
    assert "Beavers => " in mat


def test_export_of_a_money_session_with_an_automatic_double_is_not_written() -> None:
    given = {"length": 0, "automatic": 1}
    log = ["opening 2-2", "opening 3-1", "8/5 6/5", "stop white", "double", "pass"]
    assert VARIANT.export_match(given, log, ("Alice", "Bob")) is None


@needs_gnubg
@pytest.mark.parametrize(
    ("seed", "options"), [(8, {"beavers": True}), (3, {"beavers": True}), (5, {"jacoby": False})]
)
def test_gnubg_reads_back_an_exported_money_session_with_the_same_games_and_score(
    tmp_path: Path, seed: int, options: dict[str, object]
) -> None:
    given, log, state = random_session(seed, **options)
    exported = VARIANT.export_match(given, log, ("Alice", "Bob"))
    assert exported is not None
    text = exported.data.decode()
    output, again = gnubg_import(tmp_path, text, f"money{seed}")
    assert (
        f"after {state.game_number} games) is: Alice {state.score[0]}, Bob {state.score[1]} (money" in output
    )
    assert again.count(" Game ") == text.count(" Game ")


@needs_gnubg
def test_gnubg_reads_the_match_id_of_a_money_game_as_ours(tmp_path: Path) -> None:
    s = act(money(jacoby=False), "double", "take")
    s = s.but(score=(7, 3))
    codes = dict(VARIANT.position_codes(s))
    commands = f"set gnubgid {codes['GNUBG ID']}\nshow score\nshow gnubgid\n"
    done = oracles.run_gnubg([oracles.gnubg_program(), "-t", "-q"], commands, tmp_path, timeout=30)
    output = done.stdout + done.stderr
    assert "money session" in output and "without Jacoby rule" in output
    assert codes["GNUBG ID"].split(":")[1] in output
