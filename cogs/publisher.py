"""Showing what was saved: every committed change of a match reaches its public board, recoverably.

The session manager saves first and notes what the public board must show (``board_version``,
``board_steps``, ``new_board``); the publisher then shows it and notes that it did (``mark_shown``).
Whatever is saved but not shown yet (``MatchRecord.behind``) is shown again, by the same code: right
after the action, by a retry after a failed post (a few seconds later, then by the scheduler's rounds,
waiting longer after each failure: ``bot.board_repair``), at start-up (the scheduler's first round,
every board behind at once, a few at a time), and when someone clicks a control that is behind. A
turn's clock starts when the board that asks for the move is shown, so a player whose board could not
be posted never loses on time. One match is shown by one task at a time (a lock per match), and every
board message of a match, ``/board``'s too, is posted here.

Exactly one live board per match, the one the store knows: the board in place loses its controls
before the next one is posted; the post carries a nonce made of the match, its version and its
reposts, which Discord enforces, so a post repeated after a crash returns the first message instead
of a second one; a post the store could not note loses its controls again; and the note is a compare
and set on the board message it replaces. A channel Discord says is gone is not tried again: the
match is abandoned, unrated (``BoardHandoff.channel_gone``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.board_repair import BACKOFF, QUICK_TRIES
from bot.session import REMATCH_SECONDS, Session, UserError, deciding_seat, told
from bot.steps import steps_of
from bot.store import MatchRecord, StoreError
from bot.store.analyses import FAILED, POSTED
from bot.turn_driver import board_waits
from cogs.board import (
    BoardMessage,
    board_message,
    board_picture,
    disabled_copy,
    player_names,
)
from cogs.board_recovery import BoardRecovery
from cogs.live_panels import LivePanels
from cogs.match_endings import MatchEndings
from cogs.match_threads import MatchThreads
from engine import GameView, Outcome
from render import Caption, render_board

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

LOCKS_KEPT = 1000
"""Locks of matches not being shown are dropped beyond this many."""
SHOW_CONCURRENCY = 8
"""Boards shown at once when many are behind (start-up, shutdown, a scheduler round)."""
UNKNOWN_MESSAGE = 10008
GONE_CODES = frozenset({10003, 10004, 50001})
"""Discord's error codes saying that a channel is gone for the bot: Unknown Channel (deleted), Unknown
Guild (the server is gone or removed the bot), Missing Access (the bot may no longer see the channel)."""
NONCE_LENGTH = 24
"""Characters of a board post's nonce (Discord takes at most 25)."""
REPOST_HEADLINE = "The board, as it stands:"


def gone(exc: BaseException) -> bool:
    """Whether ``exc`` is Discord saying that the channel is gone for the bot (``GONE_CODES``)."""
    return isinstance(exc, discord.HTTPException) and exc.code in GONE_CODES


def transient(exc: discord.HTTPException) -> bool:
    """Whether Discord's answer may well be different on the next try (its own trouble, a rate limit)."""
    return exc.status >= 500 or exc.status == 429


def board_nonce(record: MatchRecord) -> str:
    """The nonce of the post of the board ``record`` is to show: the same for every try of the same
    board (the match, its board version and its reposts), so Discord returns the message a repeated
    post already made (``enforce_nonce``) instead of posting it twice."""
    key = f"ringside board {record.id} {record.board_version} {record.reposts}".encode()
    return hashlib.blake2b(key, digest_size=NONCE_LENGTH // 2).hexdigest()


class NotNoted(StoreError):
    """The store did not note the board just shown: another showing replaced the board meanwhile."""


class BoardPublisher:
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self._locks: dict[int, asyncio.Lock] = {}
        #: seconds before each quick retry of a board that could not be shown; later tries are the
        #: scheduler's (``bot.board_repair.BACKOFF``)
        self.retry_delays: tuple[float, ...] = BACKOFF[:QUICK_TRIES]
        #: boards shown at once by ``show_behind``
        self.concurrency = SHOW_CONCURRENCY
        #: boards that could not be shown, tried again
        self.recovery = BoardRecovery(self)
        #: results announced, match files
        self.endings = MatchEndings(self)
        #: the matches' threads and channels
        self.threads = MatchThreads(self)
        #: the players' private panels, kept current as the match changes
        self.panels = LivePanels(self)

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
        repost: bool = False,
        panel_of: int | None = None,
    ) -> bool:
        """Bring the match's public board up to date with what is saved; True when it is (or was).

        ``interaction``: the deferred click that caused the change, whose message is edited in place
        (or greyed out) through it. ``headline``: the first board's opening line (or a reposted
        one's). ``repost``: post the board again as a new message at the bottom of its channel
        (``/board``), the old one losing its controls. On a failure the board is left behind (it is
        shown again later) and False is returned. Once the board is shown, the players' live private
        panels are brought up to date too (``LivePanels``), except the one of user ``panel_of``,
        which the caller has just updated.
        """
        if len(self._locks) > LOCKS_KEPT:
            self._locks = {k: v for k, v in self._locks.items() if v.locked()}
        lock = self._locks.setdefault(match_id, asyncio.Lock())
        async with lock:
            try:
                session = await self.bot.sessions.get(match_id)
            except UserError:
                return True  # the match is gone: nothing to show
            if repost:
                await self.bot.sessions.boards.request_board(session)
            if not session.record.behind:
                return True
            if board_waits(session):
                # Nothing public happened yet: the mover's private steps reach the board together;
                # only the mover's own panel follows them.
                assert session.state is not None
                await self.panels.refresh(session, panel_of, only=deciding_seat(session.state))
                return True
            try:
                await self._show(session, interaction, headline)
            except discord.HTTPException as exc:
                if gone(exc):
                    await self.recovery.gone(session, exc)
                else:
                    await self.recovery.failed(session, exc)
                return False
            except Exception as exc:
                # Anything else (a network error, the store, a bug) also leaves it behind, to show again.
                await self.recovery.failed(session, exc)
                return False
            # After the public board, so that what everyone sees never waits for a private panel.
            await self.panels.refresh(session, panel_of)
        return True

    async def settled(self, match_id: int) -> bool:
        """Wait until no board of the match is being shown; True if one was (its message may have been
        posted and clicked before its id was noted: the click is checked again after the note)."""
        lock = self._locks.get(match_id)
        if lock is None or not lock.locked():
            return False
        async with lock:
            return True

    async def close(self) -> None:
        self.recovery.close()

    async def _show(
        self, session: Session, interaction: discord.Interaction[Any] | None, headline: str | None
    ) -> None:
        # The record as the board is drawn: what is noted as shown afterwards is this version, in
        # place of this message, whatever is saved meanwhile.
        record = session.record
        sessions = self.bot.sessions
        if record.status == "abandoned":
            await self._show_abandoned(session, record, interaction)
            return
        finished = record.status == "finished"
        outcome = await sessions.history.result_of(session.id) if finished else None
        changes = await self.bot.sessions.history.rating_changes(session.id) if finished else []
        names = await player_names(self.bot, session)
        running = record.timeout_at is not None or record.window_at is not None
        now = self.bot.clock.now()  # the moment drawn: a running live clock shows its reserve then
        clock = None if running else await sessions.clocks.turn_clock(session, now)
        first = record.shown_version is None
        reposted = record.redraw and record.new_board and not first
        if first and headline is None:
            a, b = record.players
            headline = f"<@{a}> vs <@{b}>: good luck to both!"
        elif reposted and headline is None:
            headline = REPOST_HEADLINE
        message = board_message(
            session,
            steps_of(record.board_steps),
            outcome=outcome,
            rating_changes=changes,
            names=names,
            headline=headline if first or reposted else None,
            picture=await self.picture(*board_picture(session, outcome, names, now)),
            timeout_at=clock.timeout_at if clock is not None else None,
            window_at=clock.window_at if clock is not None else None,
            now=now,
        )
        if record.new_board or record.message_id is None:
            await self._post(session, record, message, interaction, outcome, names, first, clock)
            return
        await self._edit(session, record, message, interaction, clock)

    async def _show_abandoned(
        self, session: Session, record: MatchRecord, interaction: discord.Interaction[Any] | None
    ) -> None:
        """An abandoned match: its board loses its controls, and a message says why it ended."""
        said = told(steps_of(record.board_steps), None)
        text = (
            said[-1]
            if said
            else f"Match #{session.id} was abandoned: its saved position was damaged. It is not rated."
        )
        await _retire(self.bot, session, record.message_id, interaction)
        await self.threads.channel_of(session).send(
            text, nonce=board_nonce(record), allowed_mentions=discord.AllowedMentions.none()
        )
        await self._note(session, record, None, None)

    async def _edit(
        self,
        session: Session,
        record: MatchRecord,
        message: BoardMessage,
        interaction: discord.Interaction[Any] | None,
        clock: Any,
    ) -> None:
        """The board message ``record`` names, edited to ``message`` (through the click's interaction
        when it is the message clicked); one a moderator deleted is replaced by a new post."""
        assert record.message_id is not None
        sessions = self.bot.sessions
        edit: dict[str, Any] = dict(
            content=message.content,
            embed=message.embed,
            attachments=[message.file],
            view=message.view,
            allowed_mentions=message.mentions,
        )
        try:
            if _is_on(interaction, record.message_id):
                assert interaction is not None
                await interaction.edit_original_response(**edit)
            else:
                await self.threads.channel_of(session).get_partial_message(record.message_id).edit(**edit)
        except discord.NotFound as exc:
            if exc.code != UNKNOWN_MESSAGE:
                raise
            # The board message was deleted (by a moderator): a new one takes its place.
            log.info(
                "match %s: its board message %s is gone; posting a new one", session.id, record.message_id
            )
            if not await sessions.boards.request_board(session):
                raise
            await self._show(session, None, None)
            return
        await self._note(session, record, record.message_id, clock)

    async def _post(
        self,
        session: Session,
        record: MatchRecord,
        message: BoardMessage,
        interaction: discord.Interaction[Any] | None,
        outcome: Outcome | None,
        names: tuple[str, str],
        first: bool,
        clock: Any,
    ) -> None:
        """Post the board as a new message (someone else is asked now, the match ended, /board), the
        board in place losing its controls first; then note it."""
        sessions = self.bot.sessions
        finished = record.status == "finished"
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
            match_file = await self.endings.match_file(session, names)
            if match_file is not None:
                files.append(match_file)
        channel = await self.threads.open_thread(session)
        # At no moment do two messages of the match carry live controls.
        await _retire(self.bot, session, record.message_id, interaction)
        sent = await channel.send(
            content=content[:2000],
            embed=message.embed,
            files=files,
            view=message.view or discord.utils.MISSING,
            allowed_mentions=message.mentions,
            nonce=board_nonce(record),
        )
        if _earlier_try(sent, content, message):
            sent = await _as_this_try(sent, content, message, finished)
        if finished:
            # Its Rematch button is greyed out by the scheduler when its time runs out.
            try:
                await self.bot.sessions.boards.set_result_message(
                    session.id, sent.id, self.bot.clock.now() + REMATCH_SECONDS
                )
            except Exception:
                await _strip(sent)
                raise
        await self._note(session, record, sent.id if not finished else None, clock, sent)
        if finished:
            if analysis is not None:
                await self.bot.analyses.queue(session.id, sent.id)
            if outcome is not None:
                await self.endings.announce(session, outcome)
            if self.bot.publishers.tournaments is not None:
                await self.bot.publishers.tournaments.match_finished(session.id)

    async def _note(
        self,
        session: Session,
        record: MatchRecord,
        message_id: int | None,
        clock: Any,
        posted: discord.Message | None = None,
    ) -> None:
        """Note the board of ``record`` as shown in ``message_id``, in place of the one the store knew
        then. A message just ``posted`` that the store does not know (the note failed, or another
        showing replaced the board meanwhile) loses its controls: only the board the store knows
        is live."""
        try:
            noted = await self.bot.sessions.boards.mark_shown(
                session, message_id, clock, record.board_version, record.message_id
            )
        except Exception:
            if posted is not None:
                await _strip(posted)
            raise
        if not noted:
            await self.bot.sessions.boards.reread_board(session)
            if posted is not None and session.record.message_id != posted.id:
                await _strip(posted)
            raise NotNoted(f"match {session.id}: its board of version {record.board_version} was not noted")


async def _strip(message: discord.Message) -> None:
    """Take the controls off a board message that is not (or no longer) the live one."""
    try:
        await message.edit(view=None)
    except discord.HTTPException as exc:
        log.info("could not take the controls off message %s: %s", message.id, exc)


async def _retire(
    bot: RingsideBot,
    session: Session,
    message_id: int | None,
    interaction: discord.Interaction[Any] | None = None,
) -> None:
    """Take the controls off the board in place before the next one is posted (it keeps its
    picture); greyed out when it is the message of the click being answered. A board that is gone
    has nothing to retire; Discord's trouble stops the showing (tried again later), so that the
    new board never goes up beside a live old one."""
    if message_id is None:
        return
    try:
        if _is_on(interaction, message_id):
            assert interaction is not None
            await interaction.edit_original_response(view=disabled_copy(interaction.message))
        else:
            await (
                bot.get_partial_messageable(session.record.channel_id)
                .get_partial_message(message_id)
                .edit(view=None)
            )
    except discord.HTTPException as exc:
        if exc.code == UNKNOWN_MESSAGE:
            return
        if gone(exc) or transient(exc):
            raise
        log.info("could not retire board message %s of match %s: %s", message_id, session.id, exc)


ANALYSIS_PENDING = "Analysis: being computed…"
ANALYSIS_POSTED = "Analysis: posted below."
ANALYSIS_FAILED = "Analysis: it could not be computed."
ANALYSIS_UNPOSTABLE = "Analysis: it could not be posted."


def analysis_line(status: str) -> str:
    """The result message's line about the match's analysis, by its status in the store."""
    if status == POSTED:
        return ANALYSIS_POSTED
    if status == FAILED:
        return ANALYSIS_FAILED
    return ANALYSIS_PENDING


def _earlier_try(sent: discord.Message, content: str, message: BoardMessage) -> bool:
    """Whether the message Discord returned for a board's post is not this try's: one an earlier try
    posted with the same nonce, with other words or without the controls it was posted with."""
    if message.view is not None and message.view.children and not sent.components:
        return True
    said = sent.embeds[0].description if sent.embeds else None
    return sent.content != content[:2000] or said != message.embed.description


async def _as_this_try(
    sent: discord.Message, content: str, message: BoardMessage, finished: bool
) -> discord.Message:
    """The message an earlier try of this board's post made, which the nonce returned, edited to
    this try's words, picture and controls: those are what the store notes now. Its try's note
    failed or never came (a kill -9 in between), so it may say an earlier deadline or reserve, and
    it lost its controls if the note failed. A result keeps its match file (and its picture, which
    shows no running clock)."""
    again: dict[str, Any] = {} if finished else {"attachments": [message.file]}
    message.file.reset()
    return await sent.edit(
        content=content[:2000],
        embed=message.embed,
        view=message.view,
        allowed_mentions=message.mentions,
        **again,
    )


def _is_on(interaction: discord.Interaction[Any] | None, message_id: int | None) -> bool:
    """Whether ``interaction`` was a click on message ``message_id`` (so it can edit it itself)."""
    return (
        interaction is not None
        and interaction.message is not None
        and message_id is not None
        and interaction.message.id == message_id
        and interaction.response.is_done()
    )
