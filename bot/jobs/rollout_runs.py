"""The rollout part of ``bot.jobs.runner.JobRunner`` (``RolloutRuns``): a rollout job's position rolled
out through a ``Roller`` (the bot's heavy worker lane, ``app.render_pool.RenderPool.roll_out``, or a
thread), and its result (``engine.ai.backgammon_rollout.Rollout`` as JSON) kept with the job's end, so
that the bot posts it (``bot.rollouts``). A rollout stops between two batches of games when the runner
stops (``RolloutStopped``): it goes back to the queue and is rolled out again, with the same seed, at
the next start."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any, Protocol

from bot.clock import Clock
from bot.jobs.replay_runs import TRIES, RunningJob
from bot.rollouts import rollout_failure
from bot.store import Store
from bot.store.jobs import JobRecord
from bot.worker_lanes import HeavyWorkFailed, HeavyWorkOverBudget, on_loop, throttled
from engine import GameError
from engine.ai.coaching import ProgressReport, StopCheck
from engine.ai.rollouts import ROLLOUTS, RolloutStopped

log = logging.getLogger("bot.jobs.runner")


class Roller(Protocol):
    """Where a rollout is computed (``app.render_pool.RenderPool``, ``InThreadRoller``)."""

    async def roll_out(
        self,
        game: str,
        state: Mapping[str, Any],
        keep: str | None,
        trials: int,
        seed: int,
        should_stop: StopCheck,
        progress: ProgressReport,
    ) -> dict[str, Any]: ...


class InThreadRoller:
    """A ``Roller`` without worker processes: a thread of the bot, stopped by ``should_stop``;
    ``progress`` is told on the event loop, throttled as from a heavy worker."""

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
        kit = ROLLOUTS.get(game)
        if kit is None:
            raise GameError(f"{game} has no rollouts.")
        report = throttled(on_loop(asyncio.get_running_loop(), progress))
        return await asyncio.to_thread(kit.roll_out, state, keep, trials, seed, report, should_stop)


class RolloutRuns:
    """``JobRunner``'s rollouts (a mixin: the runner holds the store, the lease and the end)."""

    store: Store
    clock: Clock
    owner: str
    roller: Roller | None
    _stop: threading.Event

    async def _fail(self, job: JobRecord, reason: str) -> None:
        raise NotImplementedError

    def _ended(self, job: JobRecord) -> None:
        raise NotImplementedError

    def _wake_lanes(self) -> None:
        raise NotImplementedError

    async def _roll_out(self, running: RunningJob) -> None:
        """Roll a rollout job's position out and keep its result with the job's end."""
        job = running.job
        try:
            detail = json.loads(job.detail or "{}")
            state, trials, seed = detail["state"], int(detail["trials"]), int(detail["seed"])
        except (ValueError, KeyError, TypeError):
            await self._fail(job, rollout_failure("unreadable"))
            return
        if self.roller is None:
            await self._fail(job, rollout_failure("busy"))
            return

        def should_stop() -> bool:
            return self._stop.is_set() or running.lost

        def progress(done: int, total: int) -> None:
            running.done, running.total = done, total

        started = time.monotonic()
        log.info("heavy job %s: rollout (%d games in all, try %d)", job.id, job.size, job.attempts)
        try:
            found = await self.roller.roll_out(
                job.game, state, detail.get("keep"), trials, seed, should_stop, progress
            )
        except RolloutStopped:
            if not running.lost:
                await self.store.jobs.release(job.id, self.owner, again=False)
                log.info("heavy job %s stopped: back in the queue", job.id)
            return
        except GameError as exc:  # the engine refuses the position (said to the asker as it is)
            await self._fail(job, rollout_failure(str(exc)))
            return
        except HeavyWorkFailed as exc:
            if job.attempts < TRIES and not isinstance(exc, HeavyWorkOverBudget) and not self._stop.is_set():
                log.warning("heavy job %s lost its worker (%s): tried once more", job.id, exc)
                await self.store.jobs.release(job.id, self.owner)
                self._wake_lanes()
            elif self._stop.is_set():
                await self.store.jobs.release(job.id, self.owner, again=False)
            else:
                await self._fail(job, rollout_failure("busy"))
            return
        except Exception:
            log.exception("heavy job %s failed", job.id)
            await self._fail(job, rollout_failure("busy"))
            return
        if running.lost:
            return
        seconds = time.monotonic() - started
        data = json.dumps(found, sort_keys=True).encode()
        if await self.store.jobs.finish_rollout(job, self.owner, data, seconds, self.clock.now()):
            log.info("heavy job %s done (rollout, %.1f s)", job.id, seconds)
            self._ended(job)
