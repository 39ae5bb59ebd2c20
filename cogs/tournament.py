"""``/tournament``: a server's knockout or Swiss event. ``create`` posts the announcement with Join /
Leave / Start; ``show``, ``start``, ``pause``, ``resume``, ``cancel`` and ``result`` (set by hand, with
a reason). What is decided is ``bot.tournaments``'; this cog relays requests and shows what changed
(``cogs.tournament_notices``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.tournaments import FORMATS, Organiser, TournamentProblem, Update
from cogs.control_kinds import TOURNAMENT
from cogs.mentions import NOBODY
from cogs.replies import reply_privately
from cogs.tournament_notices import TournamentNotices, announcement_view
from engine import VARIANTS

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

DEFAULT_ROUND_HOURS = 48.0


def organiser(interaction: discord.Interaction[Any]) -> Organiser:
    member = interaction.user
    roles = [role.id for role in member.roles] if isinstance(member, discord.Member) else []
    return Organiser(member.id, interaction.permissions.manage_guild, roles)


class Tournament(commands.Cog):
    group = app_commands.Group(
        name="tournament", description="Knockout or Swiss tournaments on this server.", guild_only=True
    )

    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self.notices = TournamentNotices(bot)
        self._tasks: set[asyncio.Task[None]] = set()

    async def cog_load(self) -> None:
        self.bot.publishers.tournaments = self
        self.bot.controls.register(TOURNAMENT, self)

    async def cog_unload(self) -> None:
        if self.bot.publishers.tournaments is self:
            self.bot.publishers.tournaments = None
        self.bot.controls.unregister(TOURNAMENT, self)
        for task in list(self._tasks):
            task.cancel()

    # -- commands ------------------------------------------------------------------------------------

    @group.command(
        name="create", description="Open a tournament for sign-up (Manage Server or the organiser role)."
    )
    @app_commands.describe(
        game="The game played",
        format="knockout (lose once and you are out) or swiss (everyone plays every round)",
        name="The tournament's name",
        length="Match length in points, for games played as matches",
        rules="Rule set, for games that have several",
        clock="Backgammon live clock: reserve per player + delay per move, e.g. 2m+12s",
        rounds="Swiss only: how many rounds (default: enough to find a winner)",
        signup_hours="Sign-up closes by itself after this many hours (default: only by Start)",
        round_hours=f"How long each round may last, in hours (default {DEFAULT_ROUND_HOURS:g})",
    )
    @app_commands.choices(
        game=[app_commands.Choice(name=v.title, value=key) for key, v in VARIANTS.items()],
        format=[app_commands.Choice(name=f, value=f) for f in FORMATS],
    )
    async def create(
        self,
        interaction: discord.Interaction[Any],
        game: str,
        format: str,
        name: str,
        length: int | None = None,
        rules: str | None = None,
        clock: str | None = None,
        rounds: app_commands.Range[int, 1, 20] | None = None,
        signup_hours: app_commands.Range[float, 0.05, 720.0] | None = None,
        round_hours: app_commands.Range[float, 0.05, 720.0] = DEFAULT_ROUND_HOURS,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        given = {k: v for k, v in (("length", length), ("rules", rules), ("clock", clock)) if v is not None}
        try:
            record = await self.bot.tournaments.create(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                who=organiser(interaction),
                game=game,
                format=format,
                name=name,
                options=given,
                rounds=rounds,
                signup_hours=signup_hours,
                round_hours=round_hours,
            )
        except TournamentProblem as exc:
            await reply_privately(interaction, str(exc))
            return
        embed, _ = await self.notices.content(record)
        await interaction.response.send_message(
            embed=embed,
            view=announcement_view(record) or discord.utils.MISSING,
            allowed_mentions=NOBODY,
        )
        message = await interaction.original_response()
        await self.bot.tournaments.set_message(record, message.id)

    @group.command(name="show", description="The bracket or standings of this server's tournament.")
    @app_commands.describe(
        tournament="The tournament's number (default: the newest)",
        page="The picture's page (default: the one with you on it, else the first)",
    )
    async def show(
        self,
        interaction: discord.Interaction[Any],
        tournament: int | None = None,
        page: app_commands.Range[int, 1, 100] | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        try:
            record = await self.bot.tournaments.find(interaction.guild_id, tournament)
        except TournamentProblem as exc:
            await reply_privately(interaction, str(exc))
            return
        pages = self.notices.pages(record)
        if page is not None and page > pages:
            await reply_privately(
                interaction, f"The picture of {record.name} has {pages} page{'s' if pages > 1 else ''}."
            )
            return
        await interaction.response.defer()
        embed, picture = await self.notices.content(record, page, interaction.user.id)
        if picture is None:
            await interaction.followup.send(embed=embed, allowed_mentions=NOBODY)
        else:
            await interaction.followup.send(embed=embed, file=picture, allowed_mentions=NOBODY)

    @group.command(name="start", description="Close sign-up and pair the first round (organisers).")
    @app_commands.describe(tournament="The tournament's number (default: the newest)")
    async def start(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        await self._organise(interaction, tournament, "start", "started")

    @group.command(name="pause", description="Pause a running tournament: no new round, its deadline stops.")
    @app_commands.describe(tournament="The tournament's number (default: the newest)")
    async def pause(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        await self._organise(interaction, tournament, "pause", "paused")

    @group.command(name="resume", description="Resume a paused tournament.")
    @app_commands.describe(tournament="The tournament's number (default: the newest)")
    async def resume(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        await self._organise(interaction, tournament, "resume", "resumed")

    @group.command(
        name="cancel",
        description="Call a tournament off (organisers); matches being played go on as ordinary matches.",
    )
    @app_commands.describe(tournament="The tournament's number (default: the newest)")
    async def cancel(self, interaction: discord.Interaction[Any], tournament: int | None = None) -> None:
        await self._organise(interaction, tournament, "cancel", "cancelled")

    @group.command(
        name="result", description="Set a table's result by hand, with the reason shown (organisers)."
    )
    @app_commands.describe(
        round="The round",
        table="The table (the number before the pairing in /tournament show)",
        winner="Who wins the table (leave out: both lose)",
        reason="Why, shown to everyone",
        tournament="The tournament's number (default: the newest)",
    )
    async def result(
        self,
        interaction: discord.Interaction[Any],
        round: app_commands.Range[int, 1, 100],
        table: app_commands.Range[int, 1, 1000],
        reason: str,
        winner: discord.User | None = None,
        tournament: int | None = None,
    ) -> None:
        assert interaction.guild_id is not None
        try:
            record = await self.bot.tournaments.find(interaction.guild_id, tournament)
            await interaction.response.defer(ephemeral=True)
            update = await self.bot.tournaments.set_result(
                record.id, organiser(interaction), round, table, winner.id if winner else None, reason
            )
        except TournamentProblem as exc:
            await reply_privately(interaction, str(exc))
            return
        await interaction.followup.send(f"Round {round}, table {table} is set: {reason}", ephemeral=True)
        await self.notices.show(update)

    async def _organise(
        self, interaction: discord.Interaction[Any], tournament: int | None, op: str, done: str
    ) -> None:
        assert interaction.guild_id is not None
        try:
            record = await self.bot.tournaments.find(interaction.guild_id, tournament)
            await interaction.response.defer(ephemeral=True)
            update: Update = await getattr(self.bot.tournaments, op)(record.id, organiser(interaction))
        except TournamentProblem as exc:
            await reply_privately(interaction, str(exc))
            return
        await interaction.followup.send(f"{record.name} is {done}.", ephemeral=True)
        await self.notices.show(update)

    # -- the announcement's buttons -------------------------------------------------------------------

    async def on_tournament_button(
        self, interaction: discord.Interaction[Any], tournament_id: int, op: str
    ) -> None:
        service = self.bot.tournaments
        try:
            record = await service.get(tournament_id)
            if record.guild_id != interaction.guild_id:
                raise TournamentProblem("This button belongs to another server's tournament.")
            if op == "join":
                name = getattr(interaction.user, "display_name", interaction.user.name)
                update = Update(await service.join(tournament_id, interaction.user.id, name))
                said = f"You are in {record.name}. Good luck!"
            elif op == "leave":
                update = await service.leave(tournament_id, interaction.user.id)
                said = f"You left {record.name}."
            else:
                await interaction.response.defer(ephemeral=True, thinking=True)
                update = await service.start(tournament_id, organiser(interaction))
                said = f"{record.name} has started."
        except TournamentProblem as exc:
            await reply_privately(interaction, str(exc))
            return
        if interaction.response.is_done():
            await interaction.followup.send(said, ephemeral=True)
        else:
            await interaction.response.send_message(said, ephemeral=True)
        await self.notices.show(update)

    # -- what the rest of the bot tells it ------------------------------------------------------------

    async def match_finished(self, match_id: int) -> None:
        # In its own task: the board that finished the match is not held up by the next round.
        self._run(self._taken(match_id), f"tournament-match-{match_id}")

    async def match_placed(self, match_id: int) -> None:
        # In its own task: the board being posted in the thread is not held up by the announcement.
        self._run(self._placed(match_id), f"tournament-placed-{match_id}")

    def _run(self, work: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _placed(self, match_id: int) -> None:
        try:
            tournament_id = await self.bot.tournaments.of_match(match_id)
            if tournament_id is not None:
                await self.notices.match_placed(tournament_id, match_id)
        except Exception:
            # The announcement is drawn again at the tournament's next change.
            log.exception("linking the thread of match %s on its tournament's announcement failed", match_id)

    async def _taken(self, match_id: int) -> None:
        try:
            update = await self.bot.tournaments.rounds.match_ended(match_id)
            if update is not None:
                await self.notices.show(update)
        except Exception:
            # The scheduler takes the result up again (``Tournaments.due``): nothing is lost.
            log.exception("taking the result of match %s into its tournament failed", match_id)

    async def tournaments_due(self, *, starting: bool = False) -> None:
        shown = set()
        for update in await self.bot.tournaments.due():
            await self.notices.show(update)
            shown.add(update.record.id)
        # What a stop may have cut short (between a change saved and its announcement drawn, or its
        # champion announced) is shown as a change is: the announcement, then the champion.
        service = self.bot.tournaments
        for record in await (service.maybe_unshown() if starting else service.unannounced()):
            if record.id not in shown:
                await self.notices.show(Update(record))
