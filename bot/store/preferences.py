"""Per-player preferences: one row per player and key (``migrations/018_player_preferences.sql``).
A player without a row for a key has its default; which keys and values exist is for
``bot.settings.PREFERENCES`` to say, not the store."""

from __future__ import annotations

from bot.store.connection import Connection


class PreferenceStore:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def of(self, user_id: int) -> dict[str, str]:
        """The preferences ``user_id`` has set, by key (those left at their default are absent)."""
        rows = await self._c.all("SELECT key, value FROM player_preferences WHERE user_id = ?", (user_id,))
        return {str(row[0]): str(row[1]) for row in rows}

    async def save(self, user_id: int, values: dict[str, str], now: float) -> None:
        """Set ``values`` (key to value) for ``user_id`` in one transaction."""
        async with self._c.transaction() as db:
            for key, value in values.items():
                await db.execute(
                    "INSERT INTO player_preferences (user_id, key, value, updated) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value,"
                    " updated = excluded.updated",
                    (user_id, key, value, now),
                )
