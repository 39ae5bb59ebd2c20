"""The bot process: a ``commands.Bot`` holding the store, the session manager and the challenge rules."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from app import interaction_metrics
from app.heartbeat import Heartbeat
from app.render_pool import RenderPool
from app.scheduler import SCHEDULER_MAX_SLEEP, DueWork
from bot.about import AboutBot
from bot.analyses import Analyses
from bot.challenges import Challenges
from bot.clock import Clock, SystemClock
from bot.config import Settings as BotSettings
from bot.housekeeping import Housekeeping
from bot.metrics import Metrics, MetricsServer
from bot.publishing import Publishers
from bot.replays import LANES as REPLAY_LANES
from bot.replays import Replays
from bot.rollout_sources import RolloutSources
from bot.rollouts import Rollouts
from bot.sessions import SessionManager
from bot.settings import ServerSettings
from bot.store import Store, WriteFailed
from bot.store.matches import active_counts
from bot.tournaments import Tournaments
from bot.work_claims import WorkClaims
from cogs.about import About
from cogs.answer_deadline import ANSWER_DEADLINE, answer_in_time
from cogs.challenge import Challenge
from cogs.coach import Coach
from cogs.control_framework import ControlHandlers
from cogs.control_kinds import DYNAMIC_ITEMS
from cogs.help import Help
from cogs.mentions import NOBODY
from cogs.outcomes import note
from cogs.play import Play
from cogs.removed_controls import removed_answer
from cogs.replay import Replay
from cogs.replies import reply_privately
from cogs.review import Review
from cogs.rollout import Rollout
from cogs.settings import Settings
from cogs.stats import Stats
from cogs.tournament import Tournament
from cogs.tutor import Tutoring

log = logging.getLogger(__name__)

COGS: tuple[Callable[[RingsideBot], commands.Cog], ...] = (
    About,
    Challenge,
    Play,
    Help,
    Settings,
    Stats,
    Replay,
    Rollout,
    Coach,
    Review,
    Tournament,
    Tutoring,
)
"""The cogs, added as instances of the classes imported here. Not loaded as extensions: an extension
is executed as a second module object beside the one other modules imported, and a control holding a
class of the first would not recognise a cog of the second."""
DOWNTIME_SLACK = 2 * SCHEDULER_MAX_SLEEP
"""A gap since the last heartbeat up to this long is the scheduler's normal rhythm, not downtime (for
turn clocks: a live clock gets back every second, ``app.heartbeat``)."""
DRAIN_SECONDS = 15.0
"""How long a stopping bot (SIGTERM) takes at most, from the signal to the end of the process: it
finishes what it took on and shows what is saved (``drain``), then closes (``close``). A service
manager should wait longer than this before it kills the process (Docker: ``stop -t 20``)."""
CLOSE_SECONDS = 5.0
"""Of ``DRAIN_SECONDS``, the part kept for closing: the connection to Discord, the worker processes
(``WORKERS_CLOSE_GRACE``, then killed) and the database."""
WORKERS_CLOSE_GRACE = 1.0
"""Seconds the worker processes get to end by themselves when the bot closes, before they are killed
(nothing waits for their work any more: what was taken is finished or given up)."""
RESTARTING = "Ringside is restarting: nothing was done. Please try again in a minute."


class RingsideBot(commands.Bot):
    answer_deadline: float = ANSWER_DEADLINE
    """Seconds after which an interaction its handler has not answered yet is deferred (see
    ``cogs.answer_deadline``), so that Discord never shows "This interaction failed"."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock | None = None,
        rng: random.Random | None = None,
        dev_guild_id: int | None = None,
        run_scheduler: bool = True,
        render_workers: int | None = None,
        metrics_address: tuple[str, int] | None = None,
        heavy_jobs: int = 1,
        **discord_options: Any,
    ) -> None:
        """``render_workers``: processes that draw the board pictures, and as many that compute the
        computer's moves and hints (None: one per core; 0: no worker processes: pictures drawn on the
        event loop, the rest in threads, for tests and the sandbox). See ``app.render_pool``.
        ``metrics_address``: (host, port) to serve ``/metrics`` on (``bot.metrics``); None: no port
        is opened (the metrics are still counted, unseen). ``heavy_jobs``: analyses run at once in
        this process (0: none, ``python -m bot worker`` processes run them; PostgreSQL only)."""
        # No privileged intent is needed. A message notifies only whom it names (``cogs.mentions``).
        discord_options.setdefault("allowed_mentions", NOBODY)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            help_command=None,
            **discord_options,
        )
        self.store = store
        self.clock: Clock = clock or SystemClock()
        self.settings = ServerSettings(store)
        self.sessions = SessionManager(store, self.clock, rng=rng, settings=self.settings)
        self.challenges = Challenges(store, self.clock, self.settings)
        self.tournaments = Tournaments(store, self.clock, self.settings, self.sessions, self.challenges)
        self.housekeeping = Housekeeping(store, self.clock)
        self.publishers = Publishers()
        self.controls = ControlHandlers()
        self.metrics = Metrics()
        self.metrics.on_scrape(self._count_active_matches)
        self.metrics_address = metrics_address
        self.metrics_server: MetricsServer | None = None
        self.render_pool = RenderPool(render_workers, metrics=self.metrics)
        self.claims = WorkClaims(store, self.clock)
        self.about = AboutBot(store, self.clock)
        self.analyses, self.replays, self.rollouts = self._heavy_services(store, heavy_jobs)
        self.rollout_sources = RolloutSources(store, self.sessions)
        # The computer thinks in a compute worker (with no workers, in a thread); so do the coach's
        # auto-roll judge and the tutor's check.
        pool = self.render_pool
        self.sessions.think, self.sessions.judge, self.sessions.tutor.check = (
            pool.computer_move, pool.double_not_sensible, pool.tutor_check
        )  # fmt: skip
        self.dev_guild_id = dev_guild_id
        self.run_scheduler = run_scheduler
        self._scheduler: asyncio.Task[None] | None = None
        #: what the scheduler does in each of its rounds
        self.due_work = DueWork(self)
        #: when the bot last surely ran, and what its downtime does to the clocks
        self.heartbeat = Heartbeat(store.deadlines, self.clock, self.metrics, DOWNTIME_SLACK)
        #: True once the bot is stopping: new interactions are answered that it is restarting
        self.draining = False
        self._taken: set[asyncio.Task[Any]] = set()
        self._hurry = asyncio.Event()
        self._arrived: list[discord.Interaction[Any]] = []

    def _heavy_services(self, store: Store, heavy_jobs: int) -> tuple[Analyses, Replays, Rollouts]:
        """The services of the heavy jobs: they run here (``heavy_jobs`` at once) and, on PostgreSQL,
        in ``python -m bot worker`` processes too, to which pgqueuer hands them (bot.jobs.pgqueue).
        Replays and rollouts are jobs of the same queue, with lanes of their own in this process
        (bot.replays, bot.rollouts)."""
        dispatch = None
        if store.connection.backend == "postgresql":
            from bot.jobs.pgqueue import PgDispatch

            dispatch = PgDispatch(str(getattr(store.connection, "url")))  # noqa: B009
        analyses = Analyses(
            store,
            self.clock,
            lambda: self.publishers,
            self.render_pool,
            self.claims,
            lanes=heavy_jobs,
            dispatch=dispatch,
            replayer=self.render_pool,
            replay_lanes=REPLAY_LANES,
            roller=self.render_pool,
        )
        replays = Replays(store, self.clock, wake=analyses.queued, places=analyses.showing.places)
        rollouts = Rollouts(store, self.clock, wake=analyses.queued, places=analyses.showing.places)
        return analyses, replays, rollouts

    def dispatch(self, event_name: str, /, *args: Any, **kwargs: Any) -> None:
        # discord.py dispatches "interaction" after scheduling the handlers' tasks but before any has
        # run: the deadline is in place before a handler can answer.
        if event_name == "interaction" and args and isinstance(args[0], discord.Interaction):
            answer_in_time(args[0], self.answer_deadline)
            self._arrived.append(args[0])  # for ``take``, which counts it when it is handled
            # A click on a control its message no longer carries, which discord.py leaves unanswered.
            removed = removed_answer(args[0])
            if removed is not None:
                asyncio.get_running_loop().create_task(removed, name="ringside-removed-control")
        super().dispatch(event_name, *args, **kwargs)

    async def on_error(self, event_method: str, /, *args: Any, **kwargs: Any) -> None:
        self.metrics.error("event")
        await super().on_error(event_method, *args, **kwargs)

    async def _count_active_matches(self) -> None:
        self.metrics.set_active_matches(await active_counts(self.store.connection))

    async def _on_command_error(
        self, interaction: discord.Interaction[discord.Client], error: app_commands.AppCommandError
    ) -> None:
        """A command whose write the database refused (locked, disk full) says so privately."""
        original = getattr(error, "original", error)
        note(interaction, "error")  # counted when its handling is over (app.interaction_metrics)
        if isinstance(original, WriteFailed):
            log.warning(
                "a write failed for /%s: %r",
                interaction.command and interaction.command.name,
                original.__cause__,
            )
            await reply_privately(interaction, str(original))
            return
        log.error("Ignoring exception in command %r", interaction.command, exc_info=error)

    async def setup_hook(self) -> None:
        assert self.user is not None
        if self.metrics_address is not None:
            self.metrics_server = MetricsServer(self.metrics)
            await self.metrics_server.start(*self.metrics_address)
        # Challenging the bot itself plays the computer.
        self.sessions.computer_ids.add(self.user.id)
        self.challenges.computer_ids.add(self.user.id)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        self._take_interactions()
        self.tree.error(self._on_command_error)
        for cog in COGS:
            await self.add_cog(cog(self))
        # After every game and renderer is registered: the workers are forked with them.
        await asyncio.to_thread(self.render_pool.start)
        if self.dev_guild_id is not None:
            guild = discord.Object(id=self.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
        else:
            synced = await self.tree.sync()
        log.info("synced %d slash commands%s", len(synced), " to the dev server" if self.dev_guild_id else "")
        await self.heartbeat.forgive_downtime()
        # Work a crashed or killed process had claimed is taken up now, not a lease later.
        sole = self.store.connection.backend == "sqlite"
        try:
            await self.claims.free_the_dead(sole=sole)
            await self.analyses.free_the_dead(sole=sole)
        except Exception:
            log.exception("the claims of bot processes that are gone could not be given back")
        # Analyses not computed or not posted before a restart are taken up again.
        self.analyses.start()
        await self.analyses.resume()

    async def connected(self) -> None:
        """Connected to Discord (its "connect" event, at READY): the bot takes clicks from now on. The
        first time, the live clocks get back the wait since start-up too (nobody could click
        meanwhile: ``app.heartbeat``), and the scheduler and the heartbeat start."""
        if self.draining or not await self.heartbeat.connected() or not self.run_scheduler:
            return
        self._scheduler = asyncio.create_task(self.due_work.forever(), name="ringside-scheduler")
        self.heartbeat.start()

    on_connect = connected

    def _take_interactions(self) -> None:
        """Every interaction passes here before discord.py hands it to its command or control: the
        tasks that handle it are kept (``drain`` waits for them), and once the bot is stopping it is
        answered at once that the bot is restarting, and nothing else is done."""
        parsers = self._connection.parsers
        handle = parsers["INTERACTION_CREATE"]

        def take(data: Any) -> None:
            before = asyncio.all_tasks()
            self._arrived.clear()
            if self.draining:
                asyncio.get_running_loop().create_task(self._refuse(data), name="ringside-restarting")
            else:
                handle(data)
            tasks = asyncio.all_tasks() - before
            for task in tasks:
                self._taken.add(task)
                task.add_done_callback(self._taken.discard)
            for interaction in self._arrived:
                interaction_metrics.watch(interaction, tasks, self.metrics)
            self._arrived.clear()

        parsers["INTERACTION_CREATE"] = take

    async def _refuse(self, data: Any) -> None:
        interaction: discord.Interaction[RingsideBot] = discord.Interaction(data=data, state=self._connection)
        interaction_metrics.refused(interaction, self.metrics)
        try:
            if interaction.type is discord.InteractionType.autocomplete:
                await interaction.response.autocomplete([])
            else:
                await interaction.response.send_message(RESTARTING, ephemeral=True)
        except discord.HTTPException as exc:
            log.info("could not tell interaction %s that the bot is restarting: %s", interaction.id, exc)

    async def drain(self, grace: float = DRAIN_SECONDS - CLOSE_SECONDS) -> None:
        """Stop taking new work, then finish what was taken: the interactions already being handled,
        and every board that is behind what is saved, for at most ``grace`` seconds (``hurry`` cuts
        it short). Whatever is left is saved and shown at the next start. Heavy jobs (analyses, minutes
        of work) are stopped rather than waited for (``Analyses.stop``): no job is taken any more, and
        the running ones go back to the queue for the next start or another worker (a file's asker is
        told it keeps its place). Call ``close`` after it."""
        if self.draining:
            return
        self.draining = True
        await self.heartbeat.stopped()  # clicks are refused from now on
        log.info("stopping: finishing the %d interactions taken and the boards behind", len(self._taken))
        self.analyses.stop()
        await self._stop_scheduler()
        work = asyncio.create_task(self._finish_taken_work(), name="ringside-drain")
        hurry = asyncio.create_task(self._hurry.wait())
        done, _ = await asyncio.wait({work, hurry}, timeout=grace, return_when=asyncio.FIRST_COMPLETED)
        if work not in done:
            log.warning("stopping before everything taken is finished: the rest is shown at the next start")
        else:
            log.info("stopping: everything taken is finished and shown")
        for task in (work, hurry, *self._taken):
            task.cancel()
        await asyncio.gather(work, hurry, *self._taken, return_exceptions=True)

    def hurry(self) -> None:
        """Cut a running ``drain`` short (a second SIGTERM)."""
        self._hurry.set()

    async def _finish_taken_work(self) -> None:
        while self._taken:
            await asyncio.wait(set(self._taken))
        matches = self.publishers.matches
        if matches is not None:
            shown = await matches.show_behind(everything=True)
            if shown:
                log.info("stopping: %d boards that were behind are shown", shown)

    async def _stop_scheduler(self) -> None:
        await self.heartbeat.stop()
        if self._scheduler is not None:
            self._scheduler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._scheduler
            self._scheduler = None

    async def run_due_tasks(self, *, starting: bool = False) -> None:
        """Do whatever has come due now (``app.scheduler.DueWork``); ``starting``: the first round
        after start-up, which also brings every tournament's announcement up to date."""
        await self.due_work.run(starting=starting)

    async def close(self) -> None:
        await self.analyses.close()
        await self._stop_scheduler()
        await self.heartbeat.stopped()  # downtime counts from here (or from the draining's start)
        await super().close()
        await asyncio.to_thread(self.render_pool.close, WORKERS_CLOSE_GRACE)
        if self.metrics_server is not None:
            await self.metrics_server.close()


class ShardedRingsideBot(RingsideBot, commands.AutoShardedBot):
    """The bot on several of Discord's shards in one process (``SHARD_COUNT``, and ``SHARD_IDS`` when
    other processes run the other shards): discord.py's ``AutoShardedBot``, one gateway connection
    per shard. The store's scope (``bot.store.scope``) keeps the scheduled work to these shards."""


def make_bot(store: Store, settings: BotSettings, **options: Any) -> RingsideBot:
    """The bot for ``settings``: one connection to Discord, or the shards it names (``options``: more
    of ``RingsideBot``'s, e.g. ``metrics_address``)."""
    shards = settings.shards
    options.setdefault("heavy_jobs", settings.heavy_jobs)
    if shards is None:
        return RingsideBot(store, dev_guild_id=settings.dev_guild_id, **options)
    return ShardedRingsideBot(
        store,
        dev_guild_id=settings.dev_guild_id,
        **options,
        shard_count=shards.count,
        shard_ids=None if shards.ids is None else list(shards.ids),
    )
