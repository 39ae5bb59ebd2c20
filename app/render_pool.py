"""The bot's worker processes: :class:`RenderPool`, three lanes (``bot.worker_lanes``) that keep
pictures, computing and heavy work off the event loop and out of each other's way.

- ``board``: board pictures (about 10 ms of pure-Python/Pillow CPU each; one worker per core by
  default). Drawn on the event loop, 300 simultaneous clicks would queue 3 s of pictures in front of
  every answer; in a thread, the GIL would keep them on one core.
- ``compute``: the computer's moves, ``/hint``, the auto-roll judge and the tutor's check (bgsage does not release the
  GIL for all its work: in a thread of the bot a hard move held the event loop for up to 90 ms at a time).
- ``heavy``: replays (the frames rebuilt from the saved log and drawn, seconds for a long match),
  analyses (minutes) and their charts, rollouts (minutes, ``ROLLOUT_CPU``); ``HEAVY_WORKERS`` independent single-worker slots
  (``bot.worker_lanes.SlotLane``) at ``HEAVY_NICE``, so the OS schedules board pictures first on a
  busy machine. Each heavy job's limit counts the CPU its worker spent on it (``REPLAY_CPU``,
  ``ANALYSIS_CPU``, ``CHART_CPU``), not the time it waited for the CPU behind pictures; a generous
  wall-clock bound (``*_WALL``) only catches a worker that is stuck. A job over its budget, or whose
  worker died, fails alone: only its own slot's worker is replaced, the jobs beside it go on.

Use (the cogs and services own the wiring; this module holds no reference to the bot)::

    pool = RenderPool()              # workers = os.cpu_count(); RenderPool(0): no processes, for tests
    pool.start()                     # in setup_hook, AFTER every game/renderer is registered
    png = await pool.png(view, caption)   # instead of render.render_board(view, caption)
    ...
    pool.close()                     # in close(); idempotent

With ``workers=0`` (tests, the sandbox), before ``start``, after ``close``, and for a game registered
after the workers were forked, pictures are drawn on the calling thread as before and the other
jobs run in a thread of the bot (``asyncio.to_thread``), exactly the same functions
(``app.worker_jobs``, ``render.replay.replay_match``, ``engine.ai.levels.seeded_move``).

When a worker is lost (``WorkerLost``: it died or hung, or a heavy job ran past its CPU budget; its
lane, or for heavy work its slot, has been replaced): a picture is drawn inline, a computer move, a
hint or a chart is computed in a thread instead, a replay is reported to its asker
(``HeavyWorkFailed``), and an analysis is reported to ``bot.analyses``, which tries once more and then
marks it failed. An analysis in a worker is stopped at its next decision when its caller says so (the
bot is stopping: a flag file the worker looks at between decisions), tells its caller its progress
(``progress(done, total)``, called on the event loop, a few times a second at most), and closing the
pool kills heavy work at once (an analysis is computed again at the next start).

Views and captions cross to the workers by pickle (tests/bot/test_render_pool.py checks ring's and
duel's); a computer move's randomness crosses as a seed drawn by the caller (``computer_move``), a
replay as what is saved of the match (``render.replay.SavedMatch``), never as hundreds of views.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from app import worker_jobs
from bot.jobs.replay_runs import ReplayTooLong
from bot.jobs.rollout_runs import InThreadRoller
from bot.metrics import Metrics
from bot.worker_lanes import (
    HeavyWorkFailed,
    HeavyWorkOverBudget,
    Lane,
    LaneSpec,
    OverBudget,
    SlotLane,
    WorkerLost,
    on_loop,
    throttled,
)
from engine.ai.coaches import double_not_sensible, tutor_check
from engine.ai.coaching import Analysis, AnalysisStopped, Hint, ProgressReport, StopCheck, TutorNote
from engine.ai.levels import seeded_move
from engine.ai.rollouts import RolloutStopped
from engine.protocol import Action, GameView, Outcome
from render.replay import GIF_LIMIT, ReplayGif, ReplayTooLarge, SavedMatch, read_progress, replay_match
from render.theme import NO_CAPTION, Caption, SeatStyle

_log = logging.getLogger(__name__)

T = TypeVar("T")

#: Seconds a picture may take in a worker before the worker counts as stuck (a picture takes ~10 ms).
PICTURE_TIMEOUT = 10.0

#: Seconds a computer move or a hint may take (a hard backgammon move takes up to a few seconds).
COMPUTE_TIMEOUT = 120.0

#: CPU seconds a replay may use in its heavy worker before it is reported as not made (a
#: 10,000-action match takes about 10 s).
REPLAY_CPU = 120.0

#: Wall seconds after which a replay's worker counts as stuck (however busy the machine, a worker
#: at ``HEAVY_NICE`` gets a share of a core: this is for one that does nothing at all).
REPLAY_WALL = 1800.0

#: Seconds between two looks at a replay's frames drawn (its job's progress).
REPLAY_PROGRESS_POLL = 1.0

#: CPU seconds an analysis may use (a long match's takes minutes).
ANALYSIS_CPU = 3600.0

#: Wall seconds after which an analysis's worker counts as stuck.
ANALYSIS_WALL = 6 * 3600.0

#: Seconds between two looks at whether an analysis running in a worker should stop.
STOP_POLL = 0.25

#: CPU seconds a rollout may use (5,184 games, the most a server allows, of 5 candidates take some
#: 45 min of a core at 0.1 s a game), and wall seconds after which its worker counts as stuck.
ROLLOUT_CPU = 3600.0
ROLLOUT_WALL = 6 * 3600.0

#: CPU seconds an analysis chart may use, and wall seconds after which its worker counts as stuck.
CHART_CPU = 60.0
CHART_WALL = 600.0

#: Heavy workers (slots): replays and charts share them with the analyses.
HEAVY_WORKERS = 2

#: Niceness added to the heavy workers: below the board pictures and the computer's moves.
HEAVY_NICE = 10


class RenderPool:
    """The bot's lanes of worker processes; see the module docstring.

    ``workers``: board-picture processes, and computing ones (None: ``os.cpu_count()``; 0: no
    processes at all). ``heavy_workers``: processes for replays, analyses and charts. ``metrics``:
    where picture times, the picture queue and lost workers are counted (a registry of its own when
    not given).
    """

    def __init__(
        self,
        workers: int | None = None,
        *,
        heavy_workers: int = HEAVY_WORKERS,
        metrics: Metrics | None = None,
    ) -> None:
        if workers is None:
            workers = os.cpu_count() or 1
        if workers < 0 or heavy_workers < 0:
            raise ValueError("workers must be >= 0")
        self.workers = workers
        heavy = heavy_workers if workers else 0
        self.board = Lane(LaneSpec("board", workers, warm=worker_jobs.warm_pictures))
        self.compute = Lane(LaneSpec("compute", workers))
        self.heavy = SlotLane(LaneSpec("heavy", heavy, nice=HEAVY_NICE, stop_grace=0.0))
        self.lanes: tuple[Lane | SlotLane, ...] = (self.board, self.compute, self.heavy)
        self.metrics = metrics or Metrics()
        self.metrics.render_queue.set_function(lambda: self.board.waiting)

    @classmethod
    def heavy_only(cls, heavy_workers: int) -> RenderPool:
        """Heavy slots and nothing else: a ``python -m bot worker`` process draws no board picture
        and plays no move, but runs each analysis as the bot does (its own slot, its CPU budget, at
        ``HEAVY_NICE``; a worker lost fails only its job)."""
        pool = cls(1, heavy_workers=heavy_workers)
        pool.board = Lane(LaneSpec("board", 0))
        pool.compute = Lane(LaneSpec("compute", 0))
        pool.lanes = (pool.board, pool.compute, pool.heavy)
        return pool

    @property
    def inline(self) -> bool:
        return self.workers == 0

    @property
    def started(self) -> bool:
        return self.board.available

    @property
    def restarts(self) -> int:
        """How many times a lane (a heavy slot's worker) was replaced: a worker died, hung, or ran
        past its budget."""
        return sum(lane.restarts for lane in self.lanes)

    def start(self) -> None:
        """Fork every lane's workers and wait until they are ready (blocking, once). Call it after
        every game and renderer is registered. Idempotent; a no-op for ``workers=0``."""
        for lane in self.lanes:
            lane.start()

    def close(self, grace: float | None = None) -> None:
        """Stop every lane, the heavy one first (its work is killed at once); pictures and computing
        in flight get a few seconds (``grace``: at most that for the lanes together), then their
        workers are killed. Idempotent."""
        deadline = None if grace is None else time.monotonic() + grace
        for lane in (self.heavy, self.compute, self.board):
            lane.close(None if deadline is None else max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> RenderPool:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pids(self) -> list[int]:
        """Every worker process's id (empty inline or before start)."""
        return sorted(pid for lane in self.lanes for pid in lane.pids())

    # -- board pictures ---------------------------------------------------------------------------

    async def png(self, view: GameView, caption: Caption = NO_CAPTION) -> bytes:
        """``render.render_board(view, caption)``: PNG bytes, drawn by a board worker (inline when
        there is none for this game, or when the worker was lost)."""
        started = time.perf_counter()
        try:
            if not self.board.knows(view.variant_key):
                return worker_jobs.draw_board(view, caption)
            try:
                return await self.board.run(PICTURE_TIMEOUT, worker_jobs.draw_board, view, caption)
            except WorkerLost:
                self.metrics.error("worker")
                return worker_jobs.draw_board(view, caption)
        finally:
            self.metrics.picture.observe(time.perf_counter() - started)

    # -- computing: the computer's moves, hints -----------------------------------------------------

    async def computer_move(self, game: str, level: str | None, view: GameView, seed: int) -> Action:
        """The computer's move (``engine.ai.levels.seeded_move``) in a compute worker, else a thread."""
        move: Action = await self._compute(game, seeded_move, game, level, view, seed)
        return move

    async def hint(self, game: str, view: GameView) -> Hint:
        """The coach's hint (``worker_jobs.hint``) in a compute worker, else a thread."""
        given: Hint = await self._compute(game, worker_jobs.hint, game, view)
        return given

    async def double_not_sensible(self, game: str, view: GameView) -> bool:
        """Whether the coach finds a double clearly wrong (``engine.ai.coaches.double_not_sensible``),
        in a compute worker, else a thread: the ``auto_roll`` preference."""
        clear: bool = await self._compute(game, double_not_sensible, game, view)
        return clear

    async def tutor_check(self, game: str, view: GameView, chosen: Sequence[str]) -> TutorNote | None:
        """The tutor's warning for a decision about to be final (``engine.ai.coaches.tutor_check``),
        in a compute worker, else a thread."""
        note: TutorNote | None = await self._compute(game, tutor_check, game, view, tuple(chosen))
        return note

    async def _compute(self, game: str, job: Any, *args: Any) -> Any:
        if self.compute.knows(game):
            try:
                return await self.compute.run(COMPUTE_TIMEOUT, job, *args)
            except WorkerLost:
                self.metrics.error("worker")
                _log.warning("a compute worker was lost; computing in a thread instead")
        return await asyncio.to_thread(job, *args)

    # -- heavy work: replays, analyses, charts -------------------------------------------------------

    async def replay(
        self, match: SavedMatch, limit: int = GIF_LIMIT, progress: str | None = None
    ) -> ReplayGif:
        """A finished match's replay GIF (at most ``limit`` bytes), made from its saved log in a
        heavy worker (a thread without one), noting the frames drawn in the file ``progress``
        (``render.replay.write_progress``); ``HeavyWorkFailed`` when the worker died or was stuck for
        ``REPLAY_WALL``, ``HeavyWorkOverBudget`` (one) when it used over ``REPLAY_CPU`` CPU seconds."""
        if not self.heavy.knows(match.game):
            return await asyncio.to_thread(replay_match, match, limit, progress)
        try:
            return await self.heavy.run(REPLAY_WALL, replay_match, match, limit, progress, cpu=REPLAY_CPU)
        except WorkerLost as exc:
            raise _failed(exc) from exc

    async def make_replay(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        names: tuple[str, str],
        ending: Outcome | None,
        limit: int,
        progress: ProgressReport,
    ) -> ReplayGif:
        """A replay job's GIF (``bot.jobs.runner.Replayer``): ``replay`` in a heavy worker, its frames
        drawn told to ``progress`` every ``REPLAY_PROGRESS_POLL`` seconds (read from the file the worker
        notes them in); ``ReplayTooLong`` when even its fewest, smallest frames are over ``limit``."""
        saved = SavedMatch(game=game, options=options, log=tuple(log), names=names, ending=ending)
        handle, noted_at = tempfile.mkstemp(prefix="ringside-replay-", suffix=".progress")
        os.close(handle)
        os.unlink(noted_at)  # the worker makes it at its first note; until then there is no count
        making = asyncio.ensure_future(self.replay(saved, min(limit or GIF_LIMIT, GIF_LIMIT), noted_at))
        try:
            while not making.done():
                await asyncio.wait({making}, timeout=REPLAY_PROGRESS_POLL)
                noted = read_progress(noted_at)
                if noted is not None:
                    progress(*noted)
            return making.result()
        except ReplayTooLarge as exc:
            raise ReplayTooLong(str(exc)) from exc
        finally:
            making.cancel()
            for path in (noted_at, f"{noted_at}.part"):
                with contextlib.suppress(OSError):
                    os.unlink(path)

    async def chart(
        self, games: Sequence[Sequence[float]], seat: int, name: str, styles: tuple[SeatStyle, SeatStyle]
    ) -> bytes:
        """An analysis's chart in a heavy worker (a thread without one, or when it was lost)."""
        args = ([list(g) for g in games], seat, name, styles)
        if self.heavy.available:
            try:
                return await self.heavy.run(CHART_WALL, worker_jobs.draw_chart, *args, cpu=CHART_CPU)
            except WorkerLost:
                self.metrics.error("worker")
                _log.warning("a heavy worker was lost drawing a chart; drawing it in a thread")
        return await asyncio.to_thread(worker_jobs.draw_chart, *args)

    async def analyse(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        should_stop: StopCheck,
        progress: ProgressReport | None = None,
    ) -> Analysis:
        """A finished match's analysis in a heavy worker (a thread without one). ``should_stop`` is
        asked every ``STOP_POLL`` seconds: once it says so, the worker stops at its next decision
        (``worker_jobs.analyse_until``: a flag file) and ``AnalysisStopped`` is raised, as it is when
        the worker is lost with ``should_stop()`` true (the bot is closing); ``HeavyWorkFailed`` when
        the worker died or was stuck for ``ANALYSIS_WALL``, ``HeavyWorkOverBudget`` (one) when the
        analysis used over ``ANALYSIS_CPU`` CPU seconds (worth no second try).
        ``progress(done, total)`` is called on this event loop as the analysis goes (at most every
        ``bot.worker_lanes.PROGRESS_EVERY`` seconds, and once at the end)."""
        if not self.heavy.knows(game):
            report = None
            if progress is not None:
                report = throttled(on_loop(asyncio.get_running_loop(), progress))
            return await asyncio.to_thread(worker_jobs.analyse, game, options, list(log), should_stop, report)
        flag = stop_flag_path()
        job = asyncio.ensure_future(
            self.heavy.run(
                ANALYSIS_WALL,
                worker_jobs.analyse_until,
                game,
                options,
                list(log),
                flag,
                cpu=ANALYSIS_CPU,
                progress=progress,
            )
        )
        try:
            while not job.done():
                await asyncio.wait({job}, timeout=STOP_POLL)
                if should_stop() and not job.done():
                    raise_stop_flag(flag)
            return job.result()
        except WorkerLost as exc:
            if should_stop():
                raise AnalysisStopped("the bot is closing") from exc
            raise _failed(exc) from exc
        finally:
            if not job.done():  # the caller is cancelled: so is the job (its worker is killed)
                job.cancel()
            with contextlib.suppress(OSError):
                os.unlink(flag)

    async def roll_out(
        self,
        game: str,
        state: Mapping[str, Any],
        keep: str | None,
        trials: int,
        seed: int,
        should_stop: StopCheck,
        progress: ProgressReport,
    ) -> dict[str, Any]:
        """A rollout job's result (``bot.jobs.rollout_runs.Roller``) in a heavy worker (a thread
        without one), its own CPU budget (``ROLLOUT_CPU``); stopped between two batches of games once
        ``should_stop`` says so (a flag file, as an analysis), ``RolloutStopped`` then."""
        if not self.heavy.knows(game):
            return await InThreadRoller().roll_out(game, state, keep, trials, seed, should_stop, progress)
        flag = stop_flag_path()
        job = asyncio.ensure_future(
            self.heavy.run(
                ROLLOUT_WALL,
                worker_jobs.roll_out_until,
                game,
                dict(state),
                keep,
                trials,
                seed,
                flag,
                cpu=ROLLOUT_CPU,
                progress=progress,
            )
        )
        try:
            while not job.done():
                await asyncio.wait({job}, timeout=STOP_POLL)
                if should_stop() and not job.done():
                    raise_stop_flag(flag)
            found: dict[str, Any] = job.result()
            return found
        except WorkerLost as exc:
            if should_stop():
                raise RolloutStopped("the bot is closing") from exc
            raise _failed(exc) from exc
        finally:
            if not job.done():
                job.cancel()
            with contextlib.suppress(OSError):
                os.unlink(flag)


def _failed(lost: WorkerLost) -> HeavyWorkFailed:
    """What the asker of a heavy job is told when it could not finish."""
    return HeavyWorkOverBudget(str(lost)) if isinstance(lost, OverBudget) else HeavyWorkFailed(str(lost))


def stop_flag_path() -> str:
    """A fresh path for the flag file that stops one analysis in a worker (not created yet)."""
    handle, path = tempfile.mkstemp(prefix="ringside-analysis-", suffix=".stop")
    os.close(handle)
    os.unlink(path)
    return path


def raise_stop_flag(path: str) -> None:
    with contextlib.suppress(OSError):
        Path(path).touch()
