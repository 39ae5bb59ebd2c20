"""Claims on pieces of scheduled work, with a lease (migration 016, ``bot.work_claims``)."""

from __future__ import annotations

from bot.store.connection import Connection


class ClaimStore:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def claim(self, kind: str, item: int, owner: str, now: float, lease: float) -> bool:
        """Take ``item`` of ``kind`` for ``owner`` until ``now + lease``: True if it is ours now (it
        was free, its lease had run out, or we held it already, whose lease is renewed)."""
        async with self._c.transaction() as db:
            row = await db.one(
                "INSERT INTO work_claims (kind, item, owner, until) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (kind, item) DO UPDATE SET owner = excluded.owner, until = excluded.until"
                " WHERE work_claims.until <= ? OR work_claims.owner = excluded.owner RETURNING owner",
                (kind, item, owner, now + lease, now),
            )
            return row is not None

    async def release(self, kind: str, item: int, owner: str) -> None:
        """Give ``item`` back (only if ``owner`` still holds it)."""
        async with self._c.transaction() as db:
            await db.execute(
                "DELETE FROM work_claims WHERE kind = ? AND item = ? AND owner = ?", (kind, item, owner)
            )

    async def holder(self, kind: str, item: int, now: float) -> str | None:
        """Who holds ``item`` now (None: nobody, or its lease ran out)."""
        row = await self._c.one(
            "SELECT owner FROM work_claims WHERE kind = ? AND item = ? AND until > ?", (kind, item, now)
        )
        return None if row is None else str(row[0])

    async def owners(self) -> list[str]:
        """Every owner that holds a claim (its lease run out or not)."""
        rows = await self._c.all("SELECT DISTINCT owner FROM work_claims")
        return [str(r[0]) for r in rows]

    async def release_owner(self, owner: str) -> int:
        """Give back every claim ``owner`` holds (a process known to be gone); how many."""
        async with self._c.transaction() as db:
            return await db.execute("DELETE FROM work_claims WHERE owner = ?", (owner,))
