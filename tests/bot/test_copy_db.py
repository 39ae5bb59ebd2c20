"""``python -m bot copy-db``: a server's SQLite data moved into an empty database (PostgreSQL in the
PostgreSQL run, another SQLite file in the SQLite run), whole: matches in play go on where they were,
ratings, settings and analyses are the same, new ids follow the old ones; a target that holds
anything is refused and left as it was."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.copy_db import CopyError, copy_database
from bot.sessions import SessionManager
from bot.store import GuildSettings, Store
from bot.store.sqlite import SqliteConnection
from tests.databases import process_env, target

ALICE, BOB, CAROL = 101, 202, 303
GUILD = 7 << 22


async def _played_source(path: Path) -> dict[str, object]:
    """A SQLite database with a bit of everything: a match in play, a finished rated one with its
    rating history and analysis, a pending challenge, server settings."""
    store = Store(await SqliteConnection.connect(path))
    manager = SessionManager(store, ManualClock(), rng=random.Random(4))
    try:
        finished = await manager.start_match(
            game="ring",
            options={},
            players=(ALICE, BOB),
            guild_id=GUILD,
            channel_id=10,
            parent_id=None,
            rated=True,
        )
        await manager.ends.resign(finished.session.id, BOB)
        rematch = await manager.start_match(
            game="ring", options={}, players=(ALICE, BOB), guild_id=GUILD, channel_id=10, parent_id=None,
            rated=True, rematch_of=finished.session.id,
        )  # fmt: skip
        session = rematch.session
        assert session.state is not None
        on_turn = ALICE if session.state.turn == 0 else BOB
        await manager.roll(session.id, on_turn, session.version)
        await store.challenges.create(
            guild_id=GUILD, channel_id=11, challenger_id=CAROL, opponent_id=ALICE, game="space", options={},
            rated=True, now=1.0, expires_at=900.0,
        )  # fmt: skip
        await store.settings.save(GuildSettings(guild_id=GUILD, allowed_games=("ring",), use_threads=False))
        await store.analyses.request(finished.session.id, 5.0)
        await store.analyses.save(finished.session.id, {"players": [1, 2]}, 6.0)
        return {
            "finished": finished.session.id,
            "active": session.id,
            "log": await store.matches.action_log(session.id),
            "record": await store.matches.get(session.id),
            "standing": await store.ratings.standing(GUILD, "ring", ALICE),
        }
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_everything_is_copied_and_play_goes_on_in_the_copy(tmp_path: Path) -> None:
    source = tmp_path / "ringside.sqlite3"
    seen = await _played_source(source)
    into = target(tmp_path / "copy.sqlite3")
    copied = await copy_database(source, into)
    counts = dict(copied.rows)
    assert counts["matches"] == 2 and counts["challenges"] == 1 and counts["ratings"] == 2
    assert counts["rating_history"] == 2 and counts["match_analyses"] == 1 and counts["guild_settings"] == 1
    store = await Store.open(into)
    try:
        active = int(str(seen["active"]))
        assert await store.matches.get(active) == seen["record"]
        assert await store.matches.action_log(active) == seen["log"]
        assert await store.ratings.standing(GUILD, "ring", ALICE) == seen["standing"]
        settings = await store.settings.get(GUILD)
        assert settings.allowed_games == ("ring",) and settings.use_threads is False
        analysis = await store.analyses.get(int(str(seen["finished"])))
        assert analysis is not None and analysis.analysis == {"players": [1, 2]}
        # The match in play goes on, and a new match gets the next id.
        manager = SessionManager(store, ManualClock(), rng=random.Random(4))
        session = await manager.get(active)
        assert session.state is not None and not session.state.is_terminal()
        newer = await manager.start_match(
            game="ring",
            options={},
            players=(BOB, CAROL),
            guild_id=GUILD,
            channel_id=12,
            parent_id=None,
            rated=True,
        )
        assert newer.session.id == max(active, int(str(seen["finished"]))) + 1
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_target_that_holds_anything_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    source = tmp_path / "ringside.sqlite3"
    await _played_source(source)
    into = target(tmp_path / "copy.sqlite3")
    store = await Store.open(into)
    await store.settings.save(GuildSettings(guild_id=1, use_threads=False))
    await store.close()
    with pytest.raises(CopyError, match=r"is not empty \(1 guild_settings\)"):
        await copy_database(source, into)
    store = await Store.open(into)
    try:
        assert await store.matches.get(1) is None
    finally:
        await store.close()
    with pytest.raises(CopyError, match="there is no SQLite database at"):
        await copy_database(tmp_path / "missing.sqlite3", into)


def test_the_command_copies_and_says_what_it_copied(tmp_path: Path) -> None:
    import asyncio

    source = tmp_path / "ringside.sqlite3"
    asyncio.run(_played_source(source))
    env = process_env(tmp_path / "copy.sqlite3")
    into = env.get("DATABASE_URL") or env["DATABASE"]
    done = subprocess.run(
        [sys.executable, "-m", "bot", "copy-db", "--from", str(source), "--to", into],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "copied 2 matches, 1 challenges" in done.stdout
    again = subprocess.run(
        [sys.executable, "-m", "bot", "copy-db", "--from", str(source), "--to", into],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 2
    [line] = again.stderr.strip().splitlines()
    assert line.startswith("error: the target ") and "is not empty" in line
