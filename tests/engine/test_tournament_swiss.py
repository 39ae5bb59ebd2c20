"""Swiss rules (engine/tournament/swiss.py, standings.py): rounds, pairing, byes, tie-breaks."""

from __future__ import annotations

from itertools import combinations

import pytest

from engine.tournament import Entrant, Pairing, Result, Tournament, TournamentError, swiss
from engine.tournament.simulate import field, play_out, play_round
from engine.tournament.standings import Record, standings


def tables(t: Tournament, round_: int) -> list[tuple[int, int | None]]:
    return [(p.first, p.second) for p in t.round_pairings(round_)]


def played(*pairs: tuple[int, int]) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(p) for p in pairs)


@pytest.mark.parametrize(
    ("size", "rounds"), [(2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4), (64, 6), (65, 7)]
)
def test_default_rounds_are_log2_of_the_field_rounded_up(size: int, rounds: int) -> None:
    assert Tournament.start("swiss", field(size)).rounds == rounds


@pytest.mark.parametrize("rounds", [0, -1, 8])
def test_rounds_out_of_range_are_refused(rounds: int) -> None:
    with pytest.raises(TournamentError, match="1 to 7 rounds"):
        Tournament.start("swiss", field(8), rounds=rounds)


def test_pairs_by_score_then_rating() -> None:
    t = Tournament.start("swiss", field(8))
    assert tables(t, 1) == [(1, 2), (3, 4), (5, 6), (7, 8)]
    t = play_round(t, lambda t, p: Result(p.round, p.table, p.second, "played")).advance()
    # Winners 2, 4, 6, 8 (one point) first, by rating; then the losers.
    assert tables(t, 2) == [(2, 4), (6, 8), (1, 3), (5, 7)]


@pytest.mark.parametrize("size", range(2, 34))
def test_no_rematches_and_one_bye_at_most(size: int) -> None:
    t = play_out(Tournament.start("swiss", field(size), rounds=min(size - 1, 6)))
    met = [frozenset(p.players) for p in t.pairings if not p.is_bye]
    assert len(met) == len(set(met))
    byes = [p.first for p in t.pairings if p.is_bye]
    assert len(byes) == len(set(byes))
    assert t.finished and t.champion == 1


def test_backtracks_when_the_greedy_pairing_meets_a_rematch() -> None:
    assert swiss.pair([1, 2, 3, 4], played((3, 4)), {}) == ([(1, 3), (2, 4)], None)


def test_the_matching_pairs_when_the_search_runs_out_of_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swiss, "SEARCH_STEPS", 0)
    assert swiss.pair([1, 2, 3, 4], played((3, 4)), {}) == ([(1, 3), (2, 4)], None)


def test_a_rematch_only_when_no_pairing_avoids_one() -> None:
    star = played(*((1, other) for other in range(2, 7)))
    tables_, bye = swiss.pair([1, 2, 3, 4, 5, 6], star, {})
    assert bye is None
    assert sorted(p for t in tables_ for p in t) == [1, 2, 3, 4, 5, 6]
    assert sum(frozenset(t) in star for t in tables_) == 1
    everyone = played(*combinations(range(1, 5), 2))
    tables_, _ = swiss.pair([1, 2, 3, 4], everyone, {})
    assert sorted(p for t in tables_ for p in t) == [1, 2, 3, 4]


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    t = Tournament.start("swiss", field(5), rounds=4)
    assert tables(t, 1)[-1] == (5, None)
    t = play_round(t).advance()
    assert [p.first for p in t.round_pairings(2) if p.is_bye] == [4]
    t = play_out(t)
    assert sorted(p.first for p in t.pairings if p.is_bye) == [2, 3, 4, 5]


def test_the_bye_skips_a_player_whose_leaving_out_forces_a_rematch() -> None:
    assert swiss.pair([1, 2, 3, 4, 5], played((1, 2), (1, 3), (1, 4)), {}) == ([(1, 5), (2, 3)], 4)


def test_a_bye_is_one_point() -> None:
    t = play_round(Tournament.start("swiss", field(3)))
    row = {s.player: s for s in t.standings()}[3]
    assert (row.points, row.byes, row.wins, row.buchholz) == (1.0, 1, 0, 0.0)


def swiss_by_hand(rounds: list[list[tuple[int, int, int | None]]], size: int = 6) -> Tournament:
    pairings = tuple(
        Pairing(r, i, a, b) for r, tabs in enumerate(rounds, 1) for i, (a, b, _) in enumerate(tabs, 1)
    )
    results = tuple(
        Result(r, i, w, "played" if w else "both forfeit")
        for r, tabs in enumerate(rounds, 1)
        for i, (_, _, w) in enumerate(tabs, 1)
    )
    return Tournament("swiss", len(rounds) + 1, tuple(field(size)), pairings, results, frozenset())


def test_tie_break_buchholz_then_rating() -> None:
    t = swiss_by_hand([[(1, 2, 1), (3, 4, 3), (5, 6, 6)], [(1, 3, 1), (2, 6, 2), (4, 5, 4)]])
    rows = [(s.player, s.points, s.buchholz, s.sonneborn_berger) for s in t.standings()]
    assert rows == [
        (1, 2, 2, 2),
        (2, 1, 3, 1),  # level with 3 on points, Buchholz and SB: the better rating
        (3, 1, 3, 1),
        (4, 1, 1, 0),  # one point like 2 and 3, but weaker opponents
        (6, 1, 1, 0),
        (5, 0, 2, 0),
    ]


def test_tie_break_sonneborn_berger_before_rating() -> None:
    entrants = field(2)
    table = {
        1: Record(points=1, met=[3, 4], beat=[4]),
        2: Record(points=1, met=[3, 4], beat=[3]),
        3: Record(points=2),
        4: Record(points=1),
    }
    entrants += [Entrant(3, 0, 3), Entrant(4, 0, 4)]
    rows = standings(entrants, table, frozenset(), knockout=False)
    assert [(s.player, s.buchholz, s.sonneborn_berger) for s in rows[1:3]] == [(2, 3, 2), (1, 3, 1)]


def test_both_forfeit_is_a_loss_for_both() -> None:
    t = Tournament.start("swiss", field(4))
    t = t.record(Result(1, 1, None, "both forfeit"))
    rows = {s.player: s for s in t.standings()}
    assert (rows[1].points, rows[1].losses, rows[2].points, rows[2].losses) == (0, 1, 0, 1)


def test_withdrawn_players_stay_in_the_standings_and_are_never_paired_again() -> None:
    t = play_round(Tournament.start("swiss", field(6), rounds=4)).withdraw(1)
    row = t.standings()[0]
    assert (row.player, row.points, row.out) == (1, 1.0, True)
    t = play_out(t.advance())
    assert all(1 not in p.players for p in t.pairings if p.round > 1)
    assert t.champion != 1 and {s.player for s in t.standings()} == set(range(1, 7))


def test_withdrawing_mid_round_loses_the_open_table() -> None:
    t = Tournament.start("swiss", field(4)).withdraw(2)
    assert t.result(1, 1) == Result(1, 1, 1, "withdrew")


def test_ends_early_when_fewer_than_two_are_left() -> None:
    t = play_round(Tournament.start("swiss", field(3), rounds=2)).withdraw(1).withdraw(2)
    assert t.finished and t.champion == 3


def test_finished_after_its_rounds_with_the_top_of_the_standings_as_champion() -> None:
    t = Tournament.start("swiss", field(8))
    for _ in range(2):
        t = play_round(t).advance()
    assert not t.finished and t.champion is None
    t = play_round(t)
    assert t.finished and t.champion == t.standings()[0].player == 1
    with pytest.raises(TournamentError, match="over"):
        t.advance()


def test_set_result_can_correct_an_earlier_swiss_round() -> None:
    t = play_round(Tournament.start("swiss", field(4))).advance()
    t = t.set_result(1, 1, 2, "scores swapped by mistake")
    assert {s.player: s.points for s in t.standings()}[2] == 1


def test_the_matching_also_chooses_the_bye_when_the_search_runs_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(swiss, "SEARCH_STEPS", 0)
    assert swiss.pair([1, 2, 3, 4, 5], played((1, 2), (1, 3), (1, 4)), {}) == ([(1, 5), (2, 3)], 4)
    assert swiss.pair([1, 2, 3, 4, 5], played(), {5: 1}) == ([(1, 2), (3, 5)], 4)


def test_pairing_ranks_by_points_and_rating_not_by_tie_breaks() -> None:
    t = swiss_by_hand(
        [[(1, 2, 1), (3, 4, 3), (5, 6, 5), (7, 8, 7)], [(1, 3, 1), (2, 4, 2), (5, 7, 5), (6, 8, 8)]], size=8
    )
    # 7 is above 2 and 3 in the standings (a better Buchholz), but below them in rating.
    assert [s.player for s in t.standings()][:4] == [1, 5, 7, 2]
    assert tables(t.advance(), 3) == [(1, 5), (2, 3), (7, 6), (8, 4)]


def test_when_everyone_has_had_a_bye_the_lowest_ranked_has_another() -> None:
    assert swiss.pair([1, 2, 3], played(), {1: 1, 2: 1, 3: 1}) == ([(1, 2)], 3)
    assert swiss.pair([1, 2, 3], played(), {3: 1}) == ([(1, 3)], 2)


def test_tie_break_buchholz_before_sonneborn_berger() -> None:
    entrants = [*field(2), Entrant(3, 0, 3), Entrant(4, 0, 4), Entrant(5, 0, 5)]
    table = {
        1: Record(points=1, met=[4, 5], beat=[4]),
        2: Record(points=1, met=[3, 5], beat=[5]),
        3: Record(points=3),
        4: Record(points=1),
        5: Record(points=0),
    }
    rows = standings(entrants, table, frozenset(), knockout=False)
    by_player = {s.player: (s.buchholz, s.sonneborn_berger) for s in rows}
    assert by_player[1] == (1, 1) and by_player[2] == (3, 0)
    # 1 has the better SB and rating, 2 the better Buchholz, which comes first.
    assert [s.player for s in rows][1:3] == [2, 1]
