"""``python -m bot worker``: heavy jobs only, no Discord gateway, on any machine that reaches the bot's
PostgreSQL database (``DATABASE_URL``). Jobs come from pgqueuer (``bot.jobs.pgqueue``); each is
computed here (``WORKER_JOBS`` at a time, each in a heavy slot of its own as in the bot: a worker
process at ``HEAVY_NICE`` with the job's CPU budget, so one job's crash or overrun fails only that
job), and its result saved with the job's end (a replay's GIF too, given a ``replayer``: ``app.cli``
gives one); the bot posts it. SIGTERM (or SIGINT) stops taking
jobs at once and gives the running ones back to the queue at their next decision, for another worker
or the next start; a worker killed mid-job loses its job to another (``pgqueue.HEARTBEAT``, or at once
for a worker of the same machine).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

from bot.clock import SystemClock
from bot.jobs.pgqueue import PgWorker
from bot.jobs.replay_runs import Replayer
from bot.jobs.runner import Analyser, InThread, JobRunner
from bot.store import Store
from bot.work_claims import OWNER

log = logging.getLogger("bot.worker")

STOP_WAIT = 15.0
"""Seconds a stopping worker waits for its running jobs to give themselves back."""


async def run_worker(
    url: str,
    lanes: int,
    stopping: asyncio.Event | None = None,
    analyser: Analyser | None = None,
    replayer: Replayer | None = None,
) -> None:
    """Run heavy jobs from the database at ``url`` until SIGTERM/SIGINT (or ``stopping`` is set);
    ``analyser``: where analyses are computed (the heavy slots ``app`` gives; None: threads here);
    ``replayer``: where replays are made (None: this worker leaves them to the bot)."""
    stopping = stopping or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stopping.set)
    store = await Store.open(url)
    runner = JobRunner(store, SystemClock(), analyser or InThread(), owner=OWNER, lanes=0, replayer=replayer)
    worker = PgWorker(url, store, runner, lanes)
    log.info(
        "worker %s: running up to %d heavy jobs at once from %s", OWNER, lanes, store.connection.describe()
    )
    taking = loop.create_task(worker.run(), name="ringside-worker")
    try:
        await runner.free_the_gone()
        stop = loop.create_task(stopping.wait())
        await asyncio.wait({taking, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        log.info("worker %s: stopping; running jobs go back to the queue", OWNER)
        worker.stop()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(taking), STOP_WAIT)
    finally:
        taking.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await taking
        await runner.close()
        await store.close()
    log.info("worker %s: stopped", OWNER)
