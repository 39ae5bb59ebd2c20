"""Our rollouts (``engine.ai.backgammon_rollout``, bgsage) against GNU Backgammon's own rollouts.

    PYTHONPATH=$PWD .venv/bin/python bench/rollout_vs_gnubg.py [--trials 216] [--gnubg /usr/games/gnubg] [--only holding]

Ten positions, varied (opening plays and replies, cube decisions in the middle game, a holding game,
a back game, a race, a bear-off, a match score): each is rolled out by us, then every candidate's
position by GNU Backgammon (``rollout`` of the position with its player on roll: cubeful, variance
reduction, 0-ply play and cube, Mersenne Twister with quasi-random dice), and the two cubeful
equities compared: within two combined standard errors (``2 * sqrt(se_ours² + se_gnubg²)``) or not.

What is compared: for a checker play, each candidate's equity for the player who plays it against
minus GNU Backgammon's equity of the position it reaches (the opponent then on roll, with the cube);
for a cube decision, our equity of no double against GNU Backgammon's rollout of the position with
its player on roll (the cube positions are chosen where no double is right, so both are the value of
playing on).
GNU Backgammon prints its rollouts on a terminal only, so it runs under ``script`` (a pseudo-terminal).
"""

from __future__ import annotations

import argparse
import math
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from engine.ai.backgammon_rollout import (
    CUBE,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    NO_DOUBLE,
    Rollout,
    RolloutSettings,
    rollout,
)
from engine.backgammon.actions import Checkers, Opening, Phase, Roll, RollOn
from engine.backgammon.board import BAR, Board, RuleSet, Side
from engine.backgammon.formats import MatchInfo, gnubg_id
from engine.backgammon.game import BackgammonState
from engine.backgammon.layers import MoneyRules
from engine.backgammon.position_start import PastedPosition, start_from

MONEY = MoneyRules(jacoby=False, beavers=False)
"""Money play without the Jacoby rule or beavers, as GNU Backgammon is told (``set jacoby off``)."""


def side(points: dict[int, int], bar: int = 0) -> Side:
    """A side from its checkers on its own points (1 to 24) and its bar."""
    row = [0] * 25
    for point, n in points.items():
        row[point - 1] = n
    row[BAR] = bar
    return tuple(row)


def opening(dice: tuple[int, int], *plays: str) -> BackgammonState:
    """The money game after the opening roll ``dice`` and ``plays`` (each then a roll and a play)."""
    state = BackgammonState.new(RuleSet.STANDARD, 0, MONEY)
    state = state.apply(Opening(*dice))  # type: ignore[assignment]
    for text in plays:
        if text.startswith("roll "):
            d = text.split()[1]
            if state.phase is Phase.DECIDE:
                state = state.apply(RollOn())  # type: ignore[assignment]
            state = state.apply(Roll(int(d[0]), int(d[1])))  # type: ignore[assignment]
            continue
        chosen = [p for p in state.plays() if Checkers(p.moves, p.result).notation == text]
        assert chosen, f"no play {text} in {[Checkers(p.moves, p.result).notation for p in state.plays()]}"
        state = state.apply(Checkers(chosen[0].moves, chosen[0].result))  # type: ignore[assignment]
    return state


def pasted(
    on_roll: Side,
    other: Side,
    *,
    dice: tuple[int, int] = (0, 0),
    length: int = 0,
    away: tuple[int, int] = (0, 0),
) -> BackgammonState:
    """A position with ``on_roll`` to play ``dice`` (or to decide the cube), centred cube."""
    score = (length - away[0], length - away[1]) if length else (0, 0)
    info = MatchInfo(on_roll=0, turn=0, dice=dice, match_length=length, score=score)
    return start_from(
        PastedPosition((other, on_roll), info, "bench"),
        RuleSet.STANDARD,
        length,
        MONEY if not length else None,
    )


START = {24: 2, 13: 5, 8: 3, 6: 5}


def positions() -> list[tuple[str, BackgammonState]]:
    return [
        ("opening 31", opening((3, 1))),
        ("opening 54", opening((5, 4))),
        ("reply 62 to 31P", opening((3, 1), "8/5 6/5", "roll 62")),
        ("reply 44 to 21S", opening((2, 1), "13/11 6/5", "roll 44")),
        ("cube: after 31P and 21, opponent on roll", opening((3, 1), "8/5 6/5", "roll 21", "13/11 6/5")),
        (
            "cube: holding game, 24 pips behind",
            pasted(side({6: 4, 5: 3, 4: 2, 8: 2, 13: 2, 20: 2}), side({6: 4, 4: 3, 8: 3, 13: 3, 3: 2})),
        ),
        (
            "back game, 5-1 to play",
            pasted(
                side({24: 2, 22: 2, 6: 3, 5: 2, 4: 2, 8: 2, 13: 2}),
                side({6: 4, 5: 3, 4: 3, 2: 2, 7: 1, 9: 2}),
                dice=(5, 1),
            ),
        ),
        (
            "race, 6-3 to play, 85 pips against 75",
            pasted(
                side({6: 3, 5: 3, 4: 3, 3: 2, 8: 2, 9: 2}),
                side({6: 4, 5: 3, 4: 3, 3: 2, 2: 1, 8: 2}),
                dice=(6, 3),
            ),
        ),
        (
            "cube: bear-off, 6 checkers each, 24 pips each",
            pasted(side({5: 2, 4: 2, 3: 2}), side({6: 2, 4: 2, 2: 2})),
        ),
        (
            "cube: 5-away 3-away, a blitz",
            pasted(
                side({6: 3, 5: 3, 4: 2, 3: 2, 8: 3, 13: 2}),
                side({24: 1, 13: 4, 8: 2, 6: 5, 11: 2}, bar=1),
                length=7,
                away=(5, 3),
            ),
        ),
    ]


@dataclass
class Compared:
    name: str
    what: str
    ours: float
    ours_se: float
    gnubg_code: str
    sign: int  # +1: GNU's figure as is, -1: turned round (the opponent on roll)
    gnubg: float = math.nan
    gnubg_se: float = math.nan

    @property
    def within(self) -> bool:
        return abs(self.ours - self.gnubg) <= 2 * math.hypot(self.ours_se, self.gnubg_se)


def code_of(board: Board, state: BackgammonState) -> str:
    """The GNU Backgammon ID of ``board`` (``board[1]`` on roll) at ``state``'s score, centred cube."""
    length = state.length
    seat = state.turn_seat or 0
    score = (state.score[seat], state.score[1 - seat]) if length else (0, 0)
    return gnubg_id(board, MatchInfo(on_roll=0, turn=0, match_length=length, score=score))


def ours(state: BackgammonState, trials: int) -> tuple[Rollout, float]:
    started = time.monotonic()
    found = rollout(state, RolloutSettings(trials=trials, seed=11, plays=2))
    return found, time.monotonic() - started


def comparisons(name: str, state: BackgammonState, found: Rollout) -> list[Compared]:
    seat = state.turn_seat or 0
    if found.kind == CUBE:
        by = {c.label: c for c in found.candidates}
        nd, dt, dp = by[NO_DOUBLE], by[DOUBLE_TAKE], by[DOUBLE_PASS]
        right = "no double" if nd.equity >= min(dt.equity, dp.equity) else "double"
        code = code_of(state.board, state)
        return [Compared(name, f"no double ({right} right)", nd.equity, nd.se, code, +1)]
    out = []
    for c in found.candidates:
        play = next(p for p in state.plays() if Checkers(p.moves, p.result).notation == c.notation)
        opp, me = play.result
        after = state.but(turn_seat=1 - seat)
        out.append(Compared(name, c.label, c.equity, c.se, code_of((me, opp), after), -1))
    return out


GNUBG_SETUP = """set threads 1
set jacoby off
set beavers off
set output mwc off
set rollout trials {trials}
set rollout cubeful on
set rollout varredn on
set rollout quasirandom on
set rollout truncation off
set rollout chequerplay plies 0
set rollout cubedecision plies 0
set rollout seed 7
set player 0 human
set player 1 human
new game
"""

RESULT = re.compile(r"CL\s+([-+]?\d+\.\d+)\s+CF\s+([-+]?\d+\.\d+)")


def gnubg_rollouts(codes: list[str], trials: int, gnubg: str) -> list[tuple[float, float]]:
    """GNU Backgammon's cubeful equity and its standard error of each position (its player on roll)."""
    script = GNUBG_SETUP.format(trials=trials)
    for code in codes:
        script += f"set gnubgid {code}\nrollout\n"
    script += "quit\ny\n"
    with tempfile.TemporaryDirectory() as tmp:
        commands = Path(tmp) / "commands.txt"
        commands.write_text(script)
        done = subprocess.run(
            ["script", "-qc", f"{gnubg} -t -q < {commands}", "/dev/null"],
            capture_output=True,
            text=True,
            timeout=3600,
            check=False,
        )
    out = done.stdout.replace("\r", "\n")
    found = []
    for part in out.split("Rollout done. Printing final results.")[1:]:
        lines = RESULT.findall(part)
        equity, se = lines[0][1], lines[1][1]  # the means, then their standard errors
        found.append((float(equity), float(se)))
    if len(found) != len(codes):
        sys.exit(f"GNU Backgammon gave {len(found)} rollouts for {len(codes)} positions:\n{out[-2000:]}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=216, help="games per candidate (a multiple of 36)")
    parser.add_argument("--gnubg", default="/usr/games/gnubg")
    parser.add_argument("--only", default="", help="only the positions whose name holds this text")
    args = parser.parse_args()
    rows: list[Compared] = []
    spent = 0.0
    for name, state in positions():
        if args.only not in name:
            continue
        found, seconds = ours(state, args.trials)
        spent += seconds
        rows += comparisons(name, state, found)
        print(f"  rolled out {name} ({seconds:.0f} s)", file=sys.stderr, flush=True)
    started = time.monotonic()
    for row, (equity, se) in zip(
        rows, gnubg_rollouts([r.gnubg_code for r in rows], args.trials, args.gnubg), strict=True
    ):
        row.gnubg, row.gnubg_se = row.sign * equity, se
    gnubg_seconds = time.monotonic() - started
    print(f"{'position':42} {'candidate':22} {'ours':>15} {'GNU Backgammon':>15}  within 2 SE")
    for r in rows:
        mark = "yes" if r.within else "NO"
        print(
            f"{r.name:42} {r.what:22} {r.ours:+.3f} ± {r.ours_se:.3f}  {r.gnubg:+.3f} ± {r.gnubg_se:.3f}  {mark}"
            f"  (diff {r.ours - r.gnubg:+.3f}, 2 SE {2 * math.hypot(r.ours_se, r.gnubg_se):.3f})"
        )
    good = sum(r.within for r in rows)
    print(
        f"\n{good} of {len(rows)} equities within two combined standard errors; {args.trials} games per candidate;"
        f" ours {spent:.0f} s, GNU Backgammon {gnubg_seconds:.0f} s"
    )


if __name__ == "__main__":
    main()
