"""Where a match is played: its thread, opened when its first board is shown (on the challenge's
message when it has one), and the channel it is played in. A tournament's announcement is told when
one of its tables has its place (``TournamentPublisher.match_placed``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Literal

import discord

from bot.session import Session

if TYPE_CHECKING:
    from cogs.publisher import BoardPublisher


log = logging.getLogger(__name__)

THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080
THREAD_EXISTS = 160004
"""Discord's error code: a thread was already opened on this message (its id is the message's)."""


class MatchThreads:
    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher

    def channel_of(self, session: Session) -> discord.PartialMessageable:
        record = session.record
        return self.publisher.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)

    async def open_thread(self, session: Session) -> discord.abc.Messageable:
        """Where the match's next board goes: its thread, opened now if it is still to open."""
        record = session.record
        if record.thread_name is None:
            return self.channel_of(session)
        thread_id: int | None = None
        try:
            if record.thread_on is not None:
                message = self.channel_of(session).get_partial_message(record.thread_on)
                thread_id = (
                    await message.create_thread(
                        name=record.thread_name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
                    )
                ).id
            else:
                channel = self.publisher.bot.get_channel(
                    record.channel_id
                ) or await self.publisher.bot.fetch_channel(record.channel_id)
                if isinstance(channel, discord.TextChannel):
                    thread_id = (
                        await channel.create_thread(
                            name=record.thread_name,
                            type=discord.ChannelType.public_thread,
                            auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                        )
                    ).id
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS and record.thread_on is not None:
                thread_id = record.thread_on  # opened before a restart: a message's thread has its id
            elif exc.status >= 500 or exc.status == 429:
                raise  # Discord's trouble: try again later
            else:
                log.info("could not open a thread for match %s, playing in the channel: %s", session.id, exc)
        await self.publisher.bot.sessions.boards.set_thread(
            session, thread_id if thread_id is not None else record.channel_id, record.channel_id
        )
        tournaments = self.publisher.bot.publishers.tournaments
        if tournaments is not None:
            await tournaments.match_placed(session.id)
        return self.channel_of(session)
