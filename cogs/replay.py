"""``/replay``: a finished match as an animated GIF, a frame per whole turn (``render.replay``).

The GIF is made in a heavy worker process from the saved log (``RenderPool.replay``), so nothing of
it runs on the event loop and no board picture waits for it; how many are made at once is limited
per member, per server and in all (``bot.replays``), and every refusal or failure is told privately.
While it is made the reply says how far it is ("Making the replay… 40 of 212 frames", read from the
file the worker notes its progress in), and the GIF then takes the place of those words.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import tempfile
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.replays import ReplayRefused
from bot.session import UserError
from bot.store import MatchRecord
from bot.worker_lanes import HeavyWorkFailed
from cogs.board import record_names
from cogs.replies import reply_privately
from engine import GameError, find_variant
from render.replay import GIF_LIMIT, ReplayGif, ReplayTooLarge, SavedMatch, read_progress

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

RECENT = 25
"""How many of the caller's latest matches ``/replay`` without a number looks through."""
PROGRESS_SECONDS = 1.5
"""How often the reply's count of frames drawn is brought up to date while the replay is made."""


class ReplayError(UserError):
    """A replay that cannot be made; the message is for the player."""


class Replay(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Watch a finished match again, as an animation.")
    @app_commands.describe(match="The match number (default: your latest finished match on this server)")
    async def replay(self, interaction: discord.Interaction[Any], match: int | None = None) -> None:
        try:
            record = await self._finished_match(interaction, match)
            with self.bot.replays.slot(interaction.user.id, interaction.guild_id):
                await interaction.response.defer(thinking=True)
                await self._make_and_post(interaction, record)
        except (ReplayError, ReplayRefused) as exc:
            await reply_privately(interaction, str(exc))

    async def _make_and_post(self, interaction: discord.Interaction[Any], record: MatchRecord) -> None:
        """Make the replay in a heavy worker (from the saved log) and post it; every failure is told
        to the asker privately."""
        saved = SavedMatch(
            game=record.game,
            options=record.options,
            log=tuple(a.notation for a in await self.bot.sessions.history.action_log(record.id)),
            names=await record_names(self.bot, record),
            ending=await self.bot.sessions.history.result_of(record.id),
        )
        # Discord says in each interaction how large a file it takes here.
        limit = min(GIF_LIMIT, interaction.filesize_limit)
        try:
            made = await self._made_with_progress(interaction, saved, limit)
        except GameError as exc:
            log.warning("match %s cannot be replayed: %s", record.id, exc)
            await _fail(interaction, f"Match #{record.id}'s saved moves cannot be replayed ({exc}).")
            return
        except ReplayTooLarge:
            await _fail(interaction, f"Match #{record.id} is too long for a replay Discord would take.")
            return
        except HeavyWorkFailed as exc:
            log.warning("the replay of match %s could not be made: %s", record.id, exc)
            await _fail(
                interaction,
                f"The replay of match #{record.id} could not be made in time: the bot is busy. "
                "Try again in a few minutes.",
            )
            return
        variant = find_variant(record.game)
        shown = (
            f"every turn ({frames_text(made.total)})"
            if made.shown == made.total
            else f"{made.shown} of its {frames_text(made.total)}, whole turns evenly spread (never part of one)"
        )
        first, second = record.players
        try:
            # The GIF takes the place of the words that counted its frames.
            await interaction.edit_original_response(
                content=f"Replay of match #{record.id}, {variant.title}: <@{first}> vs <@{second}>, {shown}.",
                attachments=[discord.File(io.BytesIO(made.data), filename=f"match-{record.id}.gif")],
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            log.warning(
                "the replay of match %s (%d bytes) was not posted: %s", record.id, len(made.data), exc
            )
            too_large = exc.status == 413
            await _fail(
                interaction,
                f"The replay of match #{record.id} could not be posted: "
                + (
                    f"Discord refused its file of {len(made.data) / 1e6:.1f} MB as too large."
                    if too_large
                    else f"Discord refused it ({exc.status})."
                )
                + " Try again later.",
            )

    async def _made_with_progress(
        self, interaction: discord.Interaction[Any], saved: SavedMatch, limit: int
    ) -> ReplayGif:
        """The replay, made in a heavy worker while the reply counts the frames it has drawn."""
        handle, progress = tempfile.mkstemp(prefix="ringside-replay-", suffix=".progress")
        os.close(handle)
        os.unlink(progress)  # the worker makes it at its first note; until then there is no count
        making = asyncio.ensure_future(self.bot.render_pool.replay(saved, limit, progress))
        said = None
        try:
            with contextlib.suppress(discord.HTTPException):
                await interaction.edit_original_response(content="Making the replay…")
            while not making.done():
                await asyncio.wait({making}, timeout=PROGRESS_SECONDS)
                noted = read_progress(progress)
                if noted is not None and noted != said and not making.done():
                    said = noted
                    with contextlib.suppress(discord.HTTPException):
                        await interaction.edit_original_response(
                            content=f"Making the replay… {noted[0]} of {frames_text(noted[1])}"
                        )
            return making.result()
        finally:
            making.cancel()
            for path in (progress, f"{progress}.part"):
                with contextlib.suppress(OSError):
                    os.unlink(path)

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


def frames_text(n: int) -> str:
    return "1 frame" if n == 1 else f"{n:,} frames"


async def _fail(interaction: discord.Interaction[Any], text: str) -> None:
    """Tell the asker privately: the deferred "thinking…" reply is public, and the first followup
    would take its place publicly, so it is deleted first and the message is a private followup."""
    with contextlib.suppress(discord.HTTPException):
        await interaction.delete_original_response()
    try:
        await interaction.followup.send(text, ephemeral=True)
    except discord.HTTPException as exc:
        log.warning("could not tell %s about a failed replay: %s", interaction.user.id, exc)
