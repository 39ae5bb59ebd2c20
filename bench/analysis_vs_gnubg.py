"""Our analysis against GNU Backgammon's 2-ply analysis of the same matches: PR, decision classes, time.

    python bench/analysis_vs_gnubg.py [--matches 3] [--lengths 3,5,7] [--seed 1] [--level 3ply]
                                      [--threads N] [--gnubg /usr/games/gnubg] [--plies 2] [--every-play]

Plays ``--matches`` matches (the lengths taken in turn, seeded dice, computer levels in turn from
``PAIRS``, the cube in play), writes each as a ``.mat`` file (``engine.backgammon.matexport``),
and analyses it twice: with ours (``engine.ai.backgammon_analysis.analyse`` at ``--level`` on
``--threads`` threads, the networks loaded before the clock starts; ``--every-play``: without move
filters, every play at full depth as bgsage's own ``checker_play``) and with GNU Backgammon
(``gnubg -t -q -p``, a Python script: chequer play and cube at ``--plies``, ``import mat``,
``analyse match``, ``show statistics match``, then every decision's analysis read from
``gnubg.match()``). GNU Backgammon's PR is its overall "Error rate mEMG" halved (milli-EMG per
decision; PR is 500 x EMG per decision).

Times: ours, the process's CPU seconds (all threads) and wall seconds of ``analyse``; GNU
Backgammon's, the CPU seconds of the child process (``RUSAGE_CHILDREN``: start-up, import and
analysis) and its wall seconds, and apart the CPU of ``analyse match`` alone (measured inside it).
``cpu_ratio`` is ours over GNU Backgammon's whole process.

Decision classes: each decision either program counts (a checker play with a choice, a take or
pass, a double, a roll on when the cube decision is close: the best less than 0.16 above doubling)
is put in one class by its equity lost (none, doubtful 0.02, error 0.04, blunder 0.08, our
``category``) by each program; a decision one of them does not count is "none" for it. Decisions
are paired by game, player, the player's turn in the game and kind. ``class_agreement`` is the
share of decisions in the same class.

Prints one JSON object: per match and player both PRs and decision counts, per match the times,
then the means, the CPU ratio per length, and the agreement; ``differ`` lists the decisions put in
different classes, with both programs' equity lost (None where one does not count it).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bgbot_cpp import get_met

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine.ai.backgammon_analysis import CLOSE_CUBE, LEVEL, THREADS, analyse, category  # noqa: E402
from engine.ai.backgammon_bgsage import EASY, HARD, MEDIUM, SagePlayer, analyzer  # noqa: E402
from engine.ai.backgammon_filter import FILTERS, MoveFilter  # noqa: E402
from engine.ai.coaching import Analysis  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.game import Opening, Roll  # noqa: E402
from engine.backgammon.matexport import mat_file  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402
from engine.protocol import replay_states  # noqa: E402

PAIRS: tuple[tuple[SagePlayer, SagePlayer], ...] = (
    (MEDIUM, EASY),
    (EASY, EASY),
    (EASY, MEDIUM),
    (HARD, EASY),
)
"""The levels of seat 0 and seat 1, match after match: easy's noisy plays make PRs of 5 to 20."""
NAMES = ("Alice", "Bob")
SEATS = {"X": 0, "O": 1}
"""GNU Backgammon's players of an imported .mat file: X is the first named (our seat 0)."""

_SECTION = "Overall statistics"
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)\s+\(")
_UNFORCED = re.compile(r"^Unforced moves\s+(\d+)\s+(\d+)")
_CLOSE = re.compile(r"^Close or actual cube decisions\s+(\d+)\s+(\d+)")

_SCRIPT = """
import json, resource, gnubg
gnubg.command("set analysis chequerplay evaluation plies {plies}")
gnubg.command("set analysis cubedecision evaluation plies {plies}")
gnubg.command("import mat {mat}")
before = resource.getrusage(resource.RUSAGE_SELF)
gnubg.command("analyse match")
after = resource.getrusage(resource.RUSAGE_SELF)
gnubg.command("show statistics match")
cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
with open("{out}", "w") as out:
    json.dump({{"cpu": cpu, "match": gnubg.match(analysis=1, boards=0, statistics=0, verbose=0)}}, out)
"""

Key = tuple[int, int, int, str]
"""A decision: game (from 1), seat, the seat's turn in the game (from 0), kind (play, cube, take)."""


def gnubg_figures(mat: Path, gnubg: str, plies: int) -> dict[str, object]:
    """GNU Backgammon's per-player PR and decision count of the match in ``mat``, its decisions'
    losses by ``Key``, and its CPU and wall seconds."""
    with tempfile.TemporaryDirectory() as folder:
        out, script = Path(folder) / "match.json", Path(folder) / "analyse.py"
        script.write_text(_SCRIPT.format(plies=plies, mat=mat.resolve(), out=out))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        text = subprocess.run(
            [gnubg, "-t", "-q", "-p", str(script)], capture_output=True, text=True, check=True
        ).stdout
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        found = json.loads(out.read_text())
    lines = [line.strip() for line in text.splitlines()]
    overall = lines[lines.index(_SECTION) :]
    rate = next(m for m in map(_RATE.match, overall) if m)
    unforced = next(m for m in map(_UNFORCED.match, lines) if m)
    close = next(m for m in map(_CLOSE.match, lines) if m)
    return {
        "pr": [abs(float(rate.group(k))) / 2 for k in (1, 2)],
        "decisions": [float(unforced.group(k)) + float(close.group(k)) for k in (1, 2)],
        "losses": gnubg_losses(found["match"]),
        "cpu_s": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
        "analyse_cpu_s": float(found["cpu"]),
        "wall_s": wall,
    }


def gnubg_losses(match: dict[str, Any]) -> dict[Key, float]:
    """Each decision GNU Backgammon counts, with its equity lost (as ``analyse`` counts them). Its
    cube equities come as match winning chances: they are normalised as its own figures are
    (double/pass 1, losing the cube's points -1) by the match equity table."""
    length = int(match["match-info"]["match-length"])
    losses: dict[Key, float] = {}
    for number, game in enumerate(match["games"], start=1):
        score = (int(game["info"]["score-X"]), int(game["info"]["score-O"]))
        turns, cube = [0, 0], 1
        pending: tuple[int, float] | None = None  # a double: the doubler and double/take
        for action in game["game"]:
            kind, seat, found = action["action"], SEATS[action["player"]], action.get("analysis") or {}
            if "nd-cubeful-eq" in found:
                norm = _normaliser(length, score, seat, cube)
                nd, dt = norm(found["nd-cubeful-eq"]), norm(found["dt-cubeful-eq"])
                double, best = min(dt, 1.0), max(nd, min(dt, 1.0))
                if kind == "double":
                    losses[(number, seat, turns[seat], "cube")] = best - double
                    pending = (seat, dt)
                elif best - double < CLOSE_CUBE:
                    losses[(number, seat, turns[seat], "cube")] = best - nd
            if kind == "move":
                moves = found.get("moves") or []
                if len(moves) > 1 and "imove" in found:
                    best, played = moves[0]["score"], moves[found["imove"]]["score"]
                    losses[(number, seat, turns[seat], "play")] = max(0.0, best - played)
                turns[seat] += 1
            elif kind in ("take", "drop") and pending is not None:
                doubler, dt = pending
                take, drop = -dt, -1.0
                losses[(number, doubler, turns[doubler], "take")] = max(take, drop) - (
                    take if kind == "take" else drop
                )
                if kind == "take":
                    cube *= 2
                pending = None
    return losses


def _normaliser(length: int, score: tuple[int, int], seat: int, cube: int) -> Callable[[float], float]:
    """Match winning chances of ``seat`` to GNU Backgammon's normalised equity at ``cube``."""

    def mwc(mine: int, theirs: int) -> float:
        return 1.0 if mine <= 0 else 0.0 if theirs <= 0 else float(get_met(mine, theirs, False))

    away, other = length - score[seat], length - score[1 - seat]
    win, lose = mwc(away - cube, other), mwc(away, other - cube)
    return lambda chances: (2 * chances - win - lose) / (win - lose)


def our_losses(options: dict[str, int], log: list[str], analysis: Analysis) -> dict[Key, float]:
    """Each decision our analysis counts, with its equity lost, by ``Key``."""
    turns: list[tuple[int, int, int]] = []  # per action: game, and the rolls of each seat so far in it
    game, rolls = 0, [0, 0]
    for state, text in zip(replay_states(VARIANT, options, log), log, strict=False):
        if state.game_number != game:
            game, rolls = state.game_number, [0, 0]
        turns.append((game, rolls[0], rolls[1]))
        action = VARIANT.parse_action(state, text)
        if isinstance(action, Opening) and action.die0 != action.die1:
            rolls[0 if action.die0 > action.die1 else 1] += 1
        elif isinstance(action, Roll):
            rolls[state.turn_seat or 0] += 1
    losses: dict[Key, float] = {}
    for d in analysis.decisions:
        if not d.unforced or d.action is None:
            continue
        number, *seen = turns[d.action]
        if d.kind == "play":
            losses[(number, d.seat, seen[d.seat] - 1, "play")] = d.loss
        elif d.kind == "cube":
            losses[(number, d.seat, seen[d.seat], "cube")] = d.loss
        else:
            losses[(number, 1 - d.seat, seen[1 - d.seat], "take")] = d.loss
    return losses


def classes(ours: dict[Key, float], theirs: dict[Key, float]) -> dict[str, object]:
    """How often the two programs put a decision in the same class, over the decisions either counts;
    ``differ``: the others, each with both losses (None: not counted by that program)."""
    keys = set(ours) | set(theirs)
    same = sum(1 for k in keys if category(ours.get(k, 0.0)) == category(theirs.get(k, 0.0)))
    differ = [
        {"key": list(k), "ours": _rounded(ours.get(k)), "gnubg": _rounded(theirs.get(k))}
        for k in sorted(keys)
        if category(ours.get(k, 0.0)) != category(theirs.get(k, 0.0))
    ]
    return {
        "decisions": len(keys),
        "same_class": same,
        "both_count": len(set(ours) & set(theirs)),
        "only_ours": len(set(ours) - set(theirs)),
        "only_gnubg": len(set(theirs) - set(ours)),
        "differ": differ,
    }


def _rounded(loss: float | None) -> float | None:
    return None if loss is None else round(loss, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--lengths", default="3,5,7")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default=LEVEL)
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--gnubg", default="/usr/games/gnubg")
    parser.add_argument("--plies", type=int, default=2)
    parser.add_argument(
        "--every-play",
        action="store_true",
        help="no move filter: every play at full depth (bgsage's own way)",
    )
    args = parser.parse_args()
    if args.every_play:
        depth = int(args.level.removesuffix("ply"))
        FILTERS[depth] = tuple(MoveFilter(999, 99.0) for _ in range(depth - 1))
    lengths = [int(x) for x in args.lengths.split(",")]
    analyzer(args.level, True), analyzer("1ply", True)  # the networks are loaded before the clock starts
    rows, matches = [], []
    agreement = {"decisions": 0, "same_class": 0, "both_count": 0, "only_ours": 0, "only_gnubg": 0}
    differ: list[object] = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.matches):
            length, players = lengths[n % len(lengths)], PAIRS[n % len(PAIRS)]
            options = {"length": length}
            log = list(notations_played(VARIANT, options, players, random.Random(args.seed + n)))
            text = mat_file(VARIANT, options, log, NAMES)
            assert text is not None
            mat = Path(folder) / f"match{n}.mat"
            mat.write_text(text)
            cpu, started = time.process_time(), time.perf_counter()
            ours = analyse(options, log, level=args.level, threads=args.threads)
            our_cpu, our_wall = time.process_time() - cpu, time.perf_counter() - started
            theirs = gnubg_figures(mat, args.gnubg, args.plies)
            agreed = classes(our_losses(options, log, ours), theirs["losses"])  # type: ignore[arg-type]
            for key in agreement:
                agreement[key] += agreed[key]  # type: ignore[operator]
            differ += [{"match": n, **d} for d in agreed.pop("differ")]  # type: ignore[attr-defined, dict-item]
            matches.append(
                {
                    "match": n,
                    "length": length,
                    "actions": len(log),
                    "ours_cpu_s": round(our_cpu, 2),
                    "ours_wall_s": round(our_wall, 2),
                    "gnubg_cpu_s": round(theirs["cpu_s"], 2),  # type: ignore[arg-type]
                    "gnubg_analyse_cpu_s": round(theirs["analyse_cpu_s"], 2),  # type: ignore[arg-type]
                    "gnubg_wall_s": round(theirs["wall_s"], 2),  # type: ignore[arg-type]
                    "cpu_ratio": round(our_cpu / theirs["cpu_s"], 2),  # type: ignore[operator]
                    "classes": agreed,
                }
            )
            for seat in (0, 1):
                report = ours.players[seat]
                if report.pr is None:
                    continue
                rows.append(
                    {
                        "match": n,
                        "length": length,
                        "level": players[seat].name,
                        "ours": round(report.pr, 2),
                        "gnubg": round(theirs["pr"][seat], 2),  # type: ignore[index]
                        "our_decisions": report.unforced,
                        "gnubg_decisions": int(theirs["decisions"][seat]),  # type: ignore[index]
                    }
                )
            print(json.dumps(matches[-1]), file=sys.stderr, flush=True)
    print(
        json.dumps(
            {
                "summary": summary(args, rows, matches, agreement),
                "matches": matches,
                "players": rows,
                "differ": differ,
            }
        )
    )


def summary(
    args: argparse.Namespace,
    rows: list[dict[str, object]],
    matches: list[dict[str, object]],
    agreement: dict[str, int],
) -> dict[str, object]:
    ours_prs = [float(r["ours"]) for r in rows]  # type: ignore[arg-type]
    gnubg_prs = [float(r["gnubg"]) for r in rows]  # type: ignore[arg-type]
    diffs = [a - b for a, b in zip(ours_prs, gnubg_prs, strict=True)]
    by_length: dict[str, dict[str, float]] = {}
    for length in sorted({int(m["length"]) for m in matches}):  # type: ignore[call-overload]
        some = [m for m in matches if m["length"] == length]
        ours_cpu = sum(float(m["ours_cpu_s"]) for m in some)  # type: ignore[arg-type]
        gnubg_cpu = sum(float(m["gnubg_cpu_s"]) for m in some)  # type: ignore[arg-type]
        by_length[f"{length}-point"] = {
            "ours_cpu_s": round(ours_cpu, 2),
            "gnubg_cpu_s": round(gnubg_cpu, 2),
            "cpu_ratio": round(ours_cpu / gnubg_cpu, 2),
            "ours_wall_s": round(sum(float(m["ours_wall_s"]) for m in some), 2),  # type: ignore[arg-type]
            "gnubg_wall_s": round(sum(float(m["gnubg_wall_s"]) for m in some), 2),  # type: ignore[arg-type]
        }
    return {
        "level": args.level,
        "every_play": args.every_play,
        "threads": args.threads,
        "gnubg_plies": args.plies,
        "matches": args.matches,
        "players": len(rows),
        "mean_ours": round(statistics.fmean(ours_prs), 2),
        "mean_gnubg": round(statistics.fmean(gnubg_prs), 2),
        "mean_diff": round(statistics.fmean(diffs), 2),
        "mean_abs_diff": round(statistics.fmean(abs(d) for d in diffs), 2),
        "slope": round(statistics.linear_regression(gnubg_prs, ours_prs).slope, 3) if len(rows) > 2 else None,
        "r": round(statistics.correlation(gnubg_prs, ours_prs), 3) if len(rows) > 2 else None,
        "times": by_length,
        "class_agreement": round(agreement["same_class"] / max(1, agreement["decisions"]), 4),
        "classes": agreement,
    }


if __name__ == "__main__":
    main()
