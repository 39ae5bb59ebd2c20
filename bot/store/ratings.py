"""Ratings and rating history, per server and game.

Written only by ``rate_result``, inside the transaction that records a result (``MatchStore.record_actions``,
``MatchStore.end``); read by cogs/stats.py. Only rated matches of a server with a winner change anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.ratings import RatedResult, Standing, next_streak, rate_match
from bot.store.connection import Connection, Transaction
from bot.store.records import ResultRecord
from bot.store.rows import from_row


async def rate_result(db: Transaction, result: ResultRecord, now: float) -> None:
    """Update both players' ratings and history for ``result``, if its match is rated.

    ``db`` is the open transaction that saves the result: both are kept, or neither.
    """
    match = await db.one(
        "SELECT guild_id, game, rated, player0, player1 FROM matches WHERE id = ?", (result.match_id,)
    )
    if match is None or not match["rated"] or match["guild_id"] is None:
        return
    if result.winner_seat not in (0, 1):
        return
    guild_id, game = int(match["guild_id"]), str(match["game"])
    winner_id = int(match[f"player{result.winner_seat}"])
    loser_id = int(match[f"player{1 - result.winner_seat}"])
    if winner_id == loser_id:
        return
    # Two results of one server's game in two processes at once must not both read the same rating.
    await db.serialize(f"ratings {guild_id} {game}")
    winner = await _standing(db, guild_id, game, winner_id)
    loser = await _standing(db, guild_id, game, loser_id)
    # The engine gives every result a length of at least 1; a bad one must not block the result.
    change = rate_match(winner.player, loser.player, max(1, result.length))
    for before, after, won in (
        (winner, change.winner_after, True),
        (loser, change.loser_after, False),
    ):
        await db.execute(
            "INSERT INTO ratings (guild_id, game, user_id, rating, experience, wins, losses, streak,"
            " updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game, user_id) DO UPDATE"
            " SET rating = excluded.rating, experience = excluded.experience, wins = excluded.wins,"
            " losses = excluded.losses, streak = excluded.streak, updated_at = excluded.updated_at",
            (
                guild_id,
                game,
                before.user_id,
                after.rating,
                after.experience,
                before.wins + int(won),
                before.losses + int(not won),
                next_streak(before.streak, won),
                now,
            ),
        )
        await db.execute(
            "INSERT INTO rating_history (match_id, guild_id, game, user_id, before, after, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (result.match_id, guild_id, game, before.user_id, before.rating, after.rating, now),
        )


async def _standing(db: Transaction, guild_id: int, game: str, user_id: int) -> Standing:
    row = await db.one(
        "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
    )
    if row is None:
        return Standing(guild_id=guild_id, game=game, user_id=user_id)
    return from_row(Standing, row)


class RatingStore:
    """Reading ratings: standings, the leaderboard, trends and each player's rated results."""

    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def changes(self, match_id: int) -> list[tuple[int, float, float]]:
        """(user id, rating before, rating after) for each player of a rated match; empty if unrated."""
        rows = await self._c.all(
            "SELECT user_id, before, after FROM rating_history WHERE match_id = ? ORDER BY user_id",
            (match_id,),
        )
        return [(int(r["user_id"]), float(r["before"]), float(r["after"])) for r in rows]

    async def standing(self, guild_id: int, game: str, user_id: int) -> Standing | None:
        """A player's rating in ``game`` on the server, or None if they have no rated match there."""
        row = await self._c.one(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
        )
        return from_row(Standing, row) if row else None

    async def standings_of(self, guild_id: int, user_id: int) -> list[Standing]:
        """A player's ratings in every game they have played rated on the server, most recent first."""
        rows = await self._c.all(
            "SELECT * FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY updated_at DESC, game",
            (guild_id, user_id),
        )
        return [from_row(Standing, r) for r in rows]

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[Standing]:
        """The server's best ``limit`` players of ``game``, best first (ties: the earlier user id)."""
        rows = await self._c.all(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? ORDER BY rating DESC, user_id LIMIT ?",
            (guild_id, game, limit),
        )
        return [from_row(Standing, r) for r in rows]

    async def players_rated(self, guild_id: int, game: str) -> int:
        """How many players of ``game`` have a rating on the server."""
        row = await self._c.one(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND game = ?", (guild_id, game)
        )
        return int(row[0]) if row else 0

    async def rank(self, guild_id: int, game: str, user_id: int) -> int | None:
        """The player's place on the leaderboard (1 = first), or None if they are not on it."""
        mine = await self.standing(guild_id, game, user_id)
        if mine is None:
            return None
        row = await self._c.one(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND game = ?"
            " AND (rating > ? OR (rating = ? AND user_id < ?))",
            (guild_id, game, mine.rating, mine.rating, user_id),
        )
        return 1 + (int(row[0]) if row else 0)

    async def trends(
        self, guild_id: int, game: str, user_ids: Sequence[int], last: int = 5
    ) -> dict[int, float]:
        """Each player's rating change over their ``last`` rated matches of ``game`` on the server."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        rows = await self._c.all(
            "SELECT user_id, SUM(after - before) AS trend FROM (SELECT user_id, before, after, ROW_NUMBER()"
            " OVER (PARTITION BY user_id ORDER BY at DESC, match_id DESC) AS n FROM rating_history"
            f" WHERE guild_id = ? AND game = ? AND user_id IN ({marks})) AS latest WHERE n <= ? GROUP BY user_id",
            (guild_id, game, *user_ids, last),
        )
        return {int(r["user_id"]): float(r["trend"]) for r in rows}

    async def rated_results(self, guild_id: int, game: str, user_id: int) -> list[RatedResult]:
        """Every rated match of the player in ``game`` on the server, oldest first."""
        rows = await self._c.all(
            "SELECT h.match_id, h.game, h.before, h.after, h.at, m.player0, m.player1, r.winner_seat"
            " FROM rating_history h JOIN matches m ON m.id = h.match_id JOIN results r ON r.match_id = h.match_id"
            " WHERE h.guild_id = ? AND h.game = ? AND h.user_id = ? ORDER BY h.at, h.match_id",
            (guild_id, game, user_id),
        )
        found = []
        for r in rows:
            seat = 0 if r["player0"] == user_id else 1
            found.append(
                from_row(
                    RatedResult,
                    r,
                    opponent_id=r["player1"] if seat == 0 else r["player0"],
                    won=r["winner_seat"] == seat,
                )
            )
        return found
