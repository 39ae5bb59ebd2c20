"""Analyses of finished matches, computed in the background (``engine.ai.coaches.ANALYSES``).

The publisher requests one when it posts a finished match's result (``request``: a row in the
store, then ``queue``); one worker task computes them one at a time in a heavy worker process
(``RenderPool.analyse``: the evaluator does not release the GIL for all of its work, so in a thread
it held the event loop for up to 90 ms at a time; one analysis at a time leaves the other heavy
worker to replays) and hands each to the registered ``AnalysisPublisher`` (a cog) to post. What is
open (not computed, or not posted) is taken up again at start-up and at each scheduler round
(``resume``), so a restart or a failed post loses nothing. A stopping bot (``stop``, at SIGTERM)
does not wait for analyses, which take minutes: the one running stops at its next decision (in a
worker or in a thread: ``AnalysisStopped``) and none starts; a match's is computed again at the next
start, and an imported file's asker is told that the bot is restarting and to send the file again
(nothing of it is kept until it is analysed). A worker lost during an analysis (killed, or over its
time) is replaced and the analysis tried once more; lost again, it is marked failed and the result
message says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bot.clock import Clock
from bot.publishing import Publishers, Unpostable
from bot.store import ImportedRecord, Store
from bot.store.analyses import DONE, PENDING, AnalysisRecord
from bot.store.imports import pack
from bot.work_claims import ANALYSIS_LEASE, WorkClaims
from bot.worker_lanes import HeavyWorkFailed
from engine import VARIANTS, GameError
from engine.ai.coaches import ANALYSES
from engine.ai.coaching import Analysis, AnalysisStopped, StopCheck, analysis_from_json, analysis_to_json
from engine.protocol import ImportedMatch

log = logging.getLogger(__name__)


class Analyser(Protocol):
    """Where an analysis is computed: the bot's heavy worker lane (``app.render_pool.RenderPool``)."""

    async def analyse(
        self, game: str, options: Mapping[str, Any] | None, log: Sequence[str], should_stop: StopCheck
    ) -> Analysis: ...


class InThread:
    """An ``Analyser`` without worker processes: a thread, stopped by ``should_stop``."""

    async def analyse(
        self, game: str, options: Mapping[str, Any] | None, log: Sequence[str], should_stop: StopCheck
    ) -> Analysis:
        return await asyncio.to_thread(ANALYSES[game], options, list(log), should_stop, None)


class Analyses:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        publishers: Callable[[], Publishers],
        workers: Analyser | None = None,
        claims: WorkClaims | None = None,
    ) -> None:
        """``publishers``: where the registered publishers are found (read at each use); ``workers``:
        where analyses are computed (None: in a thread of this process); ``claims``: how an analysis
        is claimed, so that of several processes on one database one computes and posts it."""
        self.store = store
        self.clock = clock
        self.claims = claims or WorkClaims(store, clock)
        self._publishers = publishers
        self._workers = workers or InThread()
        self._queue: asyncio.Queue[int] = asyncio.Queue()
        self._queued: set[int] = set()
        self._stop = threading.Event()
        self._worker: asyncio.Task[None] | None = None
        #: one analysis at a time, a finished match's or an imported one's (the heavy lane is shared)
        self._one_at_a_time = asyncio.Lock()
        #: analyses handed to the publisher since start (tests wait on it)
        self.finished: asyncio.Event = asyncio.Event()

    @staticmethod
    def supports(game: str) -> bool:
        """Whether finished matches of ``game`` get an analysis."""
        return game in ANALYSES

    async def request(self, match_id: int, game: str) -> AnalysisRecord | None:
        """The match's analysis record, requested now if need be (None: its game has no analysis)."""
        if not self.supports(game):
            return None
        return await self.store.analyses.request(match_id, self.clock.now())

    def queue(self, match_id: int) -> None:
        """Compute (or post) the match's analysis soon, unless it is already waiting."""
        if match_id not in self._queued:
            self._queued.add(match_id)
            self._queue.put_nowait(match_id)

    async def resume(self) -> int:
        """Queue every open analysis (start-up, scheduler rounds); returns how many are open."""
        open_ = await self.store.analyses.open()
        for match_id in open_:
            self.queue(match_id)
        return len(open_)

    def start(self) -> None:
        if self._worker is None:
            self._stop.clear()
            self._worker = asyncio.get_running_loop().create_task(self._work(), name="ringside-analyses")

    def stop(self) -> None:
        """The bot is stopping: the analysis running stops at its next decision and no other starts
        (``AnalysisStopped``); what is open is computed at the next start."""
        self._stop.set()

    async def close(self) -> None:
        self._stop.set()
        if self._worker is not None:
            self._worker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._worker
            self._worker = None

    async def _work(self) -> None:
        while not self._stop.is_set():
            match_id = await self._queue.get()
            if self._stop.is_set():
                break  # queued again by ``resume`` at the next start
            try:
                async with self.claims.hold("analysis", match_id, ANALYSIS_LEASE) as mine:
                    if mine:  # else another process is at it
                        await self.run(match_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception(
                    "the analysis of match %s could not be posted; it is tried again later", match_id
                )
            finally:
                self._queued.discard(match_id)

    async def run(self, match_id: int) -> None:
        """Compute the match's analysis if it is pending, then post it if it is not posted yet."""
        record = await self.store.analyses.get(match_id)
        if record is None or record.status not in (PENDING, DONE):
            return
        analysis: Analysis | None
        if record.status == PENDING:
            analysis = await self._compute(match_id)
            if analysis is None:
                return
        else:
            analysis = analysis_from_json(record.analysis)
        publisher = self._publishers().analyses
        if publisher is None:
            return  # posted when a publisher is registered (the next round)
        try:
            message_id = await publisher.analysis_ready(match_id, analysis)
        except Unpostable:
            # Never postable (the channel is gone, a bug): not tried again at every round.
            await self.store.analyses.failed(match_id, self.clock.now())
            return
        await self.store.analyses.posted(match_id, message_id)
        self.finished.set()

    async def _compute(self, match_id: int) -> Analysis | None:
        match = await self.store.matches.get(match_id)
        if match is None or match.game not in ANALYSES or match.status == "active":
            log.warning("match %s has no analysis to compute (missing, active or another game)", match_id)
            await self.store.analyses.failed(match_id, self.clock.now())
            return None
        notations = [a.notation for a in await self.store.matches.action_log(match_id)]
        started = self.clock.now()
        try:
            analysis = await self._analysed(match.game, match.options, notations)
        except AnalysisStopped:
            return None  # the bot is closing: computed again at the next start
        except Exception as exc:
            # A log that does not replay (GameError), engines that disagree, or a bug: marked failed
            # rather than tried again at every round.
            if isinstance(exc, GameError):
                log.warning("match %s cannot be analysed: %s", match_id, exc)
            else:
                log.exception("the analysis of match %s failed", match_id)
            await self.store.analyses.failed(match_id, self.clock.now())
            publisher = self._publishers().analyses
            if publisher is not None:
                await publisher.analysis_failed(match_id)
            return None
        log.info("match %s analysed (%d actions)", match_id, len(notations))
        await self.store.analyses.save(match_id, analysis_to_json(analysis), started)
        return analysis

    async def _analysed(self, game: str, options: Mapping[str, Any] | None, notations: list[str]) -> Analysis:
        """The analysis, tried once more in a fresh worker when the first one was lost;
        ``AnalysisStopped`` at once when the bot is stopping."""
        async with self._one_at_a_time:
            try:
                return await self._analysed_once(game, options, notations)
            except HeavyWorkFailed:
                log.warning("the worker analysing a %s match was lost; trying once more", game)
            return await self._analysed_once(game, options, notations)

    async def _analysed_once(
        self, game: str, options: Mapping[str, Any] | None, notations: list[str]
    ) -> Analysis:
        if self._stop.is_set():
            raise AnalysisStopped("the bot is stopping")
        return await self._workers.analyse(game, options, notations, self._stop.is_set)

    # -- matches played elsewhere ------------------------------------------------------------------

    async def analyse_file(self, game: str, data: bytes, source: FileSource) -> ImportedAnalysis:
        """A match file of another program (``Variant.import_match``), read and analysed as our own
        matches are, in the heavy worker lane, and kept (``ImportStore``) so that its analysis can be
        reviewed; it belongs to no match of ours, so history, ratings and PR never see it.
        ``FileNotAnalysed`` with the reason (the line) when the file cannot be read or replayed, or the
        analysis fails; then nothing is kept."""
        variant = VARIANTS[game]
        if game not in ANALYSES:
            raise FileNotAnalysed(f"{variant.title} has no analysis.")
        try:
            # Replaying a long match takes a moment: off the event loop.
            imported = await asyncio.to_thread(variant.import_match, data)
        except GameError as exc:
            raise FileNotAnalysed(str(exc)) from exc
        log.info("analysing %s (%d actions)", source.file_name, len(imported.log))
        try:
            analysis = await self._analysed(game, imported.options, list(imported.log))
        except AnalysisStopped:
            log.info("the analysis of %s was stopped: the bot is restarting", source.file_name)
            raise FileNotAnalysed(RESTARTED_FILE) from None
        except Exception as exc:
            log.warning("an imported %s match could not be analysed: %s", game, exc)
            raise FileNotAnalysed("The match was read, but its analysis failed.") from exc
        packed_log, packed_analysis = await asyncio.to_thread(
            lambda: (pack(list(imported.log)), pack(analysis_to_json(analysis)))
        )
        import_id = await self.store.imports.add(
            guild_id=source.guild_id,
            channel_id=source.channel_id,
            sender_id=source.sender_id,
            game=game,
            file_name=source.file_name,
            names=imported.names,
            options=imported.options,
            packed_log=packed_log,
            packed_analysis=packed_analysis,
            now=self.clock.now(),
        )
        log.info(
            "%s analysed (%d actions) and kept as imported match %s",
            source.file_name,
            len(imported.log),
            import_id,
        )
        return ImportedAnalysis(import_id, imported, analysis)

    async def imported(self, import_id: int) -> ImportedRecord | None:
        """A match analysed from a file, as kept (None: no such one, or deleted as too old)."""
        return await self.store.imports.get(import_id)

    async def imported_posted(self, import_id: int, message_id: int) -> None:
        await self.store.imports.posted(import_id, message_id)


@dataclass(frozen=True, slots=True)
class FileSource:
    """Where a match file came from: its name, who sent it, and where."""

    file_name: str
    guild_id: int | None
    channel_id: int
    sender_id: int


@dataclass(frozen=True, slots=True)
class ImportedAnalysis:
    """A match file read and analysed: its id in ``ImportStore``, the match and its analysis."""

    id: int
    match: ImportedMatch
    analysis: Analysis


RESTARTED_FILE = (
    "Ringside is restarting, and the analysis was not finished: nothing of it was kept. "
    "Please send the file again in a minute."
)
"""Told privately to whoever sent a match file whose analysis a restart stopped."""


class FileNotAnalysed(Exception):
    """A match file that cannot be analysed; the message (one line) is for the user."""
