"""Matches, their action logs and results.

An action, the state it produced, the turn clock and (if it ended the match) the result and the
ratings are saved in one transaction, before anyone is shown the result.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from bot.ratings import PlayedMatch
from bot.store.compaction import compact_logs, unpack_log
from bot.store.connection import Conflict, Connection, Row, Transaction
from bot.store.ratings import rate_result
from bot.store.records import Deadlines, LoggedAction, MatchRecord, ResultRecord
from bot.store.rows import encode, from_row
from engine import EndReason, GameError, find_variant
from engine.live_clock import LiveClock, charged

log = logging.getLogger(__name__)


class ComputerMatchExists(Exception):
    """The player has an active match against the computer in that place already (nothing saved)."""


class ChallengeAnswered(Exception):
    """The challenge a match was to start from is no longer pending (answered a moment ago)."""


class AlreadyRematched(Exception):
    """The finished match a rematch was to start from has had its rematch already (its id)."""


BEHIND = "(shown_version IS NULL OR shown_version < board_version OR redraw = 1)"
"""A match whose board is behind what is saved, or must be drawn again (the ``matches_behind`` index)."""


def match_record(row: Row) -> MatchRecord:
    """A match row as a record (the two player columns make one field)."""
    left = None if row["clock_delay"] is None else (float(row["clock_left0"]), float(row["clock_left1"]))
    return from_row(MatchRecord, row, players=(row["player0"], row["player1"]), clock_left=left)


async def saved_record(db: Transaction, match_id: int) -> MatchRecord | None:
    """The match's row as this transaction leaves it: what every write returns, so a caller holds
    what was saved rather than a copy it patched by hand."""
    row = await db.one("SELECT * FROM matches WHERE id = ?", (match_id,))
    return match_record(row) if row is not None else None


async def set_deadlines(db: Transaction, match_id: int, deadlines: Deadlines, now: float) -> None:
    """Set the turn clock (or a response window's), inside the transaction (``db``) that handed the
    decision over; the live clock that ran until ``now``, if any, is charged to its player first."""
    await charge_live_clock(db, match_id, now)
    await db.execute(
        f"UPDATE matches SET {SET_DEADLINES} WHERE id = ?", (*deadline_values(deadlines), match_id)
    )


SET_DEADLINES = "reminder_at = ?, timeout_at = ?, window_at = ?, clock_seat = ?, clock_since = ?"
"""The columns of a ``Deadlines``, in the order of ``deadline_values``."""


def deadline_values(deadlines: Deadlines) -> tuple[float | int | None, ...]:
    d = deadlines
    return (d.reminder_at, d.timeout_at, d.window_at, d.clock_seat, d.clock_since)


async def charge_live_clock(db: Transaction, match_id: int, now: float) -> None:
    """Charge the time since the running live clock started (delay first) to its seat's reserve and
    stop it: the decision it ran for is being saved (or the match ends)."""
    row = await db.one(
        "SELECT clock_seat, clock_since, clock_delay, clock_left0, clock_left1 FROM matches WHERE id = ?",
        (match_id,),
    )
    if row is None or row["clock_seat"] is None or row["clock_since"] is None or row["clock_delay"] is None:
        return
    seat = int(row["clock_seat"])
    left = charged(
        float(row[f"clock_left{seat}"]), now - float(row["clock_since"]), float(row["clock_delay"])
    )
    await db.execute(
        f"UPDATE matches SET clock_left{seat} = ?, clock_seat = NULL, clock_since = NULL WHERE id = ?",
        (left, match_id),
    )


async def _insert_actions(
    db: Transaction, match_id: int, version: int, actions: Iterable[LoggedAction], now: float
) -> None:
    await db.executemany(
        "INSERT INTO actions (match_id, seq, seat, notation, created_at) VALUES (?, ?, ?, ?, ?)",
        [(match_id, version + i + 1, a.seat, a.notation, now) for i, a in enumerate(actions)],
    )


async def _insert_result(db: Transaction, result: ResultRecord) -> None:
    await db.execute(
        "INSERT INTO results (match_id, winner_seat, reason, description, points, length, finished_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            result.match_id,
            result.winner_seat,
            str(result.reason),
            result.description,
            result.points,
            result.length,
            result.finished_at,
        ),
    )


_NEW_MATCH = (
    "INSERT INTO matches (guild_id, channel_id, parent_id, game, options, player0, player1,"
    " state, version, status, rated, created_at, updated_at, board_version, new_board,"
    " board_steps, thread_name, thread_on, computer_level, human)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)"
)
"""A new match's row (``MatchStore.create``): active, its first board still to show."""


async def _insert_match(db: Transaction, values: tuple[Any, ...], human: int | None) -> int:
    """The new match's row (``_NEW_MATCH`` with ``values``); its id. ``ComputerMatchExists`` if
    ``human`` has an active match against the computer in that place already."""
    try:
        match_id = await db.insert(_NEW_MATCH, values)
    except Conflict as exc:
        if "one_computer_match" in exc.constraint or "matches.human" in exc.constraint:
            raise ComputerMatchExists(human) from exc
        raise
    assert match_id is not None
    return match_id


async def _start_live_clock(db: Transaction, match_id: int, live_clock: LiveClock) -> None:
    """A new match's live clock: its delay, and each seat's reserve full."""
    await db.execute(
        "UPDATE matches SET clock_delay = ?, clock_left0 = ?, clock_left1 = ? WHERE id = ?",
        (live_clock.delay, live_clock.reserve, live_clock.reserve, match_id),
    )


async def _accept_challenge(db: Transaction, challenge_id: int, match_id: int) -> None:
    """The challenge a new match starts from, accepted; ``ChallengeAnswered`` (which rolls the match
    back) if it is no longer pending."""
    changed = await db.execute(
        "UPDATE challenges SET status = 'accepted', match_id = ? WHERE id = ? AND status = 'pending'",
        (match_id, challenge_id),
    )
    if changed != 1:
        raise ChallengeAnswered(challenge_id)


async def _note_rematch(db: Transaction, rematch_of: int, match_id: int, now: float) -> None:
    """The finished match ``rematch_of`` noted as rematched by ``match_id``, its Rematch button due to
    be greyed out now at the latest; ``AlreadyRematched`` (which rolls the match back) if it was
    rematched already."""
    changed = await db.execute(
        "UPDATE matches SET rematch_id = ?,"
        " rematch_until = CASE WHEN rematch_until > ? THEN ? ELSE rematch_until END"
        " WHERE id = ? AND rematch_id IS NULL",
        (match_id, now, now, rematch_of),
    )
    if changed != 1:
        raise AlreadyRematched(rematch_of)


class MatchStore:
    """Creating, advancing and ending matches; reading them, their logs, results and history."""

    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def create(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        parent_id: int | None,
        game: str,
        options: dict[str, Any],
        players: tuple[int, int],
        state: str,
        actions: Sequence[LoggedAction],
        rated: bool,
        now: float,
        challenge_id: int | None = None,
        deadlines: Deadlines | None = None,
        board_steps: Sequence[dict[str, Any]] = (),
        thread_name: str | None = None,
        thread_on: int | None = None,
        computer_level: str | None = None,
        rematch_of: int | None = None,
        human: int | None = None,
        live_clock: LiveClock | None = None,
    ) -> MatchRecord:
        """Create a match with its first actions (the opening roll) in one transaction; its first
        board is still to show (a new message, in the thread ``thread_name`` when given).

        With ``challenge_id``, that challenge is marked accepted in the same transaction: a challenge
        and its match come into being together, and the publisher shows the rest (thread, board).
        With ``rematch_of``, that finished match is noted as rematched by this one, in the same
        transaction, and its Rematch button comes due to be greyed out (``rematch_until``, now at the
        latest); ``AlreadyRematched`` (nothing saved) if it was rematched already.
        ``human``: the person in a match against the computer; ``ComputerMatchExists`` (nothing saved)
        if they have one active in that place already (the unique index ``one_computer_match``).
        ``live_clock``: the match's live clock, each seat's reserve full.
        """
        async with self._c.transaction() as db:
            match_id = await _insert_match(
                db,
                (
                    guild_id,
                    channel_id,
                    parent_id,
                    game,
                    encode("options", options),
                    players[0],
                    players[1],
                    state,
                    len(actions),
                    encode("rated", rated),
                    now,
                    now,
                    len(actions),
                    encode("board_steps", board_steps),
                    thread_name,
                    thread_on,
                    computer_level,
                    human,
                ),
                human,
            )
            await _insert_actions(db, match_id, 0, actions, now)
            if live_clock is not None:
                await _start_live_clock(db, match_id, live_clock)
            if deadlines is not None:
                await set_deadlines(db, match_id, deadlines, now)
            if challenge_id is not None:
                await _accept_challenge(db, challenge_id, match_id)
            if rematch_of is not None:
                await _note_rematch(db, rematch_of, match_id, now)
        found = await self.get(match_id)
        assert found is not None
        return found

    async def get(self, match_id: int) -> MatchRecord | None:
        row = await self._c.one("SELECT * FROM matches WHERE id = ?", (match_id,))
        return match_record(row) if row else None

    async def active(self, *, channel_id: int | None = None, user_id: int | None = None) -> list[MatchRecord]:
        """Active matches, oldest first; only those in ``channel_id`` and of ``user_id`` when given."""
        sql = "SELECT * FROM matches WHERE status = 'active'"
        args: list[Any] = []
        if channel_id is not None:
            sql += " AND channel_id = ?"
            args.append(channel_id)
        if user_id is not None:
            sql += " AND (player0 = ? OR player1 = ?)"
            args += [user_id, user_id]
        return [match_record(r) for r in await self._c.all(sql + " ORDER BY id", args)]

    async def save_draft(
        self, match_id: int, *, expected_version: int, draft: Sequence[str], now: float
    ) -> MatchRecord | None:
        """Save the turn's steps that are not final yet (a step taken or taken back): a new version,
        nothing else changes. The record as saved; None if the match is no longer at ``expected_version``."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET draft = ?, version = version + 1, updated_at = ?"
                " WHERE id = ? AND version = ? AND status = 'active'",
                (encode("draft", draft) if draft else None, now, match_id, expected_version),
            )
            return await saved_record(db, match_id) if changed == 1 else None

    async def set_always_pass(self, match_id: int, always_pass: tuple[bool, bool]) -> MatchRecord | None:
        """Save the players' standing answers to response windows: the record as saved, None if the
        match is not active."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET always_pass = ? WHERE id = ? AND status = 'active'",
                (encode("always_pass", always_pass), match_id),
            )
            return await saved_record(db, match_id) if changed == 1 else None

    async def record_actions(
        self,
        match_id: int,
        *,
        expected_version: int,
        actions: Sequence[LoggedAction],
        state: str,
        now: float,
        result: ResultRecord | None = None,
        deadlines: Deadlines | None = None,
        board_steps: Sequence[dict[str, Any]] = (),
        turn_steps: Sequence[dict[str, Any]] = (),
        new_board: bool = False,
        always_pass: tuple[bool, bool] | None = None,
    ) -> MatchRecord | None:
        """Save actions, the new state, the turn clock and (if it ended) the result in one transaction,
        with what the public board must show next (``board_steps``; ``new_board``: as a new message).
        The turn's draft, if any, is final now: it is among ``actions`` and is cleared.

        ``deadlines`` None leaves the clock as it is (the same player still decides).
        ``always_pass``: the players' standing answers to response windows, when they change with it.

        Returns the record as saved, or None with nothing changed if the match is no longer at
        ``expected_version``.
        """
        version = expected_version + len(actions)
        async with self._c.transaction() as db:
            status = "finished" if result is not None else "active"
            changed = await db.execute(
                "UPDATE matches SET state = ?, version = ?, status = ?, updated_at = ?, finished_at = ?,"
                " board_version = ?, board_steps = ?, turn_steps = ?, new_board = ?, draft = NULL"
                " WHERE id = ? AND version = ? AND status = 'active'",
                (
                    state,
                    version,
                    status,
                    now,
                    now if result is not None else None,
                    version,
                    encode("board_steps", board_steps),
                    encode("turn_steps", turn_steps),
                    encode("new_board", new_board),
                    match_id,
                    expected_version,
                ),
            )
            if changed != 1:
                return None
            await _insert_actions(db, match_id, expected_version, actions, now)
            if always_pass is not None:
                await db.execute(
                    "UPDATE matches SET always_pass = ? WHERE id = ?",
                    (encode("always_pass", always_pass), match_id),
                )
            if result is not None:
                deadlines = Deadlines(None, None)
            if deadlines is not None:
                await set_deadlines(db, match_id, deadlines, now)
            if result is not None:
                await _insert_result(db, result)
                await rate_result(db, result, now)
            return await saved_record(db, match_id)

    async def end(
        self,
        match_id: int,
        *,
        status: str,
        result: ResultRecord | None,
        now: float,
        board_steps: Sequence[dict[str, Any]] = (),
        expected_version: int | None = None,
    ) -> MatchRecord | None:
        """End an active match without a new action (resignation, timeout, abandonment); its final
        board (describing ``board_steps``) is still to show, as a new message. A draft is dropped.
        ``expected_version``: only if the match is still at that version (the result was computed
        from it). The record as saved; None if the match was not active (or not at that version)."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET status = ?, version = version + 1, board_version = version + 1,"
                " updated_at = ?, finished_at = ?, reminder_at = NULL, timeout_at = NULL, window_at = NULL,"
                " new_board = 1,"
                " board_steps = ?, draft = NULL WHERE id = ? AND status = 'active'"
                + ("" if expected_version is None else " AND version = ?"),
                (status, now, now, encode("board_steps", board_steps), match_id)
                + (() if expected_version is None else (expected_version,)),
            )
            if changed != 1:
                return None
            await charge_live_clock(db, match_id, now)
            if result is not None:
                await _insert_result(db, result)
                await rate_result(db, result, now)
            return await saved_record(db, match_id)

    async def result(self, match_id: int) -> ResultRecord | None:
        """The match's result; raises ``GameError`` (``CorruptStateError``) if its reason is not
        one of its game's (or the game is gone)."""
        row = await self._c.one(
            "SELECT r.*, m.game FROM results r JOIN matches m ON m.id = r.match_id WHERE r.match_id = ?",
            (match_id,),
        )
        if row is None:
            return None
        return from_row(ResultRecord, row, reason=find_variant(row["game"]).read_reason(row["reason"]))

    async def action_log(self, match_id: int) -> list[LoggedAction]:
        """Every action of the match in order (what ``engine.replay`` needs), compacted or not."""
        packed = await self._c.one("SELECT compact_log FROM matches WHERE id = ?", (match_id,))
        if packed is not None and packed["compact_log"] is not None:
            return unpack_log(packed["compact_log"])
        rows = await self._c.all(
            "SELECT seat, notation FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
        )
        return [from_row(LoggedAction, r) for r in rows]

    async def compact_finished(self, finished_before: float, limit: int = 200) -> int:
        """Compact the action logs of up to ``limit`` matches that ended before ``finished_before``
        (``bot.store.compaction``); returns how many (fewer than ``limit``: none is left)."""
        return await compact_logs(self._c, finished_before, limit)

    async def recent(self, user_id: int, limit: int = 10) -> list[PlayedMatch]:
        """The player's latest ``limit`` matches anywhere, finished or not, newest first."""
        rows = await self._c.all(
            "SELECT m.id AS match_id, m.guild_id, m.channel_id, m.game, m.player0, m.player1, m.status,"
            " m.rated, m.created_at, m.finished_at, r.winner_seat, r.reason, h.before, h.after"
            " FROM matches m LEFT JOIN results r ON r.match_id = m.id"
            " LEFT JOIN rating_history h ON h.match_id = m.id AND h.user_id = ?"
            " WHERE m.player0 = ? OR m.player1 = ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
            (user_id, user_id, user_id, limit),
        )
        found = []
        for r in rows:
            seat = 0 if r["player0"] == user_id else 1
            winner = r["winner_seat"]
            found.append(
                from_row(
                    PlayedMatch,
                    r,
                    opponent_id=r["player1"] if seat == 0 else r["player0"],
                    won=None if winner is None else winner == seat,
                    rating_change=None if r["before"] is None else r["after"] - r["before"],
                    reason=_history_reason(r["match_id"], r["game"], r["reason"]),
                )
            )
        return found


def _history_reason(match_id: int, game: str, key: str | None) -> EndReason | None:
    """A result's reason for a history line; one unreadable result must not hide a player's history."""
    if key is None:
        return None
    try:
        return find_variant(game).read_reason(key)
    except GameError as exc:
        log.warning("match %s: saved result reason cannot be read: %s", match_id, exc)
        return None


async def active_counts(connection: Connection) -> dict[str, int]:
    """How many matches are being played, by game (games with none are left out): the metrics' gauge,
    read at each scrape through the ``matches_active`` index."""
    rows = await connection.all(
        "SELECT game, COUNT(*) AS n FROM matches WHERE status = 'active' GROUP BY game"
    )
    return {str(r["game"]): int(r["n"]) for r in rows}
