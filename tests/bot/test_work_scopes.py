"""Several processes on one database: each finds the due work of its own shards' servers only, and a
piece of work claimed by one process is passed by the others until its lease runs out. Runs on SQLite
and on PostgreSQL (the processes here are two stores on one database, as two processes have)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.store import Deadlines, Store
from bot.store.scope import Scope, shard_of

GUILDS = {0: 4 << 22, 1: 5 << 22}
"""A server of each of two shards, by Discord's formula."""


async def _match(store: Store, guild_id: int | None, now: float) -> int:
    made = await store.matches.create(
        guild_id=guild_id, channel_id=10, parent_id=None, game="ring", options={}, players=(1, 2),
        state="{}", actions=[], rated=False, now=now, deadlines=Deadlines(now + 1, now + 2, None),
    )  # fmt: skip
    # Shown, so its clock counts.
    assert await store.boards.mark_shown(
        made.id, board_version=0, message_id=99, deadlines=None, previous=None
    )
    return made.id


def test_the_formula_is_discords() -> None:
    assert [shard_of(g, 2) for g in (GUILDS[0], GUILDS[1])] == [0, 1]
    assert shard_of(None, 4) == 0
    assert Scope.of(2, (0, 1)) == Scope() and Scope.of(None, None).everything
    assert Scope.of(2, (1,)).serves(GUILDS[1]) and not Scope.of(2, (1,)).serves(None)


@pytest.mark.asyncio
async def test_each_process_finds_the_due_work_of_its_own_shards(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    shard0 = await Store.open(db, Scope.of(2, (0,)))
    shard1 = await Store.open(db, Scope.of(2, (1,)))
    everything = await Store.open(db)
    try:
        in0 = await _match(shard0, GUILDS[0], 100.0)
        in1 = await _match(shard0, GUILDS[1], 100.0)
        direct = await _match(shard0, None, 100.0)  # a direct message: shard 0's, as on Discord
        assert [r.id for r in await shard0.deadlines.due_timeouts(200.0)] == [in0, direct]
        assert [r.id for r in await shard1.deadlines.due_timeouts(200.0)] == [in1]
        assert [r.id for r in await everything.deadlines.due_timeouts(200.0)] == [in0, in1, direct]
        assert [r.id for r in await shard1.deadlines.due_reminders(200.0)] == [in1]
        assert await shard1.deadlines.earliest() == 101.0
        # A board behind what is saved: found by its own shard's process only.
        await shard1.boards.request_board(in1)
        assert await shard1.boards.due_boards(None) == [in1] and await shard0.boards.due_boards(None) == []
        # Challenges past their time, and analyses still open, likewise.
        for guild in (GUILDS[0], GUILDS[1]):
            await shard0.challenges.create(
                guild_id=guild, channel_id=guild + 1, challenger_id=1, opponent_id=2, game="ring", options={},
                rated=False, now=0.0, expires_at=50.0,
            )  # fmt: skip
        assert [c.guild_id for c in await shard1.challenges.due(60.0)] == [GUILDS[1]]
        assert [c.guild_id for c in await shard0.challenges.due(60.0)] == [GUILDS[0]]
        await shard0.analyses.request(in1, 100.0)
        assert await shard1.analyses.open() == [in1] and await shard0.analyses.open() == []
    finally:
        for store in (shard0, shard1, everything):
            await store.close()


@pytest.mark.asyncio
async def test_a_claim_is_held_by_one_process_until_its_lease_runs_out(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    first, second = await Store.open(db), await Store.open(db)
    try:
        assert await first.claims.claim("board", 7, "a", now=0.0, lease=60.0)
        assert not await second.claims.claim("board", 7, "b", now=10.0, lease=60.0)
        assert await second.claims.claim("board", 8, "b", now=10.0, lease=60.0)  # another item: free
        assert await first.claims.claim("board", 7, "a", now=30.0, lease=60.0)  # renewed to 90
        assert not await second.claims.claim("board", 7, "b", now=80.0, lease=60.0)
        assert await second.claims.holder("board", 7, 80.0) == "a"
        # Its process died: the lease runs out and another process takes the work.
        assert await second.claims.claim("board", 7, "b", now=90.0, lease=60.0)
        await first.claims.release("board", 7, "a")  # too late: not a's any more, nothing changes
        assert await first.claims.holder("board", 7, 100.0) == "b"
        await second.claims.release("board", 7, "b")
        assert await first.claims.holder("board", 7, 100.0) is None
    finally:
        await first.close()
        await second.close()
