"""Where a queued job stands, and the words that say it to its asker.

The estimate counts the work ahead: the actions still to analyse of every job running or queued
before this one, and its own, times the seconds per action measured on the latest jobs done
(``JobStore.seconds_per_action``; ``DEFAULT_SECONDS_PER_ACTION`` before any), divided by the workers.
Replays have lanes of their own (``bot.replays``) and a rate of their own (``REPLAY_SECONDS_PER_ACTION``):
they are counted apart, a replay's place among the replays only; rollouts too (``bot.rollouts``: their
size is the games to play, ``ROLLOUT_SECONDS_PER_GAME`` each).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from bot.store.jobs import QUEUED, REPLAY, ROLLOUT, RUNNING, JobRecord

DEFAULT_SECONDS_PER_ACTION = 0.1
"""Before any job was measured: the 3-ply analysis of a 7-point match (341 actions) took 28 s on this
2-core machine at load 5, with the move filters of issue 34 (``bench/analysis.py``)."""
REPLAY_SECONDS_PER_ACTION = 0.01
"""A replay's frames are drawn at some 100 actions a second (a 10,000-action match in about 10 s)."""


ROLLOUT_SECONDS_PER_GAME = 0.1
"""A rollout's game played out takes about 0.1 s of a core (bgsage, 1-ply moves, cubeful)."""


@dataclass(frozen=True, slots=True)
class Place:
    """A job's place in the queue (1: next; 0: running) and the seconds until it should be done."""

    place: int
    seconds: float


def places(
    jobs: Sequence[JobRecord],
    seconds_per_action: float | None,
    workers: int,
    replay_workers: int = 1,
    rollout_workers: int = 1,
) -> dict[int, Place]:
    """Every open job's place and estimate (``jobs``: ``JobStore.open``, running first, then in the
    order they are taken); replays among replays, on ``replay_workers``; rollouts among rollouts."""
    found = _places(
        [j for j in jobs if j.kind not in (REPLAY, ROLLOUT)],
        seconds_per_action or DEFAULT_SECONDS_PER_ACTION,
        workers,
    )
    found.update(_places([j for j in jobs if j.kind == REPLAY], REPLAY_SECONDS_PER_ACTION, replay_workers))
    found.update(_places([j for j in jobs if j.kind == ROLLOUT], ROLLOUT_SECONDS_PER_GAME, rollout_workers))
    return found


def _places(jobs: Sequence[JobRecord], rate: float, workers: int) -> dict[int, Place]:
    lanes = max(1, workers)
    found: dict[int, Place] = {}
    ahead = 0.0
    place = 0
    for job in jobs:
        left = _left(job)
        if job.state == RUNNING:
            found[job.id] = Place(0, left * rate)
        elif job.state == QUEUED:
            place += 1
            found[job.id] = Place(place, (ahead / lanes + left) * rate)
        ahead += left
    return found


def _left(job: JobRecord) -> float:
    if job.state == RUNNING and job.total:
        return job.size * max(0.0, 1.0 - job.done / job.total)
    return float(job.size)


def duration(seconds: float) -> str:
    """``seconds`` as a person says it: "under a minute", "about 3 min", "about 1 h 10 min"."""
    if seconds < 60:
        return "under a minute"
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return f"about {minutes} min"
    return f"about {minutes // 60} h {minutes % 60} min"


def queued_words(place: Place) -> str:
    """A queued job's line: "place 2 in the queue, done in about 3 min"."""
    return f"place {place.place} in the queue, done in {duration(place.seconds)}"


def running_words(job: JobRecord) -> str:
    """A running job's line: "analysing: decision 80 of 154" (or "analysing" before the first count)."""
    if job.total:
        return f"analysing: decision {min(job.done, job.total)} of {job.total}"
    return "analysing"


def words(job: JobRecord, place: Place | None) -> str:
    """The line that shows an open job to its asker."""
    if job.state == RUNNING:
        return running_words(job)
    if place is None:
        return "queued"
    return queued_words(place)
