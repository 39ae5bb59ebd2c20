"""bench/expert_vs_gnubg.py: the games it has played add up across runs (one JSON line a game), the
pairs share their dice, and a run started again on the same file plays only what is missing."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine.ai.backgammon_bgsage import EASY
from engine.backgammon.game import BackgammonState
from engine.protocol import Action
from tests import oracles

ROOT = Path(__file__).resolve().parents[1]


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("expert_vs_gnubg", ROOT / "bench" / "expert_vs_gnubg.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = load_bench()


def record(seed: int, seat: int, points: int, cube: int = 1, wall: float = 0.1) -> dict[str, Any]:
    return {
        "seed": seed,
        "seat": seat,
        "points": points,
        "cube": cube,
        "times": {"checker": [wall], "cube": [wall / 2]},
        "cpu": {"checker": [wall], "cube": [wall / 2]},
    }


def test_pending_games_are_the_pairs_not_yet_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    assert bench.read_records(path) == []
    assert bench.pending_games([], 4, 10) == [(10, 0), (10, 1), (11, 0), (11, 1)]
    lines = [json.dumps(record(10, 0, 1)), json.dumps(record(11, 0, -2)), '{"seed": 11, "se']
    path.write_text("\n".join(lines))  # the last line was cut short by a stopped run
    done = bench.read_records(path)
    assert [(r["seed"], r["seat"]) for r in done] == [(10, 0), (11, 0)]
    assert bench.pending_games(done, 4, 10) == [(10, 1), (11, 1)]
    assert bench.pending_games(done, 6, 10) == [(10, 1), (11, 1), (12, 0), (12, 1)]


def test_totals_add_up_every_run_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    first = [record(1, 0, 2, cube=2), record(1, 1, -1)]
    second = [record(2, 0, 1), record(2, 1, 3, wall=0.5), record(3, 0, -1)]
    with path.open("a") as out:
        for r in first:
            out.write(json.dumps(r) + "\n")
    assert bench.totals(bench.read_records(path))["games"] == 2
    with path.open("a") as out:  # a later run appends to the same file
        for r in second:
            out.write(json.dumps(r) + "\n")
    total = bench.totals(bench.read_records(path))
    assert (total["games"], total["pairs"]) == (5, 2)
    assert total["ppg"] == pytest.approx((2 - 1 + 1 + 3 - 1) / 5)
    assert total["paired_ppg"] == pytest.approx(((2 - 1) / 2 + (1 + 3) / 2) / 2)
    low, high = total["ppg_95"]
    assert low < total["ppg"] < high
    assert (total["won"], total["gammons"], total["doubled_games"]) == (3, 1, 1)
    assert total["checker"]["decisions"] == 5 and total["checker"]["max_s"] == 0.5
    assert total["cube"]["max_s"] == 0.25


def test_a_game_recorded_twice_counts_once() -> None:
    total = bench.totals([record(1, 0, 2), record(1, 0, 2)])
    assert total["games"] == 1 and total["ppg_95"] is None


def test_both_games_of_a_pair_meet_the_same_dice(monkeypatch: pytest.MonkeyPatch) -> None:
    """The level in seat 0, then in seat 1, on the dice of one seed: the same opening roll, and the
    same rolls turn after turn for as long as both games last."""
    rolls: list[list[tuple[int, ...]]] = []
    drawn = bench.sample_outcome

    def logged(spec: Any, rng: random.Random) -> tuple[int, ...]:
        outcome: tuple[int, ...] = drawn(spec, rng)
        rolls[-1].append(outcome)
        return outcome

    def opponent(state: BackgammonState) -> Action:
        return EASY(state, random.Random(0))

    monkeypatch.setattr(bench, "sample_outcome", logged)
    games = []
    for seat in (0, 1):
        rolls.append([])
        games.append(bench.play_game(7, seat, "easy", opponent))
    common = min(len(r) for r in rolls)
    assert common > 10 and rolls[0][:common] == rolls[1][:common]
    for game in games:
        assert set(game) == {"seed", "seat", "points", "cube", "times", "cpu"}
        assert game["points"] != 0 and game["cube"] >= 1
        assert game["times"]["checker"] and len(game["cpu"]["checker"]) == len(game["times"]["checker"])


def test_the_bench_resumes_against_gnu_backgammon(tmp_path: Path) -> None:
    """Two games, then four: the second run plays only the two the file lacks (GNU Backgammon 0-ply
    against ``easy``, to be quick; GNU Backgammon keeps its settings in a home of the test's own)."""
    oracles.import_oracle("gnubg")
    out = tmp_path / "games.jsonl"

    def run(games: int) -> dict[str, Any]:
        script = str(ROOT / "bench" / "expert_vs_gnubg.py")
        done = oracles.run_gnubg(
            [sys.executable, script, "--level", "easy", "--games", str(games), "--out", str(out)],
            stdin="",
            home=tmp_path,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        (line,) = [line for line in done.stdout.splitlines() if line.startswith("{")]
        return dict(json.loads(line))

    assert run(2)["games"] == 2
    lines = out.read_text().splitlines()
    total = run(4)
    assert out.read_text().splitlines()[:2] == lines
    assert (total["games"], total["pairs"]) == (4, 2)
    seeds = [(r["seed"], r["seat"]) for r in bench.read_records(out)]
    assert seeds == [(1, 0), (1, 1), (2, 0), (2, 1)]
