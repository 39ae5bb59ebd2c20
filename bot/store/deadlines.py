"""The turn clock and challenge expiry as the scheduler sees them: what is due, and when next.

Deadlines are set by the match transactions themselves (``matches.set_deadlines``); here they are
read, and a due reminder is claimed so that it is sent once, even across restarts. The heartbeat
(when the bot last surely ran and took clicks, and whether it stopped then knowingly) is kept here
too, with what downtime does to the clocks (``forgive_downtime``, ``connected``; ``app.heartbeat``
writes it).
"""

from __future__ import annotations

from bot.store.connection import Connection, Transaction
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
        """Record that the bot is running and taking clicks at ``now`` (the scheduler does this at
        every round)."""
        async with self._c.transaction() as db:
            await db.execute(
                "INSERT INTO heartbeat (id, alive_at, stopped) VALUES (1, ?, 0)"
                " ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at, stopped = 0",
                (now,),
            )

    async def beat_live(self, now: float) -> None:
        """``beat`` if a live clock of this scope runs (the bot does this every second while one
        does: a kill -9 then leaves the last moment it surely ran at most that far behind)."""
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE heartbeat SET alive_at = ?, stopped = 0 WHERE id = 1 AND EXISTS (SELECT 1 FROM matches"
                f" WHERE clock_since IS NOT NULL AND status = 'active' AND {self._mine})",
                (now,),
            )

    async def stopped(self, now: float) -> None:
        """Record that the bot stopped taking clicks at ``now`` (a SIGTERM's draining begins, or it
        closes): its downtime counts from there exactly."""
        async with self._c.transaction() as db:
            await db.execute("UPDATE heartbeat SET alive_at = ?, stopped = 1 WHERE id = 1", (now,))

    async def forgive_downtime(self, now: float, *, slack: float, margin: float) -> tuple[float, int]:
        """At start-up, give back the time the bot was down, as far as the heartbeat tells it.

        A live clock gets back every second from the moment the bot was last surely running (the
        heartbeat, or its own start if later) to ``now``; after a stop the bot did not see coming
        (the heartbeat not ``stopped``: a kill -9, the machine) it may have run ``margin`` seconds
        past its last beat, so only the time after that is given back, never time it ran. A turn
        clock (and a response window's clock) still running when the bot was last seen alive moves
        on by the whole time since then, so each player keeps the time (and the reminder) they had
        left; but not for a gap of at most ``slack`` seconds (the scheduler's usual round). The board
        of each match whose clock moved is to be drawn again (``redraw``: it shows the deadline).
        The heartbeat then says that the bot stopped at ``now``: it takes no click until it is
        connected (``connected``). Returns (seconds since the bot was last seen alive, matches whose
        clocks moved)."""
        async with self._c.transaction() as db:
            row = await db.one("SELECT alive_at, stopped FROM heartbeat WHERE id = 1")
            down, moved = 0.0, 0
            if row is not None:
                alive_at = float(row[0])
                down = now - alive_at
                moved = await _forgive_live_clocks(db, now, alive_at, 0.0 if row[1] else margin)
                if down > slack:
                    moved += await _forgive_turn_clocks(db, down, alive_at)
            await db.execute(
                "INSERT INTO heartbeat (id, alive_at, stopped) VALUES (1, ?, 1)"
                " ON CONFLICT (id) DO UPDATE SET alive_at = excluded.alive_at, stopped = 1",
                (now,),
            )
            return down, moved

    async def connected(self, paused_at: float, now: float) -> int:
        """The bot, which gave the downtime back at ``paused_at`` (``forgive_downtime``), is
        connected to Discord at ``now`` and takes clicks from now on: the live clocks of this scope
        that were running then get that wait back too, and the heartbeat says the bot runs. Returns
        the matches whose clocks moved."""
        async with self._c.transaction() as db:
            moved = 0
            if now > paused_at:
                moved = await db.execute(
                    "UPDATE matches SET timeout_at = timeout_at + ?, clock_since = clock_since + ?, redraw = 1"
                    " WHERE clock_since IS NOT NULL AND clock_since <= ? AND timeout_at IS NOT NULL"
                    f" AND status = 'active' AND {self._mine}",
                    (now - paused_at, now - paused_at, paused_at),
                )
            await db.execute("UPDATE heartbeat SET alive_at = ?, stopped = 0 WHERE id = 1", (now,))
            return moved

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


async def _forgive_live_clocks(db: Transaction, now: float, alive_at: float, margin: float) -> int:
    """Give every running live clock back the time from when the bot was last surely running, by
    the heartbeat (``alive_at``, plus ``margin`` for a stop it did not see coming) or by the clock's
    own start if later, to ``now``; the number of clocks moved."""
    rows = await db.all(
        "SELECT id, clock_since FROM matches"
        " WHERE clock_since IS NOT NULL AND timeout_at IS NOT NULL AND status = 'active'"
    )
    moved = 0
    for row in rows:
        back = now - (max(float(row["clock_since"]), alive_at) + margin)
        if back > 0:
            await db.execute(
                "UPDATE matches SET timeout_at = timeout_at + ?, clock_since = clock_since + ?, redraw = 1"
                " WHERE id = ?",
                (back, back, row["id"]),
            )
            moved += 1
    return moved


async def _forgive_turn_clocks(db: Transaction, down: float, alive_at: float) -> int:
    """Move every turn clock and response window clock still running at ``alive_at`` on by
    ``down`` seconds; the number of matches moved."""
    moved = await db.execute(
        "UPDATE matches SET timeout_at = timeout_at + ?, redraw = 1,"
        " reminder_at = CASE WHEN reminder_at IS NULL THEN NULL ELSE reminder_at + ? END"
        " WHERE status = 'active' AND clock_since IS NULL AND timeout_at IS NOT NULL AND timeout_at > ?",
        (down, down, alive_at),
    )
    moved += await db.execute(
        "UPDATE matches SET window_at = window_at + ?, redraw = 1"
        " WHERE status = 'active' AND window_at IS NOT NULL AND window_at > ?",
        (down, alive_at),
    )
    return moved
