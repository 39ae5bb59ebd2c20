"""When a board cannot be shown: the failure noted and the board tried again later (further out after
each failure), a channel that is gone (its match abandoned), and every board behind what is saved
shown in one round (start-up, the scheduler)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import aiohttp
import discord

from bot.board_repair import BACKOFF, settled, warned
from bot.session import Session
from bot.store import StoreError
from bot.work_claims import BOARD_LEASE

SHOW_LIMIT = 60.0
"""Seconds the scheduler gives one board it brings up to date (a post takes well under one)."""

if TYPE_CHECKING:
    from cogs.publisher import BoardPublisher


log = logging.getLogger(__name__)

EXPECTED = (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError, StoreError)
"""Failures the bot expects now and then (Discord's, the network's, a write SQLite refused): logged in
one line; anything else is a bug, logged with its traceback."""


class BoardRecovery:
    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher
        self._retries: set[asyncio.Task[None]] = set()  # the quick retries waiting, kept from the GC

    def close(self) -> None:
        """Cancel the quick retries still waiting (the bot is closing)."""
        for task in list(self._retries):
            task.cancel()

    async def show_behind(self, *, everything: bool = False) -> int:
        """Show every match whose board is behind what is saved and due to be tried (``everything``:
        due or not, as at shutdown), ``concurrency`` at a time, fewest failures first; returns how
        many were brought up to date."""
        due = await self.publisher.bot.sessions.boards.due_boards(everything)
        queue = iter(due)

        async def worker() -> int:
            shown = 0
            for match_id in queue:  # shared by the workers: each match is taken once
                if self.publisher.bot.is_closed():
                    break
                # Of several processes on one database, the one that claims it shows it.
                async with self.publisher.bot.claims.hold("board", match_id, BOARD_LEASE) as mine:
                    if not mine:
                        continue
                    try:
                        # One board that cannot be finished (its match held by work that hangs) must
                        # not hold up the scheduler's round: the others, reminders and timeouts.
                        shown += await asyncio.wait_for(self.publisher.show(match_id), SHOW_LIMIT)
                    except TimeoutError:
                        log.warning(
                            "match %s: its board took over %.0f s to show; tried again later",
                            match_id,
                            SHOW_LIMIT,
                        )
            return shown

        counts = await asyncio.gather(*(worker() for _ in range(min(self.publisher.concurrency, len(due)))))
        return sum(counts)

    async def failed(self, session: Session, exc: BaseException) -> None:
        """Note the failure (the board is tried again later, further out each time) and say so in the
        log, once per step of the wait; the first tries are timed here (``retry_delays``)."""
        try:
            tries, after = await self.publisher.bot.sessions.boards.board_failed(session)
        except StoreError as down:  # the database itself is away (restarting): tried again next round
            log.warning("match %s: the failure to show its board could not be noted: %s", session.id, down)
            tries, after = session.record.show_tries + 1, self.publisher.bot.clock.now() + BACKOFF[0]
        except Exception:
            log.exception("match %s: the failure to show its board could not be noted", session.id)
            tries, after = session.record.show_tries + 1, self.publisher.bot.clock.now() + BACKOFF[0]
        wait = after - self.publisher.bot.clock.now()
        if warned(tries):
            more = " (it stops growing now: no more warnings about it)" if settled(tries) else ""
            log.warning(
                "could not show the board of match %s (failure %d in a row; tried again in %.0f s%s): %s",
                session.id,
                tries,
                wait,
                more,
                exc,
                exc_info=None if isinstance(exc, EXPECTED) else exc,
            )
        else:
            log.debug("could not show the board of match %s (failure %d): %s", session.id, tries, exc)
        if tries <= len(self.publisher.retry_delays):
            task = asyncio.get_running_loop().create_task(
                self.retry(session.id, self.publisher.retry_delays[tries - 1])
            )
            self._retries.add(task)
            task.add_done_callback(self._retries.discard)

    async def gone(self, session: Session, exc: discord.HTTPException) -> None:
        """Discord says the match's channel is gone: never tried again; an active match is abandoned,
        unrated, and the channel a thread was opened from is told."""
        record = session.record
        log.warning(
            "match %s: Discord says its channel %s is gone (%s): its board is not tried again%s",
            session.id,
            record.channel_id,
            exc,
            "; the match is abandoned" if record.status == "active" else "",
        )
        try:
            played = await self.publisher.bot.sessions.boards.channel_gone(session.id)
        except Exception:
            log.exception("match %s: its channel is gone, and that could not be noted", session.id)
            return
        if played is None or record.parent_id is None:
            return
        a, b = record.players
        text = (
            f"Match #{session.id} ({session.variant.title}, <@{a}> vs <@{b}>) was abandoned: its thread "
            "is gone. It is not rated."
        )
        try:
            await self.publisher.bot.get_partial_messageable(record.parent_id, guild_id=record.guild_id).send(
                text, allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as notice:
            log.info(
                "match %s: could not say in channel %s that it was abandoned: %s",
                session.id,
                record.parent_id,
                notice,
            )

    async def retry(self, match_id: int, delay: float) -> None:
        await asyncio.sleep(delay)
        if not self.publisher.bot.is_closed():
            await self.publisher.show(match_id)
