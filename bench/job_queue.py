"""Heavy jobs through the PostgreSQL job queue (issue 34): throughput with 1 and 2 worker processes.

    python bench/job_queue.py [--jobs 6] [--workers 1,2] [--level 2ply] [--file tests/engine/mat_files/gnubg-1-point.mat]
                              [--url postgresql://...] [--faults]

For each worker count, a fresh schema of a PostgreSQL server (``--url``, else one started for the
bench in a temporary folder): ``--jobs`` imported files (one per member, as ``/analyse file:`` queues
them, ``bot.store.jobs``) are queued and handed to pgqueuer (``bot.jobs.pgqueue.PgDispatch``, as the
bot does), then that many ``python -m bot worker`` processes (``WORKER_JOBS=1``, analyses at
``--level``) take them until every job is done. Reported, one JSON line per count: the wall seconds
from the first worker's start to the last job's end, jobs per minute, the mean seconds per job as the
workers measured it, and ``attempts`` (one per job: none taken twice). The machine's cores are
shared by the workers: two workers on two cores are at most twice one, less on a busy machine.

``--faults`` (on a server of its own, started for the bench: ``--url`` is ignored) runs the largest
worker count once more with two faults while the jobs run: the worker running a job is killed with
``kill -9`` after the job's first progress write (and a new worker started, as a supervisor does),
then, once another job has progressed, the PostgreSQL server is restarted (fast shutdown, started
again on the same port). Reported besides the figures above: the jobs taken twice, the results saved
(``imported_matches`` rows: one per job, none twice) and how long the database was away.
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


class Faults:
    """The two faults of ``--faults``: a worker killed mid-job, then the database restarted."""

    def __init__(self, pg: Any, folder: Path) -> None:
        self.pg, self.folder = pg, folder
        self.killed: int | None = None
        self.restarted = False
        self.down_s = 0.0

    async def inject(self, rows: list[Any], procs: list[Any], start_worker: Any) -> None:
        """Called with the jobs' rows at each look: the next fault once its moment has come."""
        running = [r for r in rows if r["state"] == "running" and int(r["done"]) > 0 and r["worker"]]
        if not running:
            return
        if self.killed is None:
            pid = int(str(running[0]["worker"]).rsplit(":", 2)[1])
            victim = next((p for p in procs if p.pid == pid), None)
            if victim is None:
                return
            victim.kill()  # SIGKILL, mid-analysis
            await victim.wait()
            self.killed = int(running[0]["id"])
            procs.append(await start_worker(len(procs)))
        elif not self.restarted and any(int(r["id"]) != self.killed for r in running):
            self.restarted = True
            at = time.monotonic()
            await asyncio.to_thread(self.pg.stop, self.folder)
            await asyncio.to_thread(self.pg.start, self.folder)
            self.down_s = time.monotonic() - at


async def _rows(store: Store, query: str) -> list[Any] | None:
    """The rows, or None while the database is away (restarting)."""
    try:
        return list(await store.connection.all(query))
    except Exception:
        return None


async def one_count(
    base: str, workers: int, args: argparse.Namespace, faults: Faults | None = None
) -> dict[str, Any]:
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

    async def start_worker(i: int) -> Any:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WORKER,
            args.level,
            env=env,
            cwd=logs,
            stdout=(logs / f"worker{i}.log").open("wb"),
            stderr=asyncio.subprocess.STDOUT,
        )

    started = time.monotonic()
    procs = [await start_worker(i) for i in range(workers)]
    saved: list[Any] = []
    try:
        while True:
            looked = await _rows(store, "SELECT id, state, done, worker FROM heavy_jobs")
            if looked is not None:
                if all(r["state"] in ("done", "failed") for r in looked):
                    break
                if faults is not None:
                    await faults.inject(looked, procs, start_worker)
            if any(p.returncode is not None for p in procs if p.returncode != -signal.SIGKILL):
                raise SystemExit(f"a worker stopped early: see {logs}")
            await asyncio.sleep(0.2)
        wall = time.monotonic() - started
        rows = await store.connection.all("SELECT state, attempts, seconds, result_id FROM heavy_jobs")
        saved = list(await store.connection.all("SELECT id FROM imported_matches"))
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
    extra: dict[str, Any] = {}
    if faults is not None:
        extra = {
            "faults": "kill -9 a worker mid-job, then restart PostgreSQL",
            "killed_job": faults.killed,
            "postgres_restarted": faults.restarted,
            "postgres_away_s": round(faults.down_s, 1),
            "taken_twice": sum(1 for r in rows if int(r["attempts"]) > 1),
            "results_saved": len(saved),
            "distinct_results": len({r["result_id"] for r in done}),
        }
    return {
        **extra,
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
    base = "" if args.faults else args.url
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
        if args.faults:
            assert pg is not None and folder is not None
            most = max(int(n) for n in args.workers.split(",") if n)
            print(json.dumps(await one_count(base, most, args, Faults(pg, folder))), flush=True)
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
    parser.add_argument("--faults", action="store_true", help="once more with a worker killed and a restart")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
