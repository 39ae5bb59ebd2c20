"""The ``expert`` level against GNU Backgammon 0-ply: money games with the cube, the same dice for both.

    python bench/expert_vs_gnubg.py [--games 1000] [--first-seed 1] [--out bench/expert_vs_gnubg.jsonl]
                                    [--minutes 60] [--workers 1] [--level expert]

Games come in pairs with the same dice: game pair k draws every roll (the opening included) from
``random.Random(first_seed + k)``, once with the level in seat 0 and once in seat 1, so each seat
meets each dice sequence once. Every game is one money game (``length:0``, no Jacoby rule, no
beavers, no automatic doubles: gammons always count) with the cube in play, to its end; its points
are the level's (negative when GNU Backgammon won them).

GNU Backgammon (the ``gnubg`` PyPI module, GPL, a test-only dependency) plays at 0-ply, cubeful:
checker play by ``gnubg.findbestmove`` (0-ply cubeful evaluation context, the cube's value, owner and
the score in its cube information); cube actions by its own ``eval`` of the position before the roll
(``set evaluation cubedecision evaluation plies 0``, the text "Cubeful equities: No double / Double,
take / Double, pass" read back): it doubles when doubling is worth more than no double, and takes when
a take costs the doubler no more than a pass, as its "Proper cube action" says. It runs on this
process's main thread (it crashes on any other), with one thread of its own (``set threads 1``).

The level thinks as the bot has it think: each of its decisions is ``engine.ai.levels.seeded_move``,
the function the compute lane calls, timed in wall and CPU seconds, by kind (``checker``: a checker
play, ``cube``: double or roll, take or pass).

Resumable: each finished game is appended to ``--out`` as one JSON line (seed, the level's seat,
points, the final cube, the decision times); started again with the same file, the bench plays only
the games the file does not hold, then prints the totals over every game in it (one JSON line): points
per game with its 95% interval (from the pairs' sums, which share their dice; the games' own interval
beside it), the pairs done, and the p95 of the decision times by kind. ``--minutes`` stops starting
new pairs after that long. ``--workers 2`` plays pairs in two processes (only on a quiet machine: the
times are the level's, measured while it shares the cores).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

import random  # noqa: E402

from engine.ai.arena import percentile  # noqa: E402
from engine.ai.levels import seeded_move  # noqa: E402
from engine.ai.random_player import sample_outcome  # noqa: E402
from engine.backgammon.board import CHECKERS, borne_off, swap  # noqa: E402
from engine.backgammon.formats import gnubg_id  # noqa: E402
from engine.backgammon.game import BackgammonState, Checkers, Double, Pass, Phase, RollOn, Take  # noqa: E402
from engine.backgammon.plays import Play  # noqa: E402
from engine.backgammon.variant import VARIANT, match_info  # noqa: E402
from engine.protocol import Action  # noqa: E402

OPTIONS = {"length": 0, "jacoby": False, "beavers": False}
"""One money game each: gammons always count, no beavers (GNU Backgammon is told the same)."""
KINDS = {Phase.PLAY: "checker", Phase.DECIDE: "cube", Phase.TAKE: "cube"}
Z95 = 1.959964


def read_records(path: Path) -> list[dict[str, Any]]:
    """The games already in ``path`` (none if it does not exist); a torn last line is ignored."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short when a run was stopped mid-write
    return records


def pending_games(records: Iterable[dict[str, Any]], games: int, first_seed: int) -> list[tuple[int, int]]:
    """The ``(seed, level's seat)`` of the first ``games`` games (pairs from ``first_seed`` on, seat 0
    then seat 1) that ``records`` do not hold, in order."""
    done = {(int(r["seed"]), int(r["seat"])) for r in records}
    wanted = [(first_seed + i // 2, i % 2) for i in range(games)]
    return [game for game in wanted if game not in done]


def interval(values: list[float]) -> tuple[float, list[float] | None]:
    """Mean and 95% interval (normal approximation) of ``values``; no interval below two values."""
    if len(values) < 2:
        return (statistics.fmean(values) if values else 0.0, None)
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return (round(mean, 4), [round(mean - half, 4), round(mean + half, 4)])


def totals(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Points per game over every game in ``records``, its 95% interval from the complete pairs (each
    pair's two games share their dice: the interval of half the pair sums) and from the games alone,
    and the decision times by kind."""
    latest = {(int(r["seed"]), int(r["seat"])): r for r in records}  # a game recorded twice counts once
    games = list(latest.values())
    points = [float(r["points"]) for r in games]
    pairs = [
        (latest[(seed, 0)]["points"] + latest[(seed, 1)]["points"]) / 2
        for seed in sorted({seed for seed, _ in latest})
        if (seed, 0) in latest and (seed, 1) in latest
    ]
    mean, spread = interval(points)
    pair_mean, pair_spread = interval(pairs)
    out: dict[str, Any] = {
        "games": len(games),
        "pairs": len(pairs),
        "ppg": mean,
        "ppg_95": spread,
        "paired_ppg": pair_mean,
        "paired_ppg_95": pair_spread,
        "won": sum(p > 0 for p in points),
        "gammons": sum(abs(r["points"]) >= 2 * r["cube"] for r in games),
        "doubled_games": sum(r["cube"] > 1 for r in games),
    }
    for kind in ("checker", "cube"):
        wall = [t for r in games for t in r["times"].get(kind, [])]
        cpu = [t for r in games for t in r["cpu"].get(kind, [])]
        out[kind] = {
            "decisions": len(wall),
            "median_s": round(percentile(wall, 0.5), 3),
            "p95_s": round(percentile(wall, 0.95), 3),
            "max_s": round(max(wall, default=0.0), 3),
            "cpu_p95_s": round(percentile(cpu, 0.95), 3),
        }
    return out


class GnubgZeroPly:
    """GNU Backgammon at 0-ply as a player (see the module's text); made once per process."""

    CUBE_LINE = re.compile(r"^\s*\d\.\s+(No double|Double, pass|Double, take)\s+([+-]?\d+\.\d+)")

    def __init__(self) -> None:
        import gnubg  # GPL: a test-only dependency, imported only here

        self.gnubg = gnubg
        for command in (
            "set threads 1",
            "set jacoby off",
            "set beavers 0",
            "set output mwc off",
            "set evaluation chequerplay evaluation plies 0",
            "set evaluation chequerplay evaluation cubeful on",
            "set evaluation cubedecision evaluation plies 0",
            "set evaluation cubedecision evaluation cubeful on",
        ):
            self.command(command)
        self.context = gnubg.eval_context(1, 0, 0, 0, 0.0)

    def command(self, text: str) -> str:
        """Run a GNU Backgammon command; what it printed (its C code writes to file descriptor 1)."""
        sys.stdout.flush()
        saved = os.dup(1)
        with tempfile.TemporaryFile() as out:
            os.dup2(out.fileno(), 1)
            try:
                self.gnubg.command(text)
            finally:
                os.dup2(saved, 1)
                os.close(saved)
            out.seek(0)
            return out.read().decode(errors="replace")

    def __call__(self, state: BackgammonState) -> Action:
        if state.phase is Phase.PLAY:
            play = self.play(state)
            return Checkers(play.moves, play.result)
        nd, dt, dp = self.cube(state)
        if state.phase is Phase.DECIDE:
            return Double() if min(dt, dp) > nd else RollOn()
        if state.phase is Phase.TAKE:
            return Take() if dt <= dp else Pass()
        raise ValueError(f"GNU Backgammon is not asked in phase {state.phase.value}")

    def cube(self, state: BackgammonState) -> tuple[float, float, float]:
        """No double, double/take, double/pass: cubeful 0-ply equities of the player who may double."""
        seat = state.turn_seat or 0
        info = replace(match_info(state), doubled=False, turn=seat, dice=(0, 0))
        self.command(f"set gnubgid {gnubg_id(state.board, info)}")
        found: dict[str, float] = {}
        for line in self.command("eval").splitlines():
            match = self.CUBE_LINE.match(line)
            if match:
                found[match.group(1)] = float(match.group(2))
        if len(found) != 3:
            raise RuntimeError(
                f"GNU Backgammon's eval gave no cube decision for {gnubg_id(state.board, info)}"
            )
        return found["No double"], found["Double, take"], found["Double, pass"]

    def play(self, state: BackgammonState) -> Play:
        """GNU Backgammon's 0-ply play as one of our legal plays."""
        plays = state.plays()
        if len(plays) == 1:
            return plays[0]
        assert state.dice is not None
        seat = state.turn_seat or 0
        owner = -1 if state.cube_owner is None else state.cube_owner
        cube = self.gnubg.cube_info(state.cube, owner, seat, state.length, tuple(state.score), 0, 0)
        cube["jacoby"] = 0
        board = [list(state.board[0]), list(state.board[1])]
        found = self.gnubg.find_best_move(board, cube, self.context, tuple(state.dice))
        return self.our_play(state, tuple(found))

    def our_play(self, state: BackgammonState, found: tuple[int, ...]) -> Play:
        """The play of ours GNU Backgammon's move tuple names, by the position it reaches. Its
        ``(from, to)`` pairs stop at the first checker borne off (its C array ends at a 0), so a tuple
        of odd length does not say the whole play: then the best of our plays by GNU Backgammon's own
        0-ply evaluation (cubeless: the cube matters little once both sides bear off)."""
        plays = state.plays()
        if len(found) % 2 == 1:
            return max(plays, key=self.after)
        me, opp = list(state.board[1]), list(state.board[0])
        for src, dst in zip(found[0::2], found[1::2], strict=True):
            me[src - 1] -= 1
            if dst > 0:
                me[dst - 1] += 1
                if opp[24 - dst] == 1:
                    opp[24 - dst], opp[24] = 0, opp[24] + 1
        reached = (tuple(opp), tuple(me))
        for play in plays:
            if play.result == reached:
                return play
        raise RuntimeError(f"GNU Backgammon's move {found} is none of our plays")

    def after(self, play: Play) -> float:
        """The mover's cubeless 0-ply equity after ``play`` (a game won: the points)."""
        if borne_off(play.result[1]) == CHECKERS:
            return 10.0 - borne_off(play.result[0]) / 100
        opponent = swap(play.result)
        return -float(self.gnubg.evaluate([list(opponent[0]), list(opponent[1])])[5])


def play_game(seed: int, seat: int, level: str, gnubg: Callable[[BackgammonState], Action]) -> dict[str, Any]:
    """One money game, the level in ``seat``, the dice from ``random.Random(seed)``; its record."""
    state: Any = VARIANT.new_game(OPTIONS)
    assert isinstance(state, BackgammonState)
    chance = random.Random(seed)
    first = state.game_number
    times: dict[str, list[float]] = {"checker": [], "cube": []}
    cpu: dict[str, list[float]] = {"checker": [], "cube": []}
    turn, cube = 0, 1
    while state.outcome() is None and state.game_number == first:
        cube = state.cube
        spec = state.chance()
        if spec is not None:
            state = state.apply(state.chance_action(sample_outcome(spec, chance)))
            continue
        mover = state.to_move()
        if mover == seat:
            kind = KINDS[state.phase]
            wall, clock = time.perf_counter(), time.thread_time()
            action = seeded_move("backgammon", level, state.view(mover), seed * 1000 + turn)
            times[kind].append(round(time.perf_counter() - wall, 4))
            cpu[kind].append(round(time.thread_time() - clock, 4))
        else:
            action = gnubg(state)
        turn += 1
        state = state.apply(action)
    return {
        "seed": seed,
        "seat": seat,
        "points": state.score[seat] - state.score[1 - seat],
        "cube": cube,
        "times": times,
        "cpu": cpu,
    }


_WORKER: dict[str, Any] = {}


def _worker_game(job: tuple[int, int, str]) -> dict[str, Any]:
    """One game in a worker process (its own GNU Backgammon, on its main thread)."""
    if "gnubg" not in _WORKER:
        _WORKER["gnubg"] = GnubgZeroPly()
    seed, seat, level = job
    return play_game(seed, seat, level, _WORKER["gnubg"])


def run(jobs: list[tuple[int, int]], level: str, workers: int, deadline: float) -> Iterator[dict[str, Any]]:
    """The records of ``jobs``, as they finish; no new pair starts after ``deadline``."""
    if workers <= 1:
        gnubg = GnubgZeroPly()
        for seed, seat in jobs:
            if seat == 0 and time.monotonic() > deadline:
                return
            yield play_game(seed, seat, level, gnubg)
        return
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for record in pool.imap_unordered(_worker_game, ((s, t, level) for s, t in jobs), chunksize=1):
            yield record
            if time.monotonic() > deadline:
                pool.terminate()
                return


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=_HERE / "expert_vs_gnubg.jsonl")
    parser.add_argument("--minutes", type=float, default=math.inf)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--level", default="expert")
    args = parser.parse_args()
    jobs = pending_games(read_records(args.out), args.games, args.first_seed)
    deadline = time.monotonic() + args.minutes * 60
    with args.out.open("a") as out:
        for record in run(jobs, args.level, args.workers, deadline):
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
            out.flush()
            print(f"seed {record['seed']} seat {record['seat']}: {record['points']:+d}", file=sys.stderr)
    print(json.dumps({"level": args.level, "file": str(args.out)} | totals(read_records(args.out))))


if __name__ == "__main__":
    main()
