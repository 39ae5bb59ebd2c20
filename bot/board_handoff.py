"""What the publisher notes back about a match's public board: the board shown as which message (and
the turn clock it starts), the match's thread, a board asked for again (/board), a board that failed
(tried again later) and a channel that is gone."""

from __future__ import annotations

from collections.abc import Sequence
from types import EllipsisType
from typing import Protocol

from bot.board_repair import BACKOFF, GONE
from bot.clock import Clock
from bot.match_ends import EndingRows
from bot.session import Played, Session
from bot.steps import Step
from bot.store import Deadlines, MatchRecord


class BoardSessions(Protocol):
    """What the handoff uses of the matches in memory (``bot.match_writer.MatchWriter``)."""

    async def get(self, match_id: int) -> Session: ...

    def held(self, match_id: int) -> Session | None: ...

    def ended(self, session: Session, saved: MatchRecord | None) -> None: ...


class BoardRows(Protocol):
    """The writes of what a board shows and the due boards (``bot.store.BoardStore``)."""

    async def mark_shown(
        self,
        match_id: int,
        *,
        board_version: int,
        message_id: int | None,
        deadlines: Deadlines | None,
        previous: int | None,
    ) -> MatchRecord | None: ...

    async def due_boards(self, now: float | None) -> list[int]: ...

    async def board_failed(
        self, match_id: int, now: float, delays: Sequence[float]
    ) -> MatchRecord | None: ...

    async def request_board(self, match_id: int) -> MatchRecord | None: ...

    async def set_thread(
        self, match_id: int, channel_id: int, parent_id: int | None
    ) -> MatchRecord | None: ...

    async def set_message(self, match_id: int, message_id: int | None) -> MatchRecord | None: ...

    async def set_result_message(self, match_id: int, message_id: int, rematch_until: float) -> None: ...


class BoardMatchRows(EndingRows, Protocol):
    """The match rows the handoff reads (a board noted elsewhere) and ends (a channel gone)
    (``bot.store.MatchStore``)."""

    async def get(self, match_id: int) -> MatchRecord | None: ...


class BoardHandoff:
    def __init__(self, matches: BoardSessions, boards: BoardRows, rows: BoardMatchRows, clock: Clock) -> None:
        self.matches = matches
        self.boards = boards
        self.rows = rows
        self.clock = clock

    async def mark_shown(
        self,
        session: Session,
        message_id: int | None,
        deadlines: Deadlines | None,
        version: int,
        previous: int | EllipsisType | None = ...,
    ) -> bool:
        """The public board of committed ``version`` (the ``board_version`` it was drawn for) is
        visible as ``message_id``: note it, and start the turn clock of the player it asks with
        ``deadlines`` (``turn_clock`` when the board was drawn, as it shows them) if it is still the
        latest board and that player's clock is not running yet. A board the match has moved on from
        meanwhile is noted as its message (to edit or retire next) but leaves the match behind.
        ``previous``: the board message it replaces (compare and set: False, with nothing noted, if
        the store knows another one by now); by default the one the session knows."""
        if isinstance(previous, EllipsisType):
            previous = session.record.message_id
        if deadlines is not None:
            # A live clock runs from the moment its board is shown, not drawn: a slow Discord costs
            # the player nothing.
            deadlines = deadlines.started(self.clock.now())
        saved = await self.boards.mark_shown(
            session.id, board_version=version, message_id=message_id, deadlines=deadlines, previous=previous
        )
        if saved is None:
            return False
        session.record = saved
        return True

    async def set_thread(self, session: Session, channel_id: int, parent_id: int | None) -> None:
        """The match's thread is open (or could not be: ``channel_id`` is then where it was made)."""
        thread = channel_id != session.record.channel_id
        saved = await self.boards.set_thread(
            session.id, channel_id, parent_id if thread else session.record.parent_id
        )
        if saved is not None:
            session.record = saved

    async def set_message(self, match_id: int, message_id: int | None) -> None:
        """Make ``message_id`` the match's live board message (None: it has none, being over)."""
        saved = await self.boards.set_message(match_id, message_id)
        # A match that is over is not loaded back into memory just to note its last message.
        session = self.matches.held(match_id)
        if session is not None and saved is not None:
            session.record = saved

    async def request_board(self, session: Session) -> bool:
        """Ask for the active match's board again as a new message (``/board``), to be shown by the
        publisher; False if the match is over. Taken under the match's lock, so that a change being
        saved at the same time cannot overwrite the request."""
        async with session.lock:
            saved = await self.boards.request_board(session.id)
            if saved is None:
                return False
            session.record = saved
        return True

    async def reread_board(self, session: Session) -> None:
        """Take what the store says of the match's board (its message, the version shown, what is
        to show) into the session: another showing noted a board this copy did not see."""
        stored = await self.rows.get(session.id)
        if stored is not None:
            session.record = stored

    async def board_failed(self, session: Session) -> tuple[int, float]:
        """Note that the match's board could not be shown: (failures in a row, when the scheduler
        tries it next), further out after each failure (``bot.board_repair.BACKOFF``)."""
        now = self.clock.now()
        saved = await self.boards.board_failed(session.id, now, BACKOFF)
        if saved is None:  # the match is gone from the store: try it no more
            return len(BACKOFF), now + BACKOFF[-1]
        session.record = saved
        return saved.show_tries, saved.show_after or now

    async def channel_gone(self, match_id: int) -> Played | None:
        """Discord says the match's channel is gone (deleted, or the bot may no longer see it): its
        boards can never be shown. An active match is ended, abandoned and unrated ("its channel is
        gone"); a finished one keeps its result. Either way its board is noted as shown nowhere, so
        it is not tried again. The match so abandoned, or None."""
        session = await self.matches.get(match_id)
        played: Played | None = None
        async with session.lock:
            now = self.clock.now()
            if session.record.status == "active":
                step = Step(None, "abandon", f"Match #{match_id} was abandoned: {GONE}. It is not rated.")
                saved = await self.rows.end(
                    match_id, status="abandoned", result=None, now=now, board_steps=[step.to_json()]
                )
                if saved is not None:
                    self.matches.ended(session, saved)
                    played = Played(session, session.state, (step,))
            record = session.record
            await self.mark_shown(session, None, None, record.board_version, record.message_id)
        return played

    async def due_boards(self, everything: bool = False) -> list[int]:
        """The matches whose board is behind and due to be shown now (``everything``: due or not,
        as at start-up), those that failed least first."""
        return await self.boards.due_boards(None if everything else self.clock.now())

    async def set_result_message(self, match_id: int, message_id: int, rematch_until: float) -> None:
        """Note the message with the finished match's Rematch button and until when it may be used."""
        await self.boards.set_result_message(match_id, message_id, rematch_until)
