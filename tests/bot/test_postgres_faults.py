"""PostgreSQL's own faults, through the fake Discord: a lock another program holds, and connections
the server drops (a restart). Every click is still answered privately, nothing is changed by a click
the database refused, and the bot goes on by itself once the database is back. (SQLite's locks are
tested in ``test_hostile_input.py`` and ``test_answer_deadline.py``.)"""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest

from app.client import RingsideBot
from bot.store.connection import Busy
from fakediscord import FakeDiscord, FakeMessage
from fakediscord.matches import challenge_and_accept, match_id_of, user_on_turn
from tests.bot.test_hostile_input import roll_of
from tests.databases import url_for
from tests.support import start_bot, stop_bot


async def _a_match(fake: FakeDiscord, db: Path) -> tuple[RingsideBot, FakeMessage, int, int]:
    """A bot on ``db`` with a match between two members: the bot, the board, the match, its version."""
    bot = await start_bot(fake, db)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    return bot, board, mid, (await bot.sessions.get(mid)).version


async def drop_every_connection(db: Path) -> None:
    """What a PostgreSQL restart does to the bot's pooled connections: the server ends them all."""
    admin = await asyncpg.connect(url_for(db))
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE application_name = 'ringside' AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()


@pytest.mark.asyncio
@pytest.mark.postgres_only("PostgreSQL's locks; SQLite's are tested in test_hostile_input.py")
async def test_a_lock_held_by_another_program_is_answered_busy_and_changes_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bot, board, mid, version = await _a_match(fake, db)
    player = user_on_turn(board, fake.world.users)
    assert player is not None
    other = await asyncpg.connect(url_for(db))
    try:
        transaction = other.transaction()
        await transaction.start()
        await other.execute("LOCK TABLE matches IN ACCESS EXCLUSIVE MODE")
        answer = await fake.click(player, board, roll_of(board), idle=True)
        refusal = answer.private
        assert refusal is not None
        assert "database is busy" in refusal.content and "nothing was changed" in refusal.content
        with pytest.raises(Busy):  # a read waits for the lock as long as a write, then gives up alike
            await bot.store.matches.get(mid)
        await transaction.rollback()
    finally:
        await other.close()
    assert (await bot.sessions.get(mid)).version == version
    # Once the lock is gone the same click works.
    await fake.click(player, board, roll_of(board), idle=True)
    assert (await bot.sessions.get(mid)).version > version
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.postgres_only("PostgreSQL's server dropping connections")
async def test_connections_the_server_drops_are_answered_and_the_bot_goes_on(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """What a PostgreSQL restart does to the bot's pooled connections: each click meanwhile is answered
    (done, or "cannot reach its database ... try again" with nothing changed), never left unanswered
    nor failed, and the pool comes back by itself."""
    db = tmp_path / "db.sqlite3"
    bot, board, mid, version = await _a_match(fake, db)
    player = user_on_turn(board, fake.world.users)
    assert player is not None
    await drop_every_connection(db)
    answers = []
    for _ in range(12):
        answer = await fake.click(player, board, roll_of(board), idle=True)
        said = answer.private.content if answer.private is not None else ""
        answers.append(said)
        if (await bot.store.matches.get(mid)).version > version:  # type: ignore[union-attr]
            break
        assert "cannot reach its database" in said and "nothing was changed" in said, said
    assert (await bot.store.matches.get(mid)).version > version  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


def test_a_database_url_nobody_answers_stops_the_bot_with_one_line(tmp_path: Path) -> None:
    """No server at DATABASE_URL (not started yet, a wrong port): one line naming it, without its
    password, and exit code 2, as for every other setting to fix."""
    import os
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free, and closed again: nobody listens there
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE", "DATABASE_URL", "SHARD_COUNT", "SHARD_IDS")
    }
    env.update(
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
        DISCORD_TOKEN="x",
        DATABASE_URL=f"postgresql://ringside:s3cret@127.0.0.1:{port}/ringside",
    )
    done = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(
        f"error: cannot connect to PostgreSQL at postgresql://ringside:***@127.0.0.1:{port}/ringside"
    )
    assert "s3cret" not in done.stderr


@pytest.mark.asyncio
@pytest.mark.postgres_only("PostgreSQL's statement time limit")
async def test_a_statement_that_never_returns_is_given_up_not_waited_for_forever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection that died in the middle of an operation can leave its caller waiting for an answer
    that never comes (bench/cluster.py's PostgreSQL restart froze a process's scheduler that way): every
    statement has a time limit, and one over it is answered like a database that cannot be reached."""
    import bot.store.postgres as postgres
    from bot.store import Store, WriteFailed

    monkeypatch.setattr(postgres, "COMMAND_TIMEOUT", 0.5)
    store = await Store.open(tmp_path / "db.sqlite3")
    try:
        with pytest.raises(WriteFailed, match="cannot reach its database"):
            await store.connection.one("SELECT pg_sleep(3)")
        with pytest.raises(WriteFailed, match="cannot reach its database"):
            async with store.connection.transaction() as tx:
                await tx.execute("SELECT pg_sleep(3)")
        assert await store.matches.get(1) is None  # and the pool goes on
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_move_saved_before_the_database_went_away_is_not_called_unchanged(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database goes away after a click's move is saved but before its board is shown: the player
    is told it is saved and will show (not "nothing was changed"), and the scheduler shows it."""
    from bot.store.connection import UNREACHABLE, WriteFailed
    from cogs.match_controls import SAVED_SHOWN_LATER
    from cogs.turn_panels import TurnPanels

    bot, board, mid, version = await _a_match(fake, tmp_path / "db.sqlite3")
    player = user_on_turn(board, fake.world.users)
    assert player is not None
    real = TurnPanels.show_result

    async def away(self: TurnPanels, interaction: object, played: object) -> None:
        raise WriteFailed(UNREACHABLE)

    monkeypatch.setattr(TurnPanels, "show_result", away)
    answer = await fake.click(player, board, roll_of(board), idle=True)
    assert answer.private is not None and answer.private.content == SAVED_SHOWN_LATER
    saved = await bot.store.matches.get(mid)
    assert saved is not None and saved.version > version and saved.behind
    monkeypatch.setattr(TurnPanels, "show_result", real)
    await bot.run_due_tasks()  # the scheduler's round shows what was saved
    assert not (await bot.store.matches.get(mid)).behind  # type: ignore[union-attr]
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.postgres_only("PostgreSQL's server dropping connections")
async def test_reads_right_after_the_server_dropped_every_connection_are_answered_from_fresh_ones(
    tmp_path: Path,
) -> None:
    """A server restart drops every pooled connection at once, and asyncpg may hand out one whose end it
    has not read yet (seen in CI: "cannot switch to state 11; another operation (2) is in progress").
    A read changes nothing, so it is tried again on a fresh connection; the dropped connections are
    closed and the others checked, never handed out again."""
    import asyncio

    from bot.store import Store

    store = await Store.open(tmp_path / "db.sqlite3")
    try:
        pool = store.connection.pool  # type: ignore[attr-defined]
        for _ in range(5):
            # Several connections open, then all dropped by the server while they sit in the pool.
            await asyncio.gather(*(store.connection.one("SELECT pg_sleep(0.05)") for _ in range(6)))
            await drop_every_connection(tmp_path / "db.sqlite3")
            found = await asyncio.gather(*(store.matches.get(1) for _ in range(8)))
            assert found == [None] * 8
            assert pool.get_size() >= 1
    finally:
        await store.close()
