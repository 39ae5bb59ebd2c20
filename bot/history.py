"""What the store says of matches and ratings, read for the commands (``/board``, ``/hint``,
``/replay``, ``/stats``, ``/leaderboard`` ...): the one way the cogs read saved records. Nothing
here writes; the services that change a match (``SessionManager`` and its parts) write."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ratings import PlayedMatch, RatedResult, Standing
from bot.store import LoggedAction, MatchRecord, Store
from bot.store.analyses import AnalysisRecord, ErrorRates
from engine import Outcome


class MatchHistory:
    def __init__(self, store: Store) -> None:
        self._store = store

    # -- matches ----------------------------------------------------------------------------------

    async def match(self, match_id: int) -> MatchRecord | None:
        """The saved match (active or over), or None."""
        return await self._store.matches.get(match_id)

    async def matches_of(self, user_id: int, channel_id: int | None = None) -> list[MatchRecord]:
        """The player's active matches (in ``channel_id`` only, when given), oldest first."""
        return await self._store.matches.active(user_id=user_id, channel_id=channel_id)

    async def active_in(self, channel_id: int) -> list[MatchRecord]:
        """The active matches played in ``channel_id``, oldest first."""
        return await self._store.matches.active(channel_id=channel_id)

    async def recent(self, user_id: int, limit: int = 10) -> list[PlayedMatch]:
        """The player's latest matches, newest first."""
        return await self._store.matches.recent(user_id, limit)

    async def action_log(self, match_id: int) -> list[LoggedAction]:
        """Every action of the match in order."""
        return await self._store.matches.action_log(match_id)

    async def result_of(self, match_id: int) -> Outcome | None:
        found = await self._store.matches.result(match_id)
        if found is None:
            return None
        return Outcome(
            winner=found.winner_seat,
            reason=found.reason,
            description=found.description,
            points=found.points,
            length=found.length,
        )

    # -- analyses ---------------------------------------------------------------------------------

    async def analysis(self, match_id: int) -> AnalysisRecord | None:
        """The match's analysis record (requested, computed, posted or failed), or None."""
        return await self._store.analyses.get(match_id)

    async def latest_analysed(self, user_id: int, guild_id: int | None) -> int | None:
        """The player's latest match on the server whose analysis is computed, or None."""
        return await self._store.analyses.latest_of(user_id, guild_id)

    async def error_rates(self, guild_id: int, game: str, user_id: int, last: int = 10) -> ErrorRates:
        """The player's average PR and latest PRs over their analysed matches of ``game`` on the
        server (the only write here: rows of analyses saved before migration 019, once)."""
        return await self._store.analyses.error_rates(user_id, guild_id, game, last)

    # -- ratings ----------------------------------------------------------------------------------

    async def rating_changes(self, match_id: int) -> list[tuple[int, float, float]]:
        """(player, rating before, after) of each rated player of the finished match."""
        return await self._store.ratings.changes(match_id)

    async def standing(self, guild_id: int, game: str, user_id: int) -> Standing | None:
        return await self._store.ratings.standing(guild_id, game, user_id)

    async def standings_of(self, guild_id: int, user_id: int) -> list[Standing]:
        return await self._store.ratings.standings_of(guild_id, user_id)

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Standing]:
        return await self._store.ratings.leaderboard(guild_id, game, limit)

    async def rank(self, guild_id: int, game: str, user_id: int) -> int | None:
        return await self._store.ratings.rank(guild_id, game, user_id)

    async def trends(
        self, guild_id: int, game: str, user_ids: Sequence[int], last: int = 5
    ) -> dict[int, float]:
        return await self._store.ratings.trends(guild_id, game, user_ids, last)

    async def players_rated(self, guild_id: int, game: str) -> int:
        """How many players of ``game`` have a rating on the server."""
        return await self._store.ratings.players_rated(guild_id, game)

    async def rated_results(self, guild_id: int, game: str, user_id: int) -> list[RatedResult]:
        """Every rated match of the player in ``game`` on the server, oldest first."""
        return await self._store.ratings.rated_results(guild_id, game, user_id)
