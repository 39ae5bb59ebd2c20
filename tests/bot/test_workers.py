"""``python -m bot worker`` (issue 34, ``bot.jobs.worker``): heavy jobs run by worker processes on
PostgreSQL, dispatched by pgqueuer, posted by the bot once. Real processes on a real server: the bot
(``HEAVY_JOBS=0``: it runs none itself) and two workers; a worker killed mid-analysis loses its job to
the other, every connection dropped (what a server restart does) loses nothing, and a replay made by
a worker is posted by the bot."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from app.render_pool import HEAVY_NICE
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import match_id_of
from fakediscord.patience import patient
from tests.bot.test_process import REPO, bot_processes
from tests.databases import process_env, sql, url_for

SEVEN = (REPO / "tests" / "engine" / "mat_files" / "gnubg-7-point.mat").read_bytes()
WORKER = (
    "import sys; import bot.jobs.runner as r; r.PROGRESS_EVERY = 0.2; "
    "from app.main import main; sys.exit(main(['worker']))"
)
"""A worker as deployed, but for its progress written five times a second: the bot's depth, at which
the 7-point match takes some 20 s of CPU (at 2-ply it took 4 s since issue 34's move filters,
sometimes over before its first progress was written, and a kill "mid-analysis" came too late)."""


@contextlib.asynccontextmanager
async def workers(tmp_path: Path, count: int) -> AsyncIterator[list[asyncio.subprocess.Process]]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE", "DATABASE_URL", "DISCORD_TOKEN")}
    env.update(PYTHONPATH=str(REPO), **process_env(tmp_path / "db.sqlite3"))
    started = []
    logs = []
    try:
        for i in range(count):
            log = (tmp_path / f"worker{i}.log").open("wb")
            logs.append(log)
            started.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-c",
                    WORKER,
                    cwd=tmp_path,
                    env=env,
                    stdout=log,
                    stderr=asyncio.subprocess.STDOUT,
                )
            )
        yield started
    except BaseException:
        for i in range(count):
            with contextlib.suppress(OSError):
                print(f"--- worker{i}.log\n" + (tmp_path / f"worker{i}.log").read_text())
        raise
    finally:
        for proc in started:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    await asyncio.wait_for(proc.wait(), 30)
                except TimeoutError:
                    proc.kill()
                    await proc.wait()
        for log in logs:
            log.close()


def children(pid: int) -> list[int]:
    """The processes ``pid`` forked (Linux's /proc)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(n) for n in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped by whoever adopted it, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def worker_pid(owner: str) -> int:
    """The process id in a job's ``worker`` (``bot.work_claims.owner_name``: machine, pid, token)."""
    return int(owner.rsplit(":", 2)[1])


def running_worker_pid(db: Path) -> int | None:
    rows = sql(db, "SELECT worker FROM heavy_jobs WHERE state = 'running'")
    if not rows or rows[0][0] is None:
        return None
    return worker_pid(str(rows[0][0]))


async def until(predicate: object, seconds: float, what: str) -> None:
    """Poll the database (the processes change it; nothing in this one is woken)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + patient(seconds)
    while not predicate():  # type: ignore[operator]
        if loop.time() > end:
            raise TimeoutError(f"timed out after {patient(seconds):g} s waiting for {what}")
        await asyncio.sleep(0.2)


async def drop_every_connection(db: Path) -> None:
    """What a PostgreSQL restart does to every process's connections: the server ends them all."""
    admin = await asyncpg.connect(url_for(db))
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await admin.close()


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeDiscord:
    """The Discord of the bot process (in place of the in-process one of ``tests/conftest.py``), a bot
    that runs no heavy job itself (``HEAVY_JOBS=0``): the workers do."""
    monkeypatch.setenv("HEAVY_JOBS", "0")
    return FakeDiscord(timeout=30, token="process-token")


async def posted_once(fake: FakeDiscord, channel: int, db: Path, start: str) -> FakeMessage:
    """The one public message of ``channel`` that starts with ``start`` (a job's result), once its job
    is marked posted."""
    posted = [m for m in fake.messages_in(channel) if not m.ephemeral and m.content.startswith(start)]
    assert len(posted) == 1, [m.content for m in fake.messages_in(channel)]
    await until(lambda: sql(db, "SELECT posted FROM heavy_jobs") == [(1,)], 30, "the job marked posted")
    return posted[0]


async def finished_match(fake: FakeDiscord, db: Path, alice: FakeUser, bob: FakeUser) -> tuple[int, int]:
    """A ring match between ``alice`` and ``bob`` played through the bot process and resigned by
    ``alice``: (its id, its thread)."""
    challenged = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    challenge = challenged.message
    assert challenge is not None
    await fake.click(bob, challenge, next(c for c in challenge.custom_ids if c.endswith(":accept")))
    await fake.wait_for(
        lambda: (t := fake.thread_of(challenge)) is not None and bool(fake.messages_in(t)), 60, "the board"
    )
    thread = fake.thread_of(challenge)
    assert thread is not None
    match_id = match_id_of(fake.messages_in(thread)[-1])
    prompt = await fake.slash(alice, "resign", channel=thread.id)
    await fake.wait_for(lambda: prompt.message is not None, 60, "the resign prompt")
    assert prompt.message is not None
    await fake.click(alice, prompt.message, next(c for c in prompt.message.custom_ids if c.endswith(":yes")))
    await until(
        lambda: sql(db, "SELECT status FROM matches WHERE id = ?", (match_id,)) != [("active",)],
        60,
        "the match over",
    )
    return match_id, thread.id


@pytest.mark.postgres_only("workers take heavy jobs from PostgreSQL (pgqueuer)")
@pytest.mark.asyncio
async def test_a_worker_killed_mid_analysis_loses_its_job_to_another_and_it_is_posted_once(
    tmp_path: Path, fake: FakeDiscord
) -> None:
    db = tmp_path / "db.sqlite3"
    alice = fake.add_user("alice")
    async with bot_processes(tmp_path, fake) as start:
        await start()
        async with workers(tmp_path, 2) as procs:
            asked = await fake.slash(alice, "analyse", {"file": ("seven.mat", SEVEN)})
            await fake.wait_for(
                lambda: asked.private is not None and asked.private.content.startswith("seven.mat: "),
                60,
                "the file accepted",
            )
            await until(lambda: running_worker_pid(db) is not None, 120, "a worker running it")
            pid = running_worker_pid(db)
            (victim,) = [p for p in procs if p.pid == pid]
            await until(lambda: sql(db, "SELECT done FROM heavy_jobs")[0][0] > 0, 120, "its first progress")
            # The analysis runs in a heavy slot of the worker, as in the bot: a process of its own at
            # the heavy niceness (its CPU budget and its failures its own), which ends with the worker.
            slots = children(victim.pid)
            assert slots and all(niceness(slot) == niceness(victim.pid) + HEAVY_NICE for slot in slots)
            victim.kill()  # SIGKILL, mid-analysis
            await victim.wait()
            await until(lambda: not any(alive(slot) for slot in slots), 30, "its slots gone")
            await until(
                lambda: running_worker_pid(db) not in (None, pid), 120, "the other worker taking it up"
            )
            await fake.wait_for(
                lambda: "seven.mat is analysed" in asked.private.content, 900, "the analysis posted"
            )
            await posted_once(fake, fake.channel.id, db, "📊 **Analysis of seven.mat**")
            assert sql(db, "SELECT state, attempts FROM heavy_jobs") == [("done", 2)]
            assert sql(db, "SELECT COUNT(*) FROM imported_matches") == [(1,)]


@pytest.mark.postgres_only("workers take heavy jobs from PostgreSQL (pgqueuer)")
@pytest.mark.asyncio
async def test_every_connection_dropped_during_a_job_loses_nothing(tmp_path: Path, fake: FakeDiscord) -> None:
    db = tmp_path / "db.sqlite3"
    alice = fake.add_user("alice")
    async with bot_processes(tmp_path, fake) as start:
        await start()
        async with workers(tmp_path, 1):
            asked = await fake.slash(alice, "analyse", {"file": ("seven.mat", SEVEN)})
            await until(lambda: running_worker_pid(db) is not None, 120, "a worker running it")
            await drop_every_connection(db)
            await fake.wait_for(
                lambda: asked.private is not None and "seven.mat is analysed" in asked.private.content,
                900,
                "the analysis posted",
            )
            await posted_once(fake, fake.channel.id, db, "📊 **Analysis of seven.mat**")
            assert sql(db, "SELECT state FROM heavy_jobs") == [("done",)]


NO_REPLAYS_HERE = "import app.client; app.client.REPLAY_LANES = 0"
"""The bot process makes no replay itself (it would otherwise race the worker for the job)."""


@pytest.mark.postgres_only("workers take heavy jobs from PostgreSQL (pgqueuer)")
@pytest.mark.asyncio
async def test_a_replay_is_made_by_a_worker_and_posted_once_by_the_bot(
    tmp_path: Path, fake: FakeDiscord
) -> None:
    db = tmp_path / "db.sqlite3"
    alice, bob, carol = (fake.add_user(name) for name in ("alice", "bob", "carol"))
    async with bot_processes(tmp_path, fake, prelude=NO_REPLAYS_HERE) as start:
        await start()
        match_id, thread = await finished_match(fake, db, alice, bob)
        async with workers(tmp_path, 1) as (worker,):
            asked = await fake.slash(carol, "replay", {"match": match_id}, channel=thread)
            title = f"Replay of match #{match_id}, Ring"
            await fake.wait_for(
                lambda: asked.message is not None and asked.message.content.startswith(title),
                300,
                "the replay posted",
            )
            assert asked.message is not None
            assert asked.message.attachment(f"match-{match_id}.gif").data.startswith(b"GIF8")
            assert (await posted_once(fake, thread, db, title)).id == asked.message.id
            # Made once, by the worker, and its GIF not kept once posted.
            ((kind, state, attempts, owner, kept),) = sql(
                db, "SELECT kind, state, attempts, worker, result FROM heavy_jobs"
            )
            assert (kind, state, attempts, kept) == ("replay", "done", 1, None)
            assert worker_pid(str(owner)) == worker.pid


def test_a_worker_without_postgresql_and_a_bot_without_heavy_jobs_on_sqlite_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import subprocess

    from bot.config import ConfigError, load_settings

    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE", "DATABASE_URL")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-m", "bot", "worker"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith("error: a worker needs DATABASE_URL"), done.stderr
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("DISCORD_TOKEN", "x")
    monkeypatch.setenv("DATABASE", str(tmp_path / "db.sqlite3"))
    for value, words in (
        ("0", "HEAVY_JOBS=0 leaves analyses"),
        ("many", "HEAVY_JOBS must be a whole number"),
    ):
        monkeypatch.setenv("HEAVY_JOBS", value)
        with pytest.raises(ConfigError, match=words):
            load_settings(None)
    monkeypatch.setenv("HEAVY_JOBS", "2")
    assert load_settings(None).heavy_jobs == 2
