"""The store's part for boards and their messages: which board of a match is shown as which message,
what is still to show (a new message, a redraw, a board that failed and waits to be tried again),
the match's thread and the message with its Rematch button."""

from __future__ import annotations

from collections.abc import Sequence

from bot.store.connection import Connection
from bot.store.matches import BEHIND, SET_DEADLINES, deadline_values, match_record, saved_record
from bot.store.records import Deadlines, MatchRecord
from bot.store.scope import Scope


class BoardStore:
    """What is shown of each match (the ``matches`` table's board columns)."""

    def __init__(self, connection: Connection, scope: Scope | None = None) -> None:
        self._c = connection
        self._mine = (scope or Scope()).where()

    async def mark_shown(
        self,
        match_id: int,
        *,
        board_version: int,
        message_id: int | None,
        deadlines: Deadlines | None,
        previous: int | None,
    ) -> MatchRecord | None:
        """Note that the board of ``board_version`` is visible as ``message_id`` in place of
        ``previous`` (the board message the store knew when this one was drawn); start the turn clock
        with ``deadlines`` if that board is still the latest and the match is active with no clock
        running (a turn handed over starts its clock when the board that asks for the move is shown).
        A board of an older version (the match moved on while it was being posted) is noted too, so
        the next showing edits or retires it, but it leaves the match behind. A board drawn again at
        the same version (``redraw``) is noted once. The record as saved; None, with nothing changed, if a board of this
        version or a newer one was already noted, or the board message is no longer ``previous``
        (another showing replaced it): only one message is ever the match's board."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET shown_version = ?, message_id = ?, show_tries = 0, show_after = NULL,"
                " new_board = CASE WHEN board_version = ? THEN 0 ELSE new_board END,"
                " redraw = CASE WHEN board_version = ? THEN 0 ELSE redraw END"
                " WHERE id = ? AND board_version >= ? AND message_id IS ?"
                " AND (shown_version IS NULL OR shown_version < ? OR (shown_version = ? AND redraw = 1))",
                (
                    board_version,
                    message_id,
                    board_version,
                    board_version,
                    match_id,
                    board_version,
                    previous,
                    board_version,
                    board_version,
                ),
            )
            if changed != 1:
                return None
            if deadlines is not None:
                await db.execute(
                    f"UPDATE matches SET {SET_DEADLINES} WHERE id = ?"
                    " AND status = 'active' AND timeout_at IS NULL AND window_at IS NULL AND board_version = ?",
                    (*deadline_values(deadlines), match_id, board_version),
                )
            return await saved_record(db, match_id)

    async def unshown(self, limit: int = 100) -> list[MatchRecord]:
        """Matches whose saved changes are not all on their public board yet (or whose board must be
        drawn again), oldest change first."""
        rows = await self._c.all(
            f"SELECT * FROM matches WHERE {BEHIND} AND {self._mine} ORDER BY updated_at LIMIT ?", (limit,)
        )
        return [match_record(r) for r in rows]

    async def due_boards(self, now: float | None) -> list[int]:
        """The matches whose board is behind and due to be tried (``show_after`` passed; ``now`` None:
        every one), fewest failures first, then the earliest try: an old failure never starves a new
        one."""
        due = "" if now is None else " AND (show_after IS NULL OR show_after <= ?)"
        rows = await self._c.all(
            f"SELECT id FROM matches WHERE {BEHIND} AND {self._mine}{due} ORDER BY show_tries, show_after NULLS FIRST, id",
            () if now is None else (now,),
        )
        return [int(r["id"]) for r in rows]

    async def board_failed(self, match_id: int, now: float, delays: Sequence[float]) -> MatchRecord | None:
        """Note a failed attempt at showing the match's board: the record as saved (``show_tries``:
        failures in a row now, ``show_after``: when it is tried next), the wait after the n-th failure
        being ``delays[n - 1]`` (the last one from then on)."""
        async with self._c.transaction() as db:
            row = await db.one(
                "UPDATE matches SET show_tries = show_tries + 1 WHERE id = ? RETURNING show_tries",
                (match_id,),
            )
            tries = int(row[0]) if row is not None else 1
            after = now + delays[min(tries, len(delays)) - 1]
            await db.execute("UPDATE matches SET show_after = ? WHERE id = ?", (after, match_id))
            return await saved_record(db, match_id)

    async def request_board(self, match_id: int) -> MatchRecord | None:
        """Ask for the active match's board again, as a new message (``/board``): the record as saved,
        None if it is over."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET new_board = 1, redraw = 1, reposts = reposts + 1"
                " WHERE id = ? AND status = 'active'",
                (match_id,),
            )
            return await saved_record(db, match_id) if changed == 1 else None

    async def set_thread(self, match_id: int, channel_id: int, parent_id: int | None) -> MatchRecord | None:
        """The match's thread is open: it is played there from now on. The record as saved."""
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE matches SET channel_id = ?, parent_id = ?, thread_name = NULL, thread_on = NULL"
                " WHERE id = ?",
                (channel_id, parent_id, match_id),
            )
            return await saved_record(db, match_id)

    async def set_message(self, match_id: int, message_id: int | None) -> MatchRecord | None:
        """Make ``message_id`` the match's live board message: the record as saved."""
        async with self._c.transaction() as db:
            await db.execute("UPDATE matches SET message_id = ? WHERE id = ?", (message_id, match_id))
            return await saved_record(db, match_id)

    async def set_result_message(self, match_id: int, message_id: int, rematch_until: float) -> None:
        """Note the message with the finished match's Rematch button and until when it may be used."""
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE matches SET result_message_id = ?, rematch_until = ? WHERE id = ?",
                (message_id, rematch_until, match_id),
            )
