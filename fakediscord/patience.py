"""How long a test may wait for the bot before calling it a fault, on this machine as it is now.

Every wait of the fake (``FakeDiscord.wait_for`` and what is built on it) ends as soon as what it
waits for happens; its bound is only reached when the bot hangs or lost something. So a bound must be
one that a correct bot never reaches, also on a machine whose cores are busy with other programs:
``DEFAULT_WAIT`` is generous, and every bound is stretched by ``slowness()``, how much slower than on
an idle machine a fixed piece of Python runs here at the moment (measured, at most every
``REMEASURE`` seconds). ``RINGSIDE_TEST_SLOWNESS`` sets the factor instead (at least 1).

Nothing here makes a test wait longer when the bot is quick: only a failing test waits out a bound.
"""

from __future__ import annotations

import os
import time

DEFAULT_WAIT = 60.0
"""Seconds the fake waits by default for the bot's answer or handlers (before ``slowness``)."""
REFERENCE = 0.008
"""Seconds ``_work`` takes on an idle core of the machines this project is developed on."""
REMEASURE = 30.0
"""Seconds a measured factor is used before it is measured again."""
MOST = 20.0
"""The largest factor (a machine this much slower is not one to test on)."""

_measured: tuple[float, float] | None = None  # (factor, when)


def _work() -> float:
    """Seconds a fixed bit of pure Python takes now (the best of three)."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(200_000):
            total += i * i
        best = min(best, time.perf_counter() - started)
    return best


def slowness() -> float:
    """How many times slower than an idle machine this one runs Python now (at least 1)."""
    global _measured
    chosen = os.environ.get("RINGSIDE_TEST_SLOWNESS")
    if chosen:
        return max(1.0, float(chosen))
    now = time.monotonic()
    if _measured is None or now - _measured[1] > REMEASURE:
        _measured = (min(MOST, max(1.0, _work() / REFERENCE)), now)
    return _measured[0]


def patient(seconds: float) -> float:
    """``seconds``, a bound meant for an idle machine, stretched for this one as it is now."""
    return seconds * slowness()
