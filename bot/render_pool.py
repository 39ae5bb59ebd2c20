"""Board pictures drawn off the event loop, in a pool of processes: :class:`RenderPool`.

A board picture takes about 10 ms of pure-Python/Pillow CPU (quantizing, PNG compression, drawing).
Drawn on the event loop, 300 simultaneous clicks queue 3 s of pictures in front of every answer; drawn
in a thread, the GIL keeps them on one core. ``RenderPool`` draws them in worker processes (one per
core by default), so one match's picture never delays another's answer and every core draws.

Use (the cogs own the wiring; this module holds no reference to the bot)::

    pool = RenderPool()              # workers = os.cpu_count(); RenderPool(0): inline, for tests
    pool.start()                     # in setup_hook, AFTER every game/renderer is registered
    png = await pool.png(view, caption)   # instead of render.render_board(view, caption)
    ...
    pool.close()                     # in close(); idempotent

Answer the interaction first (defer, or an update with the cheap part), then ``await pool.png(...)``
and edit the message with the picture.

Start method: ``fork``, chosen explicitly (``mp_context``). The workers are copies of the parent at
the moment they start, so they hold every game and renderer registered at run time in the parent
before :meth:`start` (tests/support.py's ``ringx``, tests/games/duel.py's ``duel``), the fonts already
loaded, and need not re-import anything by name (``spawn``/``forkserver`` would re-import the modules
and lose run-time registrations). The initializer (:func:`_init_worker`) still imports the registries
and draws one start position of every registered game, so the fonts and each renderer's first-use
costs are paid before the first real picture. A game registered in the parent *after* the pool
started is not known to the workers: :meth:`png` draws it inline (it checks the keys the workers were
started with), so it is slower, never wrong. The parent is multi-threaded (aiosqlite, the executor's
manager thread); the workers only draw pictures, never touch those threads' locks, and are forked
once at start (or after a crash), not per picture.

Failure: a worker that dies (killed, out of memory) breaks a ``ProcessPoolExecutor``
(``BrokenProcessPool``). The picture that hit it is drawn inline, the pool is replaced by a fresh one
(once per breakage, however many pictures were in flight; the new workers are forked and warmed in a
thread, not on the event loop) and the user never sees an error. A picture not back within
``PICTURE_TIMEOUT`` seconds (a stuck worker) is handled the same way; stopping a pool kills workers
still busy after ``STOP_GRACE`` seconds, so neither a picture nor ``close()`` can hang.
An exception raised by a renderer itself (a bug in the drawing code) propagates, as it would inline.

Views are engine state/view objects (frozen dataclasses) and :class:`~render.theme.Caption`: they
cross to the workers by pickle (tests/bot/test_render_pool.py checks ring's and duel's).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import threading
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool

from bot.worker_processes import die_with_parent
from engine.protocol import GameView
from render.replay import Frame, ReplayGif, replay_gif
from render.theme import NO_CAPTION, Caption

_log = logging.getLogger(__name__)

#: The start method of the workers (see the module docstring).
START_METHOD = "fork"

#: Seconds a picture may take in a worker before the pool counts as broken (a picture takes ~10 ms;
#: a worker stuck for this long is treated like a dead one: the picture is drawn inline).
PICTURE_TIMEOUT = 10.0

#: Seconds a whole replay (an animated GIF of a match: hundreds of pictures) may take in a worker.
REPLAY_TIMEOUT = 120.0

#: Seconds a closing pool gives pictures in flight before killing the worker still drawing them.
STOP_GRACE = 5.0

#: Seconds the workers may take to start and warm up before :meth:`RenderPool.start` gives up.
START_TIMEOUT = 60.0


def _init_worker() -> None:
    """Run once in every worker as it starts: it ends with the bot (``die_with_parent``), and the
    registries are imported and every game drawn once."""
    import engine
    import render

    die_with_parent()

    for key, renderer in list(render.RENDERERS.items()):
        variant = engine.VARIANTS.get(key)
        if variant is None:
            continue
        try:
            renderer(variant.new_game().view(None), NO_CAPTION)
        except Exception:  # a warm-up that fails only costs the first picture its warm-up
            _log.debug("warm-up picture of %s failed", key, exc_info=True)


def _render(view: GameView, caption: Caption) -> bytes:
    """The worker's job (module-level, so it pickles by reference)."""
    from render import render_board

    return render_board(view, caption)


def _replay(frames: Sequence[Frame]) -> ReplayGif:
    """A worker's job: the animated GIF of a finished match (``render.replay``)."""
    return replay_gif(frames)


def _ping() -> int:
    return os.getpid()


class RenderPool:
    """``render.render_board`` in a pool of worker processes; see the module docstring.

    ``workers``: the number of processes (None: ``os.cpu_count()``; 0: draw inline on the calling
    thread, no processes at all).
    """

    def __init__(self, workers: int | None = None) -> None:
        if workers is None:
            workers = os.cpu_count() or 1
        if workers < 0:
            raise ValueError("workers must be >= 0")
        self.workers = workers
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        #: the game keys the current workers can draw (the renderers registered when they started)
        self._keys: frozenset[str] = frozenset()
        self._lock = threading.Lock()
        self._closed = False
        #: how many times a broken pool was replaced (for logs, tests and benches)
        self.restarts = 0

    @property
    def inline(self) -> bool:
        return self.workers == 0

    @property
    def started(self) -> bool:
        return self._executor is not None

    def start(self) -> None:
        """Create the workers and wait until every one has run its warm-up (blocking, once).

        Call it after every game and renderer is registered. Idempotent; a no-op for ``workers=0``.
        """
        if self.inline or self._closed:
            return
        with self._lock:
            if self._executor is None:
                self._executor = self._new_executor()

    def _new_executor(self) -> concurrent.futures.ProcessPoolExecutor:
        import render

        self._keys = frozenset(render.RENDERERS)
        executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=multiprocessing.get_context(START_METHOD),
            initializer=_init_worker,
        )
        # With "fork" every worker starts at the first submit and runs the initializer before its first
        # job: one ping per worker waits for all of them to be ready.
        pings = [executor.submit(_ping) for _ in range(self.workers)]
        done, late = concurrent.futures.wait(pings, timeout=START_TIMEOUT)
        try:
            if late:
                raise TimeoutError(f"render workers not ready after {START_TIMEOUT:g} s")
            for ping in done:
                ping.result()
        except BaseException:
            _stop(executor)
            raise
        return executor

    def close(self) -> None:
        """Stop the workers (pictures in flight get a few seconds; stuck workers are killed). Idempotent."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            _stop(executor)

    def __enter__(self) -> RenderPool:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def pids(self) -> list[int]:
        """The worker processes' ids (empty inline or before start)."""
        executor = self._executor
        processes = getattr(executor, "_processes", None) or {}
        return sorted(processes)

    async def png(self, view: GameView, caption: Caption = NO_CAPTION) -> bytes:
        """``render.render_board(view, caption)``: PNG bytes, drawn by a worker process.

        Inline (on the calling thread) when ``workers=0``, before :meth:`start`, after :meth:`close`,
        for a game registered after the workers started, and for the picture that met a broken pool.
        """
        executor = self._executor
        if executor is None or view.variant_key not in self._keys:
            return _render(view, caption)
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(
                loop.run_in_executor(executor, _render, view, caption), PICTURE_TIMEOUT
            )
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the caller is being cancelled
            # the pool was stopped or replaced with this picture still queued: draw it here
            return _render(view, caption)
        except (BrokenProcessPool, TimeoutError):
            _log.warning("a render worker died or hung; drawing this picture inline and restarting the pool")
            picture = _render(view, caption)
            # forking and warming the new workers takes a moment: not on the event loop
            await loop.run_in_executor(None, self._replace, executor)
            return picture

    async def replay(self, frames: Sequence[Frame]) -> ReplayGif:
        """``render.replay.replay_gif(frames)`` in a worker process (a few seconds of drawing), or in a
        thread when the pool draws inline or cannot draw this game; a broken or stuck pool is replaced
        as for a picture and the replay is made in a thread instead."""
        executor = self._executor
        if executor is None or any(f.view.variant_key not in self._keys for f in frames[:1]):
            return await asyncio.to_thread(_replay, frames)
        loop = asyncio.get_running_loop()
        try:
            return await asyncio.wait_for(loop.run_in_executor(executor, _replay, frames), REPLAY_TIMEOUT)
        except (BrokenProcessPool, TimeoutError):
            _log.warning("a render worker died or hung during a replay; making it in a thread")
            await loop.run_in_executor(None, self._replace, executor)
            return await asyncio.to_thread(_replay, frames)

    def _replace(self, broken: concurrent.futures.ProcessPoolExecutor) -> None:
        """Replace ``broken`` by a new pool, unless another picture already did (or the pool closed)."""
        with self._lock:
            if self._closed or self._executor is not broken:
                return
            self._executor = None
            self.restarts += 1
        _stop(broken)
        try:
            fresh = self._new_executor()
        except Exception:
            _log.exception("could not restart the render pool; pictures are drawn inline")
            return
        with self._lock:
            if self._closed or self._executor is not None:
                stale = fresh
            else:
                self._executor, stale = fresh, None
        if stale is not None:
            _stop(stale)


def _stop(executor: concurrent.futures.ProcessPoolExecutor) -> None:
    """Shut ``executor`` down: queued pictures cancelled, pictures in flight given ``STOP_GRACE``
    seconds, then any worker still alive (stuck) killed, so closing never hangs."""
    grace = STOP_GRACE
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(grace)
        if process.is_alive():
            process.kill()
            process.join(grace)
