"""Heavy jobs (issue 34, ``bot.jobs``, ``bot.store.jobs``): analyses of our matches and of match files
queued in the database, fair (one file per member, bounded queues, our matches first), visible (a
place and an estimate, then progress), kept across a restart, and told when they cannot finish."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.analyses import KEPT_AT_RESTART, FileSource
from bot.jobs import runner as runner_module
from bot.jobs.places import DEFAULT_SECONDS_PER_ACTION, duration, places
from bot.jobs.runner import FILE_FAILED, JobRunner
from bot.store import Store
from bot.store.jobs import (
    ANALYSIS,
    FILE,
    JOB_DONE,
    JOB_FAILED,
    QUEUED,
    RUNNING,
    JobRecord,
    Limits,
    Refused,
)
from bot.worker_lanes import HeavyWorkFailed, HeavyWorkOverBudget
from engine.ai import backgammon_analysis
from engine.ai.coaching import Analysis, AnalysisStopped, ProgressReport, StopCheck
from fakediscord import FakeDiscord
from fakediscord.patience import patient
from tests.bot.heavy_jobs_support import empty_match, job_record, opened_store, queued_file
from tests.bot.test_analyse_file import ONE_POINT
from tests.bot.test_coach_discord import change_analysis
from tests.databases import sql
from tests.support import start_bot, stop_bot


@pytest.fixture(autouse=True)
def cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cheap depth, and progress shown at once (the bounds are the tests', not a user's)."""
    monkeypatch.setattr(backgammon_analysis, "LEVEL", "2ply")
    monkeypatch.setattr(runner_module, "PROGRESS_EVERY", 0.05)
    monkeypatch.setattr("bot.analyses.SHOW_EVERY", 0.05)


class Gate:
    """An analysis that reports progress, then waits until opened (or stopped), then runs the real one."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.started: list[int] = []
        self.real = backgammon_analysis.analyse_match

    def __call__(
        self,
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        should_stop: StopCheck | None,
        progress: ProgressReport | None = None,
    ) -> Analysis:
        self.started.append(len(log))
        if progress is not None:
            progress(80, 154)
        while not self.opened.wait(0.01):
            if should_stop is not None and should_stop():
                raise AnalysisStopped("stopped")
        return self.real(options, log, should_stop, progress)


def source(user: Any, fake: FakeDiscord, name: str) -> FileSource:
    return FileSource(name, fake.guild.id, fake.channel.id, user.id)


# -- the store ---------------------------------------------------------------------------------------


async def finish_empty_file(
    store: Store, job: JobRecord, owner: str, *, seconds: float, now: float
) -> int | None:
    """``job``'s end saved by ``owner`` with an empty analysis of players a and b."""
    return await store.jobs.finish_file(
        job,
        owner,
        names=("a", "b"),
        options={},
        packed_log=b"",
        packed_analysis=b"",
        seconds=seconds,
        now=now,
    )


@pytest.mark.asyncio
async def test_files_are_limited_per_member_per_server_and_in_all_and_our_matches_go_first(
    tmp_path: Path,
) -> None:
    async with opened_store(tmp_path) as store:
        limits = Limits(per_member=1, per_server=3, in_all=4)
        first = await queued_file(store, 100, limits=limits)
        with pytest.raises(Refused) as refused:
            await queued_file(store, 100, limits=limits)
        assert refused.value.reason == "member" and refused.value.holding is not None
        assert refused.value.holding.id == first
        await queued_file(store, 101, limits=limits)
        await queued_file(store, 102, limits=limits)
        with pytest.raises(Refused) as full:
            await queued_file(store, 103, limits=limits)
        assert (full.value.reason, full.value.limit) == ("server", 3)
        await queued_file(store, 104, guild=2, limits=limits)
        with pytest.raises(Refused) as everywhere:
            await queued_file(store, 105, guild=3, limits=limits)
        assert (everywhere.value.reason, everywhere.value.limit) == ("all", 4)
        # Our own match's analysis, queued after the files, is taken first.
        made = await empty_match(store)
        ours = await store.jobs.add_analysis(
            match_id=made.id, game="backgammon", guild_id=1, channel_id=10, size=5, message_id=None, now=6.0
        )
        again = await store.jobs.add_analysis(
            match_id=made.id, game="backgammon", guild_id=1, channel_id=10, size=5, message_id=None, now=7.0
        )
        assert ours is not None and again is None  # one job per match
        noted = await store.jobs.add_analysis(
            match_id=made.id, game="backgammon", guild_id=1, channel_id=10, size=5, message_id=77, now=8.0
        )
        ours_now = await store.jobs.get(ours)
        assert noted is None and ours_now is not None and ours_now.message_id == 77  # its result message
        taken = await store.jobs.claim("host:1:a", 10.0, 60.0)
        assert taken is not None and (taken.id, taken.kind, taken.state, taken.attempts) == (
            ours,
            ANALYSIS,
            RUNNING,
            1,
        )
        following = await store.jobs.claim("host:2:b", 10.0, 60.0)
        assert following is not None and following.id == first and following.kind == FILE
        # A job another process holds is not taken, until its lease runs out or its process is gone.
        assert await store.jobs.take(first, "host:3:c", 20.0, 60.0) is None
        assert await store.jobs.free_owner("host:2:b") == 1
        retaken = await store.jobs.take(first, "host:3:c", 20.0, 60.0)
        assert retaken is not None and retaken.attempts == 2
        assert await store.jobs.free_expired(69.0) == 0 and await store.jobs.free_expired(80.0) == 2
        # Saved once: the end of a job that is no longer ours changes nothing.
        held = await store.jobs.take(first, "host:4:d", 90.0, 60.0)
        assert held is not None
        kept = await finish_empty_file(store, held, "host:3:c", seconds=1.0, now=91.0)
        assert kept is None and sql(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM imported_matches") == [
            (0,)
        ]
        kept = await finish_empty_file(store, held, "host:4:d", seconds=3.0, now=92.0)
        done = await store.jobs.get(first)
        assert kept is not None and done is not None and (done.state, done.result_id) == (JOB_DONE, kept)
        assert await store.jobs.payload(first) is None  # the file's bytes go with the job's end
        assert await store.jobs.seconds_per_action() == 3.0 / 30
        assert [j.id for j in await store.jobs.to_tell()] == [first]
        assert await store.jobs.told(first) and not await store.jobs.told(first)
        assert await store.jobs.to_tell() == []
        # Housekeeping deletes a file's job once posted, after a while; our match's stays with it.
        assert await store.jobs.purge_before(92.0) == 0 and await store.jobs.purge_before(93.0) == 1
        assert await store.jobs.get(first) is None and await store.jobs.get(ours) is not None


def test_a_place_counts_the_work_ahead_at_the_measured_rate_over_the_workers() -> None:
    jobs = [job_record(1, RUNNING, 100, 50, 100), job_record(2, QUEUED, 200), job_record(3, QUEUED, 300)]
    found = places(jobs, 0.5, 1)
    assert found[1].place == 0 and found[1].seconds == 25.0
    assert (found[2].place, found[2].seconds) == (1, (50 + 200) * 0.5)
    assert (found[3].place, found[3].seconds) == (2, (50 + 200 + 300) * 0.5)
    two = places(jobs, 0.5, 2)
    assert two[3].seconds == ((50 + 200) / 2 + 300) * 0.5
    assert places(jobs[1:], None, 1)[2].seconds == 200 * DEFAULT_SECONDS_PER_ACTION
    assert (duration(59), duration(61), duration(3700)) == (
        "under a minute",
        "about 2 min",
        "about 1 h 2 min",
    )


class LosingPool:
    """A heavy lane whose first ``losses`` analyses fail with ``failure`` (a lost worker by default)."""

    def __init__(self, losses: int, failure: type[HeavyWorkFailed] = HeavyWorkFailed) -> None:
        self.losses = losses
        self.failure = failure
        self.calls = 0

    async def analyse(
        self, game: str, options: Any, log: Any, should_stop: Any, progress: ProgressReport | None = None
    ) -> Any:
        self.calls += 1
        if self.calls <= self.losses:
            raise self.failure("a heavy worker died")
        return await runner_module.InThread().analyse(game, options, log, should_stop, progress)


@pytest.mark.asyncio
@pytest.mark.parametrize("losses", [1, 2])
async def test_a_lost_worker_costs_one_more_try_and_two_fail_the_job_with_a_reason(
    tmp_path: Path, losses: int
) -> None:
    from bot.clock import ManualClock

    async with opened_store(tmp_path) as store:
        pool = LosingPool(losses)
        runner = JobRunner(store, ManualClock(), pool, owner="host:1:a")
        job_id = await queued_file(store, 100)
        for _ in range(2):
            job = await store.jobs.claim(runner.owner, 1.0, 60.0)
            if job is None:
                break
            await runner.run(job)
        ended = await store.jobs.get(job_id)
        assert ended is not None and pool.calls == 2
        if losses == 1:
            assert ended.state == JOB_DONE and ended.result_id is not None
        else:
            assert (ended.state, ended.error) == (JOB_FAILED, FILE_FAILED)


@pytest.mark.asyncio
async def test_an_analysis_over_its_cpu_budget_fails_at_once_with_a_reason_and_is_not_tried_again(
    tmp_path: Path,
) -> None:
    """A second try of a job that used all its CPU seconds would only use as many again."""
    from bot.clock import ManualClock

    async with opened_store(tmp_path) as store:
        pool = LosingPool(1, HeavyWorkOverBudget)
        runner = JobRunner(store, ManualClock(), pool, owner="host:1:a")
        job_id = await queued_file(store, 100)
        job = await store.jobs.claim(runner.owner, 1.0, 60.0)
        assert job is not None
        await runner.run(job)
        ended = await store.jobs.get(job_id)
        assert ended is not None and (ended.state, ended.error) == (JOB_FAILED, FILE_FAILED)
        assert pool.calls == 1 and await store.jobs.claim(runner.owner, 2.0, 60.0) is None


# -- on Discord ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_five_files_at_once_are_answered_at_once_and_another_member_waits_one_job_at_most(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    change_analysis(monkeypatch, gate)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    # The gate reports its progress from a thread of this process (a forked worker would not see it).
    bot.analyses.runner.analyser = runner_module.InThread()
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    asked = await asyncio.gather(
        *(fake.slash(alice, "analyse", {"file": (f"a{i}.mat", ONE_POINT)}, idle=True) for i in range(5))
    )
    answers = [a.private.content for a in asked if a.private is not None]
    assert len(answers) == 5
    accepted = [a for a in answers if "in the queue" in a or "analysing" in a]
    refused = [a for a in answers if "one at a time" in a]
    assert len(accepted) == 1 and len(refused) == 4, answers
    bobs = await fake.slash(bob, "analyse", {"file": ("b.mat", ONE_POINT)}, idle=True)
    assert bobs.private is not None and bobs.private.content.startswith("b.mat: place ")
    # Alice's file runs and shows its progress; Bob's is next, whatever Alice sent.
    mine = next(a for a in asked if a.private is not None and "one at a time" not in a.private.content)
    await fake.wait_for(
        lambda: "analysing: decision 80 of 154" in mine.private.content, timeout=patient(30), what="progress"
    )
    await fake.wait_for(
        lambda: bobs.private.content.startswith("b.mat: place 1 in the queue"),
        timeout=patient(30),
        what="place 1",
    )
    gate.opened.set()
    for done, name in ((mine, mine.private.content.split(":")[0]), (bobs, "b.mat")):
        await fake.wait_for(
            lambda d=done, n=name: f"{n} is analysed" in d.private.content, timeout=patient(300), what=name
        )
    posted = [m for m in fake.messages_in(fake.channel) if not m.ephemeral]
    assert len(posted) == 2 and all(m.content.startswith("📊 **Analysis of ") for m in posted)
    assert len(gate.started) == 2
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_file_being_analysed_at_a_restart_keeps_its_place_and_is_posted_after_it(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = Gate()
    change_analysis(monkeypatch, gate)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    bot.analyses.runner.analyser = runner_module.InThread()  # which reports progress
    alice = fake.add_user("alice")
    asked = await fake.slash(alice, "analyse", {"file": ("kept.mat", ONE_POINT)}, idle=True)
    await fake.wait_for(
        lambda: "analysing: decision 80 of 154" in asked.private.content, timeout=patient(30), what="progress"
    )
    await stop_bot(bot)
    assert asked.private is not None and asked.private.content == KEPT_AT_RESTART
    assert sql(tmp_path / "db.sqlite3", "SELECT state, worker FROM heavy_jobs") == [(QUEUED, None)]
    gate.opened.set()
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    await fake.wait_for(
        lambda: "kept.mat is analysed" in asked.private.content, timeout=patient(300), what="the analysis"
    )
    assert len(gate.started) == 2
    (posted,) = [m for m in fake.messages_in(fake.channel) if not m.ephemeral]
    assert posted.content.startswith("📊 **Analysis of kept.mat**")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_file_killed_mid_analysis_is_taken_up_again_at_the_next_start(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """A job left running by a process that died (its lease not run out) goes back to the queue at
    the next start on SQLite, where one process holds the database."""
    alice = fake.add_user("alice")
    async with opened_store(tmp_path) as store:
        job_id = await queued_file(store, alice.id, fake.guild.id, channel=fake.channel.id, name="orphan.mat")
        assert await store.jobs.take(job_id, "elsewhere:99999999:dead", 1.0, 1e9) is not None
        await store.jobs.answered(job_id, None, "orphan.mat: place 1")
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    await fake.wait_for(
        lambda: any(
            m.content.startswith("📊 **Analysis of orphan.mat**") for m in fake.messages_in(fake.channel)
        ),
        timeout=patient(300),
        what="the analysis",
    )
    job = await bot.store.jobs.get(job_id)
    assert job is not None and job.state == JOB_DONE and job.attempts == 2
    await asyncio.wait_for(bot.analyses.finished.wait(), patient(10))
    assert sql(tmp_path / "db.sqlite3", "SELECT posted FROM heavy_jobs") == [(1,)]
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_file_whose_analysis_fails_is_told_to_its_asker(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(options: Any, log: Any, should_stop: Any, progress: Any = None) -> Analysis:
        raise RuntimeError("a bug")

    change_analysis(monkeypatch, broken)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    asked = await fake.slash(alice, "analyse", {"file": ("bad.mat", ONE_POINT)}, idle=True)
    await fake.wait_for(
        lambda: asked.private.content == f"bad.mat: {FILE_FAILED}", timeout=patient(60), what="the failure"
    )
    assert [m for m in fake.messages_in(fake.channel) if not m.ephemeral] == []
    await asyncio.wait_for(bot.analyses.finished.wait(), patient(10))
    assert sql(tmp_path / "db.sqlite3", "SELECT state, posted FROM heavy_jobs") == [(JOB_FAILED, 1)]
    fake.errors.clear()  # the bug's traceback, logged once
    # The member may send another file now.
    again = await fake.slash(alice, "analyse", {"file": ("next.mat", ONE_POINT)}, idle=True)
    assert again.private is not None and again.private.content.startswith("next.mat: ")
    await fake.wait_for(lambda: "failed" in again.private.content, timeout=patient(60), what="the failure")
    fake.errors.clear()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_analysis_computed_before_analyses_were_jobs_is_posted_at_the_next_round(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    from tests.bot.test_coach_discord import analysed_without_a_result_message, analysis_of

    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    match_id = await analysed_without_a_result_message(bot, fake)
    assert await bot.store.jobs.of_match(match_id) is None
    assert await bot.analyses.resume() == 0
    posted = analysis_of(fake, fake.channel.id)
    assert posted is not None and f"Analysis of match #{match_id}" in posted.content
    fake.assert_clean()
    await stop_bot(bot)
