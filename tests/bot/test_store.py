"""The store's parts over one connection, and the one mapping from rows to records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import GuildSettings, Store
from bot.store.records import ChallengeRecord
from bot.store.rows import from_row


def _row(sql: str) -> sqlite3.Row:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    row = db.execute(sql).fetchone()
    assert row is not None
    return row


def test_a_row_maps_by_column_name_decoding_json_and_flags_and_null_gives_the_default() -> None:
    row = _row(
        "SELECT 7 AS id, NULL AS guild_id, 3 AS channel_id, NULL AS message_id, 1 AS challenger_id,"
        " 2 AS opponent_id, 'ring' AS game, '{\"a\":[1,2]}' AS options, 0 AS rated, 'pending' AS status,"
        " NULL AS match_id, 1.5 AS created_at, 2.5 AS expires_at, NULL AS rematch_of, 'x' AS unused"
    )
    record = from_row(ChallengeRecord, row)
    assert record == ChallengeRecord(
        7, None, 3, None, 1, 2, "ring", {"a": [1, 2]}, False, "pending", None, 1.5, 2.5, None
    )
    assert from_row(ChallengeRecord, row, game="space").game == "space"  # a given value wins
    settings = _row(
        "SELECT 5 AS guild_id, NULL AS reminder_seconds, 60.0 AS timeout_seconds, NULL AS challenge_seconds,"
        " '[\"ring\"]' AS allowed_games, NULL AS use_threads, NULL AS results_channel,"
        " NULL AS window_seconds, NULL AS organiser_role, NULL AS tournament_rated,"
        " NULL AS rollout_trials"
    )
    assert from_row(GuildSettings, settings) == GuildSettings(
        guild_id=5, timeout_seconds=60.0, allowed_games=("ring",), use_threads=True
    )
    with pytest.raises(IndexError):
        from_row(ChallengeRecord, _row("SELECT 1 AS id"))


@pytest.mark.asyncio
async def test_settings_round_trip_through_the_store(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "db.sqlite3")
    try:
        assert await store.settings.get(9) == GuildSettings(guild_id=9)
        saved = GuildSettings(guild_id=9, allowed_games=("ring", "space"), use_threads=False)
        await store.settings.save(saved)
        assert await store.settings.get(9) == saved
        assert await store.settings.get(None) == GuildSettings(guild_id=0)
    finally:
        await store.close()
