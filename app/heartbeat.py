"""The bot's heartbeat, and what downtime does to the clocks (issue 33).

The store keeps the last moment the bot was surely running and taking clicks
(``bot.store.deadlines``): written by every scheduler round, every ``LIVE_BEAT`` seconds while a
live clock runs, and at the moment the bot knowingly stops taking clicks (a SIGTERM's draining
begins, or it closes). At start-up, before it connects to Discord, the time since then is given
back (``forgive_downtime``); the wait until it is connected, when nobody can click either, is given
to the live clocks once it is (``connected``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from bot.clock import Clock
from bot.metrics import Metrics
from bot.store.deadlines import DeadlineStore

log = logging.getLogger(__name__)

LIVE_BEAT = 1.0
"""Seconds between heartbeats while a live clock runs: after a kill -9 the bot may have run at most
this long past its last one, which is therefore not given back (a player loses at most this much of
the downtime, and never gets back time the bot was running)."""


class Heartbeat:
    """The heartbeat of one bot process on ``deadlines``; ``slack``: a gap a turn clock does not
    count as downtime (the scheduler's usual rhythm)."""

    def __init__(self, deadlines: DeadlineStore, clock: Clock, metrics: Metrics, slack: float) -> None:
        self.deadlines = deadlines
        self.clock = clock
        self.metrics = metrics
        self.slack = slack
        self._paused_at: float | None = None
        self._taking_clicks = False
        self._beating: asyncio.Task[None] | None = None

    async def forgive_downtime(self) -> None:
        """At start-up: time while the bot was down costs no player their match (see the store); the
        live clocks get the rest back once the bot is connected (``connected``)."""
        now = self.clock.now()
        down, moved = await self.deadlines.forgive_downtime(now, slack=self.slack, margin=LIVE_BEAT)
        self._paused_at = now
        if moved:
            log.info("the bot was last seen running %.1f s ago: %d clocks moved on", down, moved)

    async def connected(self) -> bool:
        """The bot is connected to Discord and takes clicks from now on; the first time (True), the
        live clocks get back the wait since ``forgive_downtime`` too."""
        if self._taking_clicks:
            return False
        self._taking_clicks = True
        if self._paused_at is None:
            return True
        paused_at, self._paused_at = self._paused_at, None
        try:
            moved = await self.deadlines.connected(paused_at, self.clock.now())
        except Exception:
            self.metrics.error("scheduler")
            log.exception("the live clocks could not be given the wait since start-up")
            return True
        if moved:
            log.info("connected: %d live clocks moved on by the wait since start-up", moved)
        return True

    async def stopped(self) -> None:
        """The bot takes no more clicks from now on (it drains or closes): the last moment it surely
        ran, from which the next start gives back the downtime exactly. Once; nothing if it never
        took clicks since start-up (the heartbeat says so already). No beat follows."""
        if not self._taking_clicks:
            return
        self._taking_clicks = False
        with contextlib.suppress(Exception):
            await self.deadlines.stopped(self.clock.now())

    async def beat(self) -> None:
        """Note that the bot runs and takes clicks now (each scheduler round), unless it stopped."""
        if self._taking_clicks:
            await self.deadlines.beat(self.clock.now())

    def start(self) -> None:
        """Beat every ``LIVE_BEAT`` seconds while a live clock runs, until ``stop``."""
        if self._beating is None:
            self._beating = asyncio.create_task(self._beat_forever(), name="ringside-heartbeat")

    async def stop(self) -> None:
        if self._beating is not None:
            self._beating.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beating
            self._beating = None

    async def _beat_forever(self) -> None:
        while True:
            await asyncio.sleep(LIVE_BEAT)
            if not self._taking_clicks:
                continue
            try:
                await self.deadlines.beat_live(self.clock.now())
            except Exception as exc:
                log.warning("the heartbeat could not be written: %r", exc)
