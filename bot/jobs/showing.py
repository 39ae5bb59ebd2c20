"""The bot's side of heavy jobs, once they run: what is done is posted and what failed is told, once
(a claim, then the job's posted flag), and the open jobs' messages say their place and estimate or
their progress (``bot.jobs.places``; a replay's, ``bot.replays.replay_words``; a rollout's,
``bot.rollouts.rollout_words``). ``bot.analyses.Analyses`` calls it at each nudge and round."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.clock import Clock
from bot.jobs.places import Place, places, words
from bot.publishing import Publishers, Unpostable
from bot.replays import replay_words
from bot.rollouts import rollout_words
from bot.store import Store
from bot.store.analyses import DONE
from bot.store.jobs import ANALYSIS, FILE, JOB_FAILED, REPLAY, ROLLOUT, JobRecord
from bot.work_claims import ANALYSIS_LEASE, WorkClaims

log = logging.getLogger(__name__)

ANSWER_GRACE = 60.0
"""Seconds a file's (a replay's) job waits for its acceptance to be shown before its result is posted
anyway."""


class Showing:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        claims: WorkClaims,
        publishers: Callable[[], Publishers],
        post_match: Callable[[int], Awaitable[None]],
        lanes: Callable[[], int],
        replay_lanes: Callable[[], int] = lambda: 1,
        rollout_lanes: Callable[[], int] = lambda: 1,
    ) -> None:
        """``post_match``: posts a match's computed analysis (``Analyses.run``); ``lanes``: the jobs
        this process runs at once (the estimate's workers, at least)."""
        self.store = store
        self.clock = clock
        self.claims = claims
        self._publishers = publishers
        self._post_match = post_match
        self._lanes = lanes
        self._replay_lanes = replay_lanes
        self._rollout_lanes = rollout_lanes
        self.finished = asyncio.Event()

    async def tell(self) -> int:
        """Post every job's result not posted yet, and tell every failure not told; how many."""
        publishers = self._publishers()
        told = 0
        for job in await self.store.jobs.to_tell():
            if job.kind == ANALYSIS and publishers.analyses is None:
                continue
            if job.kind == FILE and publishers.files is None:
                continue
            if job.kind == REPLAY and publishers.replays is None:
                continue
            if job.kind == ROLLOUT and publishers.rollouts is None:
                continue
            if (
                job.kind in (FILE, REPLAY, ROLLOUT)
                and job.shown is None
                and self.clock.now() - job.created_at < ANSWER_GRACE
            ):
                continue  # its acceptance is being shown: the result must not come first
            async with self.claims.hold(f"job-{job.kind}", job.id, ANALYSIS_LEASE) as mine:
                if not mine:
                    continue  # another process posts it
                fresh = await self.store.jobs.get(job.id)
                if fresh is None or fresh.posted:
                    continue
                try:
                    if await self._tell(fresh):
                        await self.store.jobs.told(fresh.id)
                        told += 1
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("heavy job %s could not be posted; tried again later", job.id)
        if told:
            self.finished.set()  # once its claim is given back: nothing of it is left to write
        return told

    async def _tell(self, job: JobRecord) -> bool:
        """Post (or tell) one ended job; whether it is over (False: tried again later)."""
        publishers = self._publishers()
        if job.kind == ANALYSIS:
            assert job.match_id is not None and publishers.analyses is not None
            if job.state == JOB_FAILED:
                await publishers.analyses.analysis_failed(job.match_id)
                return True
            await self._post_match(job.match_id)
            record = await self.store.analyses.get(job.match_id)
            return record is None or record.status != DONE
        if job.kind == REPLAY:
            assert publishers.replays is not None
            if job.state == JOB_FAILED:
                await publishers.replays.replay_failed(job, job.error or "the replay could not be made.")
                return True
            gif = await self.store.jobs.result(job.id)
            if gif is None:
                await publishers.replays.replay_failed(job, "The replay was not kept: ask for it again.")
                return True
            try:
                await publishers.replays.replay_ready(job, gif)
            except Unpostable:
                return True
            return True
        if job.kind == ROLLOUT:
            return await self._tell_rollout(job)
        assert publishers.files is not None
        if job.state == JOB_FAILED:
            await publishers.files.file_failed(job, job.error or "it could not be analysed")
            return True
        imported = None if job.result_id is None else await self.store.imports.get(job.result_id)
        if imported is None or imported.analysis is None:
            await publishers.files.file_failed(job, "its analysis was not kept.")
            return True
        try:
            message_id = await publishers.files.file_ready(job, imported)
        except Unpostable:
            return True
        if message_id is not None:
            await self.store.imports.posted(imported.id, message_id)
        await publishers.files.file_shown(job, f"{imported.file_name} is analysed: see below.")
        return True

    async def _tell_rollout(self, job: JobRecord) -> bool:
        rollouts = self._publishers().rollouts
        assert rollouts is not None
        if job.state == JOB_FAILED:
            await rollouts.rollout_failed(job, job.error or "the rollout could not be made.")
            return True
        result = await self.store.jobs.result(job.id)
        if result is None:
            await rollouts.rollout_failed(job, "The rollout was not kept: ask for it again.")
            return True
        try:
            await rollouts.rollout_ready(job, result)
        except Unpostable:
            return True
        return True

    async def show(self) -> int:
        """Bring each open job's message up to date (its place and estimate, or its progress); how
        many were edited."""
        publishers = self._publishers()
        edited = 0
        jobs = await self.store.jobs.open()
        if not jobs:
            return 0
        found = await self.places(jobs)
        for job in jobs:
            line = words(job, found.get(job.id))
            if job.kind == ANALYSIS:
                if job.message_id is None or job.match_id is None or publishers.analyses is None:
                    continue
                if line == job.shown:
                    continue
                await publishers.analyses.analysis_shown(job.match_id, job.message_id, line)
            elif job.kind == REPLAY:
                line = replay_words(job, found.get(job.id))
                if job.shown is None or publishers.replays is None or line == job.shown:
                    continue
                await publishers.replays.replay_shown(job, line)
            elif job.kind == ROLLOUT:
                line = rollout_words(job, found.get(job.id))
                if job.shown is None or publishers.rollouts is None or line == job.shown:
                    continue
                await publishers.rollouts.rollout_shown(job, line)
            else:
                line = f"{job.file_name}: {line}"
                if (
                    job.reply_token is None
                    or job.shown is None
                    or publishers.files is None
                    or line == job.shown
                ):
                    continue
                await publishers.files.file_shown(job, line)
            await self.store.jobs.shown(job.id, line)
            edited += 1
        return edited

    async def places(self, jobs: list[JobRecord] | None = None) -> dict[int, Place]:
        """Every open job's place and estimate."""
        jobs = jobs if jobs is not None else await self.store.jobs.open()
        rate = await self.store.jobs.seconds_per_action()
        workers = len(await self.store.jobs.workers(self.clock.now()))
        return places(jobs, rate, max(workers, self._lanes(), 1), self._replay_lanes(), self._rollout_lanes())
