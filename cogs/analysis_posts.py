"""The analysis of a finished match, posted as a reply to its result message with its chart and a
**Review** button; the result message's line about it says how it goes (its place in the queue, its
progress), then whether it was posted or could not be computed (``bot.analyses`` computes it and calls
this, its ``AnalysisPublisher``). ``FilePosts``: the same for match files sent to ``/analyse file:``."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.publishing import Unpostable
from bot.session import Session
from bot.store import ImportedRecord, MatchRecord
from bot.store.jobs import JobRecord
from cogs.analysis_words import analysis_text
from cogs.board import options_text, player_names
from cogs.control_kinds import OpenReviewButton, Reviewed
from cogs.publisher import ANALYSIS_FAILED, ANALYSIS_PENDING, ANALYSIS_POSTED, ANALYSIS_UNPOSTABLE, transient
from engine import find_variant
from engine.ai.coaching import Analysis, analysis_from_json
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

    async def analysis_shown(self, match_id: int, message_id: int, line: str) -> None:
        """The result message's "being computed" line says how the analysis goes: its place in the
        queue and estimate, or its progress."""
        record = await self.bot.sessions.history.match(match_id)
        if record is not None:
            await self._note_on_result(record, f"{ANALYSIS_PENDING} ({line})", message_id)

    async def _note_on_result(self, record: MatchRecord, line: str, message_id: int | None = None) -> None:
        """Replace the result message's "being computed" line, with what it says after it (a failure
        here is only logged)."""
        message_id = message_id or record.result_message_id
        if message_id is None:
            return
        try:
            channel = self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)
            message = await channel.fetch_message(message_id)
            lines = message.content.split("\n")
            at = next((i for i, text in enumerate(lines) if text.startswith(ANALYSIS_PENDING)), None)
            if at is not None and lines[at] != line:
                lines[at] = line
                await message.edit(content="\n".join(lines))
        except discord.HTTPException as exc:
            log.info("could not update the result message of match %s: %s", record.id, exc)


class FilePosts:
    """The analyses of match files sent to ``/analyse file:`` (``bot.analyses`` queues and computes
    them; this is its ``FilePublisher``): the asker's private answer says how the job goes (edited
    through the interaction's token, which Discord honours for 15 minutes), and the analysis is
    posted in the channel with the bot's token, as our own matches' are, named after the file."""

    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    def _answer(self, job: JobRecord) -> discord.Webhook | None:
        if job.reply_token is None or self.bot.application_id is None:
            return None
        return discord.Webhook.partial(self.bot.application_id, job.reply_token, client=self.bot)

    async def _edit_answer(self, job: JobRecord, line: str) -> bool:
        """Edit the asker's private answer; whether it was (False: its token ran out, or Discord)."""
        answer = self._answer(job)
        if answer is None:
            return False
        try:
            await answer.edit_message("@original", content=line[:2000])  # type: ignore[call-overload]
        except (discord.HTTPException, ValueError) as exc:
            log.info("could not edit the answer about %s: %s", job.file_name, exc)
            return False
        return True

    async def file_shown(self, job: JobRecord, line: str) -> None:
        await self._edit_answer(job, line)

    async def file_ready(self, job: JobRecord, imported: ImportedRecord) -> int | None:
        game = imported.game
        variant = find_variant(game)
        analysis = analysis_from_json(imported.analysis)
        names = (imported.names[0], imported.names[1])
        chart = await self.bot.render_pool.chart(
            analysis.chances,
            0,
            f"{names[0]} ({variant.seat_names[0]})",
            (SEAT_STYLES[game][0], SEAT_STYLES[game][1]),
        )
        options = variant.describe_options(imported.options)
        text = analysis_text(analysis, 0, variant.title, options, names)
        # The same message as for our own matches, but named after the file: it is no match of ours.
        heading = (
            f"📊 **Analysis of {discord.utils.escape_markdown(imported.file_name)}** (played elsewhere; "
            f"{variant.title}"
        )
        text = heading + (f", {options})" if options else ")") + "\n" + text.split("\n", 1)[1]
        channel = self.bot.get_partial_messageable(imported.channel_id, guild_id=imported.guild_id)
        review = discord.ui.View(timeout=None)
        review.add_item(OpenReviewButton.build(Reviewed(imported.id, from_file=True)))
        try:
            sent = await channel.send(
                text[:2000],
                file=discord.File(io.BytesIO(chart), filename="analysis.png"),
                view=review,
                allowed_mentions=discord.AllowedMentions.none(),
            )
        except discord.HTTPException as exc:
            if transient(exc):
                raise  # tried again at the next round
            log.warning("the analysis of %s cannot be posted: %s", imported.file_name, exc)
            await self.file_failed(job, "its analysis could not be posted in the channel.")
            raise Unpostable(str(exc)) from exc
        return sent.id

    async def file_failed(self, job: JobRecord, reason: str) -> None:
        """Told on the private answer; once its token ran out, in the channel, to the asker."""
        line = f"{job.file_name}: {reason}"
        if await self._edit_answer(job, line):
            return
        channel = self.bot.get_partial_messageable(job.channel_id, guild_id=job.guild_id)
        try:
            await channel.send(
                f"<@{job.owner_id}> {line}"[:2000],
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(job.owner_id or 0)]),
            )
        except discord.HTTPException as exc:
            log.warning("could not tell member %s that %s failed: %s", job.owner_id, job.file_name, exc)
