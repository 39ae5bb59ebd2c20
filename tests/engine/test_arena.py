"""The arena: its JSON figures, their determinism, alternating seats, intervals and errors."""

from __future__ import annotations

import json
import random

import pytest

from engine.__main__ import main
from engine.ai import arena as arena_module
from engine.ai.arena import TIMING_KEYS, arena, mean_interval, percentile, wilson_interval
from engine.ai.levels import LEVEL_PLAYERS, UnknownPlayerError, find_player
from engine.ai.players import PLAYERS
from engine.ai.random_player import random_choice
from engine.protocol import Action, GameView
from engine.registry import VARIANTS, find_variant


def _without_timings(data: object) -> object:
    if isinstance(data, dict):
        return {k: _without_timings(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [_without_timings(v) for v in data]
    return data


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["arena", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_output_is_one_json_object_with_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "--game", "ring", "--players", "greedy,random", "--games", "20", "--seed", "5"
    )
    assert code == 0 and err == ""
    assert len(out.strip().splitlines()) == 1
    report = json.loads(out)
    assert report["game"] == "ring" and report["games"] == 20 and report["seed"] == 5
    a, b = report["players"]
    assert (a["name"], b["name"]) == ("greedy", "random")
    assert a["wins"] + b["wins"] + report["draws"] == 20
    for player in (a, b):
        low, high = player["win_rate_ci95"]
        assert 0 <= low <= player["win_rate"] <= high <= 1
        assert player["decisions"] > 0
        assert player["mean_seconds_per_decision"] >= 0
        assert player["p95_seconds_per_decision"] >= 0
        assert "points_per_game" not in player  # ring games are worth one point
    assert sum(report["wins_per_condition"].values()) == 20


def test_backgammon_reports_points_per_game(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--game", "backgammon", "--players", "greedy,random", "--games", "4")
    assert code == 0
    report = json.loads(out)
    a, b = report["players"]
    for player in (a, b):
        low, high = player["points_per_game_ci95"]
        assert low <= player["points_per_game"] <= high
    # Every game's points go to one side and from the other.
    assert a["points_per_game"] == pytest.approx(-b["points_per_game"])


def test_same_seed_same_figures_except_timings() -> None:
    ring = find_variant("ring")
    first = arena(ring, ("easy", "medium"), 12, 42)
    second = arena(ring, ("easy", "medium"), 12, 42)
    assert _without_timings(first) == _without_timings(second)
    other = arena(ring, ("easy", "medium"), 12, 43)
    assert _without_timings(other) != _without_timings(first)


def test_seats_alternate(monkeypatch: pytest.MonkeyPatch) -> None:
    seats: dict[str, list[tuple[int, int]]] = {"A": [], "B": []}
    game_of_turn = {"n": -1}

    def tracking(label: str) -> object:
        def player(view: GameView, rng: random.Random) -> Action:
            assert view.viewer is None or view.viewer == view.to_move()
            seats[label].append((game_of_turn["n"], view.to_move()))
            return random_choice(view, rng)

        return player

    original_play = arena_module.play_game

    def counting_play(*args: object, **kwargs: object) -> object:
        game_of_turn["n"] += 1
        return original_play(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setitem(LEVEL_PLAYERS["ring"], "track-a", tracking("A"))  # type: ignore[arg-type]
    monkeypatch.setitem(LEVEL_PLAYERS["ring"], "track-b", tracking("B"))  # type: ignore[arg-type]
    monkeypatch.setattr(arena_module, "play_game", counting_play)
    report = arena(find_variant("ring"), ("track-a", "track-b"), 6, 1)
    assert report["seats_of_first_player"] == "010101"
    for game in range(6):
        a_seats = {seat for g, seat in seats["A"] if g == game}
        b_seats = {seat for g, seat in seats["B"] if g == game}
        assert a_seats == {game % 2}
        assert b_seats == {1 - game % 2}


def test_wilson_interval() -> None:
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    low, high = wilson_interval(0, 20)
    assert low == 0.0 and 0 < high < 0.2
    low, high = wilson_interval(20, 20)
    assert 0.8 < low < 1 and high == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # Narrower with more games.
    assert wilson_interval(500, 1000)[1] - wilson_interval(500, 1000)[0] < high - low + 0.1
    for wins in range(0, 31):
        low, high = wilson_interval(wins, 30)
        assert 0 <= low <= wins / 30 <= high <= 1


def test_mean_interval_and_percentile() -> None:
    mean, low, high = mean_interval([1, -1, 1, -1])
    assert mean == 0 and low < 0 < high
    assert mean_interval([2, 2, 2]) == (2, 2, 2)
    assert percentile([float(v) for v in range(101)], 0.95) == pytest.approx(95)
    assert percentile([], 0.95) == 0.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "chess", "--players", "random,random"], "chess"),
        (["--game", "ring", "--players", "random,grandmaster"], "grandmaster"),
        (["--game", "backgammon", "--players", "grandmaster,random"], "grandmaster"),
        (["--game", "ring", "--players", "random"], "two player names"),
        (["--game", "ring", "--players", "random,random", "--games", "0"], "--games"),
    ],
)
def test_unknown_names_are_errors(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and message in err


def test_player_tables_cover_every_game_and_leave_the_bot_players_alone() -> None:
    assert set(LEVEL_PLAYERS) == set(VARIANTS)
    for game, table in LEVEL_PLAYERS.items():
        assert {"random", "greedy"} <= set(table)
        bot_player = "medium" if game == "backgammon" else "greedy"
        assert table[bot_player] is PLAYERS[game]
    assert set(LEVEL_PLAYERS["ring"]) == {"random", "greedy", "easy", "medium", "hard"}
    with pytest.raises(UnknownPlayerError, match="players: random"):
        find_player("ring", "nobody")
    assert find_player("ring", " Hard ") is LEVEL_PLAYERS["ring"]["hard"]


def test_selfplay_still_works(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--game", "ring", "--games", "3", "--seed", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 3


def test_backgammon_is_benchmarked_as_cubeless_money_play(monkeypatch: pytest.MonkeyPatch) -> None:
    """Single games (no cube, 1, 2 or 3 points), the bgsage levels told to play them for money."""
    from engine.ai import backgammon_bgsage
    from engine.backgammon.game import BackgammonState, Phase

    seen: list[BackgammonState] = []

    def watching(view: GameView, rng: random.Random) -> Action:
        assert isinstance(view, BackgammonState)
        seen.append(view)
        return random_choice(view, rng)

    monkeypatch.setitem(LEVEL_PLAYERS["backgammon"], "watch", watching)  # type: ignore[arg-type]
    report = arena(find_variant("backgammon"), ("watch", "pubeval"), 6, 3)
    assert report["games"] == 6 and seen
    assert all(s.length == 1 and not s.uses_cube and s.phase is not Phase.DECIDE for s in seen)
    assert all(s.rules.value == "standard" for s in seen)
    assert arena_module.benchmark_player("backgammon", "easy") == backgammon_bgsage.EASY.for_money()
    assert arena_module.benchmark_player("backgammon", "pubeval") is LEVEL_PLAYERS["backgammon"]["pubeval"]
    assert arena_module.benchmark_player("ring", "hard") is LEVEL_PLAYERS["ring"]["hard"]
    assert not backgammon_bgsage.EASY.money  # the bot's players play the match they are in


def test_backgammon_levels_in_the_arena(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--game", "backgammon", "--players", "medium,pubeval", "--games", "2")
    assert code == 0
    a, b = json.loads(out)["players"]
    assert (a["name"], b["name"]) == ("medium", "pubeval") and a["decisions"] > 0
