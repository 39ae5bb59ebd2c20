"""Workers end with the bot: ``bot.worker_processes.die_with_parent``."""

from __future__ import annotations

import os
import time

import pytest

from bot.worker_processes import die_with_parent


def _fork(body: object) -> int:
    pid = os.fork()
    if pid == 0:  # the child: run the body, then linger; only die_with_parent may end it early
        try:
            assert callable(body)
            body()
            time.sleep(5)
        finally:
            os._exit(3)
    return pid


def _status(pid: int, within: float = 3.0) -> int | None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    return None


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_worker_whose_parent_died_before_it_started_watching_ends_at_once() -> None:
    """The parent's pid comes from the parent: a worker started after the bot was killed (its parent
    is already someone else) must not adopt its new parent as the one to watch."""
    assert _status(_fork(lambda: die_with_parent(os.getpid() + 10**6))) == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers are forked")
def test_a_worker_whose_parent_lives_keeps_working() -> None:
    parent = os.getpid()
    assert _status(_fork(lambda: die_with_parent(parent)), within=1.0) is None
