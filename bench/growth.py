"""How much the database and the process grow per 10,000 finished matches, before and after compaction.

    python bench/growth.py [--matches 10000] [--players 200] [--seed 1] [--keep PATH]
                           [--analyses 0] [--analysis-length 1]

A fresh temporary SQLite file gets ``--matches`` finished, rated ring matches between players drawn
from ``--players`` users of one server. Each is a whole random game (``engine.ai.random_player`` for
both seats and the dice): saved as the bot saves it (``MatchStore.create`` with the opening roll,
then ``MatchStore.record_actions`` with every further action, the final state and the result, which
also writes both ratings and the rating history). The log is the same as click by click; only the
per-action times (all equal here) and the number of transactions differ.

Then every match is read through a ``SessionManager`` (what a late click, /board or a Rematch does),
and the memory it keeps is measured: ``tracemalloc`` around those reads, the manager's sessions held,
and the process RSS growth since before the matches were created.

With ``--analyses K``, K backgammon matches to ``--analysis-length`` points (the medium level against
the easy one, seeds ``--seed`` on) are played and analysed for real (``engine.ai.backgammon_analysis``,
a few seconds each), and each analysis is saved and marked posted for one of the first K matches, as
the bot saves it (``AnalysisStore.request``, ``save``, ``posted``).

Then the housekeeping run of the scheduler (``bot.housekeeping``) compacts every log and compresses
every posted analysis (the clock is moved past ``COMPACT_AFTER``), and the database is measured
again: the file, the bytes in use
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
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.clock import ManualClock
from bot.housekeeping import COMPACT_AFTER, Housekeeping
from bot.session import result_record
from bot.sessions import SessionManager
from bot.store import LoggedAction, Store
from engine import find_variant
from engine.ai.backgammon_analysis import analyse
from engine.ai.backgammon_bgsage import EASY, MEDIUM
from engine.ai.coaching import analysis_to_json
from engine.ai.random_player import random_action
from engine.ai.selfplay import notations_played

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


async def add_analyses(store: Store, clock: ManualClock, ids: list[int], length: int, seed: int) -> list[int]:
    """A real analysis for each of ``ids`` (a backgammon match of ``length`` points each), saved and
    posted as the bot does; the size of each analysis's JSON."""
    variant = find_variant("backgammon")
    sizes = []
    for offset, match_id in enumerate(ids):
        log = list(
            notations_played(variant, {"length": length}, (MEDIUM, EASY), random.Random(seed + offset))
        )
        analysis = analysis_to_json(await asyncio.to_thread(analyse, {"length": length}, log))
        sizes.append(len(json.dumps(analysis, separators=(",", ":"))))
        await store.analyses.request(match_id, clock.now())
        await store.analyses.save(match_id, analysis, clock.now())
        await store.analyses.posted(match_id, match_id)
    return sizes


def analysis_bytes(path: Path) -> int:
    """The bytes the analyses take in their table, page slack left out (``dbstat`` when SQLite has
    it, else the bytes of their columns)."""
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try:
            used = db.execute(
                "SELECT SUM(pgsize - unused) FROM dbstat WHERE name = 'match_analyses'"
            ).fetchone()
        except sqlite3.OperationalError:
            used = db.execute(
                "SELECT SUM(COALESCE(LENGTH(analysis), 0) + COALESCE(LENGTH(compact), 0)) FROM match_analyses"
            ).fetchone()
    return int(used[0] or 0)


async def run(
    matches: int, players: int, seed: int, keep: Path | None, analyses: int = 0, analysis_length: int = 1
) -> dict[str, Any]:
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

    # After the memory figures: the engine that analyses takes memory of its own.
    started = time.perf_counter()
    json_sizes = await add_analyses(store, clock, ids[:analyses], analysis_length, seed)
    analyse_s = time.perf_counter() - started
    analyses_before = analysis_bytes(path)

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

    analysed = len(json_sizes)
    analyses_report = {
        "count": analysed,
        "match_length": analysis_length,
        "compressed": report.compacted_analyses,
        "json_bytes_mean": round(statistics.mean(json_sizes)) if json_sizes else 0,
        "bytes_per_analysis_before": round(analyses_before / analysed) if analysed else 0,
        "bytes_per_analysis_after": round(analysis_bytes(path) / analysed) if analysed else 0,
        "analyse_s": round(analyse_s, 1),
    }

    return {
        "matches": matches,
        "players": players,
        "seed": seed,
        "compacted": report.compacted,
        "analyses": analyses_report,
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
    parser.add_argument("--analyses", type=int, default=0, help="real backgammon analyses to add (posted)")
    parser.add_argument("--analysis-length", type=int, default=1, help="their matches' length in points")
    args = parser.parse_args()
    if args.analyses > args.matches:
        parser.error("--analyses cannot exceed --matches (each analysis belongs to one match)")
    result = run(args.matches, args.players, args.seed, args.keep, args.analyses, args.analysis_length)
    print(json.dumps(asyncio.run(result)))


if __name__ == "__main__":
    main()
