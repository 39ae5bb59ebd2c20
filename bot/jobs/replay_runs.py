"""The replay part of ``bot.jobs.runner.JobRunner`` (``ReplayRuns``): a replay job's GIF made from
the match's saved log through a ``Replayer`` (the bot's heavy worker lane, ``app.render_pool``, or a
thread of ``python -m bot worker``) and kept with the job's end, so that the bot posts it
(``bot.replays``). A replay has no decisions to stop at: once the runner stops, one being made is
abandoned and goes back to the queue. ``RunningJob`` is what the runner knows of each job it runs."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.clock import Clock
from bot.replays import replay_failure
from bot.store import Store
from bot.store.jobs import JobRecord
from bot.worker_lanes import HeavyWorkFailed, HeavyWorkOverBudget
from engine import GameError
from engine.ai.coaching import ProgressReport
from engine.protocol import Outcome

log = logging.getLogger("bot.jobs.runner")

TRIES = 2
"""Times a job is tried when its worker is lost (killed, or over its time) before it is failed."""
STOP_POLL = 0.25
"""Seconds between two looks at whether a replay being made should stop (the bot is stopping)."""


class ReplayTooLong(Exception):
    """A replay whose fewest, smallest frames are still over its file size limit."""


class MadeReplay(Protocol):
    """A replay GIF made (``render.replay.ReplayGif``)."""

    @property
    def data(self) -> bytes: ...
    @property
    def shown(self) -> int: ...
    @property
    def total(self) -> int: ...


class Replayer(Protocol):
    """Where a replay is made: the bot's heavy worker lane (``app.render_pool.RenderPool``)."""

    async def make_replay(
        self,
        game: str,
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        names: tuple[str, str],
        ending: Outcome | None,
        limit: int,
        progress: ProgressReport,
    ) -> MadeReplay: ...


@dataclass(slots=True)
class RunningJob:
    """A job a lane of ``JobRunner`` is running (``JobRunner.running``), shared by the runner and its
    replay part: the progress last reported (``done`` of ``total``), written to the database with each
    renewal of the lease, and ``lost``, set once the lease is found held by another process (the job's
    end is then not saved here)."""

    job: JobRecord
    done: int = 0
    total: int = 0
    lost: bool = False


class ReplayRuns:
    """``JobRunner``'s replays (a mixin: the runner holds the store, the lease and the end)."""

    store: Store
    clock: Clock
    owner: str
    replayer: Replayer | None
    _stop: threading.Event
    _wake: asyncio.Event

    async def _fail(self, job: JobRecord, reason: str) -> None:
        raise NotImplementedError

    def _ended(self, job: JobRecord) -> None:
        raise NotImplementedError

    async def _replay(self, running: RunningJob) -> None:
        """Make a replay's GIF from the match's saved log and keep it with the job's end."""
        job = running.job
        assert job.replay_of is not None
        try:
            match = await self.store.matches.get(job.replay_of)
            if match is None or match.status == "active" or self.replayer is None:
                await self._fail(job, replay_failure(job.replay_of, "gone"))
                return
            notations = [a.notation for a in await self.store.matches.action_log(job.replay_of)]
            found = await self.store.matches.result(job.replay_of)
        except GameError as exc:
            await self._fail(job, replay_failure(job.replay_of, "unreplayable", str(exc)))
            return
        ending = (
            None
            if found is None
            else Outcome(found.winner_seat, found.reason, found.description, found.points, found.length)
        )
        detail = json.loads(job.detail or "{}")
        names = tuple(detail.get("names") or ("", ""))
        limit = int(detail.get("limit") or 0)

        def progress(done: int, total: int) -> None:
            running.done, running.total = done, total

        started = time.monotonic()
        log.info("heavy job %s: replaying match %s (%d actions)", job.id, job.replay_of, len(notations))
        making = asyncio.ensure_future(
            self.replayer.make_replay(
                match.game, match.options, notations, (str(names[0]), str(names[1])), ending, limit, progress
            )
        )
        try:
            # A replay takes seconds and has no decisions to stop at: stopping abandons it here, and
            # it goes back to the queue (made again at the next start), without cancelling the lane.
            while not making.done() and not self._stop.is_set() and not running.lost:
                await asyncio.wait({making}, timeout=STOP_POLL)
            if not making.done():
                making.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await making
                if not running.lost:
                    await self.store.jobs.release(job.id, self.owner, again=False)
                    log.info("heavy job %s stopped: back in the queue", job.id)
                return
            made = making.result()
        except GameError as exc:
            log.warning("match %s cannot be replayed: %s", job.replay_of, exc)
            await self._fail(job, replay_failure(job.replay_of, "unreplayable", str(exc)))
            return
        except ReplayTooLong:
            await self._fail(job, replay_failure(job.replay_of, "too large"))
            return
        except HeavyWorkFailed as exc:
            if job.attempts < TRIES and not isinstance(exc, HeavyWorkOverBudget) and not self._stop.is_set():
                log.warning("heavy job %s lost its worker (%s): tried once more", job.id, exc)
                await self.store.jobs.release(job.id, self.owner)
                self._wake.set()
            elif self._stop.is_set():
                await self.store.jobs.release(job.id, self.owner, again=False)
            else:
                log.warning("the replay of match %s could not be made: %s", job.replay_of, exc)
                await self._fail(job, replay_failure(job.replay_of, "busy"))
            return
        except Exception:
            log.exception("heavy job %s failed", job.id)
            await self._fail(job, replay_failure(job.replay_of, "busy"))
            return
        finally:
            making.cancel()
        if running.lost:
            return
        told = json.dumps({**detail, "shown": made.shown, "total": made.total}, sort_keys=True)
        seconds = time.monotonic() - started
        if await self.store.jobs.finish_replay(job, self.owner, made.data, told, seconds, self.clock.now()):
            log.info("heavy job %s done (replay of match %s, %.1f s)", job.id, job.replay_of, seconds)
            self._ended(job)
