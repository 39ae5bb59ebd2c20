"""Lanes of worker processes: :class:`Lane`, one pool of forked workers for one kind of work, and
:class:`SlotLane`, a lane of independent single-worker slots for heavy work.

The bot sends three kinds of work to other processes, and none may wait behind another: board
pictures (about 10 ms each, someone is waiting for every one), computing (the computer's moves and
hints: up to seconds, a player is waiting) and heavy work (replays, analyses and their charts:
seconds to minutes, nobody is waiting for the next second). Each kind has its own lane, its own
workers, so a board picture never queues behind a replay; a heavy lane's workers also run at a lower
OS priority (``LaneSpec.nice``), so on a busy machine the pictures get the CPU first.

A lane hands a worker at most one job at a time: jobs beyond the number of workers wait in the
parent, so a job's limits count its own run, never the jobs queued before it (a picture that waited
behind others is not taken for a stuck worker).

Workers are forked (``START_METHOD``), so they hold every game registered in the parent before
:meth:`Lane.start`; :attr:`Lane.games` names them, and whoever sends a job for another game does it
in the parent instead. Each worker first runs ``bot.worker_processes.die_with_parent`` (it ends with
the bot, however the bot ends), then lowers its priority, then runs the lane's warm-up.

:class:`Lane` (board pictures, computing): a ``ProcessPoolExecutor``. A worker that dies (killed,
out of memory) breaks its pool (``BrokenProcessPool``); a job not back within its timeout means a
stuck worker. Either way the lane is replaced by a fresh one (once per breakage; forking and warming
up in a thread, not on the event loop) and :meth:`Lane.run` raises :class:`WorkerLost`, for the
caller to redo the job elsewhere or to report it: a picture is redone inline at once, so replacing
the whole pool costs nobody a job.

:class:`SlotLane` (heavy work): jobs of minutes cannot be redone that cheaply, so one job's failure
must never end another's. Each worker is a slot of its own (a process and a pipe); a job that fails
replaces only its own slot's worker. Its limits count the work it did, not the time it waited for
the CPU behind board pictures on a busy machine: a job's CPU budget (``cpu`` seconds of its worker's
CPU, all threads, from the job's start) is set as the worker's ``RLIMIT_CPU`` relative to what it has
used so far, so the kernel ends a job that runs past it (``SIGXCPU``) even inside C code, and the job
fails with :class:`OverBudget`; the wall-clock bound stays, generous, only for a truly stuck worker
(one that uses no CPU at all). A job may report its progress (:func:`report_progress`): the worker
sends it over the pipe, at most every ``PROGRESS_EVERY`` seconds, and the parent calls the job's
``progress(done, total)`` on its event loop. A job whose caller is cancelled has its worker killed
(and replaced): nothing is left running for nobody.

An exception raised by the job itself propagates as it would in the parent. Closing a lane gives
jobs in flight ``LaneSpec.stop_grace`` seconds in all, or less when ``close`` says so (0: killed at
once, for work that is redone at the next start), and then kills the workers, so neither a job nor
``close()`` can hang.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import math
import multiprocessing
import os
import resource
import signal
import threading
import time
from collections import deque
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

#: Seconds between two progress reports a slot's worker sends at most (``report_progress``).
PROGRESS_EVERY = 0.25


class HeavyWorkFailed(Exception):
    """A heavy job could not finish: its worker died, was stuck, or the job ran past its CPU budget
    (only its own slot's worker has been replaced)."""


class HeavyWorkOverBudget(HeavyWorkFailed):
    """A heavy job used all the CPU seconds it may: trying it again would only use as many."""


class WorkerLost(Exception):
    """The job's worker died or did not answer in time (the lane, or the job's slot, has been
    replaced), or the lane was closed with the job in flight."""


class OverBudget(WorkerLost):
    """The job used more CPU seconds than it was allowed (its slot's worker has been replaced)."""


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


# -- slots: heavy work, one job per worker, each failing alone ------------------------------------


class _Channel:
    """In a slot's worker: its end of the pipe, and whether the job running wants its progress."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.lock = threading.Lock()  # a job may report from any of its threads
        self.reporting = False
        self.last = 0.0

    def send(self, message: object) -> None:
        with self.lock:
            self.conn.send(message)


_channel: _Channel | None = None
"""In a slot's worker: where :func:`report_progress` sends (None elsewhere)."""


def report_progress(done: int, total: int) -> None:
    """Tell the parent how far the job running in this slot worker is (``done`` of ``total``).

    A no-op outside a slot worker, or when the job's caller did not ask for progress. At most one
    report every ``PROGRESS_EVERY`` seconds crosses (the last one, ``done == total``, always): one
    dropped in between is overtaken by the next."""
    channel = _channel
    if channel is None or not channel.reporting:
        return
    now = time.monotonic()
    if done < total and now - channel.last < PROGRESS_EVERY:
        return
    channel.last = now
    with contextlib.suppress(OSError):
        channel.send(("progress", int(done), int(total)))


def throttled(
    report: Callable[[int, int], None], every: float = PROGRESS_EVERY
) -> Callable[[int, int], None]:
    """``report`` called at most once every ``every`` seconds (always for ``done == total``), as
    :func:`report_progress` does across the pipe: for an analysis in a thread of the bot."""
    last = [float("-inf")]

    def call(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - last[0] < every:
            return
        last[0] = now
        report(done, total)

    return call


def _cpu_used() -> float:
    """CPU seconds this process has used so far (user and system, every thread)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _limit_cpu(budget: float | None) -> None:
    """Let the kernel end this process (``SIGXCPU``) once it has used ``budget`` more CPU seconds
    than now (None: no limit). ``RLIMIT_CPU`` counts whole seconds: the budget is rounded up."""
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = hard
    if budget is not None:
        soft = math.ceil(_cpu_used()) + max(1, math.ceil(budget))
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _slot_main(conn: Any, parent: int, nice: int, warm: Callable[[], None] | None) -> None:
    """A slot's worker: one job at a time from the pipe, its answer sent back, until the pipe closes."""
    global _channel
    die_with_parent(parent)
    signal.signal(signal.SIGXCPU, signal.SIG_DFL)
    with contextlib.suppress(ValueError, OSError):  # an over-budget job ends without a core file
        resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    if nice:
        os.nice(nice)
    if warm is not None:
        warm()
    channel = _channel = _Channel(conn)
    channel.send(("ready", os.getpid()))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            os._exit(0)  # the lane closed the pipe: nothing to clean up
        reply: tuple[str, Any]
        try:
            job, args, budget, wants_progress = message
            channel.reporting, channel.last = wants_progress, 0.0
            _limit_cpu(budget)
            try:
                reply = ("done", job(*args))
            finally:
                _limit_cpu(None)
                channel.reporting = False
        except BaseException as exc:  # the job's own exception, for the caller (SystemExit too)
            reply = ("raised", exc)
        try:
            channel.send(reply)
        except Exception as exc:  # an answer that does not pickle: said as an error instead
            channel.send(("raised", RuntimeError(f"the job's answer could not be sent back: {exc!r}")))


class _Slot:
    """In the parent: one single-worker slot of a :class:`SlotLane` (its process and pipe)."""

    def __init__(self, spec: LaneSpec, index: int) -> None:
        self.spec = spec
        self.index = index
        self.process: Any = None
        self.conn: Any = None
        self.pid: int | None = None
        self.idle = threading.Event()  # set while no job is in the worker
        self.idle.set()
        self.killed: str | None = None  # why the parent killed the worker running the job
        self._lock = threading.Lock()  # a kill and the end of the job it aims at never cross
        self._job = 0  # the number of the job in the worker, while one is

    def begin(self) -> int:
        """Mark a job as in the worker; its number, for ``kill``."""
        with self._lock:
            self._job += 1
            self.idle.clear()
            return self._job

    def end(self) -> None:
        with self._lock:
            self.idle.set()

    def spawn(self) -> None:
        """Fork a fresh worker and wait until it is ready (blocking)."""
        context: Any = multiprocessing.get_context(START_METHOD)
        mine, theirs = context.Pipe()
        process = context.Process(
            target=_slot_main,
            args=(theirs, os.getpid(), self.spec.nice, self.spec.warm),
            name=f"ringside-{self.spec.name}-{self.index}",
            daemon=True,
        )
        process.start()
        theirs.close()
        try:
            if not mine.poll(START_TIMEOUT):
                raise TimeoutError(f"a {self.spec.name} worker was not ready after {START_TIMEOUT:g} s")
            _ready, pid = mine.recv()
        except BaseException:
            process.kill()
            process.join(STOP_GRACE)
            mine.close()
            raise
        self.process, self.conn, self.pid, self.killed = process, mine, pid, None

    def alive(self) -> bool:
        return self.process is not None and self.process.is_alive()

    def kill(self, why: str, job: int | None = None) -> None:
        """End the worker now (the thread serving its job then sees the pipe close); with ``job``,
        only while that job is still in it (not the next one, given the slot meanwhile)."""
        with self._lock:
            if job is not None and (job != self._job or self.idle.is_set()):
                return
            process = self.process
            if process is not None and process.is_alive():
                self.killed = self.killed or why
                with contextlib.suppress(OSError):
                    process.kill()

    def stop(self) -> None:
        """Kill the worker if it still runs, and reap it."""
        process = self.process
        if process is None:
            return
        self.kill("the lane closed")
        process.join(STOP_GRACE)
        with contextlib.suppress(OSError):
            self.conn.close()

    def serve(
        self, job: Callable[..., Any], args: tuple[Any, ...], cpu: float | None, report: Any
    ) -> tuple[str, Any]:
        """Run one job in the worker (blocking, in a thread of the parent): ``("done", result)``,
        ``("raised", exception)``, or ``("lost", WorkerLost)`` when the worker ended with it."""
        try:
            return self._serve(job, args, cpu, report)
        finally:
            self.end()

    def _serve(
        self, job: Callable[..., Any], args: tuple[Any, ...], cpu: float | None, report: Any
    ) -> tuple[str, Any]:
        try:
            self.conn.send((job, args, cpu, report is not None))
        except (OSError, EOFError):
            return "lost", self._lost()
        except Exception as exc:  # the job or its arguments do not pickle: nothing was sent
            return "raised", exc
        while True:
            try:
                message = self.conn.recv()
            except (OSError, EOFError):
                return "lost", self._lost()
            except Exception as exc:  # an answer that does not unpickle here
                return "raised", exc
            if message[0] == "progress":
                if report is not None:
                    report(message[1], message[2])
                continue
            kind, value = message
            return kind, value

    def _lost(self) -> WorkerLost:
        """Why the worker ended with a job in it (reaping it)."""
        self.process.join(STOP_GRACE)
        code = self.process.exitcode
        name = self.spec.name
        if self.killed is not None:
            return WorkerLost(f"the {name} job was stopped: {self.killed}")
        if code == -signal.SIGXCPU:
            return OverBudget(f"a {name} job ran past its CPU budget and was stopped")
        if code == -signal.SIGKILL:
            return WorkerLost(f"a {name} worker was killed (out of memory?) with the job in it")
        return WorkerLost(f"a {name} worker died (exit code {code}) with the job in it")


class SlotLane:
    """Heavy work in independent single-worker slots: one job's failure never ends another's (see
    the module docstring). The same surface as :class:`Lane`, and :meth:`run` takes a CPU budget and
    a progress listener besides the wall-clock bound."""

    def __init__(self, spec: LaneSpec) -> None:
        if spec.workers < 0:
            raise ValueError("workers must be >= 0")
        self.spec = spec
        self.games: frozenset[str] = frozenset()
        self._slots = [_Slot(spec, n) for n in range(spec.workers)]
        self._lock = threading.Lock()
        self._free: list[_Slot] = []
        self._waiters: deque[asyncio.Future[_Slot]] = deque()
        self._live = 0  # slots with a worker, or getting a fresh one
        self._started = False
        self._closed = False
        #: how many times a slot's worker was replaced (it died, ran over its budget, hung, or its
        #: job was cancelled)
        self.restarts = 0
        self._pending = 0

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def workers(self) -> int:
        return self.spec.workers

    @property
    def waiting(self) -> int:
        """Jobs waiting for a free slot."""
        return max(0, self._pending - max(1, self.spec.workers))

    @property
    def available(self) -> bool:
        """Whether jobs go to worker processes now (started, not closed, with a worker left)."""
        return self._started and not self._closed and self._live > 0

    def knows(self, game: str) -> bool:
        """Whether the lane's workers can take a job about ``game``."""
        return self.available and game in self.games

    def pids(self) -> list[int]:
        """The worker processes' ids (empty without workers)."""
        if not self._started or self._closed:
            return []
        return sorted(slot.pid for slot in self._slots if slot.pid is not None and slot.alive())

    def start(self) -> None:
        """Fork every slot's worker and wait until each is ready (blocking, once). Idempotent; a
        no-op for a lane of 0 workers or a closed one."""
        with self._lock:
            if self.spec.workers == 0 or self._closed or self._started:
                return
            self.games = registered_games()
            try:
                for slot in self._slots:
                    slot.spawn()
            except BaseException:
                for slot in self._slots:
                    slot.stop()
                raise
            self._free = list(reversed(self._slots))
            self._live = len(self._slots)
            self._started = True

    def close(self, grace: float | None = None) -> None:
        """Stop the workers: jobs in flight get ``grace`` seconds in all (None: ``LaneSpec.stop_grace``;
        never more than that), then every worker is killed; jobs waiting for a slot get
        ``WorkerLost``. Idempotent; a closed lane stays closed."""
        grace = self.spec.grace if grace is None else min(grace, self.spec.grace)
        with self._lock:
            self._closed = True
            waiters, self._waiters = list(self._waiters), deque()
            self._free = []
        for waiter in waiters:
            self._tell(waiter, None)
        deadline = time.monotonic() + grace
        for slot in self._slots:
            slot.idle.wait(max(0.0, deadline - time.monotonic()))
        for slot in self._slots:
            slot.stop()

    async def run(
        self,
        timeout: float,
        job: Callable[..., T],
        *args: Any,
        cpu: float | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> T:
        """``job(*args)`` in a slot's worker, when one is free. ``OverBudget`` once the job has
        used ``cpu`` CPU seconds (None: no budget); ``WorkerLost`` if its worker died, did not
        answer within ``timeout`` wall seconds of its own run (only that slot's worker is replaced),
        or the lane closed. ``progress(done, total)`` is called on this event loop as the job reports
        it (:func:`report_progress`)."""
        self._pending += 1
        try:
            slot = await self._take()
            return await self._run_in(slot, timeout, job, args, cpu, progress)  # type: ignore[no-any-return]
        finally:
            self._pending -= 1

    async def _run_in(
        self,
        slot: _Slot,
        timeout: float,
        job: Callable[..., Any],
        args: tuple[Any, ...],
        cpu: float | None,
        progress: Callable[[int, int], None] | None,
    ) -> Any:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[str, Any]] = loop.create_future()
        report = None if progress is None else on_loop(loop, progress)
        ticket = slot.begin()

        def serve() -> None:
            try:
                outcome = slot.serve(job, args, cpu, report)
            except BaseException as exc:  # a bug here must still settle the job and free the slot
                outcome = ("lost", WorkerLost(f"the {self.name} job's answer was lost: {exc!r}"))
            with contextlib.suppress(RuntimeError):  # the caller's loop is gone: nobody to tell
                loop.call_soon_threadsafe(_settle, answer, outcome)
            # a worker killed just as it answered is replaced too
            self._after(slot, outcome[0] == "lost" or slot.killed is not None or not slot.alive())

        threading.Thread(target=serve, name=f"ringside-{self.name}-{slot.index}", daemon=True).start()
        try:
            kind, value = await asyncio.wait_for(asyncio.shield(answer), timeout)
        except TimeoutError:
            _log.warning("a %s job did not finish within %g s; replacing its worker", self.name, timeout)
            slot.kill(f"no answer within {timeout:g} s", ticket)
            raise WorkerLost(f"a {self.name} worker hung: no answer within {timeout:g} s") from None
        except asyncio.CancelledError:
            slot.kill("its caller gave up on it", ticket)
            raise
        if kind == "done":
            return value
        if kind == "lost":
            _log.warning("%s", value)
        raise value

    def _after(self, slot: _Slot, lost: bool) -> None:
        """After a job (in its thread): a lost worker replaced, then the slot free again."""
        if lost:
            slot.stop()
            with self._lock:
                if self._closed:
                    return
                self.restarts += 1
            try:
                slot.spawn()
            except Exception:
                _log.exception("could not restart a %s worker; the lane has one slot fewer", self.name)
                with self._lock:
                    self._live -= 1
                    left, waiters = self._live, list(self._waiters)
                    if not left:
                        self._waiters.clear()
                if not left:
                    for waiter in waiters:
                        self._tell(waiter, None)
                return
            with self._lock:
                closed = self._closed
            if closed:
                slot.stop()
                return
        self._give(slot)

    async def _take(self) -> _Slot:
        """A free slot, when there is one (in the order jobs asked)."""
        with self._lock:
            if not self._started or self._closed or not self._live:
                raise WorkerLost(f"the {self.name} lane is closed")
            if self._free:
                return self._free.pop()
            waiter: asyncio.Future[_Slot] = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            with self._lock:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            if waiter.done() and not waiter.cancelled() and waiter.exception() is None:
                self._give(waiter.result())  # handed a slot just as the caller gave up
            raise
        except WorkerLost:
            raise WorkerLost(f"the {self.name} lane closed before the job found a worker") from None

    def _give(self, slot: _Slot) -> None:
        """Hand ``slot`` to the first job waiting for one, else back to the free ones (any thread)."""
        while True:
            with self._lock:
                if self._closed:
                    return
                if not self._waiters:
                    self._free.append(slot)
                    return
                waiter = self._waiters.popleft()
            if self._tell(waiter, slot):
                return

    def _tell(self, waiter: asyncio.Future[_Slot], slot: _Slot | None) -> bool:
        """Settle ``waiter`` on its loop with ``slot`` (None: the lane closed); False if its loop is gone."""

        def hand() -> None:
            if waiter.done():  # its caller gave up meanwhile: the next one gets the slot
                if slot is not None:
                    self._give(slot)
            elif slot is None:
                waiter.set_exception(WorkerLost(f"the {self.name} lane is closed"))
            else:
                waiter.set_result(slot)

        try:
            waiter.get_loop().call_soon_threadsafe(hand)
        except RuntimeError:
            return False
        return True


def _settle(answer: asyncio.Future[tuple[str, Any]], outcome: tuple[str, Any]) -> None:
    if not answer.done():
        answer.set_result(outcome)


def on_loop(
    loop: asyncio.AbstractEventLoop, progress: Callable[[int, int], None]
) -> Callable[[int, int], None]:
    """``progress``, called from any thread, run on ``loop`` (an error in it is logged, not raised)."""

    def call(done: int, total: int) -> None:
        try:
            progress(done, total)
        except Exception:
            _log.exception("a progress listener failed")

    def report(done: int, total: int) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens any more
            loop.call_soon_threadsafe(call, done, total)

    return report
