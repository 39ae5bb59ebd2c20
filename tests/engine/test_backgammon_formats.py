"""GNU Backgammon position and match IDs and eXtreme Gammon XGIDs (engine/backgammon/formats.py).

Known IDs come from the specifications and from GNU Backgammon itself; those tests need nothing
installed. The cross-checks against gnubg-nn and gnubg (PyPI, GPL, test-only oracles, both in the
``test`` extra) skip when the packages are absent, and fail instead under CI (tests/oracles.py).
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
import textwrap
from pathlib import Path

import pytest

from engine.backgammon.formats import (
    Board,
    FormatError,
    GameState,
    MatchInfo,
    Resignation,
    board_from_position_id,
    board_from_position_key,
    check_board,
    gnubg_id,
    match_id,
    match_info_from_id,
    position_id,
    position_key,
    read_xgid,
    xgid,
)
from engine.errors import GameError
from tests import oracles

# One side of the standard opening, from its own view: 24-point 2, 13-point 5, 8-point 3, 6-point 5.
_START_ROW = tuple({5: 5, 7: 3, 12: 5, 23: 2}.get(i, 0) for i in range(25))
OPENING: Board = (_START_ROW, _START_ROW)
EMPTY: Board = ((0,) * 25, (0,) * 25)


def board_of(on_roll: dict[int, int], other: dict[int, int]) -> Board:
    """A board from {point (1..24, 25 = bar): count} for the player on roll and the other player."""
    rows = []
    for spec in (other, on_roll):
        row = [0] * 25
        for point, count in spec.items():
            row[point - 1] = count
        rows.append(tuple(row))
    return (rows[0], rows[1])


def random_board(rng: random.Random) -> Board:
    """Any possible board: up to 15 checkers a side, bars included, no point held by both sides."""
    rows = [[0] * 25, [0] * 25]
    for side in (0, 1):
        for _ in range(rng.randint(0, 15)):
            while True:
                i = rng.randrange(25)
                if i < 24 and rows[1 - side][23 - i]:
                    continue
                rows[side][i] += 1
                break
    return (tuple(rows[0]), tuple(rows[1]))


def random_info(rng: random.Random) -> MatchInfo:
    length = rng.choice([0, 1, 3, 5, 7, 11, 25, 32767])
    return MatchInfo(
        cube_log2=rng.randint(0, 15),
        cube_owner=rng.choice([None, 0, 1]),
        on_roll=rng.randint(0, 1),
        crawford=rng.random() < 0.5,
        game_state=rng.choice(list(GameState)),
        turn=rng.randint(0, 1),
        doubled=rng.random() < 0.5,
        resigned=rng.choice(list(Resignation)),
        dice=rng.choice([(0, 0), (rng.randint(1, 6), rng.randint(1, 6))]),
        match_length=length,
        # A match under way: each score below the length (GNU Backgammon aborts on any other).
        score=(rng.randrange(length or 32768), rng.randrange(length or 32768)),
        jacoby=rng.random() < 0.5,
    )


# --- position ID -------------------------------------------------------------------------------------


def test_opening_position_id_is_the_manuals_example() -> None:
    # GNU Backgammon manual, "A technical description of the Position ID": the starting position.
    assert position_id(OPENING) == "4HPwATDgc/ABMA"
    assert board_from_position_id("4HPwATDgc/ABMA") == OPENING


def test_empty_board_and_a_few_hand_made_positions() -> None:
    assert position_id(EMPTY) == "AAAAAAAAAAAAAA"
    assert board_from_position_id("AAAAAAAAAAAAAA") == EMPTY
    bar = board_of({25: 1}, {25: 1})
    assert board_from_position_id(position_id(bar)) == bar
    # The first bit is side 0's 1-point: one checker there sets the lowest bit of the first byte.
    assert position_id(board_of({}, {1: 1})) == "AQAAAAAAAAAAAA"


def test_position_id_round_trips_on_many_boards() -> None:
    rng = random.Random(20261122)
    for _ in range(3000):
        board = random_board(rng)
        text = position_id(board)
        assert len(text) == 14
        assert board_from_position_id(text) == board
        assert board_from_position_key(position_key(board)) == board


def test_full_boards_round_trip() -> None:
    # All 30 checkers on the board, all on the bars, all borne off.
    assert board_from_position_id(position_id(OPENING)) == OPENING
    bars = board_of({25: 15}, {25: 15})
    assert board_from_position_id(position_id(bars)) == bars


def test_opening_position_key() -> None:
    # The ten key bytes of the manual's example, E0 73 F0 01 30 twice, as letters 'A' + nibble.
    assert position_key(OPENING) == "OAHDPAABDAOAHDPAABDA"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("", "14 characters"),
        ("4HPwATDgc/AB!A", "Base64"),
        ("4HPwATDgc/AB=A", "Base64"),
        ("//////////////", "more than 15 checkers"),
        ("/////wAAAAAAAA", "more than 15 checkers"),
    ],
)
def test_bad_position_ids_are_refused_with_a_reason(text: str, words: str) -> None:
    with pytest.raises(FormatError, match=words):
        board_from_position_id(text)


def test_format_error_is_a_value_error_of_the_engine_family() -> None:
    with pytest.raises(ValueError):
        board_from_position_id("nope")
    with pytest.raises(GameError):
        board_from_position_id("nope")


def test_a_point_held_by_both_sides_is_refused() -> None:
    both = board_of({6: 1}, {19: 1})  # side 1's 6-point is side 0's 19-point
    with pytest.raises(FormatError, match="both sides"):
        position_id(both)
    # The same bits, written by hand: side 0 one checker on its 19-point, side 1 one on its 6-point.
    bits = [0] * 18 + [1] + [0] * 7 + [0] * 5 + [1] + [0] * 20
    data = bytearray(10)
    for k, bit in enumerate(bits):
        data[k // 8] |= bit << (k % 8)
    import base64

    text = base64.b64encode(bytes(data)).decode()[:14]
    with pytest.raises(FormatError, match="both sides"):
        board_from_position_id(text)


@pytest.mark.parametrize(
    "board",
    [
        ((0,) * 24, (0,) * 25),
        ((16,) + (0,) * 24, (0,) * 25),
        ((-1,) + (0,) * 24, (0,) * 25),
        (((0,) * 25),),
    ],
)
def test_bad_boards_are_refused(board: Board) -> None:
    with pytest.raises(FormatError):
        position_id(board)
    with pytest.raises(FormatError):
        check_board(board)


def test_bad_position_keys_are_refused() -> None:
    for text in ("OAHDPAABDAOAHDPAABD", "OAHDPAABDAOAHDPAABDZ", "oahdpaabdaoahdpaabda"):
        with pytest.raises(FormatError, match="position key"):
            board_from_position_key(text)


# --- match ID ----------------------------------------------------------------------------------------

# Match IDs that GNU Backgammon (the PyPI build, 1.08) showed, with what they mean.
GNUBG_MATCH_IDS = {
    # "new match 7"; gnubg (player 0) won the opening roll 4-3 against player 1.
    "MAHuAAAAAAAE": MatchInfo(on_roll=0, turn=0, dice=(4, 3), match_length=7),
    # "set xgid XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10": money, Jacoby, 5-2 to play.
    "cIkKAAAAAAAA": MatchInfo(on_roll=1, turn=1, dice=(5, 2), jacoby=True),
    # "set xgid ...:1:1:1:52:3:1:0:7:10": 2-cube owned by player 1, 7-point match, 1-3.
    "UYnqABAAGAAE": MatchInfo(
        cube_log2=1, cube_owner=1, on_roll=1, turn=1, dice=(5, 2), match_length=7, score=(1, 3)
    ),
    # "set xgid ...:1:-1:-1:00:3:1:0:7:10", which gnubg turns round so that the player on roll is 1.
    "UQngADAACAAE": MatchInfo(cube_log2=1, cube_owner=1, on_roll=1, turn=1, match_length=7, score=(3, 1)),
}


@pytest.mark.parametrize(("text", "info"), GNUBG_MATCH_IDS.items())
def test_match_ids_shown_by_gnubg(text: str, info: MatchInfo) -> None:
    assert match_info_from_id(text) == info
    assert match_id(info) == text


def test_the_old_style_match_id_of_the_opening() -> None:
    # "4HPwATDgc/ABMA:cAkAAAAAAAAA", the pair often quoted for the opening: a money game with player 1
    # on roll, cube 1 centred, nothing rolled. It predates the "Jacoby off" bit, which is clear.
    info = match_info_from_id("cAkAAAAAAAAA")
    assert info == MatchInfo(on_roll=1, turn=1, jacoby=True)
    assert match_id(info) == "cAkAAAAAAAAA"


def test_each_match_field_lands_on_its_bits() -> None:
    def bits(info: MatchInfo) -> int:
        import base64

        return int.from_bytes(base64.b64decode(match_id(info)), "little")

    base = MatchInfo(jacoby=True, game_state=GameState.NONE)
    assert bits(base) == 3 << 4  # only the centred cube: owner field 11
    assert bits(dataclasses.replace(base, cube_log2=3)) == 3 | 3 << 4  # an 8-cube is 0011
    assert bits(dataclasses.replace(base, cube_owner=1)) == 1 << 4
    assert bits(dataclasses.replace(base, on_roll=1)) == 3 << 4 | 1 << 6
    assert bits(dataclasses.replace(base, crawford=True)) == 3 << 4 | 1 << 7
    assert bits(dataclasses.replace(base, game_state=GameState.DROPPED)) == 3 << 4 | 4 << 8
    assert bits(dataclasses.replace(base, turn=1)) == 3 << 4 | 1 << 11
    assert bits(dataclasses.replace(base, doubled=True)) == 3 << 4 | 1 << 12
    assert bits(dataclasses.replace(base, resigned=Resignation.BACKGAMMON)) == 3 << 4 | 3 << 13
    assert bits(dataclasses.replace(base, dice=(6, 1))) == 3 << 4 | 6 << 15 | 1 << 18
    assert bits(dataclasses.replace(base, match_length=25)) == 3 << 4 | 25 << 21
    assert bits(dataclasses.replace(base, score=(7, 9))) == 3 << 4 | 7 << 36 | 9 << 51
    assert bits(dataclasses.replace(base, jacoby=False)) == 3 << 4 | 1 << 66


def test_match_id_round_trips_on_many_infos() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        info = random_info(rng)
        text = match_id(info)
        assert len(text) == 12
        assert match_info_from_id(text) == info
    assert MatchInfo(cube_log2=6).cube_value == 64


@pytest.mark.parametrize(
    ("info", "words"),
    [
        (MatchInfo(cube_log2=16), "cube"),
        (MatchInfo(cube_owner=2), "cube owner"),
        (MatchInfo(on_roll=2), "on roll"),
        (MatchInfo(turn=-1), "move or decide"),
        (MatchInfo(dice=(7, 1)), "Dice"),
        (MatchInfo(dice=(0, 3)), "Dice"),
        (MatchInfo(match_length=1 << 15), "match length"),
        (MatchInfo(score=(0, -1)), "score"),
    ],
)
def test_match_info_that_does_not_fit_is_refused(info: MatchInfo, words: str) -> None:
    with pytest.raises(FormatError, match=words):
        match_id(info)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("cAkAAAAAAAA", "12 characters"),
        ("cAkAAAAAAAA*", "Base64"),
        ("4HPwATDgc/ABMA", "12 characters"),
        ("YAkAAAAAAAAA", "cube owner"),  # owner field 10
        ("cA0AAAAAAAAA", "game state"),  # state 101
        ("cIkDAAAAAAAA", "dice"),  # die 1 = 7
    ],
)
def test_bad_match_ids_are_refused_with_a_reason(text: str, words: str) -> None:
    with pytest.raises(FormatError, match=words):
        match_info_from_id(text)


def test_gnubg_id_joins_both() -> None:
    info = GNUBG_MATCH_IDS["MAHuAAAAAAAE"]
    assert gnubg_id(OPENING, info) == "4HPwATDgc/ABMA:MAHuAAAAAAAE"


# --- XGID --------------------------------------------------------------------------------------------


def test_opening_xgid_is_the_documented_example() -> None:
    # The XGID quoted with eXtreme Gammon's description of the format: the opening, cube 1 centred,
    # the bottom player to play 5-2, money with Jacoby and beavers, maximum cube 2^10.
    info = MatchInfo(on_roll=1, turn=1, dice=(5, 2), jacoby=True)
    assert xgid(OPENING, info, beaver=True) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10"


def test_xgid_fields() -> None:
    # Player 1 on roll is the bottom player: its checkers are upper case and its points are the XGID's.
    board = board_of({6: 3, 8: 2, 25: 1}, {1: 2, 20: 1, 25: 2})
    info = MatchInfo(cube_log2=2, cube_owner=0, on_roll=1, turn=1, dice=(6, 3), match_length=7, score=(4, 2))
    # Top bar 2 (b); bottom's 5-point holds the top player's 20-point (a); bottom's 6 (C) and 8 (B);
    # bottom's 24-point is the top player's 1-point (b); bottom bar 1 (A).
    assert xgid(board, info) == "XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10"
    # The same board with player 0 on roll: player 1 (board[0] now) stays the bottom player, turn -1.
    flipped = dataclasses.replace(info, on_roll=0, turn=0, cube_owner=1, score=(2, 4))
    assert xgid(board, flipped) == "XGID=aB---------------b-cA----B:2:1:-1:63:4:2:0:7:10"


def test_xgid_cube_and_rules_fields() -> None:
    crawford = MatchInfo(on_roll=1, turn=1, match_length=5, score=(4, 2), crawford=True)
    assert xgid(OPENING, crawford).endswith(":0:0:1:00:2:4:1:5:10")
    doubled = MatchInfo(cube_log2=0, on_roll=0, turn=1, doubled=True, match_length=0)
    assert xgid(OPENING, doubled, max_cube_log2=8).endswith(":0:0:-1:D:0:0:0:0:8")
    with pytest.raises(FormatError, match="maximum cube"):
        xgid(OPENING, MatchInfo(), max_cube_log2=16)
    with pytest.raises(FormatError):
        xgid(OPENING, MatchInfo(on_roll=3))


def test_xgid_letters_count_checkers() -> None:
    board = board_of({1: 15}, {1: 15})
    assert xgid(board, MatchInfo(on_roll=1, turn=1)).startswith("XGID=-O----------------------o-:")


XGIDS = (
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10",
    "XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10",
    "XGID=aB---------------b-cA----B:2:1:-1:63:4:2:0:7:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:1:5:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:0:0:0:0:8",
    "XGID=-O----------------------o-:0:0:1:00:0:0:0:0:10",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    "XGID=-b----E-C---eE---c-e----B-:1:1:-1:00:3:1:2:0:10",
)


@pytest.mark.parametrize("text", XGIDS)
def test_xgids_read_back_as_written(text: str) -> None:
    read = read_xgid(text)
    assert xgid(read.board, read.info, max_cube_log2=read.max_cube_log2, beaver=read.beavers) == text


def test_read_xgid_fields() -> None:
    read = read_xgid("XGID=b----aC-B---------------bA:2:-1:1:63:2:4:0:7:10")
    board, info = read.board, read.info
    assert board == board_of({6: 3, 8: 2, 25: 1}, {1: 2, 20: 1, 25: 2})
    assert info == MatchInfo(
        cube_log2=2, cube_owner=0, on_roll=1, turn=1, dice=(6, 3), match_length=7, score=(4, 2)
    )
    # A double waiting: the turn field names the doubler; the other player decides.
    doubled = read_xgid("XGID=-b----E-C---eE---c-e----B-:1:0:-1:D:0:0:0:7:10").info
    assert (doubled.doubled, doubled.on_roll, doubled.turn, doubled.cube_value) == (True, 0, 1, 2)
    # "XGID=" may be left out, as people paste it.
    assert read_xgid("-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10").board == OPENING


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5", "10 expected"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:52:0:0:0:5:10", "26 expected"),
        ("XGID=-b----E-C---eE---c-e----B?:0:0:1:52:0:0:0:5:10", "not a position letter"),
        ("XGID=-b----E-C---eE---c-e----Bp:0:0:1:52:0:0:0:5:10", "not a position letter"),
        ("XGID=-b----E-C---eE---c-e---BB-:0:0:1:52:0:0:0:5:10", "at most 15"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:72:0:0:0:5:10", "not a roll"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:52:0:0:0:5:10", "cube position"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:52:0:0:0:5:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:52:0:0:0:5:10", "not a number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:5:10", "beavers are a rule of money play"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:R:0:0:2:0:10", "no raccoons"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:5:10", "Crawford field"),
    ],
)
def test_read_xgid_refuses(text: str, reason: str) -> None:
    with pytest.raises(FormatError, match=reason):
        read_xgid(text)


def test_read_xgid_money_rules_and_a_beaver_waiting() -> None:
    """eXtreme Gammon's XGID: in a money game the Crawford/Jacoby field is 1 for the Jacoby rule plus 2
    for beavers; the dice field ``B`` is a double that has been beavered (``D`` a double waiting), the
    cube and its position being those before the double, as with ``D``, and the turn naming the
    doubler. Issue 33: a beaver waiting was refused ("our games have no beavers")."""
    plain = read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")
    assert (plain.info.jacoby, plain.beavers, plain.beavered) == (False, False, False)
    both = read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10")
    assert (both.info.jacoby, both.beavers) == (True, True)
    assert read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:2:0:10").beavers
    # The top player doubled a centred cube to 2 and the bottom player beavered it.
    beavered = read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:-1:B:0:0:2:0:10")
    info = beavered.info
    assert beavered.beavered and beavered.beavers
    assert (info.doubled, info.on_roll, info.turn, info.cube_value, info.cube_owner) == (True, 0, 1, 1, None)
    # In a match the field is the Crawford flag alone: beavers are not read there.
    assert not read_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:1:5:10").beavers


def test_read_xgid_bars_belong_to_their_players() -> None:
    # The first letter is the top player's bar (lower case), the last the bottom player's (upper case).
    with pytest.raises(FormatError, match="upper case"):
        read_xgid("XGID=Ab----E-C---eE---c-e----B-:0:0:1:52:0:0:0:5:10")
    with pytest.raises(FormatError, match="lower case"):
        read_xgid("XGID=-b----E-C---eE---c-e----Ba:0:0:1:52:0:0:0:5:10")


# --- cross-checks against GNU Backgammon (test-only oracles from PyPI) ---------------------------------


def test_position_ids_and_keys_agree_with_gnubg_nn() -> None:
    gnubg_nn = oracles.import_oracle("gnubg_nn")
    rng = random.Random(5)
    for _ in range(2000):
        board = random_board(rng)
        as_lists = [list(board[0]), list(board[1])]
        text = position_id(board)
        assert text == gnubg_nn.position_id(as_lists)
        assert position_key(board) == gnubg_nn.key_of_board(as_lists)
        assert [tuple(row) for row in gnubg_nn.board_from_position_id(text)] == list(board)


_GNUBG_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import gnubg
    answers = []
    for kind, text in json.loads(sys.stdin.read()):
        if kind == "xgid":
            gnubg.command("set xgid " + text)
        else:
            gnubg.set_gnubg_id(text)
        answers.append(gnubg.gnubg_id())
    print("ANSWERS " + json.dumps(answers))
    """
)


def _ask_gnubg(requests: list[tuple[str, str]], tmp_path: Path) -> list[str]:
    """What GNU Backgammon shows as ``POSITIONID:MATCHID`` after reading each XGID or GNUBG ID.

    gnubg runs in its own process: it prints a board for every command and is not thread-safe."""
    done = oracles.run_gnubg(
        [sys.executable, "-c", _GNUBG_SCRIPT], json.dumps(requests), tmp_path, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("ANSWERS "))
    answers: list[str] = json.loads(line.removeprefix("ANSWERS "))
    return answers


def _realistic_info(rng: random.Random) -> MatchInfo:
    """A match state GNU Backgammon keeps as it is: a legal Crawford game has the cube at 1, and gnubg
    always makes the player on roll its player 1 when it reads an XGID (see ``_as_gnubg_sees_it``)."""
    length = rng.choice([0, 3, 5, 7, 11])
    score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
    crawford = bool(length) and length - 1 in score and score != (length - 1, length - 1)
    crawford = crawford and rng.random() < 0.5
    cube = 0 if crawford else rng.randint(0, 4)
    who = rng.randint(0, 1)
    return MatchInfo(
        cube_log2=cube,
        cube_owner=None if cube == 0 else rng.choice([None, 0, 1]),
        on_roll=who,
        turn=who,
        crawford=crawford,
        dice=rng.choice([(0, 0), (rng.randint(1, 6), rng.randint(1, 6))]),
        match_length=length,
        score=score,
        jacoby=not length and rng.random() < 0.5,
    )


def _as_gnubg_sees_it(info: MatchInfo) -> MatchInfo:
    """gnubg names the player on roll 1 and keeps the dice of player 0 in the other order."""
    if info.on_roll == 0:
        info = dataclasses.replace(
            info,
            on_roll=1,
            turn=1,
            cube_owner=None if info.cube_owner is None else 1 - info.cube_owner,
            score=(info.score[1], info.score[0]),
        )
    return dataclasses.replace(info, dice=(max(info.dice), min(info.dice)))


def test_gnubg_reads_our_xgids_and_match_ids_as_we_meant_them(tmp_path: Path) -> None:
    oracles.import_oracle("gnubg")  # GNU Backgammon's Python module; it runs in its own process below
    rng = random.Random(11)
    cases = []
    for _ in range(200):
        board = random_board(rng)
        while not (sum(board[0]) and sum(board[1])):
            board = random_board(rng)
        cases.append((board, _realistic_info(rng)))
    requests = [("xgid", xgid(board, info)) for board, info in cases]
    requests += [("gnubgid", gnubg_id(board, info)) for board, info in cases]
    # A double waiting for an answer: gnubg reads the XGID, then "steps back to the offering of the
    # cube", leaving the doubler on roll. That shows the turn field names the player who doubled.
    offers = []
    for board, info in cases[:40]:
        if info.crawford or info.match_length == 1:
            continue
        offer = dataclasses.replace(info, dice=(0, 0), doubled=True, turn=1 - info.on_roll)
        offers.append((board, offer))
        requests.append(("xgid", xgid(board, offer)))
    answers = _ask_gnubg(requests, tmp_path)
    expected = cases * 2 + [
        (board, dataclasses.replace(o, doubled=False, turn=o.on_roll)) for board, o in offers
    ]
    for (board, info), shown in zip(expected, answers, strict=True):
        position, match = shown.split(":")
        assert board_from_position_id(position) == board
        got = match_info_from_id(match)
        assert _as_gnubg_sees_it(got) == _as_gnubg_sees_it(info), (xgid(board, info), shown)


_GNUBG_MONEY_RULES = textwrap.dedent(
    """
    import json, sys
    import gnubg
    for text in json.loads(sys.stdin.read()):
        gnubg.command("set xgid " + text)
        print("XGID " + text, flush=True)
        gnubg.command("show beavers")
        gnubg.command("show jacoby")
    """
)


def test_money_rules_of_an_xgid_are_read_as_gnu_backgammon_reads_them(tmp_path: Path) -> None:
    """GNU Backgammon's module sets each money XGID and says whether beavers are allowed and whether
    the session plays the Jacoby rule: our reading of the Crawford/Jacoby field agrees, and our
    written XGIDs say the same."""
    oracles.import_oracle("gnubg")
    texts = [f"XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:{field}:0:10" for field in range(4)]
    texts += [xgid(OPENING, MatchInfo(on_roll=1, turn=1, jacoby=j), beaver=b) for j in (0, 1) for b in (0, 1)]
    done = oracles.run_gnubg([sys.executable, "-c", _GNUBG_MONEY_RULES], json.dumps(texts), tmp_path, 300)
    assert done.returncode == 0, done.stderr[-2000:]
    said = done.stdout.split("XGID ")[1:]
    assert len(said) == len(texts)
    for text, words in zip(texts, said, strict=True):
        assert words.startswith(text)
        read = read_xgid(text)
        beavers = "No beavers allowed" not in words and "beavers/raccoons allowed" in words
        jacoby = "This money session is played with the Jacoby rule" in words
        assert (read.beavers, read.info.jacoby) == (beavers, jacoby), words
