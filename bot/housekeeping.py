"""Housekeeping: what keeps the database from growing without bound, run by the scheduler.

- The action logs of matches finished more than ``COMPACT_AFTER`` ago are compacted
  (``MatchStore.compact_finished``): each action's seat and notation stay, in order, so the match
  still replays (``engine.replay``) and exports; the per-action rows go. Match rows, final states,
  results, ratings and rating history are never touched, so results, /history and /stats read the
  same.
- Closed challenges (accepted, declined, cancelled, expired) are deleted ``PURGE_CHALLENGES_AFTER``
  after their expiry time; a click on such an old challenge says it does not exist any more.

``run_if_due`` does the work at most once per ``INTERVAL``, in batches of ``BATCH`` matches (one
transaction each), so that clicks are never held up for long.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.clock import Clock
from bot.store import Store

log = logging.getLogger(__name__)

DAY = 24 * 3600.0
COMPACT_AFTER = 7 * DAY
PURGE_CHALLENGES_AFTER = 7 * DAY
INTERVAL = 3600.0
BATCH = 200


@dataclass(frozen=True, slots=True)
class HousekeepingReport:
    compacted: int
    purged_challenges: int


class Housekeeping:
    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self._last_run: float | None = None

    async def run_if_due(self) -> HousekeepingReport | None:
        """Run once if ``INTERVAL`` has passed since the last run (or there was none); else None."""
        now = self.clock.now()
        if self._last_run is not None and now - self._last_run < INTERVAL:
            return None
        self._last_run = now
        return await self.run()

    async def run(self) -> HousekeepingReport:
        now = self.clock.now()
        compacted = 0
        while True:
            done = await self.store.matches.compact_finished(now - COMPACT_AFTER, limit=BATCH)
            compacted += done
            if done < BATCH:
                break
        purged = await self.store.challenges.purge_closed(now - PURGE_CHALLENGES_AFTER)
        if compacted or purged:
            log.info("housekeeping: compacted %d match logs, purged %d closed challenges", compacted, purged)
        return HousekeepingReport(compacted=compacted, purged_challenges=purged)
