"""What every tournament refuses, its determinism, and its saved form (engine/tournament/state.py,
saved.py)."""

from __future__ import annotations

import json

import pytest

from engine.errors import GameError
from engine.tournament import Entrant, Result, Tournament, TournamentError
from engine.tournament.simulate import field, play_out, play_round


@pytest.mark.parametrize("format", ["knockout", "swiss"])
def test_fewer_than_two_players_cannot_start(format: str) -> None:
    with pytest.raises(TournamentError, match="at least two players; it has 1"):
        Tournament.start(format, field(1))  # type: ignore[arg-type]


def test_a_player_enters_once_and_formats_are_known() -> None:
    with pytest.raises(TournamentError, match="only once"):
        Tournament.start("swiss", [Entrant(1, 1500, 1), Entrant(1, 1500, 2)])
    with pytest.raises(TournamentError, match="no 'roundrobin' format"):
        Tournament.start("roundrobin", field(4))  # type: ignore[arg-type]


def test_errors_are_game_errors_shown_to_players() -> None:
    assert issubclass(TournamentError, GameError) and issubclass(TournamentError, ValueError)


@pytest.mark.parametrize(
    ("result", "reason"),
    [
        (Result(1, 9, 1, "played"), "Round 1 has no table 9"),
        (Result(2, 1, 1, "played"), "Round 2 has no table 1"),
        (Result(1, 1, 3, "played"), "must be one of its players"),
        (Result(1, 1, None, "timeout"), "needs a winner"),
        (Result(1, 1, 1, "both forfeit"), "no winner"),
        (Result(1, 1, 1, "bye"), "cannot be 'bye'"),
        (Result(1, 1, 1, "luck"), "cannot be 'luck'"),
    ],
)
def test_a_bad_result_is_refused(result: Result, reason: str) -> None:
    t = Tournament.start("swiss", field(4))
    with pytest.raises(TournamentError, match=reason):
        t.record(result)


def test_a_decided_table_cannot_be_decided_again_but_the_organiser_may() -> None:
    t = Tournament.start("knockout", field(3))
    with pytest.raises(TournamentError, match="already decided"):
        t.record(Result(1, 1, 1, "played"))  # the top seed's bye
    t = t.record(Result(1, 2, 2, "timeout"))
    with pytest.raises(TournamentError, match="already decided"):
        t.record(Result(1, 2, 3, "played"))
    t = t.set_result(1, 2, 3, "  the clock   was wrong ")
    assert t.result(1, 2) == Result(1, 2, 3, "organiser", "the clock was wrong")
    assert len(t.results) == 2


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ((1, 2, 2, "   "), "Say why"),
        ((1, 2, 2, "x" * 201), "too long"),
        ((1, 1, 1, "why not"), "is a bye"),
        ((1, 5, 2, "why not"), "no table 5"),
        ((1, 2, 1, "why not"), "one of its players"),
    ],
)
def test_a_bad_organiser_result_is_refused(args: tuple[int, int, int, str], reason: str) -> None:
    t = Tournament.start("knockout", field(3))
    with pytest.raises(TournamentError, match=reason):
        t.set_result(*args)


def test_the_organiser_may_send_both_out() -> None:
    t = Tournament.start("knockout", field(4)).set_result(1, 1, None, "neither turned up")
    assert t.result(1, 1) == Result(1, 1, None, "organiser", "neither turned up")
    assert {1, 4} <= t.out


def test_advance_waits_for_the_round() -> None:
    t = Tournament.start("swiss", field(6))
    t = t.record(Result(1, 1, 1, "played"))
    with pytest.raises(TournamentError, match="Round 1 is not over: 2 tables still to finish"):
        t.advance()


def test_a_stranger_cannot_withdraw_and_nobody_after_the_end() -> None:
    t = Tournament.start("swiss", field(4))
    with pytest.raises(TournamentError, match="not in this tournament"):
        t.withdraw(99)
    with pytest.raises(TournamentError, match="over"):
        play_out(t).withdraw(3)


@pytest.mark.parametrize("format", ["knockout", "swiss"])
def test_advancing_is_a_pure_function_of_the_state(format: str) -> None:
    t = play_round(Tournament.start(format, field(37)))  # type: ignore[arg-type]
    again = Tournament.from_json(t.to_json())
    assert t.advance() == again.advance()
    assert t.advance().to_json() == again.advance().to_json()


@pytest.mark.parametrize("format", ["knockout", "swiss"])
def test_the_saved_form_round_trips_mid_event(format: str) -> None:
    t = play_round(Tournament.start(format, field(11))).advance()  # type: ignore[arg-type]
    t = t.record(Result(2, 1, t.round_pairings(2)[0].first, "timeout")).withdraw(t.open_pairings()[0].first)
    t = t.set_result(2, 1, t.round_pairings(2)[0].second, "a disconnect")
    back = Tournament.from_json(t.to_json())
    assert back == t
    assert back.to_json() == t.to_json()
    assert play_out(back) == play_out(t)


def corrupt(change: str) -> str:
    data = json.loads(play_round(Tournament.start("swiss", field(4))).to_json())
    exec(change, {"data": data})
    return json.dumps(data)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "cannot be read"),
        ("[]", "schema 1"),
        (corrupt("data['schema'] = 2"), "schema 1"),
        (corrupt("data['format'] = 'league'"), "unknown format"),
        (corrupt("data['entrants'] = data['entrants'][:1]"), "two or more"),
        (corrupt("data['entrants'][0][1] = 'high'"), "rating"),
        (corrupt("data['pairings'][0][2] = 77"), "did not enter"),
        (corrupt("data['pairings'][0][0] = 9"), "out of range"),
        (corrupt("data['pairings'].append(data['pairings'][0])"), "paired twice"),
        (corrupt("data['results'][0][2] = 4"), "did not play there"),
        (corrupt("data['results'][0][3] = 'magic'"), "impossible"),
        (corrupt("data['results'].append(data['results'][0])"), "two results"),
        (corrupt("data['withdrawn'] = [True]"), "whole number"),
        (corrupt("del data['rounds']"), "cannot be read"),
    ],
)
def test_a_damaged_saved_form_is_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(TournamentError, match=reason):
        Tournament.from_json(text)
