"""The world-class backgammon level, ``expert``: the computer at the depth of the hints and analyses.

GNU Backgammon calls a player of its 2-ply with move filters "world class"; bgsage counts plies from
1 (its 1-ply is the network alone, GNU Backgammon's 0-ply), so bgsage's 3-ply, ``COACH_LEVEL``, is
that depth. ``hard`` plays bgsage's every play at 2-ply; ``expert`` looks one ply deeper, with the
cube in money sessions and matches alike:

- Checker play (standard and nackgammon, the cube in play): every legal play screened at 1-ply, the
  few that stay near the best at 2-ply, the best three within 0.06 at 3-ply
  (``backgammon_filter.filtered_plays``, GNU Backgammon's way of analysing), each judged cubefully
  with the match score or the money session's rules. Elsewhere (a forced play, bearing off the last
  checker, Old English, a turn in progress, single games played as cubeless money for the arena)
  bgsage's own ranking at 3-ply, as ``SagePlayer`` plays it.
- The cube: double, take or pass from bgsage's 3-ply cube decision (``cube_equities``), asked on
  this thread; a beaver (money sessions with beavers) as bgsage's own ``cube_action`` decides it.
- Resignations: as every level answers them (``SagePlayer``).

A decision takes about a tenth of a second (p95 0.26 s for checker play, 0.27 s for the cube, the
slowest 1.5 s in 1,000 games; bench/README.md, bench/expert_vs_gnubg.py); it is made in the compute
lane like every level's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from engine.ai.backgammon_bgsage import (
    APPROXIMATE_RULES,
    COACH_LEVEL,
    EngineMismatchError,
    SagePlayer,
    board_from_sage,
    context,
    doubles,
    sage_board,
    turn_start,
)
from engine.ai.backgammon_filter import CubeEquities, cube_equities, filtered_plays
from engine.backgammon.board import CHECKERS, borne_off
from engine.backgammon.game import BackgammonState, Checkers, Double, Pass, Phase, RollOn, Take
from engine.backgammon.plays import Play
from engine.protocol import Action, GameView

EXPERT_LEVEL = COACH_LEVEL
"""The depth of every expert decision: the hints' and analyses' (bgsage's 3-ply)."""
CUBE_TIE = 1e-5
"""The cube decision's equities are single precision: a match's cash with no gammon left comes back
as no double 1.0000007 against double/pass 0.9999998, which is a tie (a double, GNU Backgammon's
"Double, pass")."""


@dataclass(frozen=True, slots=True)
class ExpertPlayer:
    """The ``expert`` level: ``level`` for checker play through move filters and for the cube;
    ``sage`` (bgsage at the same depth) where the filters do not apply (see the module's text)."""

    name: str
    level: str
    sage: SagePlayer

    def for_money(self) -> ExpertPlayer:
        """Single games as cubeless money play (the arena's benchmark), as ``SagePlayer.for_money``."""
        return replace(self, sage=self.sage.for_money())

    def __call__(self, view: GameView, rng: random.Random) -> Action:
        state = view
        if not isinstance(state, BackgammonState):
            raise TypeError("a backgammon player needs a backgammon position")
        if self.sage.money or state.rules in APPROXIMATE_RULES:
            return self.sage(state, rng)
        if state.phase is Phase.DECIDE:
            return Double() if self.should_double(state) else RollOn()
        if state.phase is Phase.TAKE and not state.may_beaver():
            return Take() if self.takes(state) else Pass()
        if state.phase is Phase.PLAY:
            play = self.best_play(state)
            if play is not None:
                return Checkers(play.moves, play.result)
        return self.sage(state, rng)

    def should_double(self, state: BackgammonState) -> bool:
        """Whether the player on roll doubles, from the cube decision at ``level``: equities within
        ``CUBE_TIE`` of each other are equal (a cash with no gammon left: double, pass)."""
        cube = self._cube(state)
        return doubles(
            *(round(e / CUBE_TIE) * CUBE_TIE for e in (cube.equity_nd, cube.equity_dt, cube.equity_dp))
        )

    def takes(self, state: BackgammonState) -> bool:
        """Whether the doubled player takes: a take costs no more than a pass (doubler's view)."""
        cube = self._cube(state)
        return cube.equity_dt <= cube.equity_dp

    def _cube(self, state: BackgammonState) -> CubeEquities:
        doubler = state.turn_seat or 0
        return cube_equities(sage_board(state.board), context(state, doubler, money=False), self.level)

    def best_play(self, state: BackgammonState) -> Play | None:
        """The best of OUR legal plays by the move filters at ``level``; None where the filters do not
        apply (a forced play, a play bearing off the last checker, a turn in progress, no cube)."""
        plays = state.plays()
        seat = state.turn_seat or 0
        ctx = context(state, seat, money=False)
        if len(plays) <= 1 or state.dice is None or state.played or not ctx.cubeful:
            return None
        if any(borne_off(play.result[1]) == CHECKERS for play in plays):
            return None  # ranked by the points they win, without bgsage (``ranked_plays``)
        ours = {play.result: play for play in plays}
        judged = filtered_plays(sage_board(turn_start(state)), state.dice, ctx, self.level)
        best = ours.get(board_from_sage(judged[0].board))
        if best is None:
            raise EngineMismatchError(
                f"bgsage plays to {list(judged[0].board)}, which is no legal play of ours (dice {state.dice})"
            )
        return best


EXPERT = ExpertPlayer("expert", EXPERT_LEVEL, SagePlayer("expert", EXPERT_LEVEL, EXPERT_LEVEL, EXPERT_LEVEL))
"""World class: every decision at the hints' depth, the cube in money sessions and matches."""
