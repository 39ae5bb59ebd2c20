"""Lanes of worker processes: :class:`Lane`, one pool of forked workers for one kind of work.

The bot sends three kinds of work to other processes, and none may wait behind another: board
pictures (about 10 ms each, someone is waiting for every one), computing (the computer's moves and
hints: up to seconds, a player is waiting) and heavy work (replays, analyses and their charts:
seconds to minutes, nobody is waiting for the next second). Each kind has its own lane, its own
workers, so a board picture never queues behind a replay; a heavy lane's workers also run at a lower
OS priority (``LaneSpec.nice``), so on a busy machine the pictures get the CPU first.

A lane hands a worker at most one job at a time: jobs beyond the number of workers wait in the
parent (an ``asyncio.Semaphore``), so a job's timeout counts its own run, never the jobs queued before
it (a picture that waited behind others is not taken for a stuck worker).

Workers are forked (``START_METHOD``), so they hold every game registered in the parent before
:meth:`Lane.start`; :attr:`Lane.games` names them, and whoever sends a job for another game does it
in the parent instead. Each worker first runs ``bot.worker_processes.die_with_parent`` (it ends with
the bot, however the bot ends), then lowers its priority, then runs the lane's warm-up.

Failure: a worker that dies (killed, out of memory) breaks its pool (``BrokenProcessPool``); a job
not back within its timeout means a stuck worker. Either way the lane is replaced by a fresh one
(once per breakage; forking and warming up in a thread, not on the event loop) and :meth:`Lane.run`
raises :class:`WorkerLost`, for the caller to redo the job elsewhere or to report it. An exception
raised by the job itself propagates as it would in the parent. Closing a lane gives jobs in flight
``LaneSpec.stop_grace`` seconds in all, or less when ``close`` says so (0: killed at once, for work
that is redone at the next start), and then kills the workers, so neither a job nor ``close()`` can
hang.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from bot.worker_processes import die_with_parent

_log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

#: The start method of the workers (see the module docstring).
START_METHOD = "fork"

#: Seconds a closing lane gives jobs in flight by default before killing the workers still busy.
STOP_GRACE = 5.0

#: Seconds the workers may take to start and warm up before :meth:`Lane.start` gives up.
START_TIMEOUT = 60.0


class HeavyWorkFailed(Exception):
    """A heavy job's worker died or did not finish in time (its lane has been replaced)."""


class WorkerLost(Exception):
    """The job's worker died or did not answer in time (the lane has been replaced), or the lane
    was closed with the job in flight."""


@dataclass(frozen=True, slots=True)
class LaneSpec:
    """What a lane is: its name (for logs), its number of workers (0: no processes), how much lower
    than the bot's its workers' priority is (added to their niceness), the seconds jobs in flight get
    when it closes (None: ``STOP_GRACE``), and what each new worker does before its first job."""

    name: str
    workers: int
    nice: int = 0
    stop_grace: float | None = None
    warm: Callable[[], None] | None = None

    @property
    def grace(self) -> float:
        return STOP_GRACE if self.stop_grace is None else self.stop_grace


def registered_games() -> frozenset[str]:
    """The games a worker forked now can play and draw (every registered kit has rules and a picture)."""
    from kits import KITS

    return frozenset(KITS)


_started: Any = None
"""In a worker: the barrier its lane's workers meet at once they are all ready (``_ping``)."""


def _init_worker(parent: int, nice: int, warm: Callable[[], None] | None, started: Any) -> None:
    """Run once in every worker as it starts."""
    global _started
    die_with_parent(parent)
    if nice:
        os.nice(nice)
    if warm is not None:
        warm()
    _started = started


def _ping() -> int:
    # Each worker waits here for the others: so every one takes exactly one ping, and the lane is
    # ready only when all of them are (one quick worker could otherwise answer every ping).
    _started.wait(START_TIMEOUT)
    return os.getpid()


class Lane:
    """One kind of work in its own pool of worker processes; see the module docstring."""

    def __init__(self, spec: LaneSpec) -> None:
        if spec.workers < 0:
            raise ValueError("workers must be >= 0")
        self.spec = spec
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        #: the games the current workers know (registered when they were forked)
        self.games: frozenset[str] = frozenset()
        self._lock = threading.Lock()
        self._closed = False
        self._slots: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None
        #: how many times a broken or stuck lane was replaced (for logs, tests and benches)
        self.restarts = 0
        self._pending = 0  # jobs in ``run``: waiting for a worker or in one

    @property
    def waiting(self) -> int:
        """Jobs waiting for a free worker (the ``ringside_render_queue`` metric of the board lane)."""
        return max(0, self._pending - max(1, self.spec.workers))

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def workers(self) -> int:
        return self.spec.workers

    @property
    def available(self) -> bool:
        """Whether jobs go to worker processes now (started, not closed, with workers)."""
        return self._executor is not None

    def knows(self, game: str) -> bool:
        """Whether the lane's workers can take a job about ``game``."""
        return self._executor is not None and game in self.games

    def start(self) -> None:
        """Fork the workers and wait until each has warmed up (blocking, once). Idempotent; a no-op
        for a lane of 0 workers or a closed one."""
        if self.spec.workers == 0 or self._closed:
            return
        with self._lock:
            if self._executor is None:
                self._executor = self._new_executor()

    def _new_executor(self) -> concurrent.futures.ProcessPoolExecutor:
        self.games = registered_games()
        context = multiprocessing.get_context(START_METHOD)
        executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.spec.workers,
            mp_context=context,
            initializer=_init_worker,
            initargs=(os.getpid(), self.spec.nice, self.spec.warm, context.Barrier(self.spec.workers)),
        )
        # With "fork" every worker starts at the first submit and runs the initializer before its
        # first job: one ping per worker, met at a barrier, waits for all of them to be ready.
        pings = [executor.submit(_ping) for _ in range(self.spec.workers)]
        done, late = concurrent.futures.wait(pings, timeout=START_TIMEOUT)
        try:
            if late:
                raise TimeoutError(f"{self.name} workers not ready after {START_TIMEOUT:g} s")
            for ping in done:
                ping.result()
        except BaseException:
            _stop(executor, self.spec.grace)
            raise
        return executor

    def close(self, grace: float | None = None) -> None:
        """Stop the workers: jobs in flight get ``grace`` seconds in all (None: ``LaneSpec.stop_grace``;
        never more than that), then the workers still busy are killed. Idempotent; a closed lane
        stays closed."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            _stop(executor, self.spec.grace if grace is None else min(grace, self.spec.grace))

    def pids(self) -> list[int]:
        """The worker processes' ids (empty without workers)."""
        processes = getattr(self._executor, "_processes", None) or {}
        return sorted(processes)

    def _slot(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, asyncio.Semaphore(max(1, self.spec.workers)))
        return self._slots[1]

    async def run(self, timeout: float, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)`` in a worker, when one is free; ``WorkerLost`` if the worker died, hung for
        ``timeout`` seconds of its own run (the lane is then replaced), or the lane closed."""
        self._pending += 1
        try:
            return await self._run(timeout, job, *args)
        finally:
            self._pending -= 1

    async def _run(self, timeout: float, job: Callable[..., T], *args: Any) -> T:
        async with self._slot():
            executor = self._executor
            if executor is None:
                raise WorkerLost(f"the {self.name} lane is closed")
            loop = asyncio.get_running_loop()
            try:
                return await asyncio.wait_for(loop.run_in_executor(executor, job, *args), timeout)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # the caller is being cancelled
                # the lane was closed or replaced with this job in it
                raise WorkerLost(f"the {self.name} lane stopped with the job in it") from None
            except (BrokenProcessPool, TimeoutError) as exc:
                late = isinstance(exc, TimeoutError)
                _log.warning(
                    "a %s worker %s; replacing the lane",
                    self.name,
                    f"did not answer within {timeout:g} s" if late else "died",
                )
                # forking and warming the new workers takes a moment: not on the event loop
                await loop.run_in_executor(None, self._replace, executor)
                raise WorkerLost(f"a {self.name} worker {'hung' if late else 'died'}") from exc
            except RuntimeError as exc:  # submitted just as the lane was shut down (not broken)
                raise WorkerLost(f"the {self.name} lane is closed") from exc

    def _replace(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        """Replace ``broken`` by a new pool, unless another job already did (or the lane closed)."""
        with self._lock:
            if self._closed or self._executor is not broken:
                return
            self._executor = None
            self.restarts += 1
        _stop(broken, self.spec.grace)
        try:
            fresh = self._new_executor()
        except Exception:
            _log.exception("could not restart the %s lane; its work is done in the bot process", self.name)
            return
        with self._lock:
            if self._closed or self._executor is not None:
                stale = fresh
            else:
                self._executor, stale = fresh, None
        if stale is not None:
            _stop(stale, self.spec.grace)


def _stop(executor: concurrent.futures.ProcessPoolExecutor, grace: float) -> None:
    """Shut ``executor`` down: queued jobs cancelled, jobs in flight given ``grace`` seconds in all
    (not each), then every worker still alive killed, so closing never hangs."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
    for process in processes:
        process.join(STOP_GRACE)
