"""A process that starts takes back at once the claims of processes known to be gone
(``bot.work_claims.free_the_dead``): a restart after kill -9 shows the boards and computes the
analyses the killed process had claimed now, not a lease (two minutes, a quarter of an hour) later."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.store import Store
from bot.work_claims import ANALYSIS_LEASE, BOARD_LEASE, OWNER, WorkClaims, gone, owner_name


def a_dead_pid() -> int:
    """The process id of a process that has ended (and was reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_process_of_this_machine_that_no_longer_runs_is_gone() -> None:
    assert gone(owner_name(a_dead_pid(), "abc123"))


def test_a_process_that_runs_is_not_gone() -> None:
    assert not gone(owner_name(os.getppid(), "abc123"))  # the process that started the tests
    assert not gone(OWNER)  # this process itself


def test_a_claim_under_this_process_id_with_another_token_is_of_a_process_gone() -> None:
    """In a container a restarted bot often has the process id of the one killed (1): the token tells
    them apart."""
    assert gone(owner_name(os.getpid(), "000000"), OWNER)


def test_a_process_of_another_machine_or_an_unknown_name_is_not_known_to_be_gone() -> None:
    assert not gone(owner_name(a_dead_pid(), "abc123", host="another-machine"))
    assert not gone("not a process name")
    here = OWNER.rsplit(":", 2)[0]
    assert not gone(f"{here}:not-a-pid:abc123")


@pytest.mark.asyncio
async def test_the_claims_of_a_killed_process_are_taken_back_at_start(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "db.sqlite3")
    try:
        clock = ManualClock(1000.0)
        dead = owner_name(a_dead_pid(), "abc123")
        alive = owner_name(os.getppid(), "def456")
        elsewhere = owner_name(123, "ghi789", host="another-machine")
        assert await store.claims.claim("board", 1, dead, clock.now(), BOARD_LEASE)
        assert await store.claims.claim("analysis", 2, dead, clock.now(), ANALYSIS_LEASE)
        assert await store.claims.claim("board", 3, alive, clock.now(), BOARD_LEASE)
        assert await store.claims.claim("board", 4, elsewhere, clock.now(), BOARD_LEASE)
        claims = WorkClaims(store, clock)
        # PostgreSQL, shared by several processes: only the dead one's claims are taken back.
        assert await claims.free_the_dead(sole=False) == 2
        assert await store.claims.holder("board", 1, clock.now()) is None
        assert await store.claims.holder("analysis", 2, clock.now()) is None
        assert await store.claims.holder("board", 3, clock.now()) == alive
        assert await store.claims.holder("board", 4, clock.now()) == elsewhere
        async with claims.hold("board", 1, BOARD_LEASE) as mine:
            assert mine  # the work of the dead is this process's now
            # SQLite, held by one process at a time: every other owner is gone; this one's own stay.
            assert await claims.free_the_dead(sole=True) == 2
            assert await store.claims.owners() == [OWNER]
    finally:
        await store.close()
