"""The turn clock and challenge expiry as the scheduler sees them: what is due, and when next.

Deadlines are set by the match transactions themselves (``matches.set_deadlines``); here they are
read, and a due reminder is claimed so that it is sent once, even across restarts.
"""

from __future__ import annotations

from bot.store.connection import Connection
from bot.store.matches import BEHIND, match_record, saved_record
from bot.store.records import MatchRecord
from bot.store.scope import Scope


class DeadlineStore:
    def __init__(self, connection: Connection, scope: Scope | None = None) -> None:
        self._c = connection
        self._mine = (scope or Scope()).where()

    async def due_reminders(self, now: float) -> list[MatchRecord]:
        rows = await self._c.all(
            "SELECT * FROM matches WHERE status = 'active' AND reminder_at <= ? AND shown_version >= board_version"
            f" AND {self._mine}"
            " ORDER BY reminder_at",
            (now,),
        )
        return [match_record(r) for r in rows]

    async def claim_reminder(self, match_id: int, reminder_at: float) -> MatchRecord | None:
        """Take a due reminder so that it is sent once: the record as saved; None if it was taken or
        moved meanwhile."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET reminder_at = NULL WHERE id = ? AND reminder_at = ? AND status = 'active'",
                (match_id, reminder_at),
            )
            return await saved_record(db, match_id) if changed == 1 else None

    async def due_timeouts(self, now: float) -> list[MatchRecord]:
        rows = await self._c.all(
            "SELECT * FROM matches WHERE status = 'active' AND timeout_at <= ? AND shown_version >= board_version"
            f" AND {self._mine}"
            " ORDER BY timeout_at",
            (now,),
        )
        return [match_record(r) for r in rows]

    async def due_windows(self, now: float) -> list[MatchRecord]:
        """Active matches whose open response window has run out (its board is shown)."""
        rows = await self._c.all(
            "SELECT * FROM matches WHERE status = 'active' AND window_at <= ? AND shown_version >= board_version"
            f" AND {self._mine}"
            " ORDER BY window_at",
            (now,),
        )
        return [match_record(r) for r in rows]

    async def due_rematches(self, now: float) -> list[MatchRecord]:
        """Finished matches whose Rematch button has run out and is still shown enabled."""
        rows = await self._c.all(
            f"SELECT * FROM matches WHERE rematch_until <= ? AND {self._mine} ORDER BY rematch_until", (now,)
        )
        return [match_record(r) for r in rows]

    async def claim_rematch_expiry(self, match_id: int, rematch_until: float) -> bool:
        """Take a run-out Rematch button so that it is greyed out once: False if taken meanwhile."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE matches SET rematch_until = NULL WHERE id = ? AND rematch_until = ?",
                (match_id, rematch_until),
            )
            return changed == 1

    async def beat(self, now: float) -> None:
        """Record that the bot is running at ``now`` (the scheduler does this at every round)."""
        async with self._c.transaction() as db:
            await db.execute(
                "INSERT INTO heartbeat (id, alive_at) VALUES (1, ?)"
                " ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at",
                (now,),
            )

    async def forgive_downtime(self, now: float, *, slack: float) -> tuple[float, int]:
        """Give back the time the bot was down: every turn clock (and response window clock) still
        running when it was last seen alive moves on by the time since then, so each player keeps the
        time (and the reminder, and the live clock's reserve) they had left, and the board of each such match is to be drawn again
        (``redraw``: it shows the deadline). Returns (seconds given back, matches whose clocks moved);
        nothing for a gap of at most ``slack`` seconds (the scheduler's usual round)."""
        async with self._c.transaction() as db:
            row = await db.one("SELECT alive_at FROM heartbeat WHERE id = 1")
            if row is None or now - float(row[0]) <= slack:
                return 0.0, 0
            alive_at = float(row[0])
            down = now - alive_at
            changed = await db.execute(
                "UPDATE matches SET timeout_at = timeout_at + ?, redraw = 1,"
                " reminder_at = CASE WHEN reminder_at IS NULL THEN NULL ELSE reminder_at + ? END,"
                " clock_since = CASE WHEN clock_since IS NULL THEN NULL ELSE clock_since + ? END"
                " WHERE status = 'active' AND timeout_at IS NOT NULL AND timeout_at > ?",
                (down, down, down, alive_at),
            )
            moved = changed
            changed = await db.execute(
                "UPDATE matches SET window_at = window_at + ?, redraw = 1"
                " WHERE status = 'active' AND window_at IS NOT NULL AND window_at > ?",
                (down, alive_at),
            )
            moved += changed
            await db.execute("UPDATE heartbeat SET alive_at = ? WHERE id = 1", (now,))
            return down, moved

    async def earliest(self) -> float | None:
        """The earliest pending deadline of any kind: challenge expiry, reminder, timeout, response
        window, rematch expiry, the next try at a board that could not be shown (of this scope)."""
        mine = self._mine
        row = await self._c.one(
            f"SELECT MIN(t) FROM (SELECT MIN(expires_at) AS t FROM challenges WHERE status = 'pending' AND {mine}"
            f" UNION ALL SELECT MIN(reminder_at) FROM matches WHERE status = 'active' AND {mine}"
            f" UNION ALL SELECT MIN(timeout_at) FROM matches WHERE status = 'active' AND {mine}"
            f" UNION ALL SELECT MIN(window_at) FROM matches WHERE status = 'active' AND {mine}"
            f" UNION ALL SELECT MIN(rematch_until) FROM matches WHERE {mine}"
            f" UNION ALL SELECT MIN(show_after) FROM matches WHERE {BEHIND} AND {mine}) AS due"
        )
        return float(row[0]) if row and row[0] is not None else None
