"""``/replay``: a finished match as an animated GIF, a frame per whole turn (``render.replay``).

A replay is a heavy job (``bot.replays``): the command queues it, within the limits per member, per
server and in all (a refusal is told at once, privately, the limit named), and answers with its place
and estimate; the bot's heavy workers make the GIF from the saved log (``RenderPool.make_replay``), so
nothing of it runs on the event loop and no board picture waits for it. While it is made the reply
says how far it is ("Making the replay… 40 of 212 frames", the job's progress), and the GIF then takes
the place of those words, posted once by the bot (``ReplayPosts``) — after a restart too. Every
failure is told to the asker.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.publishing import Unpostable
from bot.replays import ReplayRefused, frames_text
from bot.session import UserError
from bot.store import MatchRecord
from bot.store.jobs import JobRecord
from cogs.board import record_names
from cogs.publisher import transient
from cogs.replies import reply_privately
from engine import find_variant
from render.replay import GIF_LIMIT

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

RECENT = 25
"""How many of the caller's latest matches ``/replay`` without a number looks through."""
TOKEN_LIFE = 14 * 60.0
"""Seconds an interaction's token serves to edit its reply (Discord: 15 minutes), with a margin."""


class ReplayError(UserError):
    """A replay that cannot be made; the message is for the player."""


class Replay(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self.posts = ReplayPosts(bot)

    async def cog_load(self) -> None:
        self.bot.publishers.replays = self.posts

    async def cog_unload(self) -> None:
        if self.bot.publishers.replays is self.posts:
            self.bot.publishers.replays = None

    @app_commands.command(name="replay", description="Watch a finished match again, as an animation.")
    @app_commands.describe(match="The match number (default: your latest finished match on this server)")
    async def replay(self, interaction: discord.Interaction[Any], match: int | None = None) -> None:
        try:
            record = await self._finished_match(interaction, match)
            size = len(await self.bot.sessions.history.action_log(record.id))
            job_id = await self.bot.replays.queue(
                owner_id=interaction.user.id,
                guild_id=interaction.guild_id,
                channel_id=record.channel_id if interaction.channel_id is None else interaction.channel_id,
                match_id=record.id,
                game=record.game,
                size=size,
                names=await record_names(self.bot, record),
                # Discord says in each interaction how large a file it takes here.
                limit=min(GIF_LIMIT, interaction.filesize_limit),
                reply_token=interaction.token,
            )
        except (ReplayError, ReplayRefused) as exc:
            await reply_privately(interaction, str(exc))
            return
        await interaction.response.defer(thinking=True)
        line = await self.bot.replays.line_of(job_id)
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(content=line)
        # From now on the GIF (or the failure) may take the place of these words.
        await self.bot.analyses.answered(job_id, line)

    async def _finished_match(self, interaction: discord.Interaction[Any], match: int | None) -> MatchRecord:
        history = self.bot.sessions.history
        if match is None:
            for played in await history.recent(interaction.user.id, RECENT):
                if played.status != "active" and played.guild_id == interaction.guild_id:
                    match = played.match_id
                    break
            else:
                raise ReplayError(
                    "You have no finished match on this server to replay. Name one: `/replay match:12`."
                )
        record = await history.match(match) if 0 < match < 1 << 63 else None
        if record is None or record.guild_id != interaction.guild_id:
            raise ReplayError(f"There is no match #{match} on this server.")
        if record.status == "active":
            raise ReplayError(
                f"Match #{match} is still being played: its replay can be made once it has ended."
            )
        return record


class ReplayPosts:
    """The ``ReplayPublisher``: a replay's reply (the interaction's, edited through its token, which
    Discord honours for 15 minutes) says how it goes and then shows the GIF; once the token ran out,
    the GIF is posted in the channel for the asker, named. Failures are told privately where the token
    still serves (the public "thinking…" reply is deleted first), else in the channel to the asker."""

    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    def _reply(self, job: JobRecord) -> discord.Webhook | None:
        """The interaction's webhook while its token is valid (None: it ran out)."""
        if job.reply_token is None or self.bot.application_id is None:
            return None
        if self.bot.clock.now() - job.created_at > TOKEN_LIFE:
            return None
        # The interaction's own webhook, as ``Interaction.followup`` makes it: an application's, which
        # may send private messages, authorised as the bot.
        webhook = discord.Webhook.partial(
            self.bot.application_id, job.reply_token, client=self.bot, bot_token=self.bot.http.token
        )
        webhook.type = discord.WebhookType.application
        return webhook

    async def replay_shown(self, job: JobRecord, line: str) -> None:
        reply = self._reply(job)
        if reply is None:
            return
        try:
            await reply.edit_message("@original", content=line[:2000])  # type: ignore[call-overload]
        except (discord.HTTPException, ValueError) as exc:
            log.info("could not show how the replay of match %s goes: %s", job.replay_of, exc)

    async def replay_ready(self, job: JobRecord, gif: bytes) -> None:
        assert job.replay_of is not None
        record = await self.bot.sessions.history.match(job.replay_of)
        detail = json.loads(job.detail or "{}")
        shown, total = int(detail.get("shown", 0)), int(detail.get("total", 0))
        words = (
            f"every turn ({frames_text(total)})"
            if shown == total
            else f"{shown} of its {frames_text(total)}, whole turns evenly spread (never part of one)"
        )
        first, second = record.players if record is not None else (0, 0)
        title = find_variant(job.game).title
        text = f"Replay of match #{job.replay_of}, {title}: <@{first}> vs <@{second}>, {words}."
        name = f"match-{job.replay_of}.gif"
        reply = self._reply(job)
        if reply is not None:
            try:
                # The GIF takes the place of the words that counted its frames.
                await reply.edit_message(  # type: ignore[call-overload]
                    "@original",
                    content=text,
                    attachments=[discord.File(io.BytesIO(gif), filename=name)],
                    allowed_mentions=discord.AllowedMentions.none(),
                )
                return
            except discord.HTTPException as exc:
                if exc.status not in (401, 404):  # not its token running out: Discord refused it
                    log.warning(
                        "the replay of match %s (%d bytes) was not posted: %s", job.replay_of, len(gif), exc
                    )
                    await self.replay_failed(job, _refused(job.replay_of, len(gif), exc))
                    raise Unpostable(str(exc)) from exc
        channel = self.bot.get_partial_messageable(job.channel_id, guild_id=job.guild_id)
        owner = job.owner_id or 0
        try:
            await channel.send(
                f"<@{owner}> {text}",
                file=discord.File(io.BytesIO(gif), filename=name),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(owner)]),
            )
        except discord.HTTPException as exc:
            if transient(exc):
                raise  # tried again at the next round
            log.warning("the replay of match %s cannot be posted in its channel: %s", job.replay_of, exc)
            await self.replay_failed(job, _refused(job.replay_of, len(gif), exc))
            raise Unpostable(str(exc)) from exc

    async def replay_failed(self, job: JobRecord, reason: str) -> None:
        reply = self._reply(job)
        if reply is not None:
            with contextlib.suppress(discord.HTTPException, ValueError):
                await reply.delete_message("@original")  # type: ignore[arg-type]
            try:
                await reply.send(reason, ephemeral=True)
                return
            except discord.HTTPException as exc:
                log.info("could not tell %s privately about a failed replay: %s", job.owner_id, exc)
        channel = self.bot.get_partial_messageable(job.channel_id, guild_id=job.guild_id)
        owner = job.owner_id or 0
        try:
            await channel.send(
                f"<@{owner}> {reason}"[:2000],
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(owner)]),
            )
        except discord.HTTPException as exc:
            log.warning("could not tell %s about a failed replay: %s", owner, exc)


def _refused(match_id: int, size: int, exc: discord.HTTPException) -> str:
    return (
        f"The replay of match #{match_id} could not be posted: "
        + (
            f"Discord refused its file of {size / 1e6:.1f} MB as too large."
            if exc.status == 413
            else f"Discord refused it ({exc.status})."
        )
        + " Try again later."
    )
