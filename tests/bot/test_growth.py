"""Bounded growth: old finished matches' logs compacted, closed challenges purged, lookups by player
indexed, and migrations applied by their own numbers."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from app.client import RingsideBot
from bot.challenges import ChallengeError
from bot.clock import ManualClock
from bot.housekeeping import COMPACT_AFTER, INTERVAL, PURGE_CHALLENGES_AFTER
from bot.sessions import SessionManager
from bot.store import Store
from bot.store.connection import Connection
from engine import find_variant, replay
from engine.ai.backgammon_analysis import analyse
from engine.ai.backgammon_bgsage import EASY, MEDIUM
from engine.ai.coaching import analysis_to_json
from engine.ai.selfplay import notations_played
from engine.backgammon.variant import VARIANT as BACKGAMMON
from tests.databases import sql

ALICE, BOB = 101, 202
DAY = 24 * 3600.0


async def _play_to_the_end(manager: SessionManager, seed: int) -> int:
    """A whole rated ring match between Alice and Bob, click by click; its id."""
    played = await manager.start_match(
        game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    mid = played.session.id
    rng = random.Random(seed)
    for _ in range(1000):
        session = await manager.get(mid)
        state = session.state
        assert state is not None
        if state.is_terminal():
            return mid
        spec = state.chance()
        if spec is not None:
            await manager.roll(mid, session.user_of(spec.prompt_seat or 0), session.version)
        else:
            action = rng.choice(session.position.legal_actions())  # type: ignore[union-attr]
            await manager.act(mid, session.user_of(state.to_move()), session.version, action.notation)
    raise AssertionError("the match did not end")


def _bot(store: Store, clock: ManualClock) -> RingsideBot:
    return RingsideBot(store, clock=clock, rng=random.Random(3), run_scheduler=False, render_workers=0)


def _count(path: Path, statement: str) -> int:
    return int(sql(path, statement)[0][0])


@pytest.mark.asyncio
async def test_the_scheduler_compacts_old_finished_logs_and_everything_players_see_stays(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db.sqlite3"
    clock = ManualClock()
    store = await Store.open(path)
    bot = _bot(store, clock)
    old = await _play_to_the_end(bot.sessions, seed=1)
    clock.advance(2 * DAY)
    recent = await _play_to_the_end(bot.sessions, seed=2)
    live = (
        await bot.sessions.start_match(
            game="ring",
            options={},
            players=(ALICE, BOB),
            guild_id=1,
            channel_id=11,
            parent_id=None,
            rated=True,
        )
    ).session.id
    log_before = await store.matches.action_log(old)
    seen_before = (
        await store.matches.result(old),
        await store.matches.recent(ALICE),
        await store.ratings.rated_results(1, "ring", ALICE),
        await store.ratings.standings_of(1, BOB),
        await store.ratings.changes(old),
        (await bot.sessions.get(old)).state,
    )
    clock.advance(COMPACT_AFTER - DAY)  # the old match ended 8 days ago, the recent one 6
    await bot.run_due_tasks()

    assert _count(path, f"SELECT COUNT(*) FROM actions WHERE match_id = {old}") == 0
    assert _count(path, f"SELECT COUNT(*) FROM actions WHERE match_id = {recent}") > 0
    assert _count(path, f"SELECT COUNT(*) FROM actions WHERE match_id = {live}") > 0
    assert _count(path, "SELECT COUNT(*) FROM matches WHERE compact_log IS NOT NULL") == 1
    log_after = await store.matches.action_log(old)
    assert log_after == log_before
    final = (await bot.sessions.get(old)).state
    assert replay(find_variant("ring"), {}, [a.notation for a in log_after]) == final
    seen_after = (
        await store.matches.result(old),
        await store.matches.recent(ALICE),
        await store.ratings.rated_results(1, "ring", ALICE),
        await store.ratings.standings_of(1, BOB),
        await store.ratings.changes(old),
        final,
    )
    assert seen_after == seen_before

    # Two days later the recent one is old too; a run within the hour does nothing.
    clock.advance(2 * DAY)
    await bot.run_due_tasks()
    assert _count(path, f"SELECT COUNT(*) FROM actions WHERE match_id = {recent}") == 0
    assert _count(path, f"SELECT COUNT(*) FROM actions WHERE match_id = {live}") > 0
    assert await bot.housekeeping.run_if_due() is None
    clock.advance(INTERVAL)
    report = await bot.housekeeping.run_if_due()
    assert report is not None and report.compacted == 0
    await store.close()


@pytest.mark.asyncio
async def test_closed_challenges_are_purged_a_week_after_their_expiry_and_pending_ones_stay(
    tmp_path: Path,
) -> None:
    path = tmp_path / "db.sqlite3"
    clock = ManualClock()
    store = await Store.open(path)
    bot = _bot(store, clock)
    ids = {}
    # The pending one last: the same two players may have only one pending challenge here at a time.
    for status in ("accepted", "declined", "cancelled", "expired", "pending"):
        record, created = await store.challenges.create(
            guild_id=1, channel_id=10, challenger_id=ALICE, opponent_id=BOB, game="ring", options={},
            rated=True, now=clock.now(), expires_at=clock.now() + 600,
        )  # fmt: skip
        assert created
        if status != "pending":
            assert await store.challenges.close(record.id, status)
        ids[status] = record.id
    clock.advance(600 + PURGE_CHALLENGES_AFTER - 60)  # not yet a week past their expiry
    await bot.run_due_tasks()
    assert _count(path, "SELECT COUNT(*) FROM challenges") == 5
    clock.advance(INTERVAL)
    await bot.run_due_tasks()
    # Only the pending one stays (no publisher here, so nobody expired it): it is never purged.
    assert [r[0] for r in sql(path, "SELECT id FROM challenges")] == [ids["pending"]]
    assert await store.challenges.purge_closed(clock.now() + 30 * DAY) == 0
    with pytest.raises(ChallengeError, match="does not exist any more"):
        await bot.challenges.answer(ids["declined"], BOB, "accept")
    await store.close()


@pytest.mark.asyncio
@pytest.mark.sqlite_only("reads SQLite's query plans")
async def test_history_and_active_matches_are_found_by_player_index_not_a_scan(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    store = await Store.open(path)
    await store.close()
    with sqlite3.connect(path) as db:
        history = _plan(
            db,
            "SELECT m.id FROM matches m LEFT JOIN results r ON r.match_id = m.id"
            " LEFT JOIN rating_history h ON h.match_id = m.id AND h.user_id = ?"
            " WHERE m.player0 = ? OR m.player1 = ? ORDER BY m.created_at DESC, m.id DESC LIMIT ?",
            (1, 1, 1, 10),
        )
        active = _plan(
            db,
            "SELECT * FROM matches WHERE status = 'active' AND (player0 = ? OR player1 = ?) ORDER BY id",
            (1, 1),
        )
    for found in (history, active):
        assert "SCAN m " not in found and "SCAN matches " not in found, found
    assert "matches_player0" in history and "matches_player1" in history, history
    # A player's active matches: by player or by status; active matches are few however long the history.
    assert "matches_player" in active or "(status=?)" in active, active


def _plan(db: sqlite3.Connection, sql: str, args: tuple[int, ...]) -> str:
    return " | ".join(str(row[-1]) for row in db.execute("EXPLAIN QUERY PLAN " + sql, args)) + " "


@pytest.mark.asyncio
@pytest.mark.sqlite_only("writes SQLite migrations and reads sqlite_master")
async def test_a_migration_merged_later_with_a_lower_number_is_still_applied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.store.connection as connection

    real = connection.migrations()
    later = (99, "099_x.sql", "CREATE TABLE x99 (a);")
    monkeypatch.setattr(connection, "migrations", lambda: [*real, later])
    await (await Connection.open(tmp_path / "db.sqlite3")).close()
    merged = (98, "098_y.sql", "CREATE TABLE y98 (a);")
    monkeypatch.setattr(connection, "migrations", lambda: [*real, merged, later])
    opened = await Connection.open(tmp_path / "db.sqlite3")
    assert await opened.one("SELECT name FROM sqlite_master WHERE name = 'y98'") is not None
    assert await opened.migrate() == 99
    await opened.close()


@pytest.mark.asyncio
async def test_posted_analyses_are_kept_compressed_after_a_week_whole(tmp_path: Path) -> None:
    """A real analysis (a 1-point backgammon match), posted: a week on it is compressed, about four
    times smaller (five when the analysis judged medium at its own depth and its losses were all
    zero), and reads back exactly; one still to post, or posted less than a week ago, is not
    touched."""
    path = tmp_path / "db.sqlite3"
    clock = ManualClock()
    store = await Store.open(path)
    bot = _bot(store, clock)
    log = list(notations_played(BACKGAMMON, {"length": 1}, (MEDIUM, EASY), random.Random(1)))
    analysis = analysis_to_json(analyse({"length": 1}, log))
    ids = []
    for channel in (10, 11, 12):
        played = await bot.sessions.start_match(
            game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=channel, parent_id=None,
            rated=False,
        )  # fmt: skip
        ids.append(played.session.id)
    old, unposted, recent = ids
    for match_id in ids:
        await store.analyses.request(match_id, clock.now())
        if match_id == recent:
            clock.advance(2 * DAY)
        await store.analyses.save(match_id, analysis, clock.now())
        if match_id != unposted:
            await store.analyses.posted(match_id, 1000 + match_id)
    stored = _count(path, f"SELECT LENGTH(analysis) FROM match_analyses WHERE match_id = {old}")
    clock.advance(COMPACT_AFTER - DAY)  # the old ones were computed 8 days ago, the recent one 6
    await bot.run_due_tasks()

    def compressed(match_id: int) -> bool:
        return bool(
            _count(
                path,
                "SELECT analysis IS NULL AND compact IS NOT NULL FROM match_analyses "
                f"WHERE match_id = {match_id}",
            )
        )

    assert compressed(old) and not compressed(unposted) and not compressed(recent)
    packed = _count(path, f"SELECT LENGTH(compact) FROM match_analyses WHERE match_id = {old}")
    assert packed * 3 < stored, (packed, stored)
    for match_id in ids:
        record = await store.analyses.get(match_id)
        assert record is not None and record.analysis == analysis
    assert (await store.analyses.get(old)).message_id == 1000 + old  # type: ignore[union-attr]
    assert await store.analyses.open() == [unposted]
    await store.close()
