"""How much the database and the process grow per 10,000 finished matches, before and after compaction.

    python bench/growth.py [--matches 10000] [--players 200] [--seed 1] [--keep PATH]

A fresh temporary SQLite file gets ``--matches`` finished, rated ring matches between players drawn
from ``--players`` users of one server. Each is a whole random game (``engine.ai.random_player`` for
both seats and the dice): saved as the bot saves it (``MatchStore.create`` with the opening roll,
then ``MatchStore.record_actions`` with every further action, the final state and the result, which
also writes both ratings and the rating history). The log is the same as click by click; only the
per-action times (all equal here) and the number of transactions differ.

Then every match is read through a ``SessionManager`` (what a late click, /board or a Rematch does),
and the memory it keeps is measured: ``tracemalloc`` around those reads, the manager's sessions held,
and the process RSS growth since before the matches were created.

Then the housekeeping run of the scheduler (``bot.housekeeping``) compacts every log (the clock is
moved past ``COMPACT_AFTER``), and the database is measured again: the file, the bytes in use
(pages not on the free list: freed pages are reused by new matches, so the file stops growing), and
the file after ``VACUUM``. Per-table bytes come from SQLite's ``dbstat`` when it is compiled in.

Prints one JSON line; every size is also scaled to 10,000 matches (``*_per_10k``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.clock import ManualClock
from bot.housekeeping import COMPACT_AFTER, Housekeeping
from bot.sessions import SessionManager, result_record
from bot.store import LoggedAction, Store
from engine import find_variant
from engine.ai.random_player import random_action

GUILD = 1


def rss_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def db_sizes(path: Path) -> dict[str, Any]:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = int(db.execute("PRAGMA page_size").fetchone()[0])
        pages = int(db.execute("PRAGMA page_count").fetchone()[0])
        free = int(db.execute("PRAGMA freelist_count").fetchone()[0])
        tables: dict[str, int] = {}
        try:
            for name, size in db.execute(
                "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
            ):
                tables[str(name)] = int(size)
        except sqlite3.OperationalError:
            pass  # no dbstat in this SQLite
    return {"file": path.stat().st_size, "in_use": (pages - free) * page, "by_table": tables}


async def build(store: Store, clock: ManualClock, matches: int, players: int, seed: int) -> list[int]:
    variant = find_variant("ring")
    rng = random.Random(seed)
    ids = []
    for _ in range(matches):
        pair = rng.sample(range(1000, 1000 + players), 2)
        state = variant.new_game({})
        opening: list[LoggedAction] = []
        rest: list[LoggedAction] = []
        while not state.is_terminal():
            spec = state.chance()
            seat = None if spec is not None else state.to_move()
            action = random_action(state, rng)
            automatic = spec is not None and spec.prompt_seat is None and not rest
            (opening if automatic else rest).append(LoggedAction(seat, action.notation))
            state = state.apply(action)
        clock.advance(60.0)
        record = await store.matches.create(
            guild_id=GUILD, channel_id=10, parent_id=None, game="ring", options={}, players=(pair[0], pair[1]),
            state=variant.new_game({}).canonical(), actions=opening, rated=True, now=clock.now(),
        )  # fmt: skip
        outcome = state.outcome()
        assert outcome is not None
        clock.advance(600.0)
        saved = await store.matches.record_actions(
            record.id, expected_version=len(opening), actions=rest, state=state.canonical(), now=clock.now(),
            result=result_record(record.id, outcome, clock.now()),
        )  # fmt: skip
        assert saved
        ids.append(record.id)
    return ids


async def run(matches: int, players: int, seed: int, keep: Path | None) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="ringside-growth-"))
    path = keep or workdir / "growth.sqlite3"
    if path.exists():
        path.unlink()
    scale = 10_000 / matches
    clock = ManualClock()
    store = await Store.open(path)
    rss_start = rss_bytes()
    started = time.perf_counter()
    ids = await build(store, clock, matches, players, seed)
    build_s = time.perf_counter() - started
    before = db_sizes(path)

    manager = SessionManager(store, clock, rng=random.Random(seed))
    tracemalloc.start()
    traced_start = tracemalloc.get_traced_memory()[0]
    for match_id in ids:
        session = await manager.get(match_id)
        assert session.state is not None and session.state.is_terminal()
    held = sum(manager.in_memory(match_id) for match_id in ids)
    traced_kept = tracemalloc.get_traced_memory()[0] - traced_start
    tracemalloc.stop()
    rss_after = rss_bytes()

    clock.advance(COMPACT_AFTER + 1)
    started = time.perf_counter()
    report = await Housekeeping(store, clock).run()
    compact_s = time.perf_counter() - started
    await store.close()
    after = db_sizes(path)
    db = sqlite3.connect(path)
    db.execute("VACUUM")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    vacuumed = path.stat().st_size

    def per10k(value: float) -> int:
        return round(value * scale)

    return {
        "matches": matches,
        "players": players,
        "seed": seed,
        "compacted": report.compacted,
        "db_before": {
            "file_per_10k": per10k(before["file"]),
            "bytes_per_match": round(before["in_use"] / matches),
            "by_table_per_10k": {k: per10k(v) for k, v in before["by_table"].items()},
        },
        "db_after": {
            "in_use_per_10k": per10k(after["in_use"]),
            "file_unvacuumed_per_10k": per10k(after["file"]),
            "file_vacuumed_per_10k": per10k(vacuumed),
            "bytes_per_match": round(after["in_use"] / matches),
            "by_table_per_10k": {k: per10k(v) for k, v in after["by_table"].items()},
        },
        "memory": {
            "sessions_held_after_reading_all": held,
            "session_manager_traced_bytes_per_10k": per10k(traced_kept),
            "rss_growth_per_10k": per10k(rss_after - rss_start),
        },
        "build_s": round(build_s, 1),
        "compact_s": round(compact_s, 2),
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=Path, default=None, help="the database file to write and keep")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.matches, args.players, args.seed, args.keep))))


if __name__ == "__main__":
    main()
