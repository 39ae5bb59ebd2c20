"""Analyses of finished matches and of match files sent to ``/analyse file:``, and replays
(``bot.replays``): heavy jobs in the database (``bot.store.jobs``), run by ``bot.jobs.JobRunner``
(replays by a runner of their own, on the same queue), posted and shown by the bot process.

The publisher requests a match's analysis when it posts the result (``request``: a row of
``match_analyses``, then ``queue``: a job, priority 0); a file (``analyse_file``) is read at once
(refused privately if it does not read) and queued with its bytes (priority 2; replays, 1) within the limits of
``bot.store.jobs.Limits``: one file per member at a time, a bounded number per server and in all,
refused at once with the limit named. Jobs run in this process's runner (``lanes`` at a time, in the
heavy worker lane ``app.render_pool``) and, on PostgreSQL, in ``python -m bot worker`` processes on
any machine (``bot.jobs.worker``): whoever computes a job saves its result with the job's end; this
process posts it (``AnalysisPublisher``, ``FilePublisher``, both cogs), under a claim and a posted
flag, so it is posted once. Every ``SHOW_EVERY`` seconds the open jobs' messages are brought up to
date: a queued job's place and estimate (``bot.jobs.places``), a running one's progress ("analysing:
decision 80 of 154") on our match's result message or on the file's private answer.

Nothing is lost at a restart: a queued job waits in the database, a running one goes back to the
queue (``stop``: at its next decision; a killed process: ``free_the_dead`` at the next start, or its
lease running out), and the next start or another worker takes it up. A job that cannot be done
(it does not replay, its worker was lost twice, it raises) is marked failed and its asker told.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.clock import Clock
from bot.jobs.places import words
from bot.jobs.replay_runs import Replayer
from bot.jobs.rollout_runs import Roller
from bot.jobs.runner import Analyser, InThread, JobRunner
from bot.jobs.showing import Showing
from bot.publishing import Publishers, Unpostable
from bot.replays import KEPT_AT_RESTART as REPLAY_KEPT
from bot.rollouts import KEPT_AT_RESTART as ROLLOUT_KEPT
from bot.rollouts import LANES as ROLLOUT_LANES
from bot.store import ImportedRecord, Store
from bot.store.analyses import DONE, PENDING, AnalysisRecord
from bot.store.jobs import FILE, JOB_FAILED, REPLAY, ROLLOUT, JobRecord, Limits, Refused, pack_file
from bot.work_claims import ANALYSIS_LEASE, WorkClaims, gone
from engine import VARIANTS, GameError
from engine.ai.coaches import ANALYSES
from engine.ai.coaching import analysis_from_json

log = logging.getLogger(__name__)

__all__ = [
    "KEPT_AT_RESTART",
    "Analyser",
    "Analyses",
    "FileNotAnalysed",
    "FileSource",
    "InThread",
    "Queued",
    "refusal",
]

SHOW_EVERY = 5.0
"""Seconds between two updates of the open jobs' messages (at most one edit per message)."""


class Analyses:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        publishers: Callable[[], Publishers],
        workers: Analyser | None = None,
        claims: WorkClaims | None = None,
        *,
        lanes: int = 1,
        limits: Limits | None = None,
        dispatch: Dispatch | None = None,
        replayer: Replayer | None = None,
        replay_lanes: int = 0,
        roller: Roller | None = None,
        rollout_lanes: int | None = None,
    ) -> None:
        """``publishers``: where the registered publishers are found (read at each use); ``workers``:
        where analyses are computed (None: in a thread of this process); ``claims``: how a post is
        claimed, so that of several processes on one database one posts it; ``lanes``: jobs this
        process runs at once (0: none, workers do); ``limits``: of the files queued; ``dispatch``:
        where queued jobs are handed to workers (``bot.jobs.pgqueue.PgDispatch`` on PostgreSQL);
        ``replayer``, ``replay_lanes``: where replays are made (``bot.replays``), and how many at once
        (lanes of their own, taking only replays from the same queue); ``roller``, ``rollout_lanes``:
        the same for rollouts (``bot.rollouts``; lanes by default ``bot.rollouts.LANES`` with a
        roller, else none)."""
        self.dispatch = dispatch
        self.store = store
        self.clock = clock
        self.claims = claims or WorkClaims(store, clock)
        self.limits = limits or Limits()
        self._publishers = publishers
        runner = functools.partial(JobRunner, store, clock, owner=self.claims.owner, on_end=self._ended)
        self.runner = runner(workers or InThread(), lanes=lanes)
        self.replay_runner = runner(lanes=replay_lanes, kinds=(REPLAY,), replayer=replayer)
        if rollout_lanes is None:
            rollout_lanes = ROLLOUT_LANES if roller is not None else 0
        self.rollout_runner = runner(lanes=rollout_lanes, kinds=(ROLLOUT,), roller=roller)
        #: this process's lanes: analyses and files, replays, rollouts (each taking its kinds)
        self.runners = (self.runner, self.replay_runner, self.rollout_runner)
        self.showing = Showing(
            store,
            clock,
            self.claims,
            publishers,
            self.run,
            lambda: self.runner.lanes,
            lambda: self.replay_runner.lanes,
            lambda: self.rollout_runner.lanes,
        )
        self._nudge = asyncio.Event()
        self._watcher: asyncio.Task[None] | None = None
        self._stopping = False
        self._interrupted: list[JobRecord] = []
        #: analyses and files posted (or told failed) since start (tests wait on it)
        self.finished: asyncio.Event = self.showing.finished

    @staticmethod
    def supports(game: str) -> bool:
        """Whether finished matches of ``game`` get an analysis."""
        return game in ANALYSES

    # -- our matches ----------------------------------------------------------------------------------

    async def request(self, match_id: int, game: str) -> AnalysisRecord | None:
        """The match's analysis record, requested now if need be (None: its game has no analysis)."""
        if not self.supports(game):
            return None
        return await self.store.analyses.request(match_id, self.clock.now())

    async def queue(self, match_id: int, message_id: int | None = None) -> None:
        """Compute the match's analysis (a job, once per match) and show it on ``message_id`` (its
        result message); one already computed is posted."""
        record = await self.store.analyses.get(match_id)
        if record is not None and record.status == PENDING:
            match = await self.store.matches.get(match_id)
            if match is not None:
                size = len(await self.store.matches.action_log(match_id))
                job_id = await self.store.jobs.add_analysis(
                    match_id=match_id,
                    game=match.game,
                    guild_id=match.guild_id,
                    channel_id=match.channel_id,
                    size=size,
                    message_id=message_id if message_id is not None else match.result_message_id,
                    now=self.clock.now(),
                )
                await self.queued(job_id)
        self._nudge.set()

    async def resume(self) -> int:
        """Start-up and scheduler rounds: queue every open analysis without a job, post what is
        computed and tell what failed; returns how many analyses are open."""
        open_ = await self.store.analyses.open()
        for match_id in open_:
            job = await self.store.jobs.of_match(match_id)
            if job is None:
                record = await self.store.analyses.get(match_id)
                if record is not None and record.status == DONE:
                    # Computed before analyses were jobs (migration 025): posted as it was then.
                    async with self.claims.hold("analysis", match_id, ANALYSIS_LEASE) as mine:
                        if mine:
                            await self.run(match_id)
                else:
                    await self.queue(match_id)
        await self.runner.free_the_gone()
        if self.dispatch is not None:  # one lost with a restart of the database is handed again
            await self.dispatch.dispatch(await self.store.jobs.open())
        await self.tell()
        return len(await self.store.analyses.open())

    async def run(self, match_id: int) -> None:
        """Post the match's analysis if it is computed and not posted yet."""
        record = await self.store.analyses.get(match_id)
        if record is None or record.status != DONE:
            return
        publisher = self._publishers().analyses
        if publisher is None:
            return  # posted when a publisher is registered (the next round)
        try:
            analysis = analysis_from_json(record.analysis)
            message_id = await publisher.analysis_ready(match_id, analysis)
        except (Unpostable, ValueError):
            # Never postable (the channel is gone, a bug, an unreadable analysis): not tried again.
            await self.store.analyses.failed(match_id, self.clock.now())
            return
        await self.store.analyses.posted(match_id, message_id)
        self.finished.set()

    # -- matches played elsewhere ------------------------------------------------------------------

    async def analyse_file(
        self, game: str, data: bytes, source: FileSource, reply_token: str | None = None
    ) -> Queued:
        """A match file of another program (``Variant.import_match``), read now and queued for its
        analysis with its bytes (``reply_token``: the interaction whose private answer shows how it
        goes). ``FileNotAnalysed`` with the reason (the line) when the file cannot be read, or the
        member, the server or the bot has as many files queued as it may (the limit named)."""
        variant = VARIANTS[game]
        if game not in ANALYSES:
            raise FileNotAnalysed(f"{variant.title} has no analysis.")
        holding = await self.store.jobs.file_of(source.sender_id)
        if holding is not None:  # before reading the file: the answer is at once
            raise FileNotAnalysed(refusal(Refused("member", self.limits.per_member, holding)))
        try:
            # Replaying a long match takes a moment: off the event loop.
            imported = await asyncio.to_thread(variant.import_match, data)
        except GameError as exc:
            raise FileNotAnalysed(str(exc)) from exc
        try:
            job_id = await self.store.jobs.add_file(
                owner_id=source.sender_id,
                guild_id=source.guild_id,
                channel_id=source.channel_id,
                game=game,
                file_name=source.file_name,
                payload=await asyncio.to_thread(pack_file, data),
                size=len(imported.log),
                reply_token=reply_token,
                limits=self.limits,
                now=self.clock.now(),
            )
        except Refused as exc:
            raise FileNotAnalysed(refusal(exc)) from None
        log.info("%s queued as heavy job %s (%d actions)", source.file_name, job_id, len(imported.log))
        line = await self.line_of(job_id)  # before a lane is woken: its place, as it was queued
        await self.queued(job_id)
        job = await self.store.jobs.get(job_id)
        return Queued(job_id, line, job is not None and job.state in ("queued", "running"))

    async def queued(self, job_id: int | None) -> None:
        """A job was queued: this process's idle lanes look at once, and workers are handed it."""
        for runner in self.runners:
            runner.wake()
        if job_id is not None and self.dispatch is not None:
            job = await self.store.jobs.get(job_id)
            if job is not None:
                await self.dispatch.dispatch([job])

    async def answered(self, job_id: int, line: str) -> None:
        """The asker's private answer shows ``line`` now (the job's result may be posted from now)."""
        await self.store.jobs.answered(job_id, None, line)
        self._nudge.set()

    async def line_of(self, job_id: int) -> str:
        """How a job stands, in words: its place and estimate, its progress, or its end."""
        job = await self.store.jobs.get(job_id)
        if job is None:
            return "no longer kept"
        if job.state == JOB_FAILED:
            return job.error or "it could not be analysed"
        if job.state not in ("queued", "running"):
            return "analysed"
        found = await self.showing.places()
        return words(job, found.get(job_id))

    async def imported(self, import_id: int) -> ImportedRecord | None:
        """A match analysed from a file, as kept (None: no such one, or deleted as too old)."""
        return await self.store.imports.get(import_id)

    async def imported_posted(self, import_id: int, message_id: int) -> None:
        await self.store.imports.posted(import_id, message_id)

    # -- running, showing and posting --------------------------------------------------------------

    def start(self) -> None:
        self._stopping = False
        self._interrupted = []
        for runner in self.runners:
            runner.start()
        if self._watcher is None:
            self._watcher = asyncio.get_running_loop().create_task(self._watch(), name="ringside-analyses")

    async def free_the_dead(self, *, sole: bool) -> int:
        """At start-up: the running jobs of processes known to be gone back to the queue (``sole``:
        this process holds the database alone, every other owner is gone); how many."""
        freed = 0
        for worker in await self.store.jobs.running_owners():
            if worker != self.claims.owner and (sole or gone(worker, self.claims.owner)):
                freed += await self.store.jobs.free_owner(worker)
        if freed:
            log.info("%d heavy jobs of processes that are gone went back to the queue", freed)
        return freed

    def stop(self) -> None:
        """The bot is stopping (SIGTERM): no job is taken any more, and the running ones go back to the
        queue at their next decision (``AnalysisStopped``), for the next start or another worker."""
        if not self._stopping:  # their askers are told at ``close`` that they keep their place
            self._interrupted = [r.job for runner in self.runners for r in runner.running.values()]
        self._stopping = True
        for runner in self.runners:
            runner.stop()

    async def close(self) -> None:
        self.stop()
        running = list(self._interrupted)
        await asyncio.gather(*(runner.close() for runner in self.runners))
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
            self._watcher = None
        if self.dispatch is not None:
            await self.dispatch.close()
        for job in running:
            ended = False  # told when the store cannot say
            with contextlib.suppress(Exception):
                fresh = await self.store.jobs.get(job.id)
                ended = fresh is None or fresh.state != "queued"
            if ended:
                continue  # it ended meanwhile (and is posted, or will be): nothing to keep
            with contextlib.suppress(Exception):
                await tell_kept(job, self._publishers())

    def _ended(self, job: JobRecord) -> None:
        self._nudge.set()

    async def _watch(self) -> None:
        """Post what is done and tell what failed as soon as it is (a job of this process nudges;
        another's is seen within ``SHOW_EVERY``), and bring the open jobs' messages up to date."""
        loop = asyncio.get_running_loop()
        shown_at = 0.0
        while True:
            try:
                await self.tell()
                if loop.time() - shown_at >= SHOW_EVERY:
                    shown_at = loop.time()
                    await self.show()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the heavy jobs could not be shown; tried again in a moment")
            self._nudge.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._nudge.wait(), SHOW_EVERY)

    async def tell(self) -> int:
        """Post every job's result not posted yet, and tell every failure not told; how many."""
        return await self.showing.tell()

    async def show(self) -> int:
        """Bring each open job's message up to date; how many were edited."""
        return await self.showing.show()


async def tell_kept(job: JobRecord, publishers: Publishers) -> None:
    """Tell the asker of a job a restart interrupted that it keeps its place (an analysis of our own
    match has no asker to tell)."""
    if job.kind == FILE and publishers.files is not None:
        await publishers.files.file_shown(job, KEPT_AT_RESTART)
    elif job.kind == REPLAY and publishers.replays is not None:
        await publishers.replays.replay_shown(job, REPLAY_KEPT)
    elif job.kind == ROLLOUT and publishers.rollouts is not None:
        await publishers.rollouts.rollout_shown(job, ROLLOUT_KEPT)


@dataclass(frozen=True, slots=True)
class FileSource:
    """Where a match file came from: its name, who sent it, and where."""

    file_name: str
    guild_id: int | None
    channel_id: int
    sender_id: int


@dataclass(frozen=True, slots=True)
class Queued:
    """A match file accepted: its job, and how it stands in words (its place and estimate)."""

    id: int
    line: str
    open: bool = True
    """Still queued or running (a job may end before its asker is answered)."""


KEPT_AT_RESTART = (
    "Ringside is restarting: your file keeps its place in the queue and is analysed after the restart."
)
"""Shown on the private answer of a file whose analysis a restart interrupted (it is kept)."""


def refusal(refused: Refused) -> str:
    """Why a file was not queued, with the limit."""
    if refused.reason == "member":
        holding = refused.holding
        name = f" ({holding.file_name})" if holding is not None and holding.file_name else ""
        return (
            f"You already have a file being analysed{name}: one at a time. "
            "Send this one once that one is posted."
        )
    if refused.reason == "server":
        return (
            f"This server already has {refused.limit} files waiting to be analysed, the most it may: "
            "send it again a little later."
        )
    return (
        f"Ringside already has {refused.limit} files waiting to be analysed, the most it takes: "
        "send it again a little later."
    )


class Dispatch(Protocol):
    """Hands queued jobs to worker processes (``bot.jobs.pgqueue.PgDispatch``)."""

    async def dispatch(self, jobs: list[JobRecord]) -> int: ...

    async def close(self) -> None: ...


class FileNotAnalysed(Exception):
    """A match file that cannot be analysed; the message (one line) is for the user."""
