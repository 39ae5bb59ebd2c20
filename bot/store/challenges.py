"""Challenges: pending until accepted (by the transaction that creates the match), declined,
cancelled or expired."""

from __future__ import annotations

from typing import Any

from bot.store.connection import Connection
from bot.store.records import ChallengeRecord
from bot.store.rows import encode, from_row
from bot.store.scope import Scope


class ChallengeStore:
    def __init__(self, connection: Connection, scope: Scope | None = None) -> None:
        self._c = connection
        self._mine = (scope or Scope()).where()

    async def create(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        challenger_id: int,
        opponent_id: int,
        game: str,
        options: dict[str, Any],
        rated: bool,
        now: float,
        expires_at: float,
        rematch_of: int | None = None,
    ) -> tuple[ChallengeRecord, bool]:
        """The new pending challenge and True; or, when the same two players already have one pending
        for this game here (either of them the challenger), that one and False. Atomic: a unique index
        on the unordered pair makes the insert a no-op, so crossed challenges cannot both be created."""
        async with self._c.transaction() as db:
            challenge_id = await db.insert(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, game, options, rated,"
                " status, created_at, expires_at, rematch_of) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)"
                " ON CONFLICT DO NOTHING",
                (
                    guild_id,
                    channel_id,
                    challenger_id,
                    opponent_id,
                    game,
                    encode("options", options),
                    encode("rated", rated),
                    now,
                    expires_at,
                    rematch_of,
                ),
            )
            created = challenge_id is not None
            if challenge_id is None:
                row = await db.one(
                    "SELECT id FROM challenges WHERE status = 'pending' AND game = ? AND channel_id = ?"
                    " AND ((challenger_id = ? AND opponent_id = ?) OR (challenger_id = ? AND opponent_id = ?))",
                    (game, channel_id, challenger_id, opponent_id, opponent_id, challenger_id),
                )
                assert row is not None, "the insert was ignored: a pending challenge of the pair exists"
                challenge_id = int(row[0])
        found = await self.get(challenge_id)
        assert found is not None
        return found, created

    async def get(self, challenge_id: int) -> ChallengeRecord | None:
        row = await self._c.one("SELECT * FROM challenges WHERE id = ?", (challenge_id,))
        return from_row(ChallengeRecord, row) if row else None

    async def pending(self, challenger_id: int, opponent_id: int, now: float) -> ChallengeRecord | None:
        """The latest unexpired pending challenge from ``challenger_id`` to ``opponent_id``, if any."""
        row = await self._c.one(
            "SELECT * FROM challenges WHERE challenger_id = ? AND opponent_id = ? AND status = 'pending'"
            " AND expires_at > ? ORDER BY id DESC LIMIT 1",
            (challenger_id, opponent_id, now),
        )
        return from_row(ChallengeRecord, row) if row else None

    async def set_message(self, challenge_id: int, message_id: int) -> None:
        async with self._c.transaction() as db:
            await db.execute("UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id))

    async def close(self, challenge_id: int, status: str, match_id: int | None = None) -> bool:
        """Move a pending challenge to ``status``; False if it was no longer pending."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE challenges SET status = ?, match_id = ? WHERE id = ? AND status = 'pending'",
                (status, match_id, challenge_id),
            )
            return changed == 1

    async def due(self, now: float) -> list[ChallengeRecord]:
        """Pending challenges whose time is up, the earliest first."""
        rows = await self._c.all(
            f"SELECT * FROM challenges WHERE status = 'pending' AND expires_at <= ? AND {self._mine} ORDER BY expires_at",
            (now,),
        )
        return [from_row(ChallengeRecord, r) for r in rows]

    async def purge_closed(self, expired_before: float) -> int:
        """Delete closed challenges (accepted, declined, cancelled, expired) whose expiry time is before
        ``expired_before``; every challenge is closed by its expiry time at the latest. Pending ones are
        kept. Returns how many were deleted."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "DELETE FROM challenges WHERE status != 'pending' AND expires_at < ?", (expired_before,)
            )
            return changed
