"""What the scheduler and the other cogs ask to be shown of a match (``bot.publishers.matches``): its
board brought up to date, a reminder to the player on turn, a match ended by time, a Rematch button
greyed out."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.session import (
    Played,
    Reminder,
)
from bot.store import MatchRecord
from cogs.board import (
    rematch_view,
)
from cogs.mentions import pings
from cogs.origin import duration_words

if TYPE_CHECKING:
    from cogs.play import Play


log = logging.getLogger(__name__)


class MatchNotices:
    def __init__(self, play: Play) -> None:
        self.play = play

    async def remind(self, reminder: Reminder) -> None:
        """Remind the player on turn in the match's channel, linking its board."""
        session = reminder.session
        board = ""
        if session.record.message_id is not None and session.record.guild_id is not None:
            board = (
                f" https://discord.com/channels/{session.record.guild_id}/{session.record.channel_id}/"
                f"{session.record.message_id}"
            )
        text = (
            f"⏰ <@{session.user_of(reminder.seat)}>, it is your turn in match #{session.id} "
            f"({session.variant.title}).{board} Play within {duration_words(reminder.seconds_left)}, "
            "or the match is lost on time."
        )
        try:
            await self.play.bot.get_partial_messageable(session.record.channel_id).send(
                text, allowed_mentions=pings(session.user_of(reminder.seat))
            )
        except discord.HTTPException as exc:
            log.info("could not remind match %s: %s", session.id, exc)

    async def match_ended(self, played: Played) -> None:
        """Show a match that ended by timeout: its final board, the old one retired, the announcement."""
        await self.play.publisher.show(played.session.id)

    async def show(self, match_id: int, *, headline: str | None = None) -> bool:
        """Bring the match's public board up to date with what is saved."""
        return await self.play.publisher.show(match_id, headline=headline)

    async def show_behind(self, *, everything: bool = False) -> int:
        """Show every board that is behind what is saved and due (start-up, each round of the
        scheduler; ``everything``, due or not: when stopping)."""
        return await self.play.publisher.recovery.show_behind(everything=everything)

    async def rematch_expired(self, record: MatchRecord) -> None:
        """Grey out the Rematch button of a finished match whose time for a rematch has run out."""
        if record.result_message_id is None:
            return
        try:
            await (
                self.play.bot.get_partial_messageable(record.channel_id)
                .get_partial_message(record.result_message_id)
                .edit(view=rematch_view(record.id, record.game, disabled=True))
            )
        except discord.HTTPException as exc:
            log.info("could not grey out the Rematch button of match %s: %s", record.id, exc)
