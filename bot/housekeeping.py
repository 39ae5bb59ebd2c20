"""Housekeeping: what keeps the database from growing without bound, run by the scheduler.

- The action logs of matches finished more than ``COMPACT_AFTER`` ago are compacted
  (``MatchStore.compact_finished``): each action's seat and notation stay, in order, so the match
  still replays (``engine.replay``) and exports; the per-action rows go. Match rows, final states,
  results, ratings and rating history are never touched, so results, /history and /stats read the
  same.
- Closed challenges (accepted, declined, cancelled, expired) are deleted ``PURGE_CHALLENGES_AFTER``
  after their expiry time; a click on such an old challenge says it does not exist any more.
- Posted analyses computed more than ``COMPACT_AFTER`` ago are compressed
  (``AnalysisStore.compact_posted``), whole: every decision stays readable, for a review of the
  match; only the bytes shrink (about five times).
- Analyses saved before their per-player error rates were kept (migration 019) get them
  (``AnalysisStore.fill_error_rates``), so that no ``/stats`` has to read many analyses at once.
- Matches played elsewhere and analysed from a file (``/analyse file:``) are deleted
  ``KEEP_IMPORTS_FOR`` after their analysis (``ImportStore.purge_before``); a Review button of an older
  one says so.
- Heavy jobs of files (``bot.store.jobs``) posted or told more than ``KEEP_JOBS_FOR`` ago are deleted
  (their file's bytes went with their end already); our matches' jobs stay with their match.

``run_if_due`` does the work at most once per ``INTERVAL``, in batches of ``BATCH`` matches (one
transaction each; analyses ``ANALYSIS_BATCH`` at a time, compressed outside the transaction), so
that clicks are never held up for long.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.clock import Clock
from bot.store import Store

log = logging.getLogger(__name__)

DAY = 24 * 3600.0
COMPACT_AFTER = 7 * DAY
PURGE_CHALLENGES_AFTER = 7 * DAY
KEEP_IMPORTS_FOR = 90 * DAY
KEEP_JOBS_FOR = 7 * DAY
"""How long a match played elsewhere (``/analyse file:``) stays reviewable."""
INTERVAL = 3600.0
BATCH = 200
ANALYSIS_BATCH = 20
"""Analyses compressed per transaction: a long match's analysis is hundreds of kilobytes."""


@dataclass(frozen=True, slots=True)
class HousekeepingReport:
    compacted: int
    purged_challenges: int
    compacted_analyses: int = 0
    error_rates_filled: int = 0
    purged_imports: int = 0
    purged_jobs: int = 0


class Housekeeping:
    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._last_run: float | None = None

    def due(self) -> bool:
        """Whether ``INTERVAL`` has passed since the last run (or there was none)."""
        return self._last_run is None or self.clock.now() - self._last_run >= INTERVAL

    async def run_if_due(self) -> HousekeepingReport | None:
        """Run once if ``INTERVAL`` has passed since the last run (or there was none); else None."""
        now = self.clock.now()
        if not self.due():
            return None
        self._last_run = now
        return await self.run()

    async def run(self) -> HousekeepingReport:
        now = self.clock.now()
        old = now - COMPACT_AFTER
        compacted = await _in_batches(lambda n: self.store.matches.compact_finished(old, limit=n), BATCH)
        purged = await self.store.challenges.purge_closed(now - PURGE_CHALLENGES_AFTER)
        analyses = await _in_batches(
            lambda n: self.store.analyses.compact_posted(old, limit=n), ANALYSIS_BATCH
        )
        filled = await self._fill_error_rates()
        imports = await self.store.imports.purge_before(now - KEEP_IMPORTS_FOR)
        jobs = await self.store.jobs.purge_before(now - KEEP_JOBS_FOR)
        if compacted or purged or analyses or filled or imports:
            log.info(
                "housekeeping: compacted %d match logs and %d analyses, purged %d closed challenges, "
                "kept the error rates of %d analyses, deleted %d matches analysed from files",
                compacted,
                analyses,
                purged,
                filled,
                imports,
            )
        return HousekeepingReport(
            compacted=compacted,
            purged_challenges=purged,
            compacted_analyses=analyses,
            error_rates_filled=filled,
            purged_imports=imports,
            purged_jobs=jobs,
        )

    async def _fill_error_rates(self) -> int:
        """Every analysis without its error rates gets them, ``ANALYSIS_BATCH`` at a time; a cursor
        moves past each batch, so an analysis that gives none is not read again and again."""
        after = 0

        async def step(limit: int) -> int:
            nonlocal after
            read, after = await self.store.analyses.fill_error_rates(after, limit)
            return read

        return await _in_batches(step, ANALYSIS_BATCH)


async def _in_batches(step: Callable[[int], Awaitable[int]], batch: int) -> int:
    """Run ``step(batch)`` (one transaction doing up to ``batch`` items) until it does fewer; the total."""
    total = 0
    while True:
        done = await step(batch)
        total += done
        if done < batch:
            return total
