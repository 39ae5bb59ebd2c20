"""Backgammon play notation: the canonical text of every play, and reading players' variants back."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from engine.backgammon.board import Board, borne_off, check_board, side_from, starting_board, swap
from engine.backgammon.notation import hits, parse_play, play_text
from engine.backgammon.plays import legal_plays
from engine.errors import IllegalActionError, NotationError
from tests import oracles


def board(me: dict[int, int], opp: dict[int, int]) -> Board:
    b = (side_from(opp), side_from(me))
    check_board(b)
    return b


def texts(b: Board, d1: int, d2: int) -> set[str]:
    return {play_text(p) for p in legal_plays(b, d1, d2)}


def test_opening_31_is_written_8_5_6_5() -> None:
    assert "8/5 6/5" in texts(starting_board(), 3, 1)
    assert "24/20" in texts(starting_board(), 3, 1)


def test_equal_moves_are_counted() -> None:
    assert "24/18(2) 13/7(2)" in texts(starting_board(), 6, 6)


def test_entering_from_the_bar_with_a_hit_is_written_bar_slash_point_star() -> None:
    b = board({25: 1, 13: 14}, {3: 1, 6: 5})  # the opponent's blot on its 3 point is my 22
    assert "bar/22* 13/11" in texts(b, 3, 2)


def test_bearing_off_is_written_off() -> None:
    b = board({6: 1, 5: 2}, {13: 15})
    assert texts(b, 6, 5) == {"6/off 5/off", "6/1 5/off"}


def test_a_hit_on_the_way_is_shown_and_a_quiet_path_is_not() -> None:
    # 6-3 from 13 to 4: via 7 hits the blot on my 7 point (its 18), via 10 does not.
    b = board({13: 1, 24: 14}, {18: 1, 13: 2})
    written = texts(b, 6, 3)
    assert {"13/7*/4", "13/4"} <= written


def test_no_legal_play_is_written_no_play() -> None:
    b = board({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    assert texts(b, 6, 5) == {"no play"}
    assert parse_play("no play", b, 6, 5).moves == ()


def test_every_play_reads_back_as_itself() -> None:
    rng = random.Random(9)
    b = starting_board()
    for _ in range(6):
        for d1, d2 in ((1, 2), (3, 3), (6, 5), (4, 4), (2, 6)):
            for play in legal_plays(b, d1, d2):
                back = parse_play(play_text(play), b, d1, d2)
                assert (back.result, hits(back)) == (play.result, hits(play))
        b = swap(rng.choice(legal_plays(b, rng.randint(1, 6), rng.randint(1, 6))).result)
        if borne_off(b[0]) == 15:
            b = starting_board()


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("8/5 6/5", "8/5 6/5"),
        ("6/5 8/5", "8/5 6/5"),
        ("8/5, 6/5", "8/5 6/5"),
        ("24/21/20", "24/20"),
        ("24/23 23/20", "24/20"),
        ("6/5 13/10", "13/10 6/5"),
    ],
)
def test_reading_accepts_the_usual_variants(text: str, canonical: str) -> None:
    assert play_text(parse_play(text, starting_board(), 3, 1)) == canonical


def test_reading_doubles_with_a_count_or_repeated() -> None:
    b = starting_board()
    assert play_text(parse_play("8/5(2) 6/3(2)", b, 3, 3)) == "8/5(2) 6/3(2)"
    assert play_text(parse_play("8/5 8/5 6/3 6/3", b, 3, 3)) == "8/5(2) 6/3(2)"
    assert play_text(parse_play("24/21(2) 21/18(2)", b, 3, 3)) == "24/18(2)"


def test_reading_bar_and_off_abbreviations() -> None:
    b = board({25: 1, 13: 14}, {3: 1, 6: 5})
    assert play_text(parse_play("b/22* 13/11", b, 3, 2)) == "bar/22* 13/11"
    assert play_text(parse_play("25/22 13/11", b, 3, 2)) == "bar/22* 13/11"  # a final hit needs no *
    off = board({6: 1, 5: 2}, {13: 15})
    assert play_text(parse_play("6/o 5/0", off, 6, 5)) == "6/off 5/off"


def test_reading_a_path_with_a_hit_marked_picks_the_hitting_play() -> None:
    b = board({13: 1, 24: 14}, {18: 1, 13: 2})
    assert play_text(parse_play("13/7*/4", b, 6, 3)) == "13/7*/4"
    assert play_text(parse_play("13/4", b, 6, 3)) == "13/4"


def test_unreadable_notation_says_what_was_not_understood_and_lists_the_plays() -> None:
    with pytest.raises(NotationError) as err:
        parse_play("8-5 6/5", starting_board(), 3, 1)
    assert "'8-5'" in str(err.value)
    assert "8/5 6/5" in str(err.value)


def test_an_illegal_play_is_refused_with_the_legal_plays() -> None:
    with pytest.raises(IllegalActionError) as err:
        parse_play("24/21 24/23 13/12", starting_board(), 3, 1)
    assert "not a legal play of 3-1" in str(err.value)
    assert "24/23 24/21" in str(err.value)


def test_moving_a_checker_that_is_not_there_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="point 20"):
        parse_play("20/17 6/5", starting_board(), 3, 1)


def test_passing_when_a_play_exists_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="must play"):
        parse_play("no play", starting_board(), 3, 1)


def test_moving_backwards_is_not_understood() -> None:
    with pytest.raises(NotationError, match="toward home"):
        parse_play("5/8 6/5", starting_board(), 3, 1)


def test_notation_hit_mark_goes_on_the_first_of_identical_moves_as_gnubg_writes_it() -> None:
    # Checked with GNU Backgammon's own FormatMove (the gnubg module's move_tuple_to_string).
    one_one = board({4: 2, 13: 13}, {22: 1, 1: 14})  # the blot on my 3 point is its 22
    assert play_text(parse_play("4/3* 4/3 13/12(2)", one_one, 1, 1)) == "13/12(2) 4/3*(2)"
    fours = board({24: 2, 13: 13}, {5: 1, 24: 14})  # its 5 point is my 20
    assert play_text(parse_play("24/20* 20/16 24/20 13/9", fours, 4, 4)) == "24/20*/16 24/20 13/9"
    hint = board({6: 2, 13: 13}, {23: 1, 1: 14})
    assert play_text(parse_play("6/2 6/2* 13/9(2)", hint, 4, 4)) == "13/9(2) 6/2*(2)"


_GNUBG_FORMAT = """
import json, sys
import gnubg
out = [gnubg.move_tuple_to_string(tuple(moves), (tuple(b[0]), tuple(b[1]))) for b, moves in json.load(sys.stdin)]
print("ANSWERS " + json.dumps(out))
"""


def test_notation_is_what_gnubg_writes_for_every_play_of_random_positions(tmp_path: Path) -> None:
    oracles.import_oracle("gnubg")  # GNU Backgammon's Python module; it runs in its own process below
    rng = random.Random(24)
    b = starting_board()
    cases: list[tuple[Board, list[int]]] = []
    ours: list[str] = []
    while len(cases) < 4000:
        roll = rng.randint(1, 6), rng.randint(1, 6)
        plays = legal_plays(b, *roll)
        for play in plays:
            if play.moves:
                cases.append((b, [point for m in play.moves for point in (m.src, m.dst)]))
                ours.append(play_text(play))
        b = swap(rng.choice(plays).result)
        if borne_off(b[0]) == 15:
            b = starting_board()
    done = oracles.run_gnubg([sys.executable, "-c", _GNUBG_FORMAT], json.dumps(cases), tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("ANSWERS "))
    assert ours == json.loads(line.removeprefix("ANSWERS "))
