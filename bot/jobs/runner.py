"""Runs heavy jobs (``bot.store.jobs``): takes the next one from the database, computes it through an
``Analyser`` (a replay through a ``Replayer``) and saves the result with the job's end, so the bot
process posts it (``bot.analyses``, ``bot.jobs.showing``).

The same runner serves the bot (its heavy worker processes, ``app.render_pool``; on SQLite, the only
place jobs run) and ``python -m bot worker`` processes on PostgreSQL (``bot.jobs.worker``). It takes
one job at a time per lane (``lanes``), writes the job's progress every ``PROGRESS_EVERY`` seconds
(which also renews its lease: a process killed mid-job loses it ``JOB_LEASE`` later at the latest,
at once to a process of the same machine, which sees it gone), and once ``stop`` is called takes no
job and gives the running ones back to the queue at their next decision (``AnalysisStopped``).

A job that cannot be done is marked failed with a reason for its asker: a log that does not replay,
a file that no longer reads, an analysis that raises, a worker lost twice (``HeavyWorkFailed``: the
first loss puts it back in the queue), or an analysis over its CPU budget (``HeavyWorkOverBudget``:
a second try would only use as much again). A replay fails the same ways, and when even its fewest,
smallest frames are over the file size limit (``ReplayTooLong``); once ``stop`` is called a replay
being made is abandoned and goes back to the queue (it has no decisions to stop at).
A rollout (``bot.jobs.rollout_runs``, through a ``Roller``) stops between two batches of games and
goes back to the queue; it fails when the engine refuses its position, or as an analysis does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from bot.clock import Clock
from bot.jobs.replay_runs import TRIES, Replayer, ReplayRuns, RunningJob
from bot.jobs.rollout_runs import Roller, RolloutRuns
from bot.store import Store
from bot.store.imports import pack
from bot.store.jobs import ANALYSIS, FILE, REPLAY, ROLLOUT, JobRecord, unpack_file
from bot.work_claims import OWNER, gone
from bot.worker_lanes import HeavyWorkFailed, HeavyWorkOverBudget, on_loop, throttled
from engine import VARIANTS, GameError
from engine.ai.coaches import ANALYSES
from engine.ai.coaching import Analysis, AnalysisStopped, ProgressReport, StopCheck, analysis_to_json

log = logging.getLogger(__name__)

JOB_LEASE = 60.0
"""Seconds a running job is held without news of its process (its progress renews it)."""
PROGRESS_EVERY = 5.0
"""Seconds between two writes of a running job's progress (and so between two edits of its message)."""
POLL = 5.0
"""Seconds an idle lane waits before looking for a job again (a job queued here wakes it at once)."""
CLOSE_WAIT = 2.0
"""Seconds ``close`` waits for the running jobs to stop by themselves before it cancels them."""
FILE_FAILED = "The match was read, but its analysis failed."
MATCH_FAILED = "The analysis could not be computed."


class Analyser(Protocol):
    """Where an analysis is computed: the bot's heavy worker lane (``app.render_pool.RenderPool``) or
    a thread (``InThread``)."""

    async def analyse(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        should_stop: StopCheck,
        progress: ProgressReport | None = None,
    ) -> Analysis: ...


class InThread:
    """An ``Analyser`` without worker processes: a thread, stopped by ``should_stop``; ``progress`` is
    told on the event loop (the analysis reports from its thread), at most every
    ``bot.worker_lanes.PROGRESS_EVERY`` seconds and once at the end, as from a heavy worker."""

    async def analyse(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        should_stop: StopCheck,
        progress: ProgressReport | None = None,
    ) -> Analysis:
        report = None if progress is None else throttled(on_loop(asyncio.get_running_loop(), progress))
        return await asyncio.to_thread(ANALYSES[game], options, list(log), should_stop, report)


class JobRunner(ReplayRuns, RolloutRuns):
    def __init__(
        self,
        store: Store,
        clock: Clock,
        analyser: Analyser | None = None,
        *,
        owner: str = OWNER,
        lanes: int = 1,
        kinds: Sequence[str] = (ANALYSIS, FILE),
        on_end: Callable[[JobRecord], None] | None = None,
        replayer: Replayer | None = None,
        roller: Roller | None = None,
    ) -> None:
        """``lanes``: jobs run at once; ``kinds``: the jobs it takes; ``on_end``: told of each job this
        runner ended (done or failed), on the event loop (the bot posts it at once); ``replayer``:
        where replays are made (needed with ``REPLAY`` among ``kinds``); ``roller``: where rollouts
        are (needed with ``ROLLOUT``)."""
        self.replayer = replayer
        self.roller = roller
        self.store = store
        self.clock = clock
        self.analyser = analyser or InThread()
        self.owner = owner
        self.lanes = lanes
        self.kinds = tuple(kinds)
        self.on_end = on_end
        self._stop = threading.Event()
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.running: dict[int, RunningJob] = {}
        #: jobs this runner ended since start (tests and the bench wait on it)
        self.ended = 0
        self.changed = asyncio.Event()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def start(self) -> None:
        if not self._tasks and self.lanes > 0:
            self._stop.clear()
            loop = asyncio.get_running_loop()
            self._tasks = [
                loop.create_task(self._lane(), name=f"ringside-jobs-{i}") for i in range(self.lanes)
            ]

    def wake(self) -> None:
        """A job was queued: an idle lane looks at once."""
        self._wake.set()

    def stop(self) -> None:
        """Take no more jobs; the running ones stop at their next decision and go back to the queue."""
        self._stop.set()
        self._wake.set()

    async def close(self) -> None:
        """Stop, wait up to ``CLOSE_WAIT`` for the running jobs to give themselves back at their next
        decision, then cancel them; every job still held here goes back to the queue."""
        self.stop()
        held = [r.job.id for r in self.running.values()]
        tasks, self._tasks = self._tasks, []
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_WAIT)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for job_id in held:  # cancelled before it could give itself back
            try:
                await self.store.jobs.release(job_id, self.owner, again=False)
            except Exception as exc:  # its lease runs out, or the next start frees it
                log.warning("heavy job %s could not be given back to the queue: %s", job_id, exc)

    async def free_the_gone(self) -> int:
        """Running jobs of processes known to be gone (``work_claims.gone``) or whose lease ran out,
        back to the queue; how many."""
        freed = await self.store.jobs.free_expired(self.clock.now())
        for worker in await self.store.jobs.running_owners():
            if worker != self.owner and gone(worker, self.owner):
                freed += await self.store.jobs.free_owner(worker)
        if freed:
            log.info("%d heavy jobs of processes that are gone went back to the queue", freed)
        return freed

    async def _lane(self) -> None:
        while not self._stop.is_set():
            try:
                job = await self.store.jobs.claim(self.owner, self.clock.now(), JOB_LEASE, self.kinds)
                if job is None:
                    await self.free_the_gone()
                    job = await self.store.jobs.claim(self.owner, self.clock.now(), JOB_LEASE, self.kinds)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database is away: looked at again in a moment
                log.warning("could not take a heavy job: %s", exc)
                job = None
            if job is None:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), POLL)
                continue
            await self.run(job)

    async def run_id(self, job_id: int) -> bool:
        """Run job ``job_id`` if this process can take it (dispatched here: ``bot.jobs.pgqueue``);
        whether it did."""
        if self._stop.is_set():
            return False
        if self.replayer is None or self.roller is None:  # a worker without one leaves those to the bot
            found = await self.store.jobs.get(job_id)
            if found is None or (found.kind == REPLAY and self.replayer is None):
                return False
            if found.kind == ROLLOUT and self.roller is None:
                return False
        job = await self.store.jobs.take(job_id, self.owner, self.clock.now(), JOB_LEASE)
        if job is None:
            return False
        await self.run(job)
        return True

    async def run(self, job: JobRecord) -> None:
        """Compute a job this process holds, and save its end (a failure included)."""
        running = self.running[job.id] = RunningJob(job)
        beat = asyncio.get_running_loop().create_task(self._beat(running), name=f"ringside-job-{job.id}-beat")
        try:
            await self._run(running)
        except asyncio.CancelledError:
            raise
        except Exception:
            # The database went away at the end: the job's lease runs out and it is taken again.
            log.exception("heavy job %s could not be saved; it goes back to the queue", job.id)
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
            self.running.pop(job.id, None)
            self.changed.set()

    async def _run(self, running: RunningJob) -> None:
        job = running.job
        if job.kind == REPLAY:
            await self._replay(running)
            return
        if job.kind == ROLLOUT:
            await self._roll_out(running)
            return
        try:
            game, options, notations, names = await self._inputs(job)
        except GameError as exc:
            await self._fail(job, str(exc))
            return
        started = time.monotonic()

        def should_stop() -> bool:
            return self._stop.is_set() or running.lost

        def progress(done: int, total: int) -> None:
            running.done, running.total = done, total

        log.info(
            "heavy job %s: analysing %s (%d actions, try %d)",
            job.id,
            _what(job),
            len(notations),
            job.attempts,
        )
        try:
            analysis = await self.analyser.analyse(game, options, notations, should_stop, progress=progress)
        except AnalysisStopped:
            if not running.lost:
                await self.store.jobs.release(job.id, self.owner, again=False)
                log.info("heavy job %s stopped: back in the queue", job.id)
            return
        except HeavyWorkFailed as exc:
            # Over its CPU budget, a second try would only use as much again: told at once.
            if job.attempts < TRIES and not isinstance(exc, HeavyWorkOverBudget):
                log.warning("heavy job %s lost its worker (%s): tried once more", job.id, exc)
                await self.store.jobs.release(job.id, self.owner)
                self._wake.set()
            else:
                await self._fail(job, FILE_FAILED if job.kind == FILE else MATCH_FAILED)
            return
        except Exception as exc:
            if isinstance(exc, GameError):
                log.warning("heavy job %s cannot be analysed: %s", job.id, exc)
            else:
                log.exception("heavy job %s failed", job.id)
            await self._fail(job, FILE_FAILED if job.kind == FILE else MATCH_FAILED)
            return
        seconds = time.monotonic() - started
        data = analysis_to_json(analysis)
        if job.kind == ANALYSIS:
            ours = await self.store.jobs.finish_analysis(job, self.owner, data, seconds, self.clock.now())
        else:
            packed_log, packed = await asyncio.to_thread(lambda: (pack(list(notations)), pack(data)))
            ours = (
                await self.store.jobs.finish_file(
                    job,
                    self.owner,
                    names=names,
                    options=dict(options or {}),
                    packed_log=packed_log,
                    packed_analysis=packed,
                    seconds=seconds,
                    now=self.clock.now(),
                )
                is not None
            )
        if ours:
            log.info("heavy job %s done (%s, %.1f s)", job.id, _what(job), seconds)
            self._ended(job)
        else:
            log.info("heavy job %s was done meanwhile by another process; this result is dropped", job.id)

    async def _inputs(
        self, job: JobRecord
    ) -> tuple[str, Mapping[str, Any] | None, list[str], tuple[str, str]]:
        """The game, options, action log and names of what the job analyses (``GameError``: it
        cannot be read or replayed)."""
        if job.game not in ANALYSES or job.game not in VARIANTS:
            raise GameError(f"{job.game} has no analysis.")
        if job.kind == ANALYSIS:
            assert job.match_id is not None
            match = await self.store.matches.get(job.match_id)
            if match is None or match.status == "active":
                raise GameError(f"match {job.match_id} has no analysis to compute (missing or active)")
            notations = [a.notation for a in await self.store.matches.action_log(job.match_id)]
            return match.game, match.options, notations, ("", "")
        payload = await self.store.jobs.payload(job.id)
        if payload is None:
            raise GameError("The file was not kept.")
        try:
            data = unpack_file(payload)
        except zlib.error:
            raise GameError("The file as kept cannot be read.") from None
        imported = await asyncio.to_thread(VARIANTS[job.game].import_match, data)
        return job.game, imported.options, list(imported.log), imported.names

    async def _fail(self, job: JobRecord, reason: str) -> None:
        if await self.store.jobs.fail(job, self.owner, reason, self.clock.now()):
            self._ended(job)

    def _wake_lanes(self) -> None:
        self._wake.set()

    def _ended(self, job: JobRecord) -> None:
        self.ended += 1
        if self.on_end is not None:
            self.on_end(job)

    async def _beat(self, running: RunningJob) -> None:
        """Every ``PROGRESS_EVERY``: the job's progress saved and its lease renewed (lost: stop it)."""
        shown = (-1, -1)
        while True:
            await asyncio.sleep(PROGRESS_EVERY)
            now = (running.done, running.total)
            try:
                held = await self.store.jobs.progress(
                    running.job.id, self.owner, now[0], now[1], self.clock.now() + JOB_LEASE
                )
            except Exception as exc:  # the database is away: the lease is renewed at the next beat
                log.info("could not save the progress of heavy job %s: %s", running.job.id, exc)
                continue
            if not held:
                log.warning("heavy job %s was taken by another process: stopping it here", running.job.id)
                running.lost = True
                return
            if now != shown:
                shown = now
                self.changed.set()


def _what(job: JobRecord) -> str:
    if job.kind == REPLAY:
        return f"replay of match {job.replay_of}"
    if job.kind == ROLLOUT:
        return f"rollout for member {job.owner_id}"
    return f"match {job.match_id}" if job.kind == ANALYSIS else f"{job.file_name} of member {job.owner_id}"
