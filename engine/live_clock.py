"""The live clock of a match, as on Backgammon Galaxy: each player has a reserve for the whole match
and a delay per decision. While a player is to act the delay runs down first, then their reserve;
delay left unused is lost, not banked. A player whose reserve runs out loses the match.

Pure arithmetic on seconds: the caller says when a player's clock started and when they acted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import BadOptionsError

MIN_RESERVE = 30
"""Seconds: less is not a game anyone can play with buttons on a picture."""
MAX_RESERVE = 2 * 3600
"""Seconds: beyond two hours the per-turn deadline (correspondence play) is the better choice."""
MAX_DELAY = 60
"""Seconds per decision: more than a minute is no longer a live game."""

_UNITS = {"h": 3600, "m": 60, "s": 1}
_DURATION = re.compile(r"(?:\d+[hms])+|\d+:\d{1,2}|\d+")
_PART = re.compile(r"(\d+)([hms])")


@dataclass(frozen=True, slots=True)
class LiveClock:
    """A reserve per player for the match and a delay per decision, in whole seconds."""

    reserve: int
    delay: int

    @property
    def text(self) -> str:
        """How the option is written back: "2m+12s", "1m30s+8s", "5m" (no delay)."""
        reserve = _duration_text(self.reserve)
        return f"{reserve}+{self.delay}s" if self.delay else reserve


def parse_clock(text: str) -> LiveClock:
    """The clock ``text`` names: a reserve, then optionally ``+`` and a delay ("2m+12s", "90s+8s",
    "5m", "1:30+8"). A bare number is minutes for the reserve and seconds for the delay, as in
    "2+12". ``BadOptionsError`` names what cannot be read or makes no sense."""
    given = "".join(text.lower().split())
    reserve_text, plus, delay_text = given.partition("+")
    if not reserve_text or (plus and not delay_text):
        raise BadOptionsError(
            f"clock {text.strip()!r} cannot be read: write a reserve and a delay, like 2m+12s"
        )
    reserve = _seconds(reserve_text, 60, text)
    delay = _seconds(delay_text, 1, text) if plus else 0
    if reserve < MIN_RESERVE:
        raise BadOptionsError(
            f"a clock needs a reserve of at least {MIN_RESERVE} seconds, not {reserve_text}"
        )
    if reserve > MAX_RESERVE:
        raise BadOptionsError(
            f"a clock's reserve is at most 2 hours, not {reserve_text}: for slower play leave the clock "
            "out (each turn then has its deadline)"
        )
    if delay > MAX_DELAY:
        raise BadOptionsError(f"a clock's delay is at most {MAX_DELAY} seconds a move, not {delay_text}")
    return LiveClock(reserve, delay)


def clock_of(options: Mapping[str, Any]) -> LiveClock | None:
    """The live clock a match's options ask for (their ``clock``), or None for none."""
    text = options.get("clock")
    return parse_clock(str(text)) if text else None


def _seconds(text: str, bare_unit: int, given: str) -> int:
    if _DURATION.fullmatch(text) is None:
        raise BadOptionsError(
            f"clock {given.strip()!r} cannot be read: write a reserve and a delay, like 2m+12s or 90s+8s"
        )
    if ":" in text:
        minutes, seconds = text.split(":")
        return int(minutes) * 60 + int(seconds)
    if text.isdigit():
        return int(text) * bare_unit
    return sum(int(number) * _UNITS[unit] for number, unit in _PART.findall(text))


def _duration_text(seconds: int) -> str:
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return "".join(f"{n}{unit}" for n, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if n) or "0s"


def charged(reserve: float, used: float, delay: float) -> float:
    """The reserve left after a decision that took ``used`` seconds: the delay goes first, unused
    delay is lost, and a reserve never goes below zero."""
    return max(0.0, reserve - max(0.0, used - delay))


def reserves_at(
    left: tuple[float, float], seat: int | None, since: float | None, delay: float, now: float
) -> tuple[float, float]:
    """Each seat's reserve as it stands at ``now``: ``left`` as charged at the last decision, the
    seat whose clock runs (``seat``, since ``since``) charged for the time it has run so far."""
    if seat is None or since is None:
        return left
    running = charged(left[seat], now - since, delay)
    return (running, left[1]) if seat == 0 else (left[0], running)


def runs_out_at(started: float, reserve: float, delay: float) -> float:
    """When the reserve of a player whose clock started at ``started`` runs out if they do not act."""
    return started + delay + reserve


def reserve_text(seconds: float) -> str:
    """A reserve as a clock shows it, "1:48" or "1:05:00"; a part of a second counts as a second, so
    a clock reads 0:00 only once it has run out."""
    whole = max(0, math.ceil(seconds - 1e-9))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
