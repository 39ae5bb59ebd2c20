"""Heavy jobs handed to ``python -m bot worker`` processes on PostgreSQL, through pgqueuer.

Why pgqueuer (PyPI ``pgqueuer``, MIT) rather than code of our own or procrastinate: it runs on
asyncpg, which the store already uses (procrastinate wants psycopg 3); a worker is woken by
LISTEN/NOTIFY the moment a job is queued (no polling), takes it with ``FOR UPDATE SKIP LOCKED`` (two
workers never take one), and keeps a heartbeat on each job it runs, so a job whose worker was killed
is handed to another once its heartbeat is ``HEARTBEAT`` old; a handler's ``RetryRequested`` puts a
job back with a delay. Its tables live beside ours (installed by the first process that needs them).

``heavy_jobs`` (``bot.store.jobs``) stays what a job is: its owner, priority, progress, lease and
result; a pgqueuer job carries only its id, with a dedupe key, so dispatching one again (each
scheduler round dispatches every queued job: one lost in a restart of the database is dispatched
again) adds nothing while it waits. The worker takes the heavy job itself with the store's conditional
update (``JobStore.take``); a job another live process holds is retried when that one's lease runs
out, and one whose process is gone (on this machine) is taken at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import timedelta

import asyncpg
from pgqueuer import AsyncpgDriver, Job, Queries, QueueManager, RetryRequested

from bot.jobs.runner import JobRunner
from bot.store import Store
from bot.store.jobs import QUEUED, RUNNING, JobRecord
from bot.work_claims import gone

log = logging.getLogger(__name__)

ENTRYPOINT = "ringside_heavy"
HEARTBEAT = timedelta(seconds=20)
"""How old a running pgqueuer job's heartbeat may grow before another worker is given it."""
BUSY_RETRY = timedelta(seconds=1)
"""A worker whose lanes are all busy gives a job back for this long (another worker takes it)."""
INSTALL_LOCK = 0x52485141  # "RHQA"


async def _installed(connection: asyncpg.Connection) -> Queries:
    """pgqueuer's queries on ``connection``, its tables installed first if need be (by one process)."""
    queries = Queries(AsyncpgDriver(connection))
    await connection.execute("SELECT pg_advisory_lock($1)", INSTALL_LOCK)
    try:
        if not await queries.schema_is_installed():
            await queries.install(create_schema=False)
            log.info("pgqueuer's tables installed")
    finally:
        await connection.execute("SELECT pg_advisory_unlock($1)", INSTALL_LOCK)
    return queries


def _priority(job: JobRecord | int) -> int:
    """pgqueuer takes the highest first; ours, the lowest."""
    return 10 - (job if isinstance(job, int) else job.priority)


class PgDispatch:
    """The bot's side: each queued heavy job handed to pgqueuer (``dispatch``, idempotent)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._connection: asyncpg.Connection | None = None
        self._queries: Queries | None = None
        self._lock = asyncio.Lock()

    async def dispatch(self, jobs: list[JobRecord]) -> int:
        """Hand the queued ``jobs`` to pgqueuer; how many were new there. A failure is logged (the
        next round dispatches them again)."""
        queued = [job for job in jobs if job.state == QUEUED]
        if not queued:
            return 0
        async with self._lock:
            try:
                queries = await self._ready()
                added = await queries.enqueue(
                    [ENTRYPOINT] * len(queued),
                    [str(job.id).encode() for job in queued],
                    [_priority(job) for job in queued],
                    dedupe_key=[f"heavy-{job.id}" for job in queued],
                    on_conflict="skip",
                )
            except Exception as exc:
                log.warning("could not hand %d heavy jobs to the workers: %s", len(queued), exc)
                await self._drop()
                return 0
        return sum(1 for job_id in added if job_id is not None)

    async def _ready(self) -> Queries:
        if self._queries is None or self._connection is None or self._connection.is_closed():
            self._connection = await asyncpg.connect(self.url, timeout=10)
            self._queries = await _installed(self._connection)
        return self._queries

    async def _drop(self) -> None:
        connection, self._connection, self._queries = self._connection, None, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.close()

    async def close(self) -> None:
        async with self._lock:
            await self._drop()


class PgWorker:
    """A worker process's side: pgqueuer hands it heavy job ids, ``JobRunner`` runs them (``lanes``
    at a time; a job beyond them goes back to pgqueuer for another worker)."""

    def __init__(self, url: str, store: Store, runner: JobRunner, lanes: int) -> None:
        self.url = url
        self.store = store
        self.runner = runner
        self.lanes = lanes
        self.busy = 0
        self._manager: QueueManager | None = None
        self._stopping = asyncio.Event()

    async def handle(self, job: Job) -> None:
        """One pgqueuer job: run its heavy job here, or give it back for later (busy, or held by a
        live process until its lease runs out)."""
        job_id = int((job.payload or b"0").decode())
        if self.runner.stopping:
            raise RetryRequested(BUSY_RETRY, "this worker is stopping")
        if self.busy >= self.lanes:
            raise RetryRequested(BUSY_RETRY, "this worker's lanes are busy")
        self.busy += 1
        try:
            record = await self.store.jobs.get(job_id)
            if record is None or record.state not in (QUEUED, RUNNING):
                return  # done meanwhile, or no longer kept
            if record.state == RUNNING and record.worker and gone(record.worker, self.runner.owner):
                await self.store.jobs.free_owner(record.worker)  # killed on this machine: at once
            if await self.runner.run_id(job_id):
                return
            record = await self.store.jobs.get(job_id)
            if record is not None and record.state == QUEUED and self.runner.stopping:
                raise RetryRequested(BUSY_RETRY, "this worker is stopping")
            if record is not None and record.state == RUNNING and record.lease_until is not None:
                wait = max(1.0, record.lease_until - self.runner.clock.now())
                raise RetryRequested(timedelta(seconds=wait), "another process holds it")
        finally:
            self.busy -= 1

    async def run(self) -> None:
        """Take jobs until ``stop``; a lost connection to the database is made again."""
        while not self._stopping.is_set():
            try:
                connection = await asyncpg.connect(self.url, timeout=10)
            except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
                log.warning("cannot reach the database for jobs (%s): trying again", exc)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), 2.0)
                continue
            try:
                manager = self._manager = QueueManager(await _installed(connection))
                manager.entrypoint(ENTRYPOINT)(self.handle)
                if self._stopping.is_set():
                    break
                await manager.run(
                    batch_size=1,
                    max_concurrent_tasks=max(2, 2 * self.lanes),
                    heartbeat_timeout=HEARTBEAT,
                    dequeue_timeout=timedelta(seconds=5),
                    shutdown_on_listener_failure=True,  # a lost connection: made again here
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("the job queue's connection was lost (%s): connecting again", exc)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), 1.0)
            finally:
                self._manager = None
                with contextlib.suppress(Exception):
                    await connection.close()

    def stop(self) -> None:
        """No job is taken any more; the running ones go back to the queue at their next decision."""
        self._stopping.set()
        self.runner.stop()
        if self._manager is not None:
            self._manager.shutdown.set()
