"""Backgammon move rules (RULINGS, backgammon 1, 3, 6, 7), each test named for the rule it checks."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from engine.backgammon.board import (
    Board,
    RuleSet,
    borne_off,
    check_board,
    mirror,
    pip_count,
    side_from,
    starting_board,
    swap,
)
from engine.backgammon.plays import Move, Play, legal_plays, single_moves

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(d1, 7)]


def board(me: Mapping[int, int], opp: Mapping[int, int]) -> Board:
    """A position with ``me`` on roll; each side's points in its own numbering, 25 = bar."""
    b = (side_from(opp), side_from(me))
    check_board(b)
    return b


def moves_of(plays: tuple[Play, ...]) -> set[tuple[tuple[int, int], ...]]:
    return {tuple(sorted(((m.src, m.dst) for m in p.moves), reverse=True)) for p in plays}


def side_after(play: Play) -> dict[int, int]:
    return {i + 1: n for i, n in enumerate(play.result[1]) if n}


# -- board helpers ----------------------------------------------------------------------------------


def test_starting_position_has_fifteen_checkers_and_167_pips() -> None:
    b = starting_board()
    assert b[0] == b[1]
    assert sum(b[1]) == 15
    assert pip_count(b[1]) == 167
    assert borne_off(b[1]) == 0


def test_nackgammon_starts_with_two_on_the_23_point_and_four_on_13_and_6() -> None:
    side = starting_board(RuleSet.NACKGAMMON)[1]
    assert {i + 1: n for i, n in enumerate(side) if n} == {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}


def test_mirror_point_numbers_add_up_to_25() -> None:
    assert [mirror(p) for p in (1, 6, 13, 24)] == [24, 19, 12, 1]


def test_bar_counts_25_pips_and_borne_off_is_what_is_missing() -> None:
    side = side_from({25: 1, 1: 2})
    assert pip_count(side) == 27
    assert borne_off(side) == 12


# -- moving -----------------------------------------------------------------------------------------


def test_a_checker_on_the_bar_must_enter_before_any_other_move() -> None:
    b = board({25: 1, 13: 14}, {6: 15})
    plays = legal_plays(b, 3, 2)
    assert all(p.moves[0].src == 25 for p in plays)
    # bar/23/20 reaches the same position as bar/22/20 and is listed once.
    assert moves_of(plays) == {((25, 22), (22, 20)), ((25, 22), (13, 11)), ((25, 23), (13, 10))}


def test_two_checkers_on_the_bar_both_enter_before_anything_else() -> None:
    b = board({25: 2, 13: 13}, {6: 15})
    assert moves_of(legal_plays(b, 3, 2)) == {((25, 23), (25, 22))}


def test_a_closed_board_stops_entering_and_every_other_move() -> None:
    b = board({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 7: 3})
    assert legal_plays(b, 6, 5) == (Play((), b),)


def test_a_point_with_two_opposing_checkers_is_blocked() -> None:
    # Opponent holds its 20 point, my 5 point: 8/5 is not allowed.
    b = board({8: 1, 13: 2}, {20: 2})
    assert not any(m.src == 8 and m.dst == 5 for m, _ in single_moves(b, 3))


def test_a_blot_hit_goes_to_the_bar() -> None:
    # A single opposing checker on its 20 point is on my 5 point.
    b = board({8: 1, 13: 2}, {20: 1, 6: 3})
    (move, after), *_ = [(m, a) for m, a in single_moves(b, 3) if m.src == 8]
    assert move == Move(8, 5, hit=True)
    assert after[0][20 - 1] == 0
    assert after[0][24] == 1
    assert after[1][4] == 1


def test_use_both_dice_if_any_play_does() -> None:
    # 6-1 with one checker on 13 and my 7 point held: the 6 cannot go first, 1 then 6 plays both.
    b = board({13: 1}, {18: 2})
    assert single_moves(b, 6) == []
    assert moves_of(legal_plays(b, 6, 1)) == {((13, 12), (12, 6))}


def test_when_only_one_die_can_be_played_the_higher_must_be() -> None:
    # 6-3 with one checker on 10 and my 1 point held: 10/4 or 10/7, then nothing lands anywhere
    # but the 1 point. Only one die plays, and it must be the 6.
    b = board({10: 1}, {24: 2})
    assert moves_of(legal_plays(b, 6, 3)) == {((10, 4),)}


def test_when_the_higher_die_cannot_be_played_the_lower_is() -> None:
    # 6-5: my 4, 14 and 15 points are held, so no 6 plays at all; 10/5 is the only 5, after which
    # the checker on 20 keeps 5/off from bearing off.
    b = board({10: 1, 20: 1}, {21: 2, 11: 2, 10: 2})
    assert moves_of(legal_plays(b, 6, 5)) == {((10, 5),)}


def test_doubles_play_as_many_of_four_as_possible() -> None:
    # Two checkers on 20, opponent holds my 12: with 4-4 each can move 20/16 and stop (16/12 held).
    b = board({20: 2}, {13: 2})
    plays = legal_plays(b, 4, 4)
    assert moves_of(plays) == {((20, 16), (20, 16))}


def test_doubles_play_four_times_when_they_can() -> None:
    plays = legal_plays(starting_board(), 6, 6)
    assert all(len(p.moves) == 4 for p in plays)


def test_bearing_off_needs_every_checker_in_the_home_board() -> None:
    b = board({7: 1, 2: 3}, {13: 2})
    assert {m for m, _ in single_moves(b, 2)} == {Move(7, 5)}


def test_bearing_off_with_the_exact_number() -> None:
    b = board({4: 1, 2: 14}, {13: 15})
    assert Move(4, 0) in {m for m, _ in single_moves(b, 4)}


def test_bearing_off_with_a_higher_die_from_the_highest_point() -> None:
    b = board({4: 1, 2: 14}, {13: 15})
    assert {m for m, _ in single_moves(b, 6)} == {Move(4, 0)}


def test_a_higher_die_cannot_bear_off_while_a_checker_stands_higher() -> None:
    b = board({5: 1, 3: 3}, {13: 15})
    assert {m for m, _ in single_moves(b, 4)} == {Move(5, 1)}
    assert {m for m, _ in single_moves(b, 6)} == {Move(5, 0)}


def test_a_bear_off_can_use_one_die_and_the_game_ends_after_the_last_checker() -> None:
    b = board({2: 1}, {13: 15})
    plays = legal_plays(b, 6, 5)
    assert len(plays) == 1
    assert borne_off(plays[0].result[1]) == 15


def test_after_a_play_the_board_is_still_legal_and_keeps_fifteen_each() -> None:
    rng = random.Random(7)
    b = starting_board()
    for _ in range(300):
        plays = legal_plays(b, rng.randint(1, 6), rng.randint(1, 6))
        play = rng.choice(plays)
        check_board(play.result)
        for side in play.result:
            assert sum(side) + borne_off(side) == 15
        b = swap(play.result)
        if borne_off(b[0]) == 15:
            b = starting_board()


def test_plays_reaching_the_same_position_are_listed_once() -> None:
    plays = legal_plays(starting_board(), 3, 1)
    assert len({p.result for p in plays}) == len(plays)


# -- perft: distinct positions from the opening, checked against gnubg-nn --------------------------

# gnubg_nn.moves(starting board, d1, d2, 1): the number of distinct positions per roll.
OPENING_COUNTS = {
    (1, 1): 42, (1, 2): 15, (1, 3): 16, (1, 4): 14, (1, 5): 8, (1, 6): 10,
    (2, 2): 75, (2, 3): 17, (2, 4): 18, (2, 5): 8, (2, 6): 14,
    (3, 3): 73, (3, 4): 17, (3, 5): 9, (3, 6): 14,
    (4, 4): 52, (4, 5): 9, (4, 6): 14,
    (5, 5): 4, (5, 6): 7,
    (6, 6): 11,
}  # fmt: skip


@pytest.mark.parametrize("roll", ROLLS)
def test_opening_position_counts_match_gnubg(roll: tuple[int, int]) -> None:
    assert len(legal_plays(starting_board(), *roll)) == OPENING_COUNTS[roll]


def test_dice_order_does_not_matter() -> None:
    b = starting_board()
    assert {p.result for p in legal_plays(b, 5, 2)} == {p.result for p in legal_plays(b, 2, 5)}


# -- Old English: five checkers at most on a point --------------------------------------------------


def test_five_checkers_cap_in_oldenglish() -> None:
    b = board({6: 5, 8: 1, 3: 2}, {13: 2})
    assert Move(8, 6) in {m for m, _ in single_moves(b, 2)}
    assert Move(8, 6) not in {m for m, _ in single_moves(b, 2, RuleSet.OLDENGLISH)}


def test_oldenglish_cap_applies_to_entering_from_the_bar() -> None:
    b = board({25: 1, 22: 5, 1: 9}, {6: 2})
    assert legal_plays(b, 3, 3, RuleSet.OLDENGLISH) == (Play((), b),)
    assert legal_plays(b, 3, 3)[0].moves[0] == Move(25, 22)


def test_oldenglish_does_not_limit_bearing_off() -> None:
    b = board({1: 5, 2: 5, 3: 5}, {13: 2})
    plays = legal_plays(b, 2, 1, RuleSet.OLDENGLISH)
    assert all(len(p.moves) == 2 for p in plays)
    assert any(m.dst == 0 for p in plays for m in p.moves)


def test_oldenglish_must_play_counts_the_cap() -> None:
    # 6-1: 13/7 lands on five checkers, so the 6 goes first only from 7 (7/1); 7/6 is capped too.
    # Standard rules allow 13/7 7/6 among others; under the cap every play still uses both dice.
    b = board({13: 1, 7: 5, 6: 5, 2: 4}, {10: 2})
    plays = legal_plays(b, 6, 1, RuleSet.OLDENGLISH)
    assert all(len(p.moves) == 2 for p in plays)
    assert all(max(p.result[1][:24]) <= 5 for p in plays)
    assert ((13, 12), (12, 6)) not in moves_of(plays)
    assert ((13, 12), (7, 1)) in moves_of(plays)


def _brute_force(b: Board, d1: int, d2: int, rules: RuleSet) -> set[Board]:
    """Every order of every die over every checker, no pruning, then the must-play rule by hand."""
    orders = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    ends: dict[Board, int] = {}
    single: dict[Board, int] = {}

    def go(pos: Board, dice: tuple[int, ...], used: int, first: int) -> None:
        nxt = single_moves(pos, dice[0], rules) if dice else []
        if not nxt:
            ends[pos] = max(ends.get(pos, 0), used)
            if used == 1:
                single[pos] = max(single.get(pos, 0), first)
            return
        for _, after in nxt:
            go(after, dice[1:], used + 1, first or dice[0])

    for order in orders:
        go(b, order, 0, 0)
    most = max(ends.values())
    best = {pos for pos, used in ends.items() if used == most}
    if most == 1 and d1 != d2:
        hi = max(d1, d2)
        with_hi = {pos for pos in best if single.get(pos) == hi}
        if with_hi:
            best = with_hi
    return best


def _random_capped_positions(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    b = starting_board()
    while len(out) < count:
        out.append(b)
        play = rng.choice(legal_plays(b, rng.randint(1, 6), rng.randint(1, 6), RuleSet.OLDENGLISH))
        b = swap(play.result)
        if borne_off(b[0]) == 15:
            b = starting_board()
    return out


def test_oldenglish_plays_match_a_brute_force_enumeration() -> None:
    for b in _random_capped_positions(60, seed=3):
        for d1, d2 in ROLLS:
            ours = {p.result for p in legal_plays(b, d1, d2, RuleSet.OLDENGLISH)}
            assert ours == _brute_force(b, d1, d2, RuleSet.OLDENGLISH), (b, d1, d2)
