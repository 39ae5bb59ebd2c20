"""Per-server settings. A server without a row, or a NULL column, has the defaults of ``GuildSettings``."""

from __future__ import annotations

from bot.store.connection import Connection
from bot.store.records import GuildSettings
from bot.store.rows import encode, from_row


class SettingsStore:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def get(self, guild_id: int | None) -> GuildSettings:
        if guild_id is None:
            return GuildSettings(guild_id=0)
        row = await self._c.one("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,))
        return from_row(GuildSettings, row) if row else GuildSettings(guild_id=guild_id)

    async def save(self, settings: GuildSettings) -> None:
        async with self._c.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, reminder_seconds, timeout_seconds, challenge_seconds,"
                " allowed_games, use_threads, results_channel, window_seconds, organiser_role, tournament_rated,"
                " rollout_trials) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET reminder_seconds = excluded.reminder_seconds,"
                " timeout_seconds = excluded.timeout_seconds, challenge_seconds = excluded.challenge_seconds,"
                " allowed_games = excluded.allowed_games, use_threads = excluded.use_threads,"
                " results_channel = excluded.results_channel, window_seconds = excluded.window_seconds,"
                " organiser_role = excluded.organiser_role, tournament_rated = excluded.tournament_rated,"
                " rollout_trials = excluded.rollout_trials",
                (
                    settings.guild_id,
                    settings.reminder_seconds,
                    settings.timeout_seconds,
                    settings.challenge_seconds,
                    encode("allowed_games", settings.allowed_games),
                    encode("use_threads", settings.use_threads),
                    settings.results_channel,
                    settings.window_seconds,
                    settings.organiser_role,
                    encode("tournament_rated", settings.tournament_rated),
                    settings.rollout_trials,
                ),
            )
