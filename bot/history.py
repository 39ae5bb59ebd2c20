"""What the store says of matches and ratings, read for the commands (``/board``, ``/hint``,
``/replay``, ``/stats``, ``/leaderboard`` ...): the one way the cogs read saved records. Nothing
here writes; the services that change a match (``SessionManager`` and its parts) write."""

from __future__ import annotations

from collections.abc import Sequence

from bot.ratings import PlayedMatch, RatedResult, Standing
from bot.session import UserError
from bot.store import LoggedAction, MatchRecord, Store
from bot.store.analyses import AnalysisRecord, ErrorRates
from engine import VARIANTS, Outcome

NAMED_ELSEWHERE = 10
"""At most this many of a player's matches are named when they have none where they asked."""


class NoMatchHere(UserError):
    """The player has no match in progress where they asked; the message names where theirs are
    (``elsewhere``: those of this server, in this channel's threads first)."""

    def __init__(self, elsewhere: Sequence[MatchRecord]) -> None:
        self.elsewhere = tuple(elsewhere)
        if not elsewhere:
            super().__init__("You have no match in progress here. Start one with /challenge.")
            return
        named = ", ".join(
            f"match #{m.id} ({VARIANTS[m.game].title if m.game in VARIANTS else m.game}) in <#{m.channel_id}>"
            for m in elsewhere[:NAMED_ELSEWHERE]
        )
        more = len(elsewhere) - NAMED_ELSEWHERE
        super().__init__(
            f"You have no match in progress here. Yours are elsewhere: {named}"
            f"{f', and {more} more' if more > 0 else ''}. Use the command there, or start a match "
            "here with /challenge."
        )


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

    async def in_progress_here(
        self, user_id: int, channel_id: int | None, guild_id: int | None
    ) -> list[MatchRecord]:
        """The player's matches in progress in ``channel_id``, oldest first; none: ``NoMatchHere``,
        naming where theirs are (``elsewhere``)."""
        here = await self.matches_of(user_id, channel_id)
        if not here:
            raise NoMatchHere(await self.elsewhere(user_id, channel_id, guild_id))
        return here

    async def elsewhere(
        self, user_id: int, channel_id: int | None, guild_id: int | None
    ) -> list[MatchRecord]:
        """The player's matches in progress on server ``guild_id`` but not in ``channel_id``: those
        in the threads of ``channel_id`` first, then the rest, each oldest first (none outside a
        server: another server's channels mean nothing here)."""
        if guild_id is None:
            return []
        theirs = [
            m for m in await self.matches_of(user_id) if m.guild_id == guild_id and m.channel_id != channel_id
        ]
        return sorted(theirs, key=lambda m: channel_id is None or m.parent_id != channel_id)

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
