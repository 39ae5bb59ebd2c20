"""The live clock's arithmetic and the way players write it (``engine.live_clock``)."""

from __future__ import annotations

import pytest

from engine import BadOptionsError
from engine.live_clock import LiveClock, charged, clock_of, parse_clock, reserve_text, runs_out_at


@pytest.mark.parametrize(
    ("text", "reserve", "delay", "written"),
    [
        ("2m+12s", 120, 12, "2m+12s"),
        ("90s+8s", 90, 8, "1m30s+8s"),
        ("5m", 300, 0, "5m"),
        (" 2 M + 12 S ", 120, 12, "2m+12s"),
        ("2+12", 120, 12, "2m+12s"),
        ("1:30+8", 90, 8, "1m30s+8s"),
        ("1h", 3600, 0, "1h"),
        ("1h59m+15s", 7140, 15, "1h59m+15s"),
        ("30s", 30, 0, "30s"),
    ],
)
def test_a_clock_is_read_as_players_write_it(text: str, reserve: int, delay: int, written: str) -> None:
    clock = parse_clock(text)
    assert clock == LiveClock(reserve, delay) and clock.text == written
    assert parse_clock(clock.text) == clock  # written back, it reads the same


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "cannot be read"),
        ("fast", "cannot be read"),
        ("2m+", "cannot be read"),
        ("+12s", "cannot be read"),
        ("2x+3s", "cannot be read"),
        ("2m+12s+1s", "cannot be read"),
        ("-2m", "cannot be read"),
        ("10s+5s", "at least 30 seconds"),
        ("0", "at least 30 seconds"),
        ("2h1s", "at most 2 hours"),
        ("500", "at most 2 hours"),
        ("2m+2m", "at most 60 seconds"),
    ],
)
def test_what_cannot_be_read_or_makes_no_sense_is_refused(text: str, reason: str) -> None:
    with pytest.raises(BadOptionsError, match=reason):
        parse_clock(text)


def test_the_options_name_the_clock_or_none() -> None:
    assert clock_of({"length": 3}) is None and clock_of({"clock": ""}) is None
    assert clock_of({"clock": "2m+12s"}) == LiveClock(120, 12)


def test_the_delay_runs_down_first_and_what_is_left_of_it_is_lost() -> None:
    assert charged(120.0, 5.0, 12.0) == 120.0  # within the delay: the reserve is untouched
    assert charged(120.0, 12.0, 12.0) == 120.0
    assert charged(120.0, 20.0, 12.0) == 112.0  # 8 s past the delay
    assert charged(10.0, 60.0, 12.0) == 0.0  # never below zero
    assert runs_out_at(1000.0, 120.0, 12.0) == 1132.0


def test_a_reserve_reads_as_a_clock_and_zero_only_once_run_out() -> None:
    assert reserve_text(108) == "1:48" and reserve_text(120) == "2:00" and reserve_text(5) == "0:05"
    assert reserve_text(0.2) == "0:01" and reserve_text(0) == "0:00"
    assert reserve_text(3900) == "1:05:00"
