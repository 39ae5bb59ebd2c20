"""bot.worker_lanes.SlotLane, the heavy lane: each job in a worker of its own slot, limited by the CPU
its worker spent on it (not by the time it waited), failing alone, reporting its progress to the
parent's event loop, and killed at once when the lane closes. Real forked processes throughout."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app import render_pool, worker_jobs
from app.render_pool import RenderPool
from bot import worker_lanes
from bot.worker_lanes import HeavyWorkOverBudget, LaneSpec, OverBudget, SlotLane, WorkerLost
from fakediscord.patience import patient
from render.replay import SavedMatch

# -- jobs (module-level: they cross to the workers by reference) -----------------------------------


def wait_for(release: str, running: str | None = None) -> int:
    """Note that it runs (its pid in ``running``), then wait, using next to no CPU, until ``release``
    exists."""
    if running is not None:
        Path(running).write_text(str(os.getpid()))
    while not os.path.exists(release):
        time.sleep(0.01)
    return os.getpid()


def burn(running: str | None = None) -> None:
    """Use CPU until stopped (it never ends by itself)."""
    if running is not None:
        Path(running).touch()
    while True:
        pass


def cpu_and_wall_while_waiting(running: str, release: str) -> tuple[float, float]:
    """``wait_for``, answering the CPU seconds and the wall seconds it took."""
    cpu, wall = time.process_time(), time.monotonic()
    wait_for(release, running)
    return time.process_time() - cpu, time.monotonic() - wall


def raising(message: str) -> None:
    raise LookupError(message)


def unpicklable_answer() -> object:
    return threading.Lock()


def reporting(total: int, running: str, release: str) -> str:
    """Report 1 of ``total``, wait for ``release`` (the test sees the report first), then report
    every step quickly and the last."""
    worker_lanes.report_progress(1, total)
    wait_for(release, running)
    for done in range(2, total + 1):
        worker_lanes.report_progress(done, total)
    return "reported"


def reporting_analysis(
    options: object, log: list[str], should_stop: Callable[[], bool], progress: Callable[[int, int], None]
) -> str:
    """Stands in for a kit's analysis function: reports its progress as ``reporting`` does."""
    total, running, release = int(log[0]), log[1], log[2]
    progress(1, total)
    wait_for(release, running)
    for done in range(2, total + 1):
        progress(done, total)
    return "analysed"


# -- helpers -------------------------------------------------------------------------------------------


async def until(condition: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    """Wait (polling) until ``condition()``; a bound stretched for a busy machine."""
    deadline = time.monotonic() + patient(seconds)
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        await asyncio.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


@pytest.fixture
def lane() -> Iterator[SlotLane]:
    made = SlotLane(LaneSpec("heavy", 2, nice=5, stop_grace=0.0))
    made.start()
    try:
        yield made
    finally:
        made.close()


# -- tests ---------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_job_over_its_cpu_budget_is_stopped_and_told_while_its_sibling_finishes(
    lane: SlotLane, tmp_path: Path
) -> None:
    release, running = str(tmp_path / "release"), str(tmp_path / "running")
    sibling = asyncio.create_task(lane.run(600, wait_for, release, running))
    await until(lambda: bool(_read(running)), "the sibling to run")
    sibling_pid = int(_read(running))
    with pytest.raises(OverBudget, match="CPU budget"):
        await asyncio.wait_for(lane.run(600, burn, cpu=1), patient(60))
    assert not sibling.done() and alive(sibling_pid)
    Path(release).touch()
    assert await asyncio.wait_for(sibling, patient(30)) == sibling_pid
    # only the burner's slot got a new worker (once the failure was told), and it takes jobs
    await until(lambda: lane.restarts == 1 and len(lane.pids()) == 2, "the burner's replacement")
    assert lane.restarts == 1 and sibling_pid in lane.pids() and len(lane.pids()) == 2
    assert set(await asyncio.gather(*(lane.run(60, os.getpid) for _ in range(4)))) <= set(lane.pids())


def _read(path: str) -> str:
    with contextlib.suppress(FileNotFoundError):
        return Path(path).read_text()
    return ""


@pytest.mark.asyncio
async def test_a_job_that_waited_but_used_little_cpu_is_not_stopped(lane: SlotLane, tmp_path: Path) -> None:
    """Its worker stopped (SIGSTOP: the machine gave it no CPU) for three times its CPU budget: the
    job still finishes, as its limit counts the work it did."""
    release, running = str(tmp_path / "release"), str(tmp_path / "running")
    job = asyncio.create_task(lane.run(600, cpu_and_wall_while_waiting, running, release, cpu=1))
    await until(lambda: os.path.exists(running), "the job to run")
    stopped = set(lane.pids())
    for pid in stopped:  # the idle one too: whichever runs the job gets no CPU
        os.kill(pid, signal.SIGSTOP)
    since = time.monotonic()
    try:
        await until(lambda: time.monotonic() - since > 3.0, "three seconds to pass", 10)
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    await until(lambda: time.monotonic() - since > 3.5, "three and a half seconds to pass", 10)
    Path(release).touch()
    cpu, wall = await asyncio.wait_for(job, patient(30))
    assert wall > 3.0 and cpu < 1.0
    assert lane.restarts == 0 and set(lane.pids()) == stopped


@pytest.mark.asyncio
async def test_a_killed_heavy_worker_fails_only_its_own_job(lane: SlotLane, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    release = str(tmp_path / "release")
    jobs = [
        asyncio.create_task(lane.run(600, wait_for, release, str(first))),
        asyncio.create_task(lane.run(600, wait_for, release, str(second))),
    ]
    await until(lambda: first.exists() and second.exists(), "both jobs to run")
    before = lane.pids()
    victim = before[0]
    os.kill(victim, signal.SIGKILL)
    done, _ = await asyncio.wait(jobs, timeout=patient(30), return_when=asyncio.FIRST_COMPLETED)
    (lost,) = done
    with pytest.raises(WorkerLost, match="killed"):
        lost.result()
    (other,) = [job for job in jobs if job is not lost]
    assert not other.done()
    Path(release).touch()
    assert await asyncio.wait_for(other, patient(30)) == before[1]
    await until(lambda: lane.restarts == 1 and len(lane.pids()) == 2, "the killed worker's replacement")
    after = lane.pids()
    assert lane.restarts == 1 and before[1] in after and victim not in after


@pytest.mark.asyncio
async def test_a_stuck_worker_is_given_up_after_the_wall_clock_bound_alone(
    lane: SlotLane, tmp_path: Path
) -> None:
    release, running, other = str(tmp_path / "release"), str(tmp_path / "running"), str(tmp_path / "other")
    sibling = asyncio.create_task(lane.run(600, wait_for, release, other))
    await until(lambda: os.path.exists(other), "the sibling to run")
    busy = set(lane.pids())
    stuck = asyncio.create_task(lane.run(0.5, wait_for, release, running))
    await until(lambda: os.path.exists(running), "the job to run")
    for pid in busy:  # both workers: one of them is the stuck job's
        os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(WorkerLost, match="hung"):
            await asyncio.wait_for(stuck, patient(30))
    finally:
        for pid in busy:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    Path(release).touch()
    sibling_pid = await asyncio.wait_for(sibling, patient(30))
    await until(lambda: lane.restarts == 1 and len(lane.pids()) == 2, "the stuck worker's replacement")
    assert sibling_pid in lane.pids() and lane.restarts == 1


@pytest.mark.asyncio
async def test_progress_reaches_the_parent_on_its_event_loop_a_few_times_at_most(
    lane: SlotLane, tmp_path: Path
) -> None:
    release, running = str(tmp_path / "release"), str(tmp_path / "running")
    heard: list[tuple[int, int]] = []
    first = asyncio.Event()
    loop_thread = threading.get_ident()

    def progress(done: int, total: int) -> None:
        assert threading.get_ident() == loop_thread
        heard.append((done, total))
        first.set()

    job = asyncio.create_task(lane.run(600, reporting, 10_000, running, release, progress=progress))
    await asyncio.wait_for(first.wait(), patient(30))
    assert heard == [(1, 10_000)] and not job.done()
    Path(release).touch()
    assert await asyncio.wait_for(job, patient(30)) == "reported"
    await until(lambda: heard[-1] == (10_000, 10_000), "the last report")
    # 10,000 reports made within moments: a handful crossed, the last one always
    assert len(heard) < 100


@pytest.mark.asyncio
@pytest.mark.parametrize("workers", [1, 0], ids=["in a heavy worker", "in a thread of the bot"])
async def test_an_analysis_tells_its_progress_through_the_pool(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, workers: int
) -> None:
    monkeypatch.setattr(worker_jobs, "ANALYSES", {"ring": reporting_analysis})
    release, running = str(tmp_path / "release"), str(tmp_path / "running")
    heard: list[tuple[int, int]] = []
    first = asyncio.Event()

    def progress(done: int, total: int) -> None:
        heard.append((done, total))
        first.set()

    with RenderPool(workers, heavy_workers=1) as pool:
        assert pool.heavy.available == bool(workers)
        analysis = asyncio.create_task(
            pool.analyse("ring", None, ["500", running, release], lambda: False, progress)
        )
        await asyncio.wait_for(first.wait(), patient(30))
        assert heard == [(1, 500)] and not analysis.done()
        Path(release).touch()
        assert await asyncio.wait_for(analysis, patient(30)) == "analysed"  # type: ignore[comparison-overlap]
        await until(lambda: heard[-1] == (500, 500), "the last report")
        assert len(heard) < 50


@pytest.mark.asyncio
async def test_closing_kills_heavy_work_at_once_and_tells_every_job(lane: SlotLane, tmp_path: Path) -> None:
    never = str(tmp_path / "never")
    marks = [tmp_path / "a", tmp_path / "b"]
    running = [asyncio.create_task(lane.run(600, wait_for, never, str(mark))) for mark in marks]
    await until(lambda: all(mark.exists() for mark in marks), "both jobs to run")
    queued = asyncio.create_task(lane.run(600, wait_for, never))
    await until(lambda: lane.waiting == 1, "the third job to wait for a slot")
    workers = lane.pids()
    lane.close()
    for job in [*running, queued]:
        with pytest.raises(WorkerLost):
            await asyncio.wait_for(job, patient(30))
    assert not any(alive(pid) for pid in workers) and lane.pids() == []
    with pytest.raises(WorkerLost, match="closed"):
        await lane.run(60, os.getpid)


@pytest.mark.asyncio
async def test_a_cancelled_job_has_its_worker_killed_and_replaced(lane: SlotLane, tmp_path: Path) -> None:
    running = str(tmp_path / "running")
    job = asyncio.create_task(lane.run(600, burn, running))
    await until(lambda: os.path.exists(running), "the job to run")
    before = lane.pids()
    job.cancel()
    with pytest.raises(asyncio.CancelledError):
        await job
    await until(lambda: lane.restarts == 1 and len(lane.pids()) == 2, "a fresh worker")
    assert len(set(before) & set(lane.pids())) == 1


@pytest.mark.asyncio
async def test_a_jobs_own_error_propagates_and_costs_no_worker(lane: SlotLane) -> None:
    before = lane.pids()
    with pytest.raises(LookupError, match="no such thing"):
        await lane.run(60, raising, "no such thing")
    with pytest.raises(RuntimeError, match="could not be sent back"):
        await lane.run(60, unpicklable_answer)
    assert lane.restarts == 0 and lane.pids() == before
    assert await lane.run(60, os.getpid) in before


@pytest.mark.asyncio
async def test_a_replay_over_its_cpu_budget_is_told_while_the_analysis_beside_it_goes_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The issue's failure: one replay's limit ended the analysis beside it ("the heavy lane is
    closed"). Now the replay is told it ran over (``HeavyWorkOverBudget``) and the analysis finishes."""
    monkeypatch.setattr(render_pool, "REPLAY_CPU", 1.0)
    monkeypatch.setattr(render_pool, "replay_match", burning_replay)
    monkeypatch.setattr(worker_jobs, "ANALYSES", {"ring": reporting_analysis})
    release, running = str(tmp_path / "release"), str(tmp_path / "running")
    saved = SavedMatch("ring", None, (), ("a", "b"))
    with RenderPool(1, heavy_workers=2) as pool:
        analysis = asyncio.create_task(pool.analyse("ring", None, ["3", running, release], lambda: False))
        await until(lambda: os.path.exists(running), "the analysis to run")
        with pytest.raises(HeavyWorkOverBudget, match="CPU budget"):  # a HeavyWorkFailed
            await asyncio.wait_for(pool.replay(saved), patient(60))
        assert not analysis.done()
        Path(release).touch()
        assert await asyncio.wait_for(analysis, patient(30)) == "analysed"  # type: ignore[comparison-overlap]
        await until(
            lambda: pool.heavy.restarts == 1 and len(pool.heavy.pids()) == 2, "the burner's replacement"
        )


def burning_replay(match: object, limit: int, progress: str | None) -> None:
    burn()
