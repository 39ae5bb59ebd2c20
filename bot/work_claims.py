"""Each piece of scheduled work is done by one process: claimed in the database for a lease.

Several bot processes may share one database (PostgreSQL). Each does the scheduled work of its own
shards' servers (``bot.store.scope``); on top of that, the work whose doing twice would show twice (a
board posted again, an analysis posted twice, housekeeping) is claimed first: a claim another process
holds is passed by, and a claim whose process died runs out with its lease, so nothing is missed for
longer than the lease. A process that starts gives back at once the claims of processes it knows to
be gone (``free_the_dead``): every other owner's on SQLite, whose file one process holds at a time,
and on PostgreSQL those of a process of this machine that no longer runs; a restart after a crash or
a kill takes up the work at once, not a lease later. Each step is also conditional in the store (a
reminder is claimed by clearing its time, a result by the match's version), so a step done again
changes nothing.
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


def owner_name(pid: int, token: str, host: str = socket.gethostname()) -> str:
    """How a claim names the process that holds it: its machine, its process id and a token."""
    return f"{host}:{pid}:{token}"


OWNER = owner_name(os.getpid(), secrets.token_hex(3))
"""This process, as its claims name it: its machine, its process id, and a token of its own (a process
id is used again by a later process, in a container often the same one)."""

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

    async def free_the_dead(self, *, sole: bool) -> int:
        """At start-up: give back the claims of every owner known to be gone (``sole``: this process
        holds the database alone, as on SQLite, so every other owner is gone); how many."""
        freed = 0
        for owner in await self.store.claims.owners():
            if owner != self.owner and (sole or gone(owner, self.owner)):
                freed += await self.store.claims.release_owner(owner)
        if freed:
            log.info("took back %d claims of bot processes that are gone", freed)
        return freed

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


def gone(owner: str, me: str = OWNER) -> bool:
    """Whether the process that ``owner`` names is known to be gone: one of this machine whose process
    id runs no process, or runs this one (``me``: a process id used again). Another machine's, or a
    name not of ``owner_name``'s form, is not known to be gone (its claims run out with their lease)."""
    parts, mine = owner.rsplit(":", 2), me.rsplit(":", 2)
    if len(parts) != 3 or parts[0] != mine[0] or not parts[1].isdigit():
        return False
    if parts[1] == mine[1]:
        return owner != me
    try:
        os.kill(int(parts[1]), 0)
    except ProcessLookupError:
        return True
    except OSError:  # it runs, as another user (PermissionError), or cannot be asked
        return False
    return False
