"""Heavy jobs through the PostgreSQL job queue (issue 34): throughput with 1 and 2 worker processes.

    python bench/job_queue.py [--jobs 6] [--workers 1,2] [--level 2ply] [--file tests/engine/mat_files/gnubg-1-point.mat]
                              [--url postgresql://...]

For each worker count, a fresh schema of a PostgreSQL server (``--url``, else one started for the
bench in a temporary folder): ``--jobs`` imported files (one per member, as ``/analyse file:`` queues
them, ``bot.store.jobs``) are queued and handed to pgqueuer (``bot.jobs.pgqueue.PgDispatch``, as the
bot does), then that many ``python -m bot worker`` processes (``WORKER_JOBS=1``, analyses at
``--level``) take them until every job is done. Reported, one JSON line per count: the wall seconds
from the first worker's start to the last job's end, jobs per minute, the mean seconds per job as the
workers measured it, and ``attempts`` (one per job: none taken twice). The machine's cores are
shared by the workers: two workers on two cores are at most twice one, less on a busy machine.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import platform
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import asyncpg  # noqa: E402

from bot.jobs.pgqueue import PgDispatch  # noqa: E402
from bot.store import Store  # noqa: E402
from bot.store.jobs import Limits, pack_file  # noqa: E402

WORKER = (
    "import sys; import engine.ai.backgammon_analysis as a; a.LEVEL = sys.argv[1]; "
    "from app.main import main; sys.exit(main(['worker']))"
)


def _postgres_server() -> Any:
    spec = importlib.util.spec_from_file_location("postgres_server", REPO / ".ci" / "postgres_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def one_count(base: str, workers: int, args: argparse.Namespace) -> dict[str, Any]:
    schema = f"jobs_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(base)
    await admin.execute(f"CREATE SCHEMA {schema}")
    await admin.close()
    url = f"{base}{'&' if '?' in base else '?'}search_path={schema}"
    store = await Store.open(url)
    data = Path(args.file).read_bytes()
    ids = []
    for member in range(args.jobs):
        ids.append(
            await store.jobs.add_file(
                owner_id=1000 + member,
                guild_id=1,
                channel_id=2,
                game="backgammon",
                file_name=f"m{member}.mat",
                payload=pack_file(data),
                size=1,
                reply_token=None,
                limits=Limits(per_server=args.jobs, in_all=args.jobs),
                now=time.time(),
            )
        )
    dispatch = PgDispatch(url)
    await dispatch.dispatch([job for job in await store.jobs.open()])
    await dispatch.close()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE", "DATABASE_URL")}
    env.update(PYTHONPATH=str(REPO), DATABASE_URL=url, WORKER_JOBS="1")
    logs = Path(tempfile.mkdtemp(prefix="job-queue-"))
    started = time.monotonic()
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WORKER,
            args.level,
            env=env,
            cwd=logs,
            stdout=(logs / f"worker{i}.log").open("wb"),
            stderr=asyncio.subprocess.STDOUT,
        )
        for i in range(workers)
    ]
    try:
        while True:
            rows = await store.connection.all("SELECT state FROM heavy_jobs")
            if all(r["state"] in ("done", "failed") for r in rows):
                break
            if any(p.returncode is not None for p in procs):
                raise SystemExit(f"a worker stopped early: see {logs}")
            await asyncio.sleep(0.2)
        wall = time.monotonic() - started
        rows = await store.connection.all("SELECT state, attempts, seconds FROM heavy_jobs")
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs:
            await proc.wait()
        await store.close()
        admin = await asyncpg.connect(base)
        await admin.execute(f"DROP SCHEMA {schema} CASCADE")
        await admin.close()
    done = [r for r in rows if r["state"] == "done"]
    return {
        "workers": workers,
        "jobs": args.jobs,
        "done": len(done),
        "failed": len(rows) - len(done),
        "attempts": sum(int(r["attempts"]) for r in rows),
        "wall_s": round(wall, 1),
        "jobs_per_min": round(60 * len(done) / wall, 2),
        "mean_job_s": round(sum(float(r["seconds"] or 0) for r in done) / max(1, len(done)), 1),
    }


async def run(args: argparse.Namespace) -> None:
    print(json.dumps({"machine": platform.machine(), "cpus": os.cpu_count(), "level": args.level}))
    pg, folder = None, None
    base = args.url
    if not base:
        pg = _postgres_server()
        folder = Path(tempfile.mkdtemp(prefix="job-queue-pg-"))
        base = pg.start(folder).split()[-1]
    try:
        results = []
        for count in [int(n) for n in args.workers.split(",") if n]:
            results.append(await one_count(base, count, args))
            print(json.dumps(results[-1]), flush=True)
        if len(results) >= 2 and results[0]["jobs_per_min"]:
            print(json.dumps({"speedup": round(results[-1]["jobs_per_min"] / results[0]["jobs_per_min"], 2)}))
    finally:
        if pg is not None:
            pg.stop(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=6)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--level", default="2ply", help="the analysis depth of the workers")
    parser.add_argument("--file", default=str(REPO / "tests" / "engine" / "mat_files" / "gnubg-1-point.mat"))
    parser.add_argument("--url", default=os.environ.get("RINGSIDE_TEST_POSTGRES_URL", ""))
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
