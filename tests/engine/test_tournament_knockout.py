"""Knockout rules (engine/tournament/knockout.py and state.py): seeding, byes, forfeits, the end."""

from __future__ import annotations

import pytest

from engine.tournament import Entrant, Pairing, Result, Tournament, TournamentError
from engine.tournament.knockout import bracket_order
from engine.tournament.simulate import field, play_out, play_round


def tables(t: Tournament, round_: int) -> list[tuple[int, int | None]]:
    return [(p.first, p.second) for p in t.round_pairings(round_)]


def decide(t: Tournament, table: int, winner: int | None, how: str = "played") -> Tournament:
    return t.record(Result(t.current_round, table, winner, how))


def test_seeded_by_rating_ties_by_sign_up_order() -> None:
    entrants = [Entrant(10, 1500, 1), Entrant(20, 1700, 2), Entrant(30, 1500, 0), Entrant(40, 1600, 3)]
    t = Tournament.start("knockout", entrants)
    assert [t.seed(p) for p in (20, 40, 30, 10)] == [1, 2, 3, 4]
    assert tables(t, 1) == [(20, 10), (40, 30)]


def test_first_round_pairs_the_top_seed_with_the_lowest() -> None:
    t = Tournament.start("knockout", field(8))
    assert tables(t, 1) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    assert t.rounds == 3


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128])
def test_bracket_keeps_seeds_one_and_two_in_different_halves(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    assert 1 in order[: size // 2] and 2 in order[size // 2 :]


@pytest.mark.parametrize("size", range(2, 41))
def test_top_two_seeds_meet_only_in_the_final(size: int) -> None:
    t = play_out(Tournament.start("knockout", field(size)))
    final = t.round_pairings(t.rounds)
    assert [(p.first, p.second) for p in final] == [(1, 2)]
    for round_ in range(1, t.rounds):
        assert all({1, 2} != set(p.players) for p in t.round_pairings(round_))
    assert t.champion == 1


@pytest.mark.parametrize("size", [3, 5, 6, 7, 9, 12, 13, 33, 63])
def test_byes_go_to_the_top_seeds_so_round_two_is_a_power_of_two(size: int) -> None:
    t = Tournament.start("knockout", field(size))
    bracket = 1 << (size - 1).bit_length()
    byes = sorted(p.first for p in t.round_pairings(1) if p.is_bye)
    assert byes == list(range(1, bracket - size + 1))
    assert all(
        t.result(p.round, p.table) == Result(1, p.table, p.first, "bye")
        for p in t.round_pairings(1)
        if p.is_bye
    )
    assert all(not p.is_bye for p in t.open_pairings())
    t = play_round(t).advance()
    assert len(t.round_pairings(2)) == bracket // 4
    assert all(not p.is_bye for p in t.round_pairings(2))


def test_both_forfeit_sends_nobody_on_and_the_next_opponent_has_a_bye() -> None:
    t = Tournament.start("knockout", field(8))
    t = decide(t, 1, 1)
    t = decide(t, 2, None, "both forfeit")
    t = decide(t, 3, 2)
    t = decide(t, 4, 3)
    t = t.advance()
    assert tables(t, 2) == [(1, None), (2, 3)]
    assert t.result(2, 1) == Result(2, 1, 1, "bye")
    assert {4, 5} <= t.out


def test_a_bracket_position_nobody_reaches_has_no_table() -> None:
    t = Tournament.start("knockout", field(8))
    for table in (1, 2):
        t = decide(t, table, None, "both forfeit")
    t = decide(t, 3, 2)
    t = decide(t, 4, 3)
    t = t.advance()
    assert [(p.table, p.first, p.second) for p in t.round_pairings(2)] == [(2, 2, 3)]
    t = decide(t, 2, 3)
    assert t.finished and t.champion == 3


def test_a_withdrawn_player_forfeits_their_open_table() -> None:
    t = Tournament.start("knockout", field(4)).withdraw(4)
    assert t.result(1, 1) == Result(1, 1, 1, "withdrew")
    assert 4 in t.out
    with pytest.raises(TournamentError, match="already left"):
        t.withdraw(4)


def test_a_winner_who_withdraws_before_the_next_round_gives_the_opponent_a_bye() -> None:
    t = play_round(Tournament.start("knockout", field(8))).withdraw(4)
    t = t.advance()
    assert tables(t, 2) == [(1, None), (2, 3)]


def test_a_beaten_player_cannot_withdraw() -> None:
    t = play_round(Tournament.start("knockout", field(4)))
    with pytest.raises(TournamentError, match="already out"):
        t.withdraw(4)


def test_finished_when_one_player_is_left() -> None:
    t = Tournament.start("knockout", field(8))
    for table in (1, 2, 3):
        t = decide(t, table, None, "both forfeit")
    assert not t.finished
    t = decide(t, 4, 6)
    assert t.finished and t.champion == 6
    with pytest.raises(TournamentError, match="over"):
        t.advance()


def test_no_champion_when_the_final_is_both_forfeit() -> None:
    t = Tournament.start("knockout", field(2))
    t = decide(t, 1, None, "both forfeit")
    assert t.finished and t.champion is None
    assert all(s.out for s in t.standings())


def test_a_knockout_s_rounds_cannot_be_chosen() -> None:
    assert Tournament.start("knockout", field(5), rounds=3).rounds == 3
    with pytest.raises(TournamentError, match="cannot be chosen"):
        Tournament.start("knockout", field(5), rounds=2)


def test_standings_rank_by_how_far_a_player_got() -> None:
    t = play_out(Tournament.start("knockout", field(8)))
    rows = t.standings()
    assert [s.player for s in rows[:2]] == [1, 2]
    assert [s.out for s in rows[:2]] == [False, True]
    assert {s.player for s in rows[2:4]} == {3, 4}
    assert rows[0].wins == 3 and rows[0].losses == 0


def test_set_result_in_a_knockout_changes_only_the_current_round() -> None:
    t = play_round(Tournament.start("knockout", field(4)))
    t = t.set_result(1, 1, 4, "1 left the server before the match")
    assert t.result(1, 1) == Result(1, 1, 4, "organiser", "1 left the server before the match")
    t = t.advance()
    assert tables(t, 2) == [(4, 2)]
    with pytest.raises(TournamentError, match="only round 2"):
        t.set_result(1, 2, 3, "late report")


def test_pairing_type_says_bye() -> None:
    assert Pairing(1, 1, 5, None).is_bye and Pairing(1, 1, 5, None).players == (5,)
