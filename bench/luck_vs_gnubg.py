"""Our luck figures against GNU Backgammon's for the same matches, player by player.

    python bench/luck_vs_gnubg.py [--matches 3] [--lengths 3,5,7] [--seed 1] [--level 1ply]
                                  [--gnubg /usr/games/gnubg]

Plays ``--matches`` seeded matches as ``bench/analysis_vs_gnubg.py`` does (its ``PAIRS`` of computer
levels, its ``NAMES``; the lengths in turn), writes each as a ``.mat`` file, analyses it with ours
(``engine.ai.backgammon_analysis.analyse`` at ``--level``: the luck does not depend on the level, it
is always judged at bgsage's 1-ply, GNU Backgammon's 0-ply) and with GNU Backgammon (dice only:
``analyse match`` with its luck analysis at 0-ply, then ``show statistics match``), and prints one
JSON object: per player of each match our "Luck total EMG (MWC)" and luck-adjusted result beside
GNU Backgammon's, then the mean absolute differences.
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
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from bench.analysis_vs_gnubg import NAMES, PAIRS  # noqa: E402
from engine.ai.backgammon_analysis import analyse  # noqa: E402
from engine.ai.selfplay import notations_played  # noqa: E402
from engine.backgammon.matexport import mat_file  # noqa: E402
from engine.backgammon.variant import VARIANT  # noqa: E402

SCRIPT = """
import gnubg
gnubg.command("set analysis moves off")
gnubg.command("set analysis cube off")
gnubg.command("set analysis luck on")
gnubg.command("set analysis luckanalysis plies 0")
gnubg.command("import mat {mat}")
gnubg.command("analyse match")
gnubg.command("show statistics match")
"""
NUMBER = r"([+-]?[\d.]+)"
LUCK = re.compile(rf"^Luck total EMG \(MWC\)\s+{NUMBER}\s+\(\s*{NUMBER}%\)\s+{NUMBER}\s+\(\s*{NUMBER}%\)")
ADJUSTED = re.compile(rf"^Luck adjusted result\s+{NUMBER}%\s+{NUMBER}%")


def gnubg_luck(mat: Path, gnubg: str) -> dict[str, list[float]]:
    """GNU Backgammon's luck of each player (X first) of the match in ``mat``: EMG, MWC (0.01 = 1%)
    and the luck-adjusted result (MWC)."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "luck.py"
        script.write_text(SCRIPT.format(mat=mat.resolve()))
        text = subprocess.run(
            [gnubg, "-t", "-q", "-p", str(script)], capture_output=True, text=True, check=True
        ).stdout
    lines = [line.strip() for line in text.splitlines()]
    luck = next(m for m in map(LUCK.match, lines) if m)
    adjusted = next((m for m in map(ADJUSTED.match, lines) if m), None)
    return {
        "emg": [float(luck.group(1)), float(luck.group(3))],
        "mwc": [float(luck.group(2)) / 100, float(luck.group(4)) / 100],
        "adjusted": [float(adjusted.group(k)) / 100 for k in (1, 2)] if adjusted else [],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=3)
    parser.add_argument("--lengths", default="3,5,7")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--level", default="1ply")
    parser.add_argument("--gnubg", default="/usr/games/gnubg")
    args = parser.parse_args()
    lengths = [int(x) for x in args.lengths.split(",")]
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.matches):
            length, players = lengths[n % len(lengths)], PAIRS[n % len(PAIRS)]
            options = {"length": length}
            log = list(notations_played(VARIANT, options, players, random.Random(args.seed + n)))
            text = mat_file(VARIANT, options, log, NAMES)
            assert text is not None
            mat = Path(folder) / f"match{n}.mat"
            mat.write_text(text)
            ours = analyse(options, log, level=args.level)
            theirs = gnubg_luck(mat, args.gnubg)
            adjusted = theirs["adjusted"]  # empty when GNU Backgammon shows no result (no game finished)
            for seat, report in enumerate(ours.players):
                row = {
                    "match": n,
                    "length": length,
                    "player": NAMES[seat],
                    "rolls": report.rolls,
                    "ours_emg": round(report.luck_total or 0.0, 3),
                    "gnubg_emg": theirs["emg"][seat],
                    "ours_mwc_pct": round(100 * (report.luck_result or 0.0), 2),
                    "gnubg_mwc_pct": round(100 * theirs["mwc"][seat], 2),
                    "ours_adjusted_pct": round(100 * (report.luck_adjusted or 0.0), 2),
                    "gnubg_adjusted_pct": round(100 * adjusted[seat], 2) if adjusted else None,
                }
                rows.append(row)
                print(json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps({"summary": summary(rows), "players": rows}))


def summary(rows: list[dict[str, object]]) -> dict[str, object]:
    def mean_abs(ours: str, theirs: str) -> float | None:
        pairs = [(float(r[ours]), float(r[theirs])) for r in rows if r[theirs] is not None]  # type: ignore[arg-type]
        return round(statistics.fmean(abs(a - b) for a, b in pairs), 3) if pairs else None

    return {
        "players": len(rows),
        "mean_abs_diff_emg": mean_abs("ours_emg", "gnubg_emg"),
        "mean_abs_diff_mwc_pct": mean_abs("ours_mwc_pct", "gnubg_mwc_pct"),
        "mean_abs_diff_adjusted_pct": mean_abs("ours_adjusted_pct", "gnubg_adjusted_pct"),
    }


if __name__ == "__main__":
    main()
