"""The analysis of a finished match, posted as a reply to its result message with its chart and a
**Review** button; the result message's line about it then says whether it was posted or could not
be computed (``bot.analyses`` computes it and calls this, its ``AnalysisPublisher``)."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.publishing import Unpostable
from bot.session import Session
from bot.store import MatchRecord
from cogs.analysis_words import analysis_text
from cogs.board import options_text, player_names
from cogs.components import OpenReviewButton, Reviewed
from cogs.publisher import ANALYSIS_FAILED, ANALYSIS_PENDING, ANALYSIS_POSTED, ANALYSIS_UNPOSTABLE, transient
from engine import find_variant
from engine.ai.coaching import Analysis
from render import SEAT_STYLES

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)


class AnalysisPosts:
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    async def analysis_ready(self, match_id: int, analysis: Analysis) -> int | None:
        """Post the analysis as a reply to the match's result message, with the chart; the result
        message's line about it then says so."""
        record = await self.bot.sessions.history.match(match_id)
        if record is None:
            return None
        variant = find_variant(record.game)
        session = Session(record=record, variant=variant, state=None)
        names = await player_names(self.bot, session)
        shown = tuple(name or f"Player {seat + 1}" for seat, name in enumerate(names))
        styles = SEAT_STYLES[record.game]
        # Drawn in a heavy worker process, with the replays and the analyses.
        chart = await self.bot.render_pool.chart(
            analysis.chances,
            0,
            f"{shown[0]} ({variant.seat_names[0]})",
            (styles[0], styles[1]),
        )
        channel = self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
        # A reply to the result message when there is one (a crash may have come between its post and
        # the note of its id; a moderator may have deleted it): else a plain message in the channel.
        reply: dict[str, Any] = {}
        if record.result_message_id is not None:
            message = channel.get_partial_message(record.result_message_id)
            reply = {"reference": message.to_reference(fail_if_not_exists=False), "mention_author": False}
        try:
            text = analysis_text(
                analysis, match_id, variant.title, options_text(session), (shown[0], shown[1])
            )
            review = discord.ui.View(timeout=None)
            review.add_item(OpenReviewButton.build(Reviewed(match_id)))
            sent = await channel.send(
                text[:2000],
                file=discord.File(io.BytesIO(chart), filename=f"analysis-{match_id}.png"),
                view=review,
                allowed_mentions=discord.AllowedMentions.none(),
                **reply,
            )
        except discord.HTTPException as exc:
            if transient(exc):
                raise  # Discord's trouble: tried again at the next round
            log.warning(
                "the analysis of match %s cannot be posted, and is not tried again: %s", match_id, exc
            )
            await self._note_on_result(record, ANALYSIS_UNPOSTABLE)
            raise Unpostable(str(exc)) from exc
        except (aiohttp.ClientError, OSError, TimeoutError):
            raise  # the network: tried again at the next round
        except Exception as exc:
            # A bug never goes away by itself: given up, not retried at every round.
            log.exception("the analysis of match %s cannot be posted, and is not tried again", match_id)
            raise Unpostable(repr(exc)) from exc
        await self._note_on_result(record, ANALYSIS_POSTED)
        return sent.id

    async def analysis_failed(self, match_id: int) -> None:
        record = await self.bot.sessions.history.match(match_id)
        if record is not None:
            await self._note_on_result(record, ANALYSIS_FAILED)

    async def _note_on_result(self, record: MatchRecord, line: str) -> None:
        """Replace the result message's "being computed" line (a failure here is only logged)."""
        if record.result_message_id is None:
            return
        try:
            channel = self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
            message = await channel.fetch_message(record.result_message_id)
            if ANALYSIS_PENDING in message.content:
                await message.edit(content=message.content.replace(ANALYSIS_PENDING, line))
        except discord.HTTPException as exc:
            log.info("could not update the result message of match %s: %s", record.id, exc)
