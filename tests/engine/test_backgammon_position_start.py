"""A match started from a pasted position (engine/backgammon/position_start.py and the ``position``
option of the backgammon variant)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import BadOptionsError
from engine.backgammon.board import RuleSet, starting_board
from engine.backgammon.formats import (
    GameState,
    MatchInfo,
    Resignation,
    _encode_base64,
    _pack,
    gnubg_id,
    match_info_from_id,
)
from engine.backgammon.game import BackgammonState, Checkers, MoneyRules, Phase, Take
from engine.backgammon.position_start import PositionCodeError, read_code, start_from
from engine.backgammon.variant import VARIANT
from engine.protocol import replay_states
from tests import oracles

OPENING_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10"
OPENING_ID = "4HPwATDgc/ABMA"
# GNU Backgammon's "new match 7": player 0 won the opening roll 4-3.
OPENING_GNUBG = "4HPwATDgc/ABMA:MAHuAAAAAAAE"


def started(code: str, **options: object) -> BackgammonState:
    state = VARIANT.new_game(VARIANT.resolve_options({"position": code, **options}))
    assert isinstance(state, BackgammonState)
    return state


def codes(state: BackgammonState) -> dict[str, str]:
    return dict(VARIANT.position_codes(state))


@pytest.mark.parametrize(
    "code",
    [
        OPENING_XGID,
        OPENING_GNUBG,
        # A 2-cube owned by the top player, 7-point match at 4-2, bottom player to play 6-3.
        "XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10",
        # The Crawford game: the bottom player is at 4 of 5, nothing rolled.
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10",
        # A double from the top player waiting for an answer, 7-point match.
        "XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:0:0:0:7:10",
        # Cube 4 owned by the bottom player, the top player to roll (may not double).
        "XGID=-b----E-C---eE---c-e----B-:2:1:-1:00:1:0:0:9:10",
    ],
)
def test_codes_of_the_started_match_read_back_identically(code: str) -> None:
    state = started(code)
    kind = "XGID" if code.startswith("XGID") else "GNUBG ID"
    assert codes(state)[kind] == code


def test_a_gnubg_id_gives_turn_dice_score_and_length() -> None:
    state = started(OPENING_GNUBG)
    assert (state.length, state.score, state.turn_seat, state.phase, state.dice) == (
        7,
        (0, 0),
        0,
        Phase.PLAY,
        (4, 3),
    )
    assert state.sides == starting_board()
    # The player on roll plays the dice of the code.
    after = state.apply(state.parse("13/9 24/21"))
    assert isinstance(after, BackgammonState) and after.turn_seat == 1


def test_an_xgid_gives_cube_owner_score_and_crawford() -> None:
    state = started("XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10")
    assert (state.cube, state.cube_owner, state.score, state.length) == (4, 0, (4, 2), 7)
    assert state.turn_seat == 1 and state.dice == (6, 3)
    crawford = started("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10")
    assert crawford.crawford and crawford.phase is Phase.ROLL and not crawford.may_double(1)
    post = started("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:0:5:10")
    assert not post.crawford and post.crawford_done and post.phase is Phase.DECIDE


def test_a_double_waiting_is_answered_first() -> None:
    state = started("XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:0:0:0:7:10")
    assert state.phase is Phase.TAKE and state.turn_seat == 0 and state.to_move() == 1
    taken = state.apply(Take())
    assert isinstance(taken, BackgammonState) and (taken.cube, taken.cube_owner) == (2, 1)


def test_a_bare_position_id_uses_the_given_length_with_seat_0_on_roll() -> None:
    state = started(OPENING_ID, length=3)
    assert (state.length, state.turn_seat, state.phase, state.cube) == (3, 0, Phase.DECIDE, 1)
    assert codes(state)["GNUBG ID"].startswith(OPENING_ID + ":")
    single = started(OPENING_ID)
    assert single.length == 1 and single.phase is Phase.ROLL


def test_the_next_game_starts_from_the_opening() -> None:
    # Black (seat 1, XG's bottom player) bears off its last checker with 6-5: the next game is the
    # usual opening.
    end = started("XGID=-A----------------------a-:0:0:1:65:0:0:0:3:10")
    assert end.turn_seat == 1
    finished = end.apply(next(a for a in end.legal_actions() if isinstance(a, Checkers)))
    assert isinstance(finished, BackgammonState)
    assert finished.score == (0, 1) and finished.phase is Phase.OPENING
    assert finished.sides == starting_board()


def test_the_log_replays_from_the_option() -> None:
    options = VARIANT.resolve_options({"position": OPENING_GNUBG})
    states = list(replay_states(VARIANT, options, ["13/9 24/21"]))
    assert states[0] == started(OPENING_GNUBG) and states[-1].turn == 1
    # A .mat file starts every game from the opening: no file for such a match.
    assert VARIANT.export_match(options, ["13/9 24/21"], ("Ann", "Bob")) is None


def test_the_match_is_marked_as_set_and_unrated() -> None:
    options = VARIANT.resolve_options({"position": OPENING_XGID})
    assert VARIANT.starts_from_set_position(options)
    assert VARIANT.describe_options(options) == "5-point match, from a set position, unrated"
    assert not VARIANT.starts_from_set_position(VARIANT.resolve_options({"length": 5}))


def test_nackgammon_keeps_its_rules_and_old_english_its_limit() -> None:
    nack = started(OPENING_XGID, rules="nackgammon")
    assert nack.sides == starting_board() and nack.rules.value == "nackgammon"
    # Six checkers on the bottom player's 6-point (F) and four on its 13-point.
    crowded = "XGID=-b----F-C---eD---c-e----B-:0:0:1:52:0:0:0:5:10"
    assert started(crowded).sides[1][5] == 6
    with pytest.raises(BadOptionsError, match="at most 5 checkers on a point"):
        started(crowded, rules="oldenglish")


def test_a_money_game_starts_from_a_money_code_with_its_jacoby_rule_unless_given() -> None:
    """A code of a money game (match length 0) starts a money session from it: XG's Jacoby flag (the
    Crawford/Jacoby field, 1 = Jacoby) is kept, unless the challenge says otherwise."""
    plain = started("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:0:10")
    assert plain.length == 0 and plain.money is not None and not plain.money.jacoby
    assert (plain.score, plain.cube, plain.cube_owner, plain.phase) == ((1, 3), 2, 1, Phase.DECIDE)
    jacoby = started("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:0:10")
    assert jacoby.money is not None and jacoby.money.jacoby and jacoby.dice == (5, 2)
    told = started("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:0:10", jacoby=False, beavers=True)
    assert told.money is not None and not told.money.jacoby and told.money.beavers
    bare = started(OPENING_ID, length=0)
    assert bare.is_money and bare.money is not None and bare.money.jacoby  # the option's default
    assert not VARIANT.counts_for_rating(VARIANT.resolve_options({"position": OPENING_ID, "length": 0}))
    assert codes(plain)["XGID"] == "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:0:10"
    again = started(codes(plain)["GNUBG ID"])  # the GNU Backgammon ID:match ID of the money game
    assert again.is_money and again.score == plain.score and again.cube == plain.cube


@pytest.mark.parametrize(
    ("code", "options", "reason"),
    [
        ("hello", {}, "not a position code"),
        ("4HPwATDgc/AB", {}, "not a position code"),
        ("XGID=-b----E-C---eE---c-e---BB-:0:0:1:52:0:0:0:5:10", {}, "at most 15"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:5:0:0:5:10", {}, "already won"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", {"rules": "oldenglish"}, "money game"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10", {"length": 0}, "5-point match, not 0"),
        ("XGID=-b----E-C---eE---c-e----B-:1:0:1:52:0:0:0:1:10", {}, "without the cube"),
        ("XGID=-b----E-C---eE---c-e----B-:1:0:1:52:0:0:0:5:10", {"rules": "oldenglish"}, "without the cube"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:5:10", {}, "Crawford"),
        ("XGID=-b----E-C---eE---c-e----B-:1:0:1:00:4:0:1:5:10", {}, "Crawford"),
        ("XGID=-b----E-C---eE---c-e----B-:0:-1:1:D:0:0:0:5:10", {}, "opponent owns the cube"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10", {"length": 3}, "5-point match, not 3"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:31:10", {}, "1 to 25"),
        ("XGID=-b--------------------------:0:0:1:52:0:0:0:5:10", {}, "26 expected"),
        ("XGID=-b----------e----c-e------:0:0:1:52:0:0:0:5:10", {}, "no checker left"),
    ],
)
def test_refusals_name_the_reason(code: str, options: dict[str, object], reason: str) -> None:
    with pytest.raises(BadOptionsError, match=reason):
        VARIANT.resolve_options({"position": code, **options})


def test_both_sides_on_one_point_is_refused() -> None:
    # A position ID whose bits put checkers of both sides on one point: side 0 on its 1-point (the
    # other's 24-point), side 1 on its 24-point.
    bits = [1, 0] + [0] * 24 + [0] * 23 + [1, 0, 0]
    code = _encode_base64(_pack(bits, 10), 14)
    with pytest.raises(PositionCodeError, match="both sides"):
        read_code(code)


def test_a_game_that_is_over_or_resigned_is_refused() -> None:
    board = starting_board()
    over = gnubg_id(board, MatchInfo(game_state=GameState.OVER, match_length=5))
    with pytest.raises(PositionCodeError, match="already over"):
        start_from(read_code(over), RuleSet.STANDARD, 5)
    resigned = gnubg_id(board, MatchInfo(resigned=Resignation.SINGLE, match_length=5))
    with pytest.raises(PositionCodeError, match="resignation"):
        start_from(read_code(resigned), RuleSet.STANDARD, 5)


def test_gnu_backgammon_reads_each_xgid_as_the_started_match_shows_it(tmp_path: Path) -> None:
    # GNU Backgammon (the Debian program) sets each XGID and shows its board with the GNUBG ID: the
    # match started from that XGID has the same one.
    codes_ = [
        "XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10",
        "XGID=-b----E-C---eE---c-e----B-:2:1:-1:00:1:0:0:9:10",
        OPENING_XGID,
    ]
    program = oracles.gnubg_program()
    for code in codes_:
        done = oracles.run_gnubg(
            [program, "-t", "-q"], f"set xgid {code}\nshow board\n", tmp_path, timeout=60
        )
        # Setting an XGID shows the board at each step of it: the last board shown is the position.
        position = re.findall(r"Position ID: (\S+)", done.stdout)[-1]
        match = re.findall(r"Match ID   : (\S+)", done.stdout)[-1]
        ours_position, _, ours_match = codes(started(code))["GNUBG ID"].partition(":")
        # gnubg may number the players the other way round (it makes the player on roll player 1
        # before a roll): the same match seen from the player on roll.
        assert (position, from_roller(match)) == (ours_position, from_roller(ours_match)), code


def from_roller(text: str) -> tuple[object, ...]:
    """A match ID's fields as the player on roll sees them (its score first, who owns the cube)."""
    info = match_info_from_id(text)
    me = info.on_roll
    owner = None if info.cube_owner is None else info.cube_owner == me
    return (
        info.score[me],
        info.score[1 - me],
        owner,
        info.cube_log2,
        info.dice,
        info.match_length,
        info.crawford,
    )


# Both sides on the bar (three checkers each) against a closed board (two checkers on each home point).
NOBODY_MOVES = "27YBAHDbtgEAcA"


@pytest.mark.parametrize(
    "options",
    [
        {"length": 1},
        {"length": 5},
        {"length": 0},
        {"rules": "oldenglish"},
    ],
)
def test_a_position_where_nobody_can_ever_move_is_refused(options: dict[str, object]) -> None:
    """Both sides on the bar against closed boards: no roll can ever be played by either side, so
    the game could never end (issue 33: such a challenge hung, the dice rolled and passed forever)."""
    with pytest.raises(BadOptionsError, match="nobody can ever move"):
        VARIANT.resolve_options({"position": NOBODY_MOVES, **options})
    with pytest.raises(PositionCodeError, match="both sides on the bar against a closed board"):
        start_from(read_code(NOBODY_MOVES), RuleSet.STANDARD, 1)
    # The same with the dice rolled, and as an XGID or a GNUBG ID of a match.
    board = read_code(NOBODY_MOVES).board
    rolled = gnubg_id(board, MatchInfo(on_roll=1, turn=1, dice=(6, 6), match_length=3))
    with pytest.raises(BadOptionsError, match="nobody can ever move"):
        VARIANT.resolve_options({"position": rolled})


def test_a_position_where_only_one_side_is_stuck_is_played() -> None:
    # The player on roll is on the bar against a closed board; the other may move: the game goes on.
    opp = (2, 2, 2, 2, 2, 2) + (0,) * 19
    me = (2, 2, 2, 2, 2) + (0,) * 19 + (3,)
    code = gnubg_id((opp, me), MatchInfo(on_roll=1, turn=1, match_length=1))
    state = started(code)
    assert state.length == 1


def test_a_beaver_waiting_starts_the_money_game_after_it() -> None:
    """Issue 33: an XGID whose double has been beavered (dice field B) was refused ("our games have no
    beavers"), though money sessions have them. Our beaver stands as made (no raccoons, and the
    doubler cannot refuse it): the session starts with the cube at four times the cube before the
    double, the beaverer's, the doubler to roll, beavers allowed."""
    # The top player (seat 0) doubled a centred cube; the bottom player (seat 1) beavered.
    state = started("XGID=-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:2:0:10")
    assert state.is_money and state.money is not None and state.money.beavers
    assert (state.cube, state.cube_owner, state.turn_seat, state.phase) == (4, 1, 0, Phase.ROLL)
    # A redouble beavered: the doubler (seat 1) owned the 2-cube; 8 now, seat 0's.
    redouble = started("XGID=-b----E-C---eE---c-e----B-:1:1:1:B:3:1:3:0:10")
    assert (redouble.cube, redouble.cube_owner, redouble.turn_seat, redouble.score) == (8, 0, 1, (1, 3))
    assert redouble.money is not None and redouble.money.jacoby
    # The codes written back hold the game after the beaver.
    assert codes(state)["XGID"] == "XGID=-b----E-C---eE---c-e----B-:2:1:-1:00:0:0:2:0:10"
    # Without the beaver rule in the code, the beaver made says that the session has it.
    assert started("XGID=-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:0:0:10").money.beavers  # type: ignore[union-attr]


def test_a_money_xgid_keeps_its_beaver_rule_unless_given() -> None:
    assert started("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:0:10").money == MoneyRules(
        jacoby=False, beavers=True
    )
    told = started("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:0:10", beavers=False)
    assert told.money is not None and not told.money.beavers


@pytest.mark.parametrize(
    ("code", "options", "reason"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:2:0:10", {"beavers": False}, "without beavers"),
        ("XGID=-b----E-C---eE---c-e----B-:0:1:-1:B:0:0:2:0:10", {}, "opponent owns the cube"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:-1:R:0:0:2:0:10", {}, "no raccoons"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:0:5:10", {}, "rule of money play"),
    ],
)
def test_a_beaver_that_cannot_stand_is_refused(code: str, options: dict[str, object], reason: str) -> None:
    with pytest.raises(BadOptionsError, match=reason):
        VARIANT.resolve_options({"position": code, **options})
