"""``/rollout``: a backgammon decision settled by rolling it out (``bot.rollouts``, issue 36).

Three sources: ``code:`` (a GNU Backgammon ID or an XGID), ``match:`` with ``page:`` (a decision of a
finished match's Review, the play made there rolled out too), or nothing (the current position of the
match being played in this channel). Whether it may be rolled out is the rule of ``bot.rollouts``
(checked by ``bot.rollout_sources``); a refusal, a bad code, a limit is told at once, privately, and
nothing is queued. Else the reply says its place and estimate, then its games played, and the result
takes the place of those words, posted once by the bot (``RolloutPosts``), after a restart too.
"""

from __future__ import annotations

import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.publishing import Unpostable
from bot.rollouts import RolloutRefused, result_text
from bot.rollouts import games as games_of
from bot.store.jobs import JobRecord
from cogs.publisher import transient
from cogs.replies import reply_privately
from engine.ai.rollouts import Rollout as RolloutResult

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

TOKEN_LIFE = 14 * 60.0
"""Seconds an interaction's token serves to edit its reply (Discord: 15 minutes), with a margin."""


class Rollout(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self.posts = RolloutPosts(bot)

    async def cog_load(self) -> None:
        self.bot.publishers.rollouts = self.posts

    async def cog_unload(self) -> None:
        if self.bot.publishers.rollouts is self.posts:
            self.bot.publishers.rollouts = None

    @app_commands.command(name="rollout", description="Settle a backgammon decision by rolling it out.")
    @app_commands.describe(
        code="A GNU Backgammon ID or an XGID (default: the match being played here)",
        match="A finished match's number, with page: a decision of its Review",
        page="The page of that match's /review",
        games="Games per candidate, a multiple of 36 (default and most: the server's setting)",
    )
    async def rollout(
        self,
        interaction: discord.Interaction[Any],
        code: str | None = None,
        match: int | None = None,
        page: int | None = None,
        games: int | None = None,
    ) -> None:
        try:
            position = await self.bot.rollout_sources.position(
                interaction.guild_id, interaction.channel_id, interaction.user.id, code, match, page
            )
            settings = await self.bot.settings.get(interaction.guild_id)
            trials = games_of(games, settings.rollout_trials)
            job_id = await self.bot.rollouts.queue(
                owner_id=interaction.user.id,
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id or 0,
                game=position.game,
                state=position.to_json(),
                keep=position.keep,
                trials=trials,
                candidates=position.candidates(),
                what=position.what,
                match_id=position.match_id,
                reply_token=interaction.token,
            )
        except RolloutRefused as exc:
            await reply_privately(interaction, str(exc))
            return
        await interaction.response.defer(thinking=True)
        line = await self.bot.rollouts.line_of(job_id)
        with contextlib.suppress(discord.HTTPException):
            await interaction.edit_original_response(content=line)
        await self.bot.analyses.answered(job_id, line)


class RolloutPosts:
    """The ``RolloutPublisher``: a rollout's reply (the interaction's, edited through its token while
    Discord honours it) says how it goes and then shows the result; once the token ran out, the result
    is posted in the channel for the asker, named. A failure is told the same way."""

    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    def _reply(self, job: JobRecord) -> discord.Webhook | None:
        if job.reply_token is None or self.bot.application_id is None:
            return None
        if self.bot.clock.now() - job.created_at > TOKEN_LIFE:
            return None
        return discord.Webhook.partial(self.bot.application_id, job.reply_token, client=self.bot)

    async def rollout_shown(self, job: JobRecord, line: str) -> None:
        reply = self._reply(job)
        if reply is None:
            return
        try:
            await reply.edit_message("@original", content=line[:2000])  # type: ignore[call-overload]
        except (discord.HTTPException, ValueError) as exc:
            log.info("could not show how rollout %s goes: %s", job.id, exc)

    async def rollout_ready(self, job: JobRecord, result: bytes) -> None:
        what = str(json.loads(job.detail or "{}").get("what", "a position"))
        text = result_text(RolloutResult.from_json(json.loads(result)), what)
        await self._say(job, text, failed=False)

    async def rollout_failed(self, job: JobRecord, reason: str) -> None:
        await self._say(job, f"The rollout could not be made: {reason}", failed=True)

    async def _say(self, job: JobRecord, text: str, *, failed: bool) -> None:
        reply = self._reply(job)
        if reply is not None:
            try:
                await reply.edit_message(  # type: ignore[call-overload]
                    "@original", content=text[:2000], allowed_mentions=discord.AllowedMentions.none()
                )
                return
            except discord.HTTPException as exc:
                if exc.status not in (401, 404):
                    log.warning("rollout %s was not shown in its reply: %s", job.id, exc)
        owner = job.owner_id or 0
        channel = self.bot.get_partial_messageable(job.channel_id, guild_id=job.guild_id)
        try:
            await channel.send(
                f"<@{owner}> {text}"[:2000],
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(owner)]),
            )
        except discord.HTTPException as exc:
            if transient(exc) and not failed:
                raise  # tried again at the next round
            log.warning("rollout %s cannot be posted in its channel: %s", job.id, exc)
            raise Unpostable(str(exc)) from exc
