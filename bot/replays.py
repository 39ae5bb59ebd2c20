"""Replays as heavy jobs (issue 34): ``/replay`` queues one (``Replays.queue``: kind ``replay`` in
``heavy_jobs``, the queue of the analyses, migration 026), the bot's heavy workers make the GIF from
the saved log (``bot.jobs.runner.JobRunner`` with ``kinds=(REPLAY,)``, lanes of their own so that a
replay never waits behind minutes of analysis), the GIF is kept in the job and posted once by the bot
(``bot.jobs.showing``, through the cog's ``ReplayPublisher``).

How many may wait or be made at once is limited per member, per server and in all (``ReplayLimits``,
the queue's ``Limits`` for this kind): the heavy workers are few, so one member must not queue a
dozen and one server must not take them all. A request over a limit is refused at once, privately,
with the limit named; the place is held from the request until the GIF is posted or the failure told.
This module also holds the words: the refusals, the line that shows a replay as it goes ("Making the
replay… 40 of 212 frames") and the failures told to the asker.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

from bot.clock import Clock
from bot.jobs.places import Place, duration
from bot.session import UserError
from bot.store import Store
from bot.store.jobs import REPLAY, RUNNING, JobRecord, Limits, Refused

PER_MEMBER = 1
"""Replays one member may have waiting or in the making at once."""
PER_SERVER = 2
"""Replays one server may have waiting or in the making at once."""
IN_ALL = 4
"""Replays waiting or in the making, all servers together (the heavy workers are few)."""
LANES = 2
"""Replays made at once by the bot (``app.render_pool.HEAVY_WORKERS``: a slot each)."""

MAKING = "Making the replay…"
"""The first words of a replay's reply while it waits or is made."""
KEPT_AT_RESTART = "Ringside is restarting: your replay keeps its place and is made after the restart."


class ReplayRefused(UserError):
    """A replay not queued: the message names the limit."""


def ReplayLimits(per_member: int = PER_MEMBER, per_server: int = PER_SERVER, in_all: int = IN_ALL) -> Limits:
    """The queue's limits for replays."""
    return Limits(per_member=per_member, per_server=per_server, in_all=in_all)


class Replays:
    """Queues replays (``queue``) within ``limits``; ``wake``: the replay lanes look at once, and on
    PostgreSQL the workers are handed it (``Analyses.queued``)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        limits: Limits | None = None,
        wake: Callable[[int], Awaitable[None]] | None = None,
        places: Callable[[], Awaitable[dict[int, Place]]] | None = None,
    ) -> None:
        """``places``: every open job's place and estimate (``Showing.places``)."""
        self.places = places
        self.store = store
        self.clock = clock
        self.limits = limits or ReplayLimits()
        self.wake = wake

    async def queue(
        self,
        *,
        owner_id: int,
        guild_id: int | None,
        channel_id: int,
        match_id: int,
        game: str,
        size: int,
        names: tuple[str, str],
        limit: int,
        reply_token: str | None,
    ) -> int:
        """Queue the replay of ``match_id`` for ``owner_id`` (``names``: the players', drawn on it;
        ``limit``: the largest file Discord takes there); ``ReplayRefused`` over a limit."""
        try:
            job_id = await self.store.jobs.add_replay(
                owner_id=owner_id,
                guild_id=guild_id,
                channel_id=channel_id,
                match_id=match_id,
                game=game,
                size=size,
                detail=json.dumps({"names": list(names), "limit": limit}, sort_keys=True),
                reply_token=reply_token,
                limits=self.limits,
                now=self.clock.now(),
            )
        except Refused as exc:
            raise refusal(exc) from None
        if self.wake is not None:
            await self.wake(job_id)
        return job_id

    async def line_of(self, job_id: int) -> str:
        """How a replay stands, in the words of its reply (its place and estimate, its frames)."""
        job = await self.store.jobs.get(job_id)
        if job is None:
            return MAKING
        found = {} if self.places is None else await self.places()
        return replay_words(job, found.get(job_id))

    async def in_making(self) -> int:
        """Replays waiting or being made, everywhere."""
        return await self.store.jobs.open_count(REPLAY)

    async def answered(self, job_id: int, line: str) -> None:
        """The asker's reply shows ``line`` (the GIF may be posted from now)."""
        await self.store.jobs.answered(job_id, None, line)


def refusal(refused: Refused) -> ReplayRefused:
    """Why a replay was not queued, with the limit."""
    if refused.reason == "member":
        return ReplayRefused(
            f"Your last replay is still being made: wait for it before asking for another "
            f"(at most {_count(refused.limit)} at a time per member)."
        )
    if refused.reason == "server":
        return ReplayRefused(
            f"{_count(refused.limit).capitalize()} being made on this server already "
            f"(at most {_count(refused.limit)} at a time per server): try again in a minute."
        )
    return ReplayRefused(
        f"The bot is making {_count(refused.limit)} already (at most {refused.limit} at a time): "
        "try again in a minute."
    )


def frames_text(n: int) -> str:
    return "1 frame" if n == 1 else f"{n:,} frames"


def replay_words(job: JobRecord, place: Place | None) -> str:
    """The line of a replay's reply: its place and estimate, then its frames drawn."""
    if job.state == RUNNING:
        if job.total:
            return f"{MAKING} {min(job.done, job.total)} of {frames_text(job.total)}"
        return MAKING
    if place is None:
        return MAKING
    return f"{MAKING} (place {place.place} in the queue, ready in {duration(place.seconds)})"


def replay_failure(match_id: int, why: str, detail: str = "") -> str:
    """What the asker is told when a replay could not be made (``why``: ``unreplayable``, ``too
    large``, ``busy``, ``gone``)."""
    if why == "unreplayable":
        return f"Match #{match_id}'s saved moves cannot be replayed ({detail})."
    if why == "too large":
        return f"Match #{match_id} is too long for a replay Discord would take."
    if why == "gone":
        return f"There is no finished match #{match_id} to replay any more."
    return (
        f"The replay of match #{match_id} could not be made in time: the bot is busy. "
        "Try again in a few minutes."
    )


def _count(n: int) -> str:
    return "one replay" if n == 1 else f"{n} replays"
