"""Our analysis's PR against GNU Backgammon's 2-ply analysis of the same matches.

    python bench/analysis_vs_gnubg.py [--matches 8] [--lengths 5,7] [--seed 1] [--level 3ply]
                                      [--gnubg /usr/games/gnubg] [--plies 2]

Plays ``--matches`` matches (the lengths taken in turn, seeded dice, computer levels in turn from
``PAIRS``, the cube in play), writes each as a ``.mat`` file (``engine.backgammon.matexport``),
and analyses it twice: with ours (``engine.ai.backgammon_analysis.analyse`` at ``--level``) and with
GNU Backgammon (``gnubg -t -q``: ``import mat``, chequer play and cube at ``--plies``, ``analyse
match``, ``show statistics match``). GNU Backgammon's PR is its overall "Error rate mEMG" halved
(milli-EMG per decision; PR is 500 x EMG per decision). Prints one JSON object: per match and player
both PRs and both decision counts, then over all players the mean difference (ours - GNU
Backgammon's), the mean absolute difference, the least-squares slope of ours on theirs, and the
correlation.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from engine.ai.backgammon_analysis import LEVEL, analyse  # noqa: E402
from engine.ai.backgammon_bgsage import EASY, HARD, MEDIUM, SagePlayer  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.matexport import mat_file  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402

PAIRS: tuple[tuple[SagePlayer, SagePlayer], ...] = (
    (MEDIUM, EASY),
    (EASY, EASY),
    (EASY, MEDIUM),
    (HARD, EASY),
)
"""The levels of seat 0 and seat 1, match after match: easy's noisy plays make PRs of 5 to 20."""
NAMES = ("Alice", "Bob")

_SECTION = "Overall statistics"
_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\([^)]*\)\s+(-?[\d.]+)\s+\(")
_UNFORCED = re.compile(r"^Unforced moves\s+(\d+)\s+(\d+)")
_CLOSE = re.compile(r"^Close or actual cube decisions\s+(\d+)\s+(\d+)")


def gnubg_figures(mat: Path, gnubg: str, plies: int) -> dict[str, list[float]]:
    """GNU Backgammon's per-player PR and decision count of the match in ``mat``."""
    script = "\n".join(
        [
            f"set analysis chequerplay evaluation plies {plies}",
            f"set analysis cubedecision evaluation plies {plies}",
            f"import mat {mat}",
            "analyse match",
            "show statistics match",
            "",
        ]
    )
    out = subprocess.run([gnubg, "-t", "-q"], input=script, capture_output=True, text=True, check=True).stdout
    lines = [line.strip() for line in out.splitlines()]
    overall = lines[lines.index(_SECTION) :]
    rate = next(m for m in map(_RATE.match, overall) if m)
    unforced = next(m for m in map(_UNFORCED.match, lines) if m)
    close = next(m for m in map(_CLOSE.match, lines) if m)
    return {
        "pr": [abs(float(rate.group(k))) / 2 for k in (1, 2)],
        "decisions": [float(unforced.group(k)) + float(close.group(k)) for k in (1, 2)],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--lengths", default="5,7")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default=LEVEL)
    parser.add_argument("--gnubg", default="/usr/games/gnubg")
    parser.add_argument("--plies", type=int, default=2)
    args = parser.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.matches):
            length, players = lengths[n % len(lengths)], PAIRS[n % len(PAIRS)]
            options = {"length": length}
            log = list(notations_played(VARIANT, options, players, random.Random(args.seed + n)))
            text = mat_file(VARIANT, options, log, NAMES)
            assert text is not None
            mat = Path(folder) / f"match{n}.mat"
            mat.write_text(text)
            started = time.perf_counter()
            ours = analyse(options, log, level=args.level)
            seconds = time.perf_counter() - started
            theirs = gnubg_figures(mat, args.gnubg, args.plies)
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
                        "gnubg": round(theirs["pr"][seat], 2),
                        "our_decisions": report.unforced,
                        "gnubg_decisions": int(theirs["decisions"][seat]),
                        "analysis_s": round(seconds, 1),
                    }
                )
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    ours_prs = [r["ours"] for r in rows]
    gnubg_prs = [r["gnubg"] for r in rows]
    diffs = [a - b for a, b in zip(ours_prs, gnubg_prs, strict=True)]
    slope = statistics.linear_regression(gnubg_prs, ours_prs).slope
    summary = {
        "level": args.level,
        "gnubg_plies": args.plies,
        "matches": args.matches,
        "players": len(rows),
        "mean_ours": round(statistics.fmean(ours_prs), 2),
        "mean_gnubg": round(statistics.fmean(gnubg_prs), 2),
        "mean_diff": round(statistics.fmean(diffs), 2),
        "mean_abs_diff": round(statistics.fmean(abs(d) for d in diffs), 2),
        "slope": round(slope, 3),
        "r": round(statistics.correlation(gnubg_prs, ours_prs), 3),
    }
    print(json.dumps({"summary": summary, "players": rows}))


if __name__ == "__main__":
    main()
