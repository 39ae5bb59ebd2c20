"""Each piece of scheduled work is done by one process: claimed in the database for a lease.

Several bot processes may share one database (PostgreSQL). Each does the scheduled work of its own
shards' servers (``bot.store.scope``); on top of that, the work whose doing twice would show twice (a
board posted again, an analysis posted twice, housekeeping) is claimed first: a claim another process
holds is passed by, and a claim whose process died runs out with its lease, so nothing is missed for
longer than the lease. Each step is also conditional in the store (a reminder is claimed by clearing
its time, a result by the match's version), so a step done again changes nothing.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator

from bot.clock import Clock
from bot.store import Store

log = logging.getLogger(__name__)

OWNER = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
"""This process, as its claims name it."""

BOARD_LEASE = 120.0
"""Seconds a board being brought up to date is held (posting one takes well under a second)."""
ANALYSIS_LEASE = 900.0
"""Seconds an analysis being computed and posted is held (a long match takes a minute or two)."""
HOUSEKEEPING_LEASE = 600.0


class WorkClaims:
    def __init__(self, store: Store, clock: Clock, owner: str = OWNER) -> None:
        self.store = store
        self.clock = clock
        self.owner = owner

    @contextlib.asynccontextmanager
    async def hold(self, kind: str, item: int, lease: float) -> AsyncIterator[bool]:
        """Claim ``item`` of ``kind`` for the block: yields whether this process holds it (False:
        another does; skip it). The claim is given back when the block ends."""
        held = await self.store.claims.claim(kind, item, self.owner, self.clock.now(), lease)
        try:
            yield held
        finally:
            if held:
                try:
                    await self.store.claims.release(kind, item, self.owner)
                except Exception as exc:  # it runs out with its lease
                    log.info("could not give back the claim on %s %s: %s", kind, item, exc)
