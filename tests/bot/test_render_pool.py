"""bot.render_pool.RenderPool: pictures drawn in worker processes are the pictures drawn inline."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import random
import signal
from collections.abc import Iterator

import pytest

import render
from bot import render_pool
from bot.render_pool import RenderPool
from engine import VARIANTS
from engine.ai.random_player import random_action
from engine.protocol import GameState
from engine.ring import RingState
from render import Caption, render_board
from tests.games import duel

CAPTION = Caption(names=("Alice Liddell", "bob"))


def ring_positions(count: int, seed: int = 3) -> list[GameState]:
    rng = random.Random(seed)
    state: GameState = VARIANTS["ring"].new_game()
    found = [state]
    while len(found) < count and state.outcome() is None:
        state = state.apply(random_action(state, rng))
        found.append(state)
    # a spread of them: the start, some middle positions, the last one
    return [found[0], *found[1 : -1 : max(1, len(found) // 4)], found[-1]][:count]


@pytest.fixture
def pool() -> Iterator[RenderPool]:
    p = RenderPool(2)
    p.start()
    try:
        yield p
    finally:
        p.close()


@pytest.fixture
def duel_rendered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Duel's picture registered at run time in this process, before a pool starts."""
    monkeypatch.setitem(VARIANTS, "duel", duel.VARIANT)
    monkeypatch.setitem(render.RENDERERS, "duel", duel.render)
    monkeypatch.setitem(render.SEAT_STYLES, "duel", duel.SEATS)


def test_views_and_captions_pickle() -> None:
    for state in ring_positions(6):
        assert isinstance(state, RingState)
        view = state.view(None)
        assert pickle.loads(pickle.dumps(view)) == view
    dealt = duel.VARIANT.new_game().view(None)
    assert pickle.loads(pickle.dumps(dealt)) == dealt
    assert pickle.loads(pickle.dumps(CAPTION)) == CAPTION


@pytest.mark.asyncio
async def test_a_pool_of_two_draws_the_same_bytes_as_render_board(pool: RenderPool) -> None:
    views = [s.view(None) for s in ring_positions(8)]
    pictures = await asyncio.gather(*(pool.png(v, CAPTION) for v in views))
    assert list(pictures) == [render_board(v, CAPTION) for v in views]
    assert pictures[0].startswith(b"\x89PNG\r\n\x1a\n")
    assert len(pool.pids()) == 2 and os.getpid() not in pool.pids()
    # the default caption too
    assert await pool.png(views[0]) == render_board(views[0])


@pytest.mark.asyncio
async def test_a_game_registered_at_run_time_before_start_is_drawn_by_the_workers(
    duel_rendered: None,
) -> None:
    view = duel.VARIANT.new_game().view(None)
    with RenderPool(2) as pool:
        assert await pool.png(view, CAPTION) == render_board(view, CAPTION)


@pytest.mark.asyncio
async def test_a_game_registered_after_start_is_drawn_inline(
    pool: RenderPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(VARIANTS, "duel", duel.VARIANT)
    monkeypatch.setitem(render.RENDERERS, "duel", duel.render)
    view = duel.VARIANT.new_game().view(None)
    assert await pool.png(view) == render_board(view)


@pytest.mark.asyncio
async def test_inline_mode_starts_no_process() -> None:
    pool = RenderPool(0)
    pool.start()
    assert pool.inline and not pool.started and pool.pids() == []
    view = ring_positions(3)[-1].view(None)
    assert await pool.png(view, CAPTION) == render_board(view, CAPTION)
    pool.close()
    pool.close()


@pytest.mark.asyncio
async def test_a_renderer_error_propagates_as_it_would_inline(pool: RenderPool) -> None:
    view = ring_positions(1)[0].view(None)
    with pytest.raises(AttributeError):
        render_board(view, "not a caption")  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        await pool.png(view, "not a caption")  # type: ignore[arg-type]
    assert pool.restarts == 0


@pytest.mark.asyncio
async def test_a_killed_worker_costs_no_picture_and_the_pool_is_recreated(pool: RenderPool) -> None:
    views = [s.view(None) for s in ring_positions(4)]
    before = pool.pids()
    os.kill(before[0], signal.SIGKILL)
    pictures = await asyncio.gather(*(pool.png(v, CAPTION) for v in views))
    assert list(pictures) == [render_board(v, CAPTION) for v in views]
    # the dead worker broke the pool (possibly noticed only by a later picture): a new one is made, once
    for _ in range(50):
        if pool.restarts:
            break
        await pool.png(views[0], CAPTION)
        await asyncio.sleep(0.02)
    assert pool.restarts == 1
    after = pool.pids()
    assert len(after) == 2 and not set(after) & set(before)
    assert await pool.png(views[1], CAPTION) == render_board(views[1], CAPTION)


@pytest.mark.asyncio
async def test_a_stuck_worker_costs_no_picture_either(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_pool, "PICTURE_TIMEOUT", 0.5)
    monkeypatch.setattr(render_pool, "STOP_GRACE", 0.2)
    views = [s.view(None) for s in ring_positions(6)]
    with RenderPool(1) as pool:
        (stuck,) = pool.pids()
        os.kill(stuck, signal.SIGSTOP)
        try:
            pictures = await asyncio.gather(*(pool.png(v, CAPTION) for v in views))
            assert list(pictures) == [render_board(v, CAPTION) for v in views]
            assert pool.restarts == 1 and pool.pids() != [stuck]
            assert await pool.png(views[0], CAPTION) == render_board(views[0], CAPTION)
        finally:
            with contextlib.suppress(ProcessLookupError):  # killed already by the pool
                os.kill(stuck, signal.SIGKILL)


@pytest.mark.asyncio
async def test_pictures_still_queued_when_the_pool_closes_are_drawn_inline() -> None:
    views = [s.view(None) for s in ring_positions(5)] * 3
    pool = RenderPool(1)
    pool.start()
    tasks = [asyncio.create_task(pool.png(v, CAPTION)) for v in views]
    await asyncio.sleep(0)  # every picture submitted
    pool.close()
    pictures = await asyncio.gather(*tasks)
    assert list(pictures) == [render_board(v, CAPTION) for v in views]


@pytest.mark.asyncio
async def test_close_is_idempotent_and_later_pictures_are_drawn_inline() -> None:
    pool = RenderPool(1)
    pool.start()
    pids = pool.pids()
    assert len(pids) == 1
    pool.close()
    pool.close()
    assert not pool.started and pool.pids() == []
    pool.start()  # a closed pool stays closed
    assert not pool.started
    view = ring_positions(2)[-1].view(None)
    assert await pool.png(view) == render_board(view)
