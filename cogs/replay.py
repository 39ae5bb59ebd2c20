"""``/replay``: a finished match as an animated GIF, a frame per action (``render.replay``)."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.sessions import Session
from bot.store import MatchRecord
from cogs.board import player_names
from cogs.replies import reply_privately
from engine import GameError, find_variant, replay_states
from render.replay import Frame, ReplayTooLarge
from render.theme import Caption

if TYPE_CHECKING:
    from bot.client import RingsideBot

log = logging.getLogger(__name__)

RECENT = 25
"""How many of the caller's latest matches ``/replay`` without a number looks through."""


class ReplayError(Exception):
    """A replay that cannot be made; the message is for the player."""


class Replay(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Watch a finished match again, as an animation.")
    @app_commands.describe(match="The match number (default: your latest finished match on this server)")
    async def replay(self, interaction: discord.Interaction[Any], match: int | None = None) -> None:
        try:
            record = await self._finished_match(interaction, match)
        except ReplayError as exc:
            await reply_privately(interaction, str(exc))
            return
        await interaction.response.defer(thinking=True)
        try:
            frames = await self._frames(record)
            made = await self.bot.render_pool.replay(frames)
        except (ReplayError, ReplayTooLarge) as exc:
            await interaction.followup.send(str(exc), ephemeral=True)
            return
        variant = find_variant(record.game)
        shown = (
            f"every action ({made.total - 1})"
            if made.shown == made.total
            else f"{made.shown} of its {made.total} positions"
        )
        first, second = record.players
        await interaction.followup.send(
            f"Replay of match #{record.id}, {variant.title}: <@{first}> vs <@{second}>, {shown}.",
            file=discord.File(io.BytesIO(made.data), filename=f"match-{record.id}.gif"),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _finished_match(self, interaction: discord.Interaction[Any], match: int | None) -> MatchRecord:
        store = self.bot.store
        if match is None:
            for played in await store.matches.recent(interaction.user.id, RECENT):
                if played.status != "active" and played.guild_id == interaction.guild_id:
                    match = played.match_id
                    break
            else:
                raise ReplayError(
                    "You have no finished match on this server to replay. Name one: `/replay match:12`."
                )
        record = await store.matches.get(match) if 0 < match < 1 << 63 else None
        if record is None or record.guild_id != interaction.guild_id:
            raise ReplayError(f"There is no match #{match} on this server.")
        if record.status == "active":
            raise ReplayError(
                f"Match #{match} is still being played: its replay can be made once it has ended."
            )
        return record

    async def _frames(self, record: MatchRecord) -> list[Frame]:
        """The public board after each action of the match, as its channel saw it."""
        try:
            variant = find_variant(record.game)
            log_ = [a.notation for a in await self.bot.store.matches.action_log(record.id)]
            states = list(replay_states(variant, record.options, log_))
        except GameError as exc:
            log.warning("match %s cannot be replayed: %s", record.id, exc)
            raise ReplayError(f"Match #{record.id}'s saved moves cannot be replayed ({exc}).") from exc
        session = Session(record=record, variant=variant, state=states[-1])
        names = await player_names(self.bot, session)
        outcome = await self.bot.sessions.result_of(record.id)
        last = len(states) - 1
        return [
            Frame(
                view=state.view(None),
                caption=Caption(
                    names=names,
                    ending=outcome if i == last and outcome is not None and state.outcome() is None else None,
                ),
            )
            for i, state in enumerate(states)
        ]
