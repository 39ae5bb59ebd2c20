"""The scheduler's work: whatever has come due, done in rounds (at least every
``SCHEDULER_MAX_SLEEP`` seconds, sooner when a deadline is nearer). The bot layer decides what came
due; each item goes to the registered publisher (a cog)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from bot.work_claims import HOUSEKEEPING_LEASE

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

SCHEDULER_MAX_SLEEP = 30.0
"""The longest the scheduler sleeps between two rounds."""


class DueWork:
    """The due work of one bot process."""

    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    async def run(self, *, starting: bool = False) -> None:
        """Do whatever has come due: first the tournaments' (a few announcements, not held up by every
        board behind at a start-up), expire challenges, remind players on turn, end matches by timeout,
        pass response windows whose wait ran out, grey out Rematch buttons whose time ran out, take up
        analyses left open (``bot.analyses``), and housekeeping (``bot.housekeeping``).

        The bot layer decides what came due; each item goes to the registered publisher (a cog). One
        item that cannot be shown is logged and does not hold up the others. ``starting``: the first
        round after start-up, which also brings every tournament's announcement up to date.
        """
        await self.bot.heartbeat.beat()
        if self.bot.publishers.tournaments is not None:
            with self._logged("tournaments"):
                await self.bot.publishers.tournaments.tournaments_due(starting=starting)
        challenges = self.bot.publishers.challenges
        if challenges is not None:
            for record in await self.bot.challenges.expire_due():
                with self._logged(f"showing expired challenge {record.id}"):
                    await challenges.challenge_expired(record)
        matches = self.bot.publishers.matches
        if matches is not None:
            # What was saved but not shown (a failed post, a restart in between) is shown first: its
            # turn clock starts only then. Every board due at once (at start-up: every board behind),
            # a few at a time; one that failed waits longer after each failure (bot.board_repair).
            with self._logged("showing boards that are behind"):
                await matches.show_behind()
            for reminder in await self.bot.sessions.clocks.due_reminders():
                with self._logged(f"reminding match {reminder.session.id}"):
                    await matches.remind(reminder)
            for played in await self.bot.sessions.clocks.timeout_due():
                with self._logged(f"showing timed-out match {played.session.id}"):
                    await matches.match_ended(played)
            for played in await self.bot.sessions.clocks.windows_due():
                # A response window whose time ran out passed by itself: the turn goes on.
                with self._logged(f"showing the passed window of match {played.session.id}"):
                    await matches.show(played.session.id)
            for finished in await self.bot.sessions.clocks.rematches_due():
                with self._logged(f"greying out the Rematch of match {finished.id}"):
                    await matches.rematch_expired(finished)
        if self.bot.publishers.analyses is not None:
            with self._logged("resuming analyses"):
                await self.bot.analyses.resume()
        # Bounded growth (at most hourly): compact old finished matches' logs, purge closed challenges.
        # Of several processes, the one with shard 0 does it (and claims it, in case of two such).
        if self.bot.store.scope.serves(None) and self.bot.housekeeping.due():
            with self._logged("housekeeping"):
                async with self.bot.claims.hold("housekeeping", 0, HOUSEKEEPING_LEASE) as mine:
                    if mine:
                        await self.bot.housekeeping.run_if_due()

    async def forever(self) -> None:
        due: float | None = None  # when the loop is due to run next (``self.bot.clock`` time)
        while not self.bot.is_closed():
            if due is not None:
                self.bot.metrics.scheduler_lag.set(max(0.0, self.bot.clock.now() - due))
            try:
                await self.run(starting=due is None)
                deadline = min(
                    (
                        d
                        for d in (
                            await self.bot.store.deadlines.earliest(),
                            await self.bot.store.tournaments.earliest(),
                        )
                        if d
                    ),
                    default=None,
                )
            except Exception:
                self.bot.metrics.error("scheduler")
                log.exception("scheduled work failed; trying again shortly")
                deadline = None
            delay = SCHEDULER_MAX_SLEEP
            if deadline is not None:
                delay = min(delay, max(0.5, deadline - self.bot.clock.now()))
            due = self.bot.clock.now() + delay
            await asyncio.sleep(delay)

    @contextlib.contextmanager
    def _logged(self, what: str) -> Iterator[None]:
        """One item of the scheduler's work: a failure is logged and counted, and the rest goes on."""
        try:
            yield
        except Exception:
            self.bot.metrics.error("scheduler")
            log.exception("%s failed", what)
