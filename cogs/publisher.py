"""Showing what was saved: every committed change of a match reaches its public board, recoverably.

The session manager saves first and notes what the public board must show (``board_version``,
``board_steps``, ``new_board``); the publisher then shows it and notes that it did (``mark_shown``).
Whatever is saved but not shown yet (``MatchRecord.behind``) is shown again, by the same code: right
after the action, by a retry after a failed post (a few seconds later, then by the scheduler's round),
at start-up (the scheduler's first round), and when someone clicks a control that is behind. A turn's
clock starts when the board that asks for the move is shown, so a player whose board could not be
posted never loses on time. One match is shown by one task at a time (a lock per match); a board that
was posted twice (a crash between the post and its note) is the worst case, never a lost one.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING, Any, Literal

import discord

from bot.sessions import REMATCH_SECONDS, Session, UserError, steps_of
from bot.store.analyses import FAILED, POSTED
from cogs.board import (
    board_message,
    board_picture,
    disabled_copy,
    how_won,
    in_brackets,
    options_text,
    player_names,
    sentence,
)
from engine import GameView, Outcome
from render import Caption, render_board

if TYPE_CHECKING:
    from bot.client import RingsideBot

log = logging.getLogger(__name__)

RETRY_DELAYS = (2.0, 10.0)
"""Seconds before showing a board again after a failed post; later tries are the scheduler's rounds."""
LOCKS_KEPT = 1000
"""Locks of matches not being shown are dropped beyond this many."""
THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080
ATTACHMENT_DESCRIPTION_LIMIT = 1024
"""Discord's longest description (alt text) of an attachment."""
THREAD_EXISTS = 160004
"""Discord's error code: a thread was already opened on this message (its id is the message's)."""


class BoardPublisher:
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        self._failures: dict[int, int] = {}
        self._retries: set[asyncio.Task[None]] = set()
        #: seconds before each quick retry of a board that could not be shown (``RETRY_DELAYS``)
        self.retry_delays: tuple[float, ...] = RETRY_DELAYS

    # -- drawing ------------------------------------------------------------------------------------

    async def picture(self, view: GameView, caption: Caption) -> bytes:
        """The PNG of ``view``: drawn by the bot's render pool (off the event loop) when it has one."""
        pool = getattr(self.bot, "render_pool", None)
        if pool is None:
            return render_board(view, caption)
        png: bytes = await pool.png(view, caption)
        return png

    # -- showing ------------------------------------------------------------------------------------

    async def show(
        self,
        match_id: int,
        *,
        interaction: discord.Interaction[Any] | None = None,
        headline: str | None = None,
    ) -> bool:
        """Bring the match's public board up to date with what is saved; True when it is (or was).

        ``interaction``: the deferred click that caused the change, whose message is edited in place
        (or greyed out) through it. ``headline``: the first board's opening line. On a failure the
        board is left behind (it is shown again shortly) and False is returned.
        """
        if len(self._locks) > LOCKS_KEPT:
            self._locks = {k: v for k, v in self._locks.items() if v.locked()}
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            try:
                session = await self.bot.sessions.get(match_id)
            except UserError:
                return True  # the match is gone: nothing to show
            if not session.record.behind:
                return True
            try:
                await self._show(session, interaction, headline)
            except discord.HTTPException as exc:
                log.warning("could not show the board of match %s (tried again shortly): %s", match_id, exc)
                self._failed(match_id)
                return False
            except Exception:
                # Anything else (a network error, a bug) also leaves it behind, to show again.
                log.exception("showing the board of match %s failed (tried again shortly)", match_id)
                self._failed(match_id)
                return False
            self._failures.pop(match_id, None)
        return True

    async def show_behind(self) -> int:
        """Show every match whose board is behind what is saved (at start-up and each scheduler
        round); returns how many were brought up to date."""
        shown = 0
        for record in await self.bot.store.matches.unshown():
            if await self.show(record.id):
                shown += 1
        return shown

    def _failed(self, match_id: int) -> None:
        """Try again soon: after each of ``RETRY_DELAYS``, then at the scheduler's rounds."""
        count = self._failures.get(match_id, 0)
        self._failures[match_id] = count + 1
        if count >= len(self.retry_delays):
            return
        task = asyncio.get_running_loop().create_task(self._retry(match_id, self.retry_delays[count]))
        self._retries.add(task)
        task.add_done_callback(self._retries.discard)

    async def _retry(self, match_id: int, delay: float) -> None:
        await asyncio.sleep(delay)
        if not self.bot.is_closed():
            await self.show(match_id)

    async def close(self) -> None:
        for task in list(self._retries):
            task.cancel()

    async def _show(
        self, session: Session, interaction: discord.Interaction[Any] | None, headline: str | None
    ) -> None:
        record = session.record
        sessions = self.bot.sessions
        if record.status == "abandoned":
            await self._channel_of(session).send(
                f"Match #{session.id} was abandoned: its saved position was damaged. It is not rated.",
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await sessions.mark_shown(session, None, None, record.board_version)
            await self.retire(session, record.message_id, interaction)
            return
        finished = record.status == "finished"
        outcome = await sessions.result_of(session.id) if finished else None
        changes = await self.bot.store.ratings.changes(session.id) if finished else []
        names = await player_names(self.bot, session)
        running = record.timeout_at is not None or record.window_at is not None
        clock = None if running else await sessions.turn_clock(session, self.bot.clock.now())
        first = record.shown_version is None
        if first and headline is None:
            a, b = record.players
            headline = f"<@{a}> vs <@{b}>: good luck to both!"
        message = board_message(
            session,
            steps_of(record.board_steps),
            outcome=outcome,
            rating_changes=changes,
            names=names,
            headline=headline if first else None,
            picture=await self.picture(*board_picture(session, outcome, names)),
            timeout_at=clock.timeout_at if clock is not None else None,
            window_at=clock.window_at if clock is not None else None,
        )
        if record.new_board or record.message_id is None:
            content = message.content
            analysis = await self.bot.analyses.request(session.id, record.game) if finished else None
            if analysis is not None:
                content += "\n" + analysis_line(analysis.status)
            humans = [p for p in record.players if p not in sessions.computer_ids]
            if first and len(humans) == 2:
                content = f"<@{humans[0]}> <@{humans[1]}> — {content}"
            files = [message.file]
            if finished:
                # Rebuilt from the saved log whenever the result is (re)posted: nothing more is stored.
                match_file = await self.match_file(session, names)
                if match_file is not None:
                    files.append(match_file)
            channel = await self._open_thread(session)
            sent = await channel.send(
                content=content[:2000],
                embed=message.embed,
                files=files,
                view=message.view or discord.utils.MISSING,
                allowed_mentions=message.mentions,
            )
            await sessions.mark_shown(session, sent.id if not finished else None, clock, record.board_version)
            await self.retire(session, record.message_id, interaction)
            if finished:
                # Its Rematch button is greyed out by the scheduler when its time runs out.
                await self.bot.store.matches.set_result_message(
                    session.id, sent.id, self.bot.clock.now() + REMATCH_SECONDS
                )
                if analysis is not None:
                    self.bot.analyses.queue(session.id)
                if outcome is not None:
                    await self.announce(session, outcome)
            return
        edit: dict[str, Any] = dict(
            content=message.content,
            embed=message.embed,
            attachments=[message.file],
            view=message.view,
            allowed_mentions=message.mentions,
        )
        if _is_on(interaction, record.message_id):
            assert interaction is not None
            await interaction.edit_original_response(**edit)
        else:
            await self._channel_of(session).get_partial_message(record.message_id).edit(**edit)
        await sessions.mark_shown(session, record.message_id, clock, record.board_version)

    async def match_file(self, session: Session, names: tuple[str, str]) -> discord.File | None:
        """The finished match as its game's file (``Variant.export_match``) for the result message, or
        None: the game has no format, or building it failed (logged; the result goes out without it)."""
        try:
            log_ = await self.bot.store.matches.action_log(session.id)
            exported = session.variant.export_match(session.record.options, [a.notation for a in log_], names)
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

    def _channel_of(self, session: Session) -> discord.PartialMessageable:
        record = session.record
        return self.bot.get_partial_messageable(record.channel_id, guild_id=record.guild_id)

    async def _open_thread(self, session: Session) -> discord.abc.Messageable:
        """Where the match's next board goes: its thread, opened now if it is still to open."""
        record = session.record
        if record.thread_name is None:
            return self._channel_of(session)
        thread_id: int | None = None
        try:
            if record.thread_on is not None:
                message = self._channel_of(session).get_partial_message(record.thread_on)
                thread_id = (
                    await message.create_thread(
                        name=record.thread_name, auto_archive_duration=THREAD_ARCHIVE_MINUTES
                    )
                ).id
            else:
                channel = self.bot.get_channel(record.channel_id) or await self.bot.fetch_channel(
                    record.channel_id
                )
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
        await self.bot.sessions.set_thread(
            session, thread_id if thread_id is not None else record.channel_id, record.channel_id
        )
        return self._channel_of(session)

    async def retire(
        self, session: Session, message_id: int | None, interaction: discord.Interaction[Any] | None = None
    ) -> None:
        """Take the controls off an older board message (it keeps its picture); greyed out when it is
        the message of the click being answered."""
        if message_id is None:
            return
        try:
            if _is_on(interaction, message_id):
                assert interaction is not None
                await interaction.edit_original_response(view=disabled_copy(interaction.message))
            else:
                await (
                    self.bot.get_partial_messageable(session.record.channel_id)
                    .get_partial_message(message_id)
                    .edit(view=None)
                )
        except discord.HTTPException as exc:
            log.info("could not retire board message %s of match %s: %s", message_id, session.id, exc)

    async def announce(self, session: Session, outcome: Outcome) -> None:
        """Post a finished match's result in the server's results channel, if it has one."""
        settings = await self.bot.settings.get(session.record.guild_id)
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
            await self.bot.get_partial_messageable(channel_id).send(
                text[:2000], allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as exc:
            log.info("could not announce match %s in channel %s: %s", session.id, channel_id, exc)


ANALYSIS_PENDING = "Analysis: being computed…"
ANALYSIS_POSTED = "Analysis: posted below."
ANALYSIS_FAILED = "Analysis: it could not be computed."


def analysis_line(status: str) -> str:
    """The result message's line about the match's analysis, by its status in the store."""
    if status == POSTED:
        return ANALYSIS_POSTED
    if status == FAILED:
        return ANALYSIS_FAILED
    return ANALYSIS_PENDING


def _is_on(interaction: discord.Interaction[Any] | None, message_id: int | None) -> bool:
    """Whether ``interaction`` was a click on message ``message_id`` (so it can edit it itself)."""
    return (
        interaction is not None
        and interaction.message is not None
        and message_id is not None
        and interaction.message.id == message_id
        and interaction.response.is_done()
    )
