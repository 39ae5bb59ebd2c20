"""Per-server settings, read through a small cache so that every action does not cost a query."""

from __future__ import annotations

from bot.store import GuildSettings, Store


class ServerSettings:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: dict[int, GuildSettings] = {}

    async def get(self, guild_id: int | None) -> GuildSettings:
        if guild_id is None:
            return GuildSettings(guild_id=0)
        found = self._cache.get(guild_id)
        if found is None:
            found = await self.store.settings.get(guild_id)
            self._cache[guild_id] = found
        return found

    async def save(self, settings: GuildSettings) -> None:
        await self.store.settings.save(settings)
        self._cache[settings.guild_id] = settings
