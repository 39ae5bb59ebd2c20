"""bench/tournament.py runs to the end and prints a line per format and size (nothing is timed)."""

from __future__ import annotations

from tests.test_benches import run_bench


def test_the_tournament_bench_plays_both_formats_to_the_end() -> None:
    lines = run_bench("tournament.py", "--sizes", "8,5", "--repeat", "1")
    assert [(line["format"], line["players"], line["rounds"]) for line in lines] == [
        ("knockout", 8, 3),
        ("knockout", 5, 3),
        ("swiss", 8, 3),
        ("swiss", 5, 3),
    ]
    assert all(line["pair_ms"] >= 0 and line["standings_ms"] > 0 for line in lines)
    assert all("bracket_ms" in line for line in lines if line["format"] == "knockout")


def test_the_tournament_bench_gives_swiss_all_its_rounds() -> None:
    (line,) = run_bench("tournament.py", "--sizes", "6", "--repeat", "1", "--all-rounds")
    assert (line["format"], line["rounds"]) == ("swiss", 5)
