"""The end of a match on Discord: the result announced (with its rating changes and the Rematch
button) and the match's file for other programs attached to its last board."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

import discord

from bot.session import Session
from cogs.board import (
    how_won,
    in_brackets,
    options_text,
    sentence,
)
from engine import Outcome

if TYPE_CHECKING:
    from cogs.publisher import BoardPublisher


log = logging.getLogger(__name__)

ATTACHMENT_DESCRIPTION_LIMIT = 1024
"""Discord's longest description (alt text) of an attachment."""


class MatchEndings:
    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher

    async def match_file(self, session: Session, names: tuple[str, str]) -> discord.File | None:
        """The finished match as its game's file (``Variant.export_match``) for the result message, or
        None: the game has no format, or building it failed (logged; the result goes out without it)."""
        try:
            history = self.publisher.bot.sessions.history
            log_ = await history.action_log(session.id)
            # A match ended off the board (resigned, timed out) ends its file as the game would have.
            ending = await history.result_of(session.id)
            exported = session.variant.export_match(
                session.record.options, [a.notation for a in log_], names, ending
            )
        except Exception:
            log.exception(
                "match %s: its match file could not be built; the result is posted without it", session.id
            )
            return None
        if exported is None:
            return None
        return discord.File(
            io.BytesIO(exported.data),
            filename=exported.filename,
            description=exported.description[:ATTACHMENT_DESCRIPTION_LIMIT] or None,
        )

    async def announce(self, session: Session, outcome: Outcome) -> None:
        """Post a finished match's result in the server's results channel, if it has one."""
        settings = await self.publisher.bot.settings.get(session.record.guild_id)
        channel_id = settings.results_channel
        # Matches in threads under the results channel are announced there too; only a match played
        # in that very channel already shows its result there.
        if channel_id is None or channel_id == session.record.channel_id:
            return
        where = ""
        if session.record.guild_id is not None:
            where = f" https://discord.com/channels/{session.record.guild_id}/{session.record.channel_id}"
        options = options_text(session)
        if outcome.winner is None:
            game = f"{session.variant.title}{', ' if options else ''}{options}"
            text = f"Match #{session.id} ({game}) was drawn: {sentence(outcome.description)}{where}"
        else:
            winner, loser = session.user_of(outcome.winner), session.user_of(1 - outcome.winner)
            text = (
                f"🏆 <@{winner}> beat <@{loser}> at {session.variant.title}"
                f"{in_brackets(options, f'match #{session.id}')}: {how_won(session, outcome)}{where}"
            )
        try:
            await self.publisher.bot.get_partial_messageable(channel_id).send(
                text[:2000], allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as exc:
            log.info("could not announce match %s in channel %s: %s", session.id, channel_id, exc)
