"""Tournaments: the row of each (its rules state as ``Tournament.to_json``), its entrants while signing
up, and the link from each pairing's match to its (tournament, round, table).

Every change of a tournament's row is compare-and-set on its ``version`` (``save``): two processes
recording results at once cannot both pair the next round; the loser reads the row again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.store.connection import Connection
from bot.store.rows import encode, from_row

OPEN = ("signup", "running", "paused")


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    name: str
    game: str
    options: dict[str, Any]
    format: str
    rounds: int | None
    signup_until: float | None
    round_seconds: float
    round_until: float | None
    state: str | None
    status: str
    version: int
    created_by: int
    created_at: float
    updated_at: float
    paused_left: float | None = None
    announced: int = 0


@dataclass(frozen=True, slots=True)
class TournamentMatch:
    """A pairing's match: ``match_id`` None while it is claimed but not made yet."""

    tournament_id: int
    round: int
    table_no: int
    match_id: int | None
    claimed_at: float
    recorded: int = 0
    opened_at: int | None = None
    """The match's version when it was made: a later one means a player has moved."""


class TournamentStore:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        name: str,
        game: str,
        options: dict[str, Any],
        format: str,
        rounds: int | None,
        signup_until: float | None,
        round_seconds: float,
        created_by: int,
        now: float,
    ) -> TournamentRecord:
        async with self._c.transaction() as db:
            new_id = await db.insert(
                "INSERT INTO tournaments (guild_id, channel_id, name, game, options, format, rounds,"
                " signup_until, round_seconds, status, version, created_by, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'signup', 0, ?, ?, ?)",
                (
                    guild_id,
                    channel_id,
                    name,
                    game,
                    encode("options", options),
                    format,
                    rounds,
                    signup_until,
                    round_seconds,
                    created_by,
                    now,
                    now,
                ),
            )
        assert new_id is not None
        found = await self.get(new_id)
        assert found is not None
        return found

    async def get(self, tournament_id: int) -> TournamentRecord | None:
        row = await self._c.one("SELECT * FROM tournaments WHERE id = ?", (tournament_id,))
        return from_row(TournamentRecord, row) if row else None

    async def open_in(self, guild_id: int) -> list[TournamentRecord]:
        """The server's tournaments not over yet, the newest first."""
        rows = await self._c.all(
            "SELECT * FROM tournaments WHERE guild_id = ? AND status IN ('signup', 'running', 'paused')"
            " ORDER BY id DESC",
            (guild_id,),
        )
        return [from_row(TournamentRecord, r) for r in rows]

    async def latest_in(self, guild_id: int) -> TournamentRecord | None:
        row = await self._c.one(
            "SELECT * FROM tournaments WHERE guild_id = ? ORDER BY id DESC LIMIT 1", (guild_id,)
        )
        return from_row(TournamentRecord, row) if row else None

    async def with_status(self, *statuses: str) -> list[TournamentRecord]:
        marks = ", ".join("?" for _ in statuses)
        rows = await self._c.all(f"SELECT * FROM tournaments WHERE status IN ({marks}) ORDER BY id", statuses)
        return [from_row(TournamentRecord, r) for r in rows]

    async def save(self, record: TournamentRecord, now: float, **changes: Any) -> TournamentRecord | None:
        """``changes`` saved if the row is still at ``record.version``: the row as saved, with its
        version raised; None when another writer moved it on first (nothing saved)."""
        columns = ", ".join(f"{name} = ?" for name in changes)
        values = [encode(name, value) for name, value in changes.items()]
        async with self._c.transaction() as db:
            changed = await db.execute(
                f"UPDATE tournaments SET {columns}{', ' if columns else ''}version = version + 1,"
                " updated_at = ? WHERE id = ? AND version = ?",
                (*values, now, record.id, record.version),
            )
        if changed != 1:
            return None
        return await self.get(record.id)

    # -- entrants ------------------------------------------------------------------------------------

    async def join(self, tournament_id: int, user_id: int, name: str, now: float) -> bool:
        """Add the entrant while sign-up is open; False if they were in already or sign-up is closed."""
        async with self._c.transaction() as db:
            # The status is checked in the same statement: a Join racing a Start cannot slip in after.
            changed = await db.execute(
                "INSERT INTO tournament_entrants (tournament_id, user_id, joined_at, name)"
                " SELECT id, ?, ?, ? FROM tournaments WHERE id = ? AND status = 'signup'"
                " ON CONFLICT DO NOTHING",
                (user_id, now, name, tournament_id),
            )
            return changed == 1

    async def leave(self, tournament_id: int, user_id: int) -> bool:
        async with self._c.transaction() as db:
            changed = await db.execute(
                "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ? AND EXISTS"
                " (SELECT 1 FROM tournaments WHERE id = ? AND status = 'signup')",
                (tournament_id, user_id, tournament_id),
            )
            return changed == 1

    async def entrants(self, tournament_id: int) -> list[tuple[int, str]]:
        """(user id, name), in sign-up order."""
        rows = await self._c.all(
            "SELECT user_id, name FROM tournament_entrants WHERE tournament_id = ?"
            " ORDER BY joined_at, user_id",
            (tournament_id,),
        )
        return [(int(r[0]), str(r[1])) for r in rows]

    # -- the pairings' matches -----------------------------------------------------------------------

    async def claim_table(self, tournament_id: int, round: int, table: int, now: float) -> bool:
        """Take the making of this pairing's match; False when another writer took it already."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "INSERT INTO tournament_matches (tournament_id, round, table_no, claimed_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (tournament_id, round, table, now),
            )
            return changed == 1

    async def link(self, tournament_id: int, round: int, table: int, match_id: int, version: int) -> None:
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE tournament_matches SET match_id = ?, opened_at = ? WHERE tournament_id = ? AND round = ?"
                " AND table_no = ?",
                (match_id, version, tournament_id, round, table),
            )

    async def unclaim_stale(self, tournament_id: int, claimed_before: float) -> int:
        """Drop claims whose match was never made (the process died between claim and match)."""
        async with self._c.transaction() as db:
            return await db.execute(
                "DELETE FROM tournament_matches WHERE tournament_id = ? AND match_id IS NULL"
                " AND claimed_at < ?",
                (tournament_id, claimed_before),
            )

    async def tables(self, tournament_id: int, round: int | None = None) -> list[TournamentMatch]:
        sql = "SELECT * FROM tournament_matches WHERE tournament_id = ?"
        args: tuple[Any, ...] = (tournament_id,)
        if round is not None:
            sql += " AND round = ?"
            args = (tournament_id, round)
        rows = await self._c.all(sql + " ORDER BY round, table_no", args)
        return [from_row(TournamentMatch, r) for r in rows]

    async def of_match(self, match_id: int) -> TournamentMatch | None:
        row = await self._c.one("SELECT * FROM tournament_matches WHERE match_id = ?", (match_id,))
        return from_row(TournamentMatch, row) if row else None

    async def unrecorded_finished(self) -> list[TournamentMatch]:
        """Pairings whose match is over but whose result the tournament has not taken yet (it ended
        while the process was down, or between a result and its recording)."""
        rows = await self._c.all(
            "SELECT tm.* FROM tournament_matches tm JOIN matches m ON m.id = tm.match_id"
            " WHERE tm.recorded = 0 AND m.status != 'active' ORDER BY tm.tournament_id, tm.round, tm.table_no"
        )
        return [from_row(TournamentMatch, r) for r in rows]

    async def mark_recorded(self, match_id: int) -> None:
        async with self._c.transaction() as db:
            await db.execute("UPDATE tournament_matches SET recorded = 1 WHERE match_id = ?", (match_id,))

    async def due_signups(self, now: float) -> list[TournamentRecord]:
        rows = await self._c.all(
            "SELECT * FROM tournaments WHERE status = 'signup' AND signup_until IS NOT NULL"
            " AND signup_until <= ? ORDER BY id",
            (now,),
        )
        return [from_row(TournamentRecord, r) for r in rows]

    async def due_rounds(self, now: float) -> list[TournamentRecord]:
        rows = await self._c.all(
            "SELECT * FROM tournaments WHERE status = 'running' AND round_until IS NOT NULL"
            " AND round_until <= ? ORDER BY id",
            (now,),
        )
        return [from_row(TournamentRecord, r) for r in rows]

    async def unannounced(self) -> list[TournamentRecord]:
        """Finished tournaments whose champion is not announced yet (a restart in between)."""
        rows = await self._c.all(
            "SELECT * FROM tournaments WHERE status = 'finished' AND announced = 0 ORDER BY id"
        )
        return [from_row(TournamentRecord, r) for r in rows]

    async def earliest(self) -> float | None:
        """The next sign-up or round deadline of any tournament (for the scheduler's sleep)."""
        row = await self._c.one(
            "SELECT MIN(CASE WHEN status = 'signup' THEN signup_until ELSE round_until END)"
            " FROM tournaments WHERE status IN ('signup', 'running')"
        )
        return None if row is None or row[0] is None else float(row[0])
