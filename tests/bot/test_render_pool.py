"""app.render_pool.RenderPool and bot.worker_lanes: pictures drawn in worker processes are the
pictures drawn inline, each kind of work has its own lane, and lost workers cost no work."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pickle
import random
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import render.replay as replay_module
from app import render_pool, worker_jobs
from app.render_pool import RenderPool
from bot import worker_lanes
from bot.worker_lanes import HeavyWorkFailed
from engine import VARIANTS
from engine.ai.coaching import AnalysisStopped
from engine.ai.levels import seeded_move
from engine.ai.random_player import random_action
from engine.protocol import CHANCE, GameState, GameView
from engine.ring import RingState
from fakediscord.patience import patient
from render import Caption, render_board
from render.replay import SavedMatch, replay_match
from tests.games import duel
from tests.support import register_kit

CAPTION = Caption(names=("Alice Liddell", "bob"))


def deciding_view(seed: int = 3) -> GameView:
    """A ring position where a seat (not chance) decides, in that seat's view."""
    rng = random.Random(seed)
    state: GameState = VARIANTS["ring"].new_game()
    while state.to_move() == CHANCE or len(state.legal_actions()) < 2:
        state = state.apply(random_action(state, rng))
    return state.view(state.to_move())


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
    register_kit(monkeypatch, duel.KIT)


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
    assert len(pool.board.pids()) == 2 and os.getpid() not in pool.pids()
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
    register_kit(monkeypatch, duel.KIT)
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
    before = pool.board.pids()
    os.kill(before[0], signal.SIGKILL)
    pictures = await asyncio.gather(*(pool.png(v, CAPTION) for v in views))
    assert list(pictures) == [render_board(v, CAPTION) for v in views]
    # the dead worker broke the pool (possibly noticed only by a later picture): a new one is made, once
    for _ in range(50):
        if pool.restarts:
            break
        await pool.png(views[0], CAPTION)
        await asyncio.sleep(0.02)
    assert pool.restarts == pool.board.restarts == 1
    after = pool.board.pids()
    assert len(after) == 2 and not set(after) & set(before)
    assert await pool.png(views[1], CAPTION) == render_board(views[1], CAPTION)


@pytest.mark.asyncio
async def test_a_stuck_worker_costs_no_picture_either(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_pool, "PICTURE_TIMEOUT", 0.5)
    monkeypatch.setattr(worker_lanes, "STOP_GRACE", 0.2)
    views = [s.view(None) for s in ring_positions(6)]
    with RenderPool(1) as pool:
        (stuck,) = pool.board.pids()
        os.kill(stuck, signal.SIGSTOP)
        try:
            pictures = await asyncio.gather(*(pool.png(v, CAPTION) for v in views))
            assert list(pictures) == [render_board(v, CAPTION) for v in views]
            assert pool.restarts == 1 and pool.board.pids() != [stuck]
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
    pool = RenderPool(1, heavy_workers=1)
    pool.start()
    pids = pool.pids()
    assert len(pids) == 3  # a board, a compute and a heavy worker
    pool.close()
    pool.close()
    assert not pool.started and pool.pids() == []
    pool.start()  # a closed pool stays closed
    assert not pool.started
    view = ring_positions(2)[-1].view(None)
    assert await pool.png(view) == render_board(view)


# -- lanes ------------------------------------------------------------------------------------------


def wait_for_file(path: str) -> int:
    """A job that runs until ``path`` exists (the test decides when it ends), in a worker."""
    while not os.path.exists(path):
        time.sleep(0.01)
    return os.getpid()


def pid_move(game: str, level: str | None, view: object, seed: int) -> int:
    """Stands in for the computer's move: where it was computed, and with which seed."""
    return os.getpid() * 1000 + seed % 1000


def dying_move(game: str, level: str | None, view: object, seed: int) -> int:
    """Dies in a worker; in the bot's process (a thread) it answers like ``pid_move``."""
    if os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return pid_move(game, level, view, seed)


PARENT = os.getpid()


def lost_analysis(game: str, options: object, log: object, flag: str) -> object:
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


@pytest.mark.asyncio
async def test_a_board_picture_never_waits_for_heavy_work(tmp_path: Path) -> None:
    """Both heavy workers busy (two long replays, say): a board picture is drawn at once by its own
    lane, while the heavy jobs are still running."""
    view = ring_positions(3)[-1].view(None)
    release = tmp_path / "release"
    with RenderPool(1, heavy_workers=2) as pool:
        heavy = [asyncio.create_task(pool.heavy.run(60, wait_for_file, str(release))) for _ in range(3)]
        await asyncio.sleep(0.2)
        picture = await asyncio.wait_for(pool.png(view, CAPTION), 30)
        assert picture == render_board(view, CAPTION)
        assert not any(task.done() for task in heavy)
        release.touch()
        pids = await asyncio.gather(*heavy)
        assert set(pids) <= set(pool.heavy.pids()) and pool.restarts == 0


@pytest.mark.asyncio
async def test_a_job_timeout_counts_its_own_run_not_the_wait_for_a_worker(tmp_path: Path) -> None:
    """A job queued behind a long one (longer than the queued job's own timeout) is not taken for a
    stuck worker: it reaches a worker only when one is free."""
    release = tmp_path / "release"
    lane = worker_lanes.Lane(worker_lanes.LaneSpec("test", 1))
    lane.start()
    try:
        long = asyncio.create_task(lane.run(60, wait_for_file, str(release)))
        queued = asyncio.create_task(lane.run(0.5, os.getpid))
        await asyncio.sleep(1.0)  # the queued job has waited twice its timeout
        release.touch()
        assert await long == await queued
        assert lane.restarts == 0
    finally:
        lane.close()


def test_heavy_workers_run_at_a_lower_priority_than_the_rest() -> None:
    with RenderPool(1, heavy_workers=2) as pool:
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        heavy = [os.getpriority(os.PRIO_PROCESS, pid) for pid in pool.heavy.pids()]
        assert heavy == [mine + render_pool.HEAVY_NICE] * 2 and heavy[0] >= mine + 5
        others = pool.board.pids() + pool.compute.pids()
        assert len(others) == 2
        assert all(os.getpriority(os.PRIO_PROCESS, pid) == mine for pid in others)


@pytest.mark.asyncio
async def test_the_computer_thinks_in_a_compute_worker_with_the_seed_it_is_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = deciding_view()
    rng = random.Random(4)
    with RenderPool(1) as pool:
        # the real move: the same in a worker as in this process, for the same seed
        for level in ("easy", "medium", "hard"):
            seed = rng.getrandbits(64)
            assert await pool.computer_move("ring", level, view, seed) == seeded_move(
                "ring", level, view, seed
            )
        monkeypatch.setattr(render_pool, "seeded_move", pid_move)
        where = await pool.computer_move("ring", "hard", view, 123_456)
        assert where % 1000 == 456 and where // 1000 in pool.compute.pids()


@pytest.mark.asyncio
async def test_a_computer_move_whose_worker_dies_is_computed_in_a_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = deciding_view()
    with RenderPool(1) as pool:
        monkeypatch.setattr(render_pool, "seeded_move", dying_move)
        where = await pool.computer_move("ring", "hard", view, 7)
        # the worker died with the move: it was computed here, in a thread, and the lane replaced
        assert where == os.getpid() * 1000 + 7
        assert pool.compute.restarts == 1 and len(pool.compute.pids()) == 1
        monkeypatch.undo()
        assert await pool.computer_move("ring", "hard", view, 99) == seeded_move("ring", "hard", view, 99)


@pytest.mark.asyncio
async def test_an_analysis_whose_worker_is_lost_is_reported_and_closing_stops_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(worker_jobs, "analyse_until", lost_analysis)
    with RenderPool(1, heavy_workers=1) as pool:
        with pytest.raises(HeavyWorkFailed):
            await pool.analyse("ring", None, [], lambda: False)
        # The job's thread answers first, then replaces the lost worker and counts it: on a busy
        # machine the count may come a moment after the answer.
        deadline = time.monotonic() + patient(10)
        while pool.heavy.restarts == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert pool.heavy.restarts == 1
        with pytest.raises(AnalysisStopped):  # lost while the bot closes: computed at the next start
            await pool.analyse("ring", None, [], lambda: True)
        release = tmp_path / "never"
        monkeypatch.setattr(worker_jobs, "analyse_until", slow_analysis)
        running = asyncio.create_task(pool.analyse("ring", None, [str(release)], lambda: True))
        await asyncio.sleep(0.3)
        heavy = pool.heavy.pids()
        pool.close()  # the heavy lane is killed at once, not given a grace
        with pytest.raises(AnalysisStopped):
            await running
        assert not any(_alive(pid) for pid in heavy)


def slow_analysis(game: str, options: object, log: list[str], flag: str) -> object:
    return wait_for_file(log[0])


def analysis_until_stopped(
    options: object, log: list[str], should_stop: Callable[[], bool], progress: object = None
) -> object:
    """An analysis of many decisions that only a stop ends: it notes in ``log[0]`` that it runs."""
    Path(log[0]).touch()
    while not should_stop():
        time.sleep(0.01)
    raise AnalysisStopped("stopped between two decisions")


@pytest.mark.asyncio
async def test_an_analysis_in_a_worker_stops_at_its_next_decision_when_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The bot stopping (``should_stop()`` turns true) stops an analysis running in a heavy worker
    between two decisions: the worker is neither killed nor replaced, and no flag file is left."""
    monkeypatch.setattr(worker_jobs, "ANALYSES", {"ring": analysis_until_stopped})
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stopping = threading.Event()
    running = tmp_path / "running"
    with RenderPool(1, heavy_workers=1) as pool:
        heavy = pool.heavy.pids()
        analysis = asyncio.create_task(pool.analyse("ring", None, [str(running)], stopping.is_set))
        for _ in range(600):
            if running.exists():
                break
            await asyncio.sleep(0.05)
        assert running.exists() and not analysis.done()
        stopping.set()
        with pytest.raises(AnalysisStopped):
            await asyncio.wait_for(analysis, 60)
        assert pool.heavy.pids() == heavy and all(_alive(pid) for pid in heavy)
        assert pool.heavy.restarts == 0
    assert [p.name for p in tmp_path.iterdir()] == ["running"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


@pytest.mark.asyncio
async def test_a_replay_is_made_from_the_log_in_a_heavy_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(8)
    state: GameState = VARIANTS["ring"].new_game()
    notations = []
    while state.outcome() is None and len(notations) < 30:
        action = random_action(state, rng)
        notations.append(action.notation)
        state = state.apply(action)
    saved = SavedMatch("ring", None, tuple(notations), ("a", "b"))
    expected = replay_match(saved)
    with RenderPool(1, heavy_workers=1) as pool:
        # the bot's process does not replay the log itself: only the worker may
        monkeypatch.setattr(replay_module, "replay_states", _refuse)
        made = await pool.replay(saved)
    assert made == expected and made.total == len(notations) + 1


def _refuse(*args: object) -> None:
    raise AssertionError("the replay's frames were rebuilt in the bot's process")
