"""The benchmark scripts in bench/ run to the end and print what their README section describes.

Nothing here is timed: a bench that crashes, or whose two sides stop computing the same thing,
fails; how fast anything was is the bench's output, never asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_bench(script: str, *args: str) -> list[dict[str, Any]]:
    """Run ``bench/<script>`` from the repository root; its JSON lines."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / script), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def test_interactions_one_at_a_time_follows_turns_into_the_private_panel() -> None:
    """A ring turn's steps are acknowledged (deferred) and continue on the player's private panel:
    the bench clicks there, and every sample has an answer and a later moment it was shown."""
    _, result = run_bench("interactions.py", "--matches", "3", "--samples", "40", "--challenges", "1")
    assert result["samples"] == 40
    kinds = result["by_kind"]
    assert kinds["move"]["samples"] > 0 and kinds["turn_ended"]["samples"] > 0
    assert result["shown_median_ms"] >= result["median_ms"]


def test_interactions_space_opens_the_hand_first() -> None:
    _, result = run_bench(
        "interactions.py", "--game", "space", "--matches", "3", "--samples", "20", "--challenges", "1"
    )
    assert result["by_kind"]["hand"]["samples"] > 0
    assert result["samples"] >= 20


def test_interactions_bursts_click_where_the_player_acts() -> None:
    """After a first step of a ring turn, the next burst clicks the player's private panel: every
    click is acknowledged as a move (6), none is told to carry on in the panel (5)."""
    _, result = run_bench("interactions.py", "--burst", "4", "--bursts", "3")
    assert result["clicks"] == 12 and result["first_answer"]["unanswered"] == 0
    assert result["full_reply"]["without_picture"] == 0
    assert result["callback_types"] == {"6": 12}


def test_moves_compares_like_for_like_and_as_before() -> None:
    """Both generators reach the same positions for every roll (checked before timing), and both
    comparisons are printed: GNU Backgammon listing positions only, and with its moves."""
    (result,) = run_bench("moves.py", "--positions", "30", "--repeat", "1")
    assert result["same_positions_every_roll"] and result["rolls"] == 30 * 21
    assert result["like_for_like"]["gnubg"].startswith("moves(board, d1, d2, 0)")
    assert result["with_gnubg_moves"]["gnubg"].startswith("moves(board, d1, d2, 1)")
    for comparison in ("like_for_like", "with_gnubg_moves"):
        assert result[comparison]["ratio"] > 0


@pytest.mark.slow
def test_cluster_runs_every_fault_and_loses_nothing() -> None:
    """Two real processes on a real PostgreSQL (and the SQLite baseline), small: every fault is run,
    and none loses, repeats, hides or leaves without controls anything."""
    lines = run_bench(
        "cluster.py", "--matches", "24", "--servers", "4", "--processes", "2", "--seconds", "4",
        "--players", "4", "--faults", "2",
    )  # fmt: skip
    [baseline] = [line for line in lines if line.get("backend") == "sqlite"]
    [cluster] = [line for line in lines if line.get("backend") == "postgresql"]
    faults = {line["fault"]: line for line in lines if "fault" in line}
    assert set(faults) == {"kill", "postgres", "duplicate_shard", "impossible_shard"}
    assert faults["impossible_shard"]["wrong_exit"] == 2
    for line in (baseline, cluster, *faults.values()):
        assert line["answered"] > 0, line
        for count in (
            "lost",
            "applied_twice",
            "never_shown",
            "reminded_twice",
            "timed_out_twice",
            "without_controls",
        ):
            assert line[count] == 0, (count, line)
        assert line.get("whole_after_load_s") is not None, line


def test_replay_match_makes_the_gif_of_a_cut_match() -> None:
    (result,) = run_bench("replay_match.py", "--games", "1", "--runs", "1")
    assert (
        result["games"] == 1 and 0 < result["frames_shown"] <= result["frames_total"] <= result["actions"] + 1
    )
    assert result["bytes"] > 0 and len(result["seconds"]) == 1


def test_tournament_run_plays_each_format_to_its_champion_across_a_restart() -> None:
    lines = run_bench("tournament_run.py", "--players", "6")
    assert [line["format"] for line in lines] == ["knockout", "swiss"]
    for line in lines:
        assert line["champion"] is not None and line["restarted_in_round"] == 2, line
        assert line["pair_ms_median"] > 0 and line["picture_ms_median"] > 0
    # Six players: a knockout plays five matches; Swiss three rounds of three.
    assert [line["matches_played"] for line in lines] == [5, 9]


def test_taps_space_counts_by_game_turn_and_the_windows_pass_by_themselves() -> None:
    """Space by game turn: the other player who lets windows pass taps nothing, and the live panel
    keeps My hand to one press per turn per player."""
    (result,) = run_bench("taps.py", "--game", "space", "--matches", "1", "--seed", "2")
    assert result["game_turns"] > 0 and result["mover_taps"]["median"] > 0
    assert result["other_taps"]["median"] == 0
    assert result["my_hand_per_turn_per_player"]["max"] <= 1


def test_luck_vs_gnubg_prints_both_programs_luck_per_player() -> None:
    """Our luck and luck-adjusted result beside GNU Backgammon's, per player: each program's
    luck-adjusted results are opposite between the two players, and agree in sign (seed 1)."""
    (result,) = run_bench("luck_vs_gnubg.py", "--matches", "1", "--lengths", "3")
    one, two = result["players"]
    assert result["summary"]["players"] == 2 and one["rolls"] > 0
    for key in ("ours_adjusted_pct", "gnubg_adjusted_pct"):
        assert one[key] == pytest.approx(-two[key], abs=0.02)
    assert (one["ours_adjusted_pct"] > 0) == (one["gnubg_adjusted_pct"] > 0)


def test_tutor_bench_times_plays_and_cube_decisions_at_each_depth() -> None:
    """``bench/tutor.py``: one line per depth, with checker plays and cube decisions timed."""
    lines = run_bench("tutor.py", "--positions", "8", "--levels", "1ply")
    assert [line["level"] for line in lines] == ["1ply"]
    assert lines[0]["plays"]["count"] + lines[0]["cubes"]["count"] == 8
