"""All SQL of the bot, behind one class, so another backend can replace it without touching callers.

SQLite through aiosqlite, with numbered migrations from ``bot/migrations/NNN_name.sql``. Every
change that belongs together (an action, the state it produced, a result) is one transaction.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import aiosqlite

from bot import ratings


class StoreError(Exception):
    """The database cannot be opened or migrated; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    game: str
    options: dict[str, Any]
    rated: bool
    status: str
    match_id: int | None
    created_at: float
    expires_at: float
    rematch_of: int | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    guild_id: int | None
    channel_id: int
    parent_id: int | None
    game: str
    options: dict[str, Any]
    players: tuple[int, int]
    state: str
    version: int
    status: str
    message_id: int | None
    rated: bool
    created_at: float
    updated_at: float
    reminder_at: float | None = None
    timeout_at: float | None = None


@dataclass(frozen=True, slots=True)
class ResultRecord:
    match_id: int
    winner_seat: int | None
    reason: str
    description: str
    points: int
    length: int
    finished_at: float


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's settings; ``None`` fields fall back to the bot's defaults."""

    guild_id: int
    reminder_seconds: float = 12 * 3600.0
    timeout_seconds: float = 48 * 3600.0
    challenge_seconds: float = 600.0
    allowed_games: tuple[str, ...] | None = None
    use_threads: bool = True
    results_channel: int | None = None


@dataclass(frozen=True, slots=True)
class Deadlines:
    """When to remind the player on turn and when they lose by timeout (both ``None``: no clock)."""

    reminder_at: float | None
    timeout_at: float | None


@dataclass(frozen=True, slots=True)
class LoggedAction:
    seat: int | None
    notation: str


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _statements(sql: str) -> list[str]:
    """Split a migration into statements (semicolons inside comments and strings do not count)."""
    statements: list[str] = []
    pending = ""
    for line in sql.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if any(line.strip() and not line.strip().startswith("--") for line in pending.splitlines()):
        raise StoreError(f"a migration ends with an unfinished statement: {pending.strip()[:80]!r}")
    return statements


def _migrations() -> list[tuple[int, str, str]]:
    found = []
    for entry in resources.files("bot.migrations").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), name, entry.read_text(encoding="utf-8")))
    if not found:
        # An install without its package data would otherwise start with no tables at all.
        raise StoreError("no migrations found in the bot.migrations package: the installation is incomplete")
    return sorted(found)


class Store:
    """The SQLite store. Open with ``await Store.open(path)``; close with ``await store.close()``."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Store:
        try:
            db = await aiosqlite.connect(str(path), isolation_level=None)
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot open the database {path}: {exc}") from exc
        db.row_factory = aiosqlite.Row
        store = cls(db)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute("PRAGMA synchronous=NORMAL")
            await db.execute("PRAGMA foreign_keys=ON")
            await store.migrate()
        except StoreError:
            await db.close()
            raise
        except sqlite3.DatabaseError as exc:
            await db.close()
            raise StoreError(
                f"{path} is not a usable database ({exc}); move it away or choose another"
            ) from exc
        return store

    async def close(self) -> None:
        await self._db.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        # One connection serves every coroutine: transactions take turns, or a second BEGIN would
        # land inside the first.
        async with self._write_lock:
            await self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            else:
                await self._db.execute("COMMIT")

    async def migrate(self) -> int:
        """Apply every migration not yet applied; return the schema version."""
        await self._db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)")
        async with self._db.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        for number, _name, sql in _migrations():
            if number <= current:
                continue
            async with self.transaction() as db:
                for statement in _statements(sql):
                    await db.execute(statement)
                await db.execute("INSERT INTO schema_migrations (version) VALUES (?)", (number,))
            current = number
        return current

    # -- challenges -------------------------------------------------------------------------------

    async def create_challenge(
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
    ) -> ChallengeRecord:
        async with self.transaction() as db:
            cur = await db.execute(
                "INSERT INTO challenges (guild_id, channel_id, challenger_id, opponent_id, game, options, rated,"
                " status, created_at, expires_at, rematch_of) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
                (
                    guild_id,
                    channel_id,
                    challenger_id,
                    opponent_id,
                    game,
                    _canonical(options),
                    int(rated),
                    now,
                    expires_at,
                    rematch_of,
                ),
            )
            challenge_id = cur.lastrowid
        assert challenge_id is not None
        found = await self.get_challenge(challenge_id)
        assert found is not None
        return found

    async def get_challenge(self, challenge_id: int) -> ChallengeRecord | None:
        async with self._db.execute("SELECT * FROM challenges WHERE id = ?", (challenge_id,)) as cur:
            row = await cur.fetchone()
        return _challenge(row) if row else None

    async def pending_challenge(
        self, challenger_id: int, opponent_id: int, now: float
    ) -> ChallengeRecord | None:
        async with self._db.execute(
            "SELECT * FROM challenges WHERE challenger_id = ? AND opponent_id = ? AND status = 'pending'"
            " AND expires_at > ? ORDER BY id DESC LIMIT 1",
            (challenger_id, opponent_id, now),
        ) as cur:
            row = await cur.fetchone()
        return _challenge(row) if row else None

    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE challenges SET message_id = ? WHERE id = ?", (message_id, challenge_id))

    async def close_challenge(self, challenge_id: int, status: str, match_id: int | None = None) -> bool:
        """Move a pending challenge to ``status``; False if it was no longer pending."""
        async with self.transaction() as db:
            cur = await db.execute(
                "UPDATE challenges SET status = ?, match_id = ? WHERE id = ? AND status = 'pending'",
                (status, match_id, challenge_id),
            )
            return cur.rowcount == 1

    async def due_challenges(self, now: float) -> list[ChallengeRecord]:
        async with self._db.execute(
            "SELECT * FROM challenges WHERE status = 'pending' AND expires_at <= ? ORDER BY expires_at",
            (now,),
        ) as cur:
            rows = await cur.fetchall()
        return [_challenge(r) for r in rows]

    # -- matches ------------------------------------------------------------------------------------

    async def create_match(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        parent_id: int | None,
        game: str,
        options: dict[str, Any],
        players: tuple[int, int],
        state: str,
        actions: Sequence[LoggedAction],
        rated: bool,
        now: float,
        challenge_id: int | None = None,
        deadlines: Deadlines | None = None,
    ) -> MatchRecord:
        """Create a match with its first actions (the opening roll) in one transaction."""
        async with self.transaction() as db:
            cur = await db.execute(
                "INSERT INTO matches (guild_id, channel_id, parent_id, game, options, player0, player1, state,"
                " version, status, rated, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active',"
                " ?, ?, ?)",
                (
                    guild_id,
                    channel_id,
                    parent_id,
                    game,
                    _canonical(options),
                    players[0],
                    players[1],
                    state,
                    len(actions),
                    int(rated),
                    now,
                    now,
                ),
            )
            match_id = cur.lastrowid
            assert match_id is not None
            await self._insert_actions(db, match_id, 0, actions, now)
            if deadlines is not None:
                await self._set_deadlines(db, match_id, deadlines)
            if challenge_id is not None:
                await db.execute(
                    "UPDATE challenges SET status = 'accepted', match_id = ? WHERE id = ?",
                    (match_id, challenge_id),
                )
        found = await self.get_match(match_id)
        assert found is not None
        return found

    async def _insert_actions(
        self,
        db: aiosqlite.Connection,
        match_id: int,
        version: int,
        actions: Iterable[LoggedAction],
        now: float,
    ) -> None:
        await db.executemany(
            "INSERT INTO actions (match_id, seq, seat, notation, created_at) VALUES (?, ?, ?, ?, ?)",
            [(match_id, version + i + 1, a.seat, a.notation, now) for i, a in enumerate(actions)],
        )

    async def get_match(self, match_id: int) -> MatchRecord | None:
        async with self._db.execute("SELECT * FROM matches WHERE id = ?", (match_id,)) as cur:
            row = await cur.fetchone()
        return _match(row) if row else None

    async def active_matches(
        self, *, channel_id: int | None = None, user_id: int | None = None
    ) -> list[MatchRecord]:
        sql = "SELECT * FROM matches WHERE status = 'active'"
        args: list[Any] = []
        if channel_id is not None:
            sql += " AND channel_id = ?"
            args.append(channel_id)
        if user_id is not None:
            sql += " AND (player0 = ? OR player1 = ?)"
            args += [user_id, user_id]
        async with self._db.execute(sql + " ORDER BY id", args) as cur:
            rows = await cur.fetchall()
        return [_match(r) for r in rows]

    async def set_match_message(self, match_id: int, message_id: int | None) -> None:
        async with self.transaction() as db:
            await db.execute("UPDATE matches SET message_id = ? WHERE id = ?", (message_id, match_id))

    async def record_actions(
        self,
        match_id: int,
        *,
        expected_version: int,
        actions: Sequence[LoggedAction],
        state: str,
        now: float,
        result: ResultRecord | None = None,
        deadlines: Deadlines | None = None,
    ) -> bool:
        """Save actions, the new state, the turn clock and (if it ended) the result in one transaction.

        ``deadlines`` None leaves the clock as it is (the same player still decides).

        Returns False and changes nothing if the match is no longer at ``expected_version``.
        """
        async with self.transaction() as db:
            status = "finished" if result is not None else "active"
            cur = await db.execute(
                "UPDATE matches SET state = ?, version = ?, status = ?, updated_at = ?, finished_at = ?"
                " WHERE id = ? AND version = ? AND status = 'active'",
                (
                    state,
                    expected_version + len(actions),
                    status,
                    now,
                    now if result is not None else None,
                    match_id,
                    expected_version,
                ),
            )
            if cur.rowcount != 1:
                return False
            await self._insert_actions(db, match_id, expected_version, actions, now)
            if result is not None:
                deadlines = Deadlines(None, None)
            if deadlines is not None:
                await self._set_deadlines(db, match_id, deadlines)
            if result is not None:
                await self._insert_result(db, result)
                await self._rate_match(db, result, now)
        return True

    async def _set_deadlines(self, db: aiosqlite.Connection, match_id: int, deadlines: Deadlines) -> None:
        await db.execute(
            "UPDATE matches SET reminder_at = ?, timeout_at = ? WHERE id = ?",
            (deadlines.reminder_at, deadlines.timeout_at, match_id),
        )

    async def end_match(self, match_id: int, *, status: str, result: ResultRecord | None, now: float) -> bool:
        """End an active match without a new action (resignation, timeout, abandonment)."""
        async with self.transaction() as db:
            cur = await db.execute(
                "UPDATE matches SET status = ?, version = version + 1, updated_at = ?, finished_at = ?,"
                " reminder_at = NULL, timeout_at = NULL WHERE id = ? AND status = 'active'",
                (status, now, now, match_id),
            )
            if cur.rowcount != 1:
                return False
            if result is not None:
                await self._insert_result(db, result)
                await self._rate_match(db, result, now)
        return True

    async def _insert_result(self, db: aiosqlite.Connection, result: ResultRecord) -> None:
        await db.execute(
            "INSERT INTO results (match_id, winner_seat, reason, description, points, length, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                result.match_id,
                result.winner_seat,
                result.reason,
                result.description,
                result.points,
                result.length,
                result.finished_at,
            ),
        )

    # -- turn clock ---------------------------------------------------------------------------------

    async def due_reminders(self, now: float) -> list[MatchRecord]:
        async with self._db.execute(
            "SELECT * FROM matches WHERE status = 'active' AND reminder_at <= ? ORDER BY reminder_at", (now,)
        ) as cur:
            rows = await cur.fetchall()
        return [_match(r) for r in rows]

    async def claim_reminder(self, match_id: int, reminder_at: float) -> bool:
        """Take a due reminder so that it is sent once: False if it was taken or moved meanwhile."""
        async with self.transaction() as db:
            cur = await db.execute(
                "UPDATE matches SET reminder_at = NULL WHERE id = ? AND reminder_at = ? AND status = 'active'",
                (match_id, reminder_at),
            )
            return cur.rowcount == 1

    async def due_timeouts(self, now: float) -> list[MatchRecord]:
        async with self._db.execute(
            "SELECT * FROM matches WHERE status = 'active' AND timeout_at <= ? ORDER BY timeout_at", (now,)
        ) as cur:
            rows = await cur.fetchall()
        return [_match(r) for r in rows]

    async def next_deadline(self) -> float | None:
        """The earliest pending deadline of any kind: challenge expiry, reminder or timeout."""
        async with self._db.execute(
            "SELECT MIN(t) FROM (SELECT MIN(expires_at) AS t FROM challenges WHERE status = 'pending'"
            " UNION ALL SELECT MIN(reminder_at) FROM matches WHERE status = 'active'"
            " UNION ALL SELECT MIN(timeout_at) FROM matches WHERE status = 'active')"
        ) as cur:
            row = await cur.fetchone()
        return float(row[0]) if row and row[0] is not None else None

    # -- settings ------------------------------------------------------------------------------------

    async def get_settings(self, guild_id: int | None) -> GuildSettings:
        if guild_id is None:
            return GuildSettings(guild_id=0)
        async with self._db.execute("SELECT * FROM guild_settings WHERE guild_id = ?", (guild_id,)) as cur:
            row = await cur.fetchone()
        default = GuildSettings(guild_id=guild_id)
        if row is None:
            return default
        games = json.loads(row["allowed_games"]) if row["allowed_games"] is not None else None
        return GuildSettings(
            guild_id=guild_id,
            reminder_seconds=_or(row["reminder_seconds"], default.reminder_seconds),
            timeout_seconds=_or(row["timeout_seconds"], default.timeout_seconds),
            challenge_seconds=_or(row["challenge_seconds"], default.challenge_seconds),
            allowed_games=tuple(games) if games is not None else None,
            use_threads=bool(row["use_threads"]) if row["use_threads"] is not None else True,
            results_channel=row["results_channel"],
        )

    async def save_settings(self, settings: GuildSettings) -> None:
        games = _canonical(list(settings.allowed_games)) if settings.allowed_games is not None else None
        async with self.transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, reminder_seconds, timeout_seconds, challenge_seconds,"
                " allowed_games, use_threads, results_channel) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET reminder_seconds = excluded.reminder_seconds,"
                " timeout_seconds = excluded.timeout_seconds, challenge_seconds = excluded.challenge_seconds,"
                " allowed_games = excluded.allowed_games, use_threads = excluded.use_threads,"
                " results_channel = excluded.results_channel",
                (
                    settings.guild_id,
                    settings.reminder_seconds,
                    settings.timeout_seconds,
                    settings.challenge_seconds,
                    games,
                    int(settings.use_threads),
                    settings.results_channel,
                ),
            )

    async def get_result(self, match_id: int) -> ResultRecord | None:
        async with self._db.execute("SELECT * FROM results WHERE match_id = ?", (match_id,)) as cur:
            row = await cur.fetchone()
        if row is None:
            return None
        return ResultRecord(
            match_id=row["match_id"],
            winner_seat=row["winner_seat"],
            reason=row["reason"],
            description=row["description"],
            points=row["points"],
            length=row["length"],
            finished_at=row["finished_at"],
        )

    async def action_log(self, match_id: int) -> list[LoggedAction]:
        async with self._db.execute(
            "SELECT seat, notation FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
        ) as cur:
            rows = await cur.fetchall()
        return [LoggedAction(seat=r["seat"], notation=r["notation"]) for r in rows]

    # -- ratings ----------------------------------------------------------------------------------
    # Written inside the transaction that records a result (record_actions, end_match); read by
    # cogs/stats.py. Only rated matches of a server with a winner change anything.

    async def _rate_match(self, db: aiosqlite.Connection, result: ResultRecord, now: float) -> None:
        """Update both players' ratings and history for ``result``, if its match is rated."""
        async with db.execute(
            "SELECT guild_id, game, rated, player0, player1 FROM matches WHERE id = ?", (result.match_id,)
        ) as cur:
            match = await cur.fetchone()
        if match is None or not match["rated"] or match["guild_id"] is None:
            return
        if result.winner_seat not in (0, 1):
            return
        guild_id, game = int(match["guild_id"]), str(match["game"])
        winner_id = int(match[f"player{result.winner_seat}"])
        loser_id = int(match[f"player{1 - result.winner_seat}"])
        if winner_id == loser_id:
            return
        winner = await self._standing(db, guild_id, game, winner_id)
        loser = await self._standing(db, guild_id, game, loser_id)
        # The engine gives every result a length of at least 1; a bad one must not block the result.
        change = ratings.rate_match(winner.player, loser.player, max(1, result.length))
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
                    ratings.next_streak(before.streak, won),
                    now,
                ),
            )
            await db.execute(
                "INSERT INTO rating_history (match_id, guild_id, game, user_id, before, after, at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (result.match_id, guild_id, game, before.user_id, before.rating, after.rating, now),
            )

    @staticmethod
    def _standing_from(row: aiosqlite.Row) -> ratings.Standing:
        return ratings.Standing(
            guild_id=row["guild_id"],
            game=row["game"],
            user_id=row["user_id"],
            rating=row["rating"],
            experience=row["experience"],
            wins=row["wins"],
            losses=row["losses"],
            streak=row["streak"],
            updated_at=row["updated_at"],
        )

    async def _standing(
        self, db: aiosqlite.Connection, guild_id: int, game: str, user_id: int
    ) -> ratings.Standing:
        async with db.execute(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
        ) as cur:
            row = await cur.fetchone()
        if row is None:
            return ratings.Standing(guild_id=guild_id, game=game, user_id=user_id)
        return self._standing_from(row)

    async def rating_changes(self, match_id: int) -> list[tuple[int, float, float]]:
        """(user id, rating before, rating after) for each player of a rated match; empty if unrated."""
        async with self._db.execute(
            "SELECT user_id, before, after FROM rating_history WHERE match_id = ? ORDER BY user_id",
            (match_id,),
        ) as cur:
            rows = await cur.fetchall()
        return [(int(r["user_id"]), float(r["before"]), float(r["after"])) for r in rows]

    async def standing(self, guild_id: int, game: str, user_id: int) -> ratings.Standing | None:
        """A player's rating in ``game`` on the server, or None if they have no rated match there."""
        async with self._db.execute(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? AND user_id = ?", (guild_id, game, user_id)
        ) as cur:
            row = await cur.fetchone()
        return self._standing_from(row) if row else None

    async def standings_of(self, guild_id: int, user_id: int) -> list[ratings.Standing]:
        """A player's ratings in every game they have played rated on the server, most recent first."""
        async with self._db.execute(
            "SELECT * FROM ratings WHERE guild_id = ? AND user_id = ? ORDER BY updated_at DESC, game",
            (guild_id, user_id),
        ) as cur:
            rows = await cur.fetchall()
        return [self._standing_from(r) for r in rows]

    async def leaderboard(self, guild_id: int, game: str, limit: int = 10) -> list[ratings.Standing]:
        """The server's best ``limit`` players of ``game``, best first (ties: the earlier user id)."""
        async with self._db.execute(
            "SELECT * FROM ratings WHERE guild_id = ? AND game = ? ORDER BY rating DESC, user_id LIMIT ?",
            (guild_id, game, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [self._standing_from(r) for r in rows]

    async def players_rated(self, guild_id: int, game: str) -> int:
        """How many players of ``game`` have a rating on the server."""
        async with self._db.execute(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND game = ?", (guild_id, game)
        ) as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def rank(self, guild_id: int, game: str, user_id: int) -> int | None:
        """The player's place on the leaderboard (1 = first), or None if they are not on it."""
        mine = await self.standing(guild_id, game, user_id)
        if mine is None:
            return None
        async with self._db.execute(
            "SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND game = ?"
            " AND (rating > ? OR (rating = ? AND user_id < ?))",
            (guild_id, game, mine.rating, mine.rating, user_id),
        ) as cur:
            row = await cur.fetchone()
        return 1 + (int(row[0]) if row else 0)

    async def rating_trends(
        self, guild_id: int, game: str, user_ids: Sequence[int], last: int = 5
    ) -> dict[int, float]:
        """Each player's rating change over their ``last`` rated matches of ``game`` on the server."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        async with self._db.execute(
            "SELECT user_id, SUM(after - before) AS trend FROM (SELECT user_id, before, after, ROW_NUMBER()"
            " OVER (PARTITION BY user_id ORDER BY at DESC, match_id DESC) AS n FROM rating_history"
            f" WHERE guild_id = ? AND game = ? AND user_id IN ({marks})) WHERE n <= ? GROUP BY user_id",
            (guild_id, game, *user_ids, last),
        ) as cur:
            rows = await cur.fetchall()
        return {int(r["user_id"]): float(r["trend"]) for r in rows}

    async def rated_results(self, guild_id: int, game: str, user_id: int) -> list[ratings.RatedResult]:
        """Every rated match of the player in ``game`` on the server, oldest first."""
        async with self._db.execute(
            "SELECT h.match_id, h.game, h.before, h.after, h.at, m.player0, m.player1, r.winner_seat"
            " FROM rating_history h JOIN matches m ON m.id = h.match_id JOIN results r ON r.match_id = h.match_id"
            " WHERE h.guild_id = ? AND h.game = ? AND h.user_id = ? ORDER BY h.at, h.match_id",
            (guild_id, game, user_id),
        ) as cur:
            rows = await cur.fetchall()
        found = []
        for r in rows:
            seat = 0 if r["player0"] == user_id else 1
            found.append(
                ratings.RatedResult(
                    match_id=r["match_id"],
                    game=r["game"],
                    opponent_id=r["player1"] if seat == 0 else r["player0"],
                    won=r["winner_seat"] == seat,
                    before=r["before"],
                    after=r["after"],
                    at=r["at"],
                )
            )
        return found

    async def recent_matches(self, user_id: int, limit: int = 10) -> list[ratings.PlayedMatch]:
        """The player's latest ``limit`` matches anywhere, finished or not, newest first."""
        async with self._db.execute(
            "SELECT m.id, m.guild_id, m.channel_id, m.game, m.player0, m.player1, m.status, m.rated,"
            " m.created_at, m.finished_at, r.winner_seat, r.reason, h.before, h.after"
            " FROM matches m LEFT JOIN results r ON r.match_id = m.id"
            " LEFT JOIN rating_history h ON h.match_id = m.id AND h.user_id = ?"
            " WHERE m.player0 = ? OR m.player1 = ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
            (user_id, user_id, user_id, limit),
        ) as cur:
            rows = await cur.fetchall()
        found = []
        for r in rows:
            seat = 0 if r["player0"] == user_id else 1
            winner = r["winner_seat"]
            found.append(
                ratings.PlayedMatch(
                    match_id=r["id"],
                    guild_id=r["guild_id"],
                    channel_id=r["channel_id"],
                    game=r["game"],
                    opponent_id=r["player1"] if seat == 0 else r["player0"],
                    status=r["status"],
                    rated=bool(r["rated"]),
                    won=None if winner is None else winner == seat,
                    reason=r["reason"],
                    rating_change=None if r["before"] is None else r["after"] - r["before"],
                    created_at=r["created_at"],
                    finished_at=r["finished_at"],
                )
            )
        return found


def _or(value: float | None, default: float) -> float:
    return float(value) if value is not None else default


def _challenge(row: aiosqlite.Row) -> ChallengeRecord:
    return ChallengeRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        message_id=row["message_id"],
        challenger_id=row["challenger_id"],
        opponent_id=row["opponent_id"],
        game=row["game"],
        options=json.loads(row["options"]),
        rated=bool(row["rated"]),
        status=row["status"],
        match_id=row["match_id"],
        created_at=row["created_at"],
        expires_at=row["expires_at"],
        rematch_of=row["rematch_of"],
    )


def _match(row: aiosqlite.Row) -> MatchRecord:
    return MatchRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        parent_id=row["parent_id"],
        game=row["game"],
        options=json.loads(row["options"]),
        players=(row["player0"], row["player1"]),
        state=row["state"],
        version=row["version"],
        status=row["status"],
        message_id=row["message_id"],
        rated=bool(row["rated"]),
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        reminder_at=row["reminder_at"],
        timeout_at=row["timeout_at"],
    )
