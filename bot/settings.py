"""Per-server settings, read through a small cache so that every action does not cost a query, and
per-player preferences."""

from __future__ import annotations

from dataclasses import dataclass

from bot.clock import Clock
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


@dataclass(frozen=True, slots=True)
class Preference:
    """One per-player preference, on or off; off is the bot's behaviour without it."""

    key: str
    title: str
    """What it does, in a few words (the /preferences option and the listing)."""
    explain: str
    """What it does, in a sentence, for the listing."""


AUTO_ROLL = Preference(
    "auto_roll",
    "Auto-roll when a double is not sensible",
    "Before your roll, when the engine finds a double wrong by a wide margin, the bot rolls for you "
    "at once (when you cannot double at all, it always does).",
)
AUTO_CONFIRM = Preference(
    "auto_confirm",
    "Confirm automatically",
    "A play is final as soon as it is complete: no Confirm or Undo step.",
)
TUTOR = Preference(
    "tutor",
    "Tutor",
    "In an unrated match (against me, a money game, a set position, or a challenge made unrated), "
    "before a play or cube decision that loses 0.04 or more is final, your private panel says so and "
    "shows the better choice; Undo, or Confirm anyway. Backgammon only; never in a rated match.",
)
PREFERENCES: dict[str, Preference] = {p.key: p for p in (AUTO_ROLL, AUTO_CONFIRM, TUTOR)}
"""Every per-player preference by key. They apply in every game where they mean something (a game
without a cube never asks whether to double; a game whose turns need no Confirm has none to skip)."""

ON, OFF = "on", "off"


@dataclass(frozen=True, slots=True)
class PlayerPrefs:
    """One player's preferences: the keys that are on."""

    on: frozenset[str] = frozenset()

    def __getitem__(self, preference: Preference) -> bool:
        return preference.key in self.on


class PlayerPreferences:
    """Per-player preferences, global: they follow the player from server to server, as "my settings"
    do on other sites. Read from the store each time (one lookup by key, and only at a decision a
    preference can change): several bot processes may share the store, and a player's change in one
    server must hold at once in a match another process plays."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock

    async def get(self, user_id: int) -> PlayerPrefs:
        saved = await self.store.preferences.of(user_id)
        # A value that is not "on" (an unknown key, a damaged value) leaves the default.
        return PlayerPrefs(frozenset(k for k, v in saved.items() if k in PREFERENCES and v == ON))

    async def save(self, user_id: int, changes: dict[str, bool]) -> PlayerPrefs:
        """Set the preferences in ``changes`` (key to on/off); ``ValueError`` names an unknown key."""
        unknown = sorted(set(changes) - set(PREFERENCES))
        if unknown:
            raise ValueError(f"there is no preference called {unknown[0]!r}")
        await self.store.preferences.save(
            user_id, {k: ON if v else OFF for k, v in changes.items()}, self.clock.now()
        )
        return await self.get(user_id)
