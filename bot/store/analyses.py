"""Analyses of finished matches (migration 012): requested when the result is posted, computed in the
background, posted once; open ones are taken up again after a restart. A week after it was posted an
analysis is kept compressed (migration 014, ``compact_posted``), whole: ``get`` reads either form."""

from __future__ import annotations

import asyncio
import json
import zlib
from dataclasses import dataclass, field
from typing import Any

from bot.store.connection import Connection, Transaction
from bot.store.scope import Scope

PENDING, DONE, POSTED, FAILED = "pending", "done", "posted", "failed"


@dataclass(frozen=True, slots=True)
class AnalysisRecord:
    match_id: int
    status: str
    requested_at: float
    computed_at: float | None
    analysis: Any
    """The analysis as JSON data (``coaching.analysis_to_json``), once computed."""
    message_id: int | None


class AnalysisStore:
    def __init__(self, connection: Connection, scope: Scope | None = None) -> None:
        self._c = connection
        self._mine = (scope or Scope()).where("m.guild_id")

    async def request(self, match_id: int, now: float) -> AnalysisRecord:
        """The match's analysis, requested now if it was not yet (a repost requests nothing new)."""
        async with self._c.transaction() as db:
            await db.execute(
                "INSERT INTO match_analyses (match_id, status, requested_at) VALUES (?, ?, ?)"
                " ON CONFLICT (match_id) DO NOTHING",
                (match_id, PENDING, now),
            )
        found = await self.get(match_id)
        assert found is not None
        return found

    async def get(self, match_id: int) -> AnalysisRecord | None:
        row = await self._c.one("SELECT * FROM match_analyses WHERE match_id = ?", (match_id,))
        if row is None:
            return None
        return AnalysisRecord(
            match_id=row["match_id"],
            status=row["status"],
            requested_at=row["requested_at"],
            computed_at=row["computed_at"],
            analysis=_analysis(row),
            message_id=row["message_id"],
        )

    async def latest_of(self, user_id: int, guild_id: int | None) -> int | None:
        """The player's latest match on the server (None: outside servers) with an analysis computed."""
        where = "m.guild_id = ?" if guild_id is not None else "m.guild_id IS NULL"
        row = await self._c.one(
            "SELECT a.match_id FROM match_analyses a JOIN matches m ON m.id = a.match_id"
            f" WHERE (m.player0 = ? OR m.player1 = ?) AND {where} AND a.status IN (?, ?)"
            " ORDER BY m.finished_at DESC, m.id DESC LIMIT 1",
            (user_id, user_id, *([guild_id] if guild_id is not None else []), DONE, POSTED),
        )
        return None if row is None else int(row["match_id"])

    async def open(self) -> list[int]:
        """The matches whose analysis is still to compute or to post, oldest request first."""
        rows = await self._c.all(
            "SELECT a.match_id FROM match_analyses a JOIN matches m ON m.id = a.match_id"
            f" WHERE a.status IN (?, ?) AND {self._mine} ORDER BY a.requested_at, a.match_id",
            (PENDING, DONE),
        )
        return [row["match_id"] for row in rows]

    async def save(self, match_id: int, analysis: Any, now: float) -> None:
        """The computed analysis (JSON data), to post, and each player's error rate (``/stats``)."""
        async with self._c.transaction() as db:
            await save_analysis(db, match_id, analysis, now)

    async def error_rates(self, user_id: int, guild_id: int, game: str, last: int = 10) -> ErrorRates:
        """The player's error rates over their analysed matches of ``game`` on the server: the average
        over them all and the ``last`` latest matches' PRs, oldest first. Analyses saved before their
        rows were kept (migration 019) get them now, once."""
        await self._backfill(user_id, guild_id, game)
        mine = (
            " FROM analysis_error_rates e JOIN matches m ON m.id = e.match_id"
            " WHERE e.user_id = ? AND m.guild_id = ? AND m.game = ?"
        )
        args = (user_id, guild_id, game)
        total = await self._c.one(
            f"SELECT COUNT(*) AS matches, SUM(e.decisions) AS decisions, SUM(e.equity_lost) AS lost{mine}",
            args,
        )
        lucky = await self._c.all(
            "SELECT e.luck_unit AS unit, COUNT(*) AS matches, SUM(e.luck) AS luck,"
            f" SUM(e.luck_adjusted) AS adjusted, SUM(e.games) AS games{mine} AND e.luck IS NOT NULL"
            " GROUP BY e.luck_unit",
            args,
        )
        latest = await self._c.all(
            f"SELECT e.match_id, e.decisions, e.equity_lost{mine}"
            " ORDER BY m.finished_at DESC, m.id DESC LIMIT ?",
            (*args, last),
        )
        assert total is not None
        return ErrorRates(
            matches=int(total["matches"]),
            decisions=int(total["decisions"] or 0),
            equity_lost=float(total["lost"] or 0.0),
            history=tuple(
                (int(r["match_id"]), _pr(int(r["decisions"]), float(r["equity_lost"])))
                for r in reversed(latest)
            ),
            luck={str(r["unit"]): _luck_record(r) for r in lucky},
        )

    async def fill_error_rates(self, after: int = 0, limit: int = 20) -> tuple[int, int]:
        """Rows for up to ``limit`` computed analyses saved without them (before migration 019), in
        match order after match ``after`` (housekeeping goes through them all in batches); returns
        how many analyses were read and the last one's match id."""
        rows = await self._fill(" AND a.match_id > ? ORDER BY a.match_id LIMIT ?", (after, limit))
        return len(rows), max((int(row["match_id"]) for row in rows), default=after)

    async def _backfill(self, user_id: int, guild_id: int, game: str) -> None:
        await self._fill(
            " AND (m.player0 = ? OR m.player1 = ?) AND m.guild_id = ? AND m.game = ?",
            (user_id, user_id, guild_id, game),
        )

    async def _fill(self, where: str, args: tuple[Any, ...]) -> list[Any]:
        """Rows of ``analysis_error_rates`` for the computed analyses without any that ``where``
        selects; returns the analyses read."""
        rows = await self._c.all(
            "SELECT a.match_id, a.analysis, a.compact, m.player0, m.player1"
            " FROM match_analyses a JOIN matches m ON m.id = a.match_id WHERE a.status IN (?, ?)"
            " AND NOT EXISTS (SELECT 1 FROM analysis_error_rates e WHERE e.match_id = a.match_id)" + where,
            (DONE, POSTED, *args),
        )
        if rows:
            # A long match's analysis is hundreds of kilobytes: read outside the event loop.
            found = await asyncio.to_thread(
                lambda: [r for row in rows for r in _error_rates(row["match_id"], row, _analysis(row))]
            )
            async with self._c.transaction() as db:
                await db.executemany(ERROR_RATE_ROW, found)
        return list(rows)

    async def posted(self, match_id: int, message_id: int | None) -> None:
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE match_analyses SET status = ?, message_id = ? WHERE match_id = ?",
                (POSTED, message_id, match_id),
            )

    async def compact_posted(self, computed_before: float, limit: int = 20) -> int:
        """Compress up to ``limit`` posted analyses computed before ``computed_before``; returns how
        many (fewer than ``limit``: none is left).

        The JSON is compressed in a worker thread between a read and one short transaction (a long
        match's analysis is hundreds of kilobytes: the bot's other writes must not wait for zlib),
        and a row is only changed if it is still uncompressed."""
        rows = await self._c.all(
            "SELECT match_id, analysis FROM match_analyses WHERE status = ? AND analysis IS NOT NULL"
            " AND computed_at < ? ORDER BY computed_at, match_id LIMIT ?",
            (POSTED, computed_before, limit),
        )
        texts = [(int(row["match_id"]), str(row["analysis"])) for row in rows]
        packed = await asyncio.to_thread(lambda: [(zlib.compress(t.encode("utf-8"), 9), m) for m, t in texts])
        async with self._c.transaction() as db:
            await db.executemany(
                "UPDATE match_analyses SET compact = ?, analysis = NULL WHERE match_id = ? AND analysis IS NOT NULL",
                packed,
            )
        return len(rows)

    async def failed(self, match_id: int, now: float) -> None:
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE match_analyses SET status = ?, computed_at = ? WHERE match_id = ?",
                (FAILED, now, match_id),
            )


async def save_analysis(
    db: Transaction, match_id: int, analysis: Any, now: float, only_if: str | None = None
) -> bool:
    """``AnalysisStore.save`` inside the caller's transaction (a job's end saves it with the job's
    state: ``bot.store.jobs``); ``only_if``: only from that status (a job done twice saves once)."""
    condition = "" if only_if is None else " AND status = ?"
    changed = await db.execute(
        f"UPDATE match_analyses SET status = ?, analysis = ?, computed_at = ? WHERE match_id = ?{condition}",
        (DONE, json.dumps(analysis, separators=(",", ":")), now, match_id, *([only_if] if only_if else [])),
    )
    if not changed:
        return False
    players = await db.one("SELECT player0, player1 FROM matches WHERE id = ?", (match_id,))
    if players is not None:
        await db.executemany(ERROR_RATE_ROW, _error_rates(match_id, players, analysis))
    return True


ERROR_RATE_ROW = (
    "INSERT INTO analysis_error_rates"
    " (match_id, seat, user_id, decisions, equity_lost, luck, luck_adjusted, luck_unit, games)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (match_id, seat)"
    " DO UPDATE SET user_id = excluded.user_id, decisions = excluded.decisions,"
    " equity_lost = excluded.equity_lost, luck = excluded.luck, luck_adjusted = excluded.luck_adjusted,"
    " luck_unit = excluded.luck_unit, games = excluded.games"
)
MWC, POINTS = "mwc", "points"
"""The units of a row's luck: match winning chances (a match), points (a money session)."""


@dataclass(frozen=True, slots=True)
class LuckRecord:
    """A player's luck over analysed matches of one unit (``MWC`` or ``POINTS``): sums over them."""

    matches: int
    luck: float
    """The dice luck, summed (GNU Backgammon's "Luck total" in MWC or points)."""
    adjusted: float
    """The luck-adjusted results, summed."""
    games: int
    """The games of those matches (a money session's figures are shown per game)."""

    def per_match(self) -> tuple[float, float]:
        """The average luck and luck-adjusted result per match (per game in points)."""
        count = self.games if self.games else self.matches
        return self.luck / max(1, count), self.adjusted / max(1, count)


def _luck_record(row: Any) -> LuckRecord:
    return LuckRecord(
        matches=int(row["matches"]),
        luck=float(row["luck"] or 0.0),
        adjusted=float(row["adjusted"] or 0.0),
        games=int(row["games"] or 0) if row["unit"] == POINTS else 0,
    )


@dataclass(frozen=True, slots=True)
class ErrorRates:
    """A player's error rates over analysed matches (``AnalysisStore.error_rates``)."""

    matches: int
    decisions: int
    equity_lost: float
    history: tuple[tuple[int, float | None], ...]
    """The latest matches' (match id, PR), oldest first; None: no decision counted in that match."""
    luck: dict[str, LuckRecord] = field(default_factory=dict)
    """The luck over the analysed matches that have it (analyses saved since issue 36), by unit."""

    @property
    def pr(self) -> float | None:
        """The average PR: 500 × the equity lost per decision over every match (not the mean of the
        matches' PRs, so a long match weighs as much as its decisions)."""
        return _pr(self.decisions, self.equity_lost)


def _pr(decisions: int, equity_lost: float) -> float | None:
    return 500.0 * equity_lost / decisions if decisions else None


def _error_rates(match_id: int, players: Any, analysis: Any) -> list[tuple[Any, ...]]:
    """The rows of ``analysis_error_rates`` for a saved analysis (JSON data, ``coaching.analysis_to_json``:
    each player's ``unforced`` decisions and ``equity_lost``, and since issue 36 ``luck_result`` and
    ``luck_adjusted``); none for data without the first two, no luck for data without the others."""
    try:
        games = len(analysis.get("chances") or ())
        return [
            (
                match_id,
                seat,
                int(players[f"player{seat}"]),
                int(p["unforced"]),
                float(p["equity_lost"]),
                *_luck_of(p, games),
            )
            for seat, p in enumerate(analysis["players"][:2])
        ]
    except (AttributeError, KeyError, TypeError, ValueError):
        return []


def _luck_of(player: Any, games: int) -> tuple[float | None, float | None, str | None, int | None]:
    """A player's luck, luck-adjusted result, their unit and the games (all None before issue 36)."""
    luck, adjusted, unit = player.get("luck_result"), player.get("luck_adjusted"), player.get("luck_unit")
    if luck is None or adjusted is None or unit not in (MWC, POINTS):
        return None, None, None, None
    return float(luck), float(adjusted), str(unit), games


def _analysis(row: Any) -> Any:
    """A row's analysis as JSON data, compressed (``compact``) or not; None before it is computed."""
    if row["analysis"] is not None:
        return json.loads(row["analysis"])
    if row["compact"] is not None:
        return json.loads(zlib.decompress(row["compact"]).decode("utf-8"))
    return None
