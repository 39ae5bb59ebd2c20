"""The backgammon computer levels, played by bgsage (Open Sage, MPL-2.0, ``pip install bgsage``).

bgsage is a neural-network engine: ``BgBotAnalyzer.checker_play`` ranks every legal play of a roll
by equity and ``cube_action`` answers the cube. This module adapts our state to it and back:

- ``sage_board``: our GNUBG-style board (``board[1]`` on roll) as bgsage's 26 ints from the roller's
  view: ``[1..24]`` the points (roller positive, opponent negative), ``[25]`` the roller's bar,
  ``[0]`` the opponent's bar (a positive count); borne-off checkers are implicit.
- Checker play: bgsage's best resulting position is mapped back to OUR legal play reaching the same
  position; if none does, ``EngineMismatchError`` (never a play our rules do not allow).
- The cube, in matches with a cube: double, take and pass by ``cube_action`` with the match score
  (``away1``/``away2`` from the deciding seat's view), the Crawford game, the cube's value and owner.
  A 1-point match (no cube) is played for the match (1-away each); ``SagePlayer.for_money`` plays a
  single game as cubeless money play (gammons count), the arena's benchmark.
- Old English: no engine knows the five-checker limit. The player evaluates the positions OUR legal
  plays reach (bgsage's post-move evaluation, cubeless, screened at 1-ply, the best few at the
  level's depth) and takes the best: hints there are approximate (``APPROXIMATE_RULES``).

Levels (``LEVELS``): ``hard`` plays bgsage's best play at 2-ply, cubeless in money play and cubeful
in matches (cubeful 3-ply takes seconds at times: p95 far above 1 s), ``medium`` at 1-ply, ``easy``
at 1-ply with noise on the equities (a fair opponent for a beginner, not a random mover); the cube
is decided at 2-ply for hard and 1-ply for the others. ``COACH`` is no level anyone meets: the one
setting of hints and analyses (``COACH_LEVEL`` for every decision), one ply deeper than any level,
so the computer's plays are judged by a stronger opinion than its own. bgsage counts plies from 1
(its 1-ply is the network alone, GNU Backgammon's 0-ply), so its 3-ply is GNU Backgammon's 2-ply. The analyzers are made once per setting and
shared (bgsage is thread-safe and releases the GIL), so the players stay pure functions of
``(view, rng)``; ``parallel_threads=1`` keeps one decision on one core.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, replace
from typing import Any

from bgsage import BgBotAnalyzer

from engine.backgammon.board import BAR, CHECKERS, Board, RuleSet, borne_off
from engine.backgammon.game import (
    POINTS,
    AcceptResignation,
    BackgammonState,
    Beaver,
    Checkers,
    DeclineResignation,
    Double,
    Pass,
    Phase,
    RollOn,
    Take,
    score,
)
from engine.backgammon.plays import Play
from engine.protocol import Action, GameView

APPROXIMATE_RULES = frozenset({RuleSet.OLDENGLISH})
"""Rule sets whose plays bgsage does not know: its opinion there (a hint, an analysis) is approximate."""

SCREEN_LEVEL = "1ply"
SCREEN_KEEP = 5
SCREEN_WINDOW = 0.08
"""Old English at a deeper level: the plays kept after the 1-ply screen (at most 5, within 0.08)."""


class EngineMismatchError(RuntimeError):
    """bgsage's choice is not one of our legal plays (a bug of one of the two move generators)."""


def sage_board(board: Board) -> list[int]:
    """bgsage's 26 ints for ``board`` (``board[1]`` the roller)."""
    opp, me = board
    out = [0] * 26
    for point in range(1, 25):
        out[point] = me[point - 1] - opp[24 - point]
    out[25] = me[BAR]
    out[0] = opp[BAR]
    return out


def board_from_sage(cells: list[int] | tuple[int, ...]) -> Board:
    """Our board from bgsage's 26 ints (the inverse of ``sage_board``)."""
    if len(cells) != 26:
        raise ValueError(f"a bgsage board has 26 cells, not {len(cells)}")
    me = [0] * 25
    opp = [0] * 25
    for point in range(1, 25):
        n = cells[point]
        if n > 0:
            me[point - 1] = n
        elif n < 0:
            opp[24 - point] = -n
    me[BAR] = cells[25]
    opp[BAR] = cells[0]
    return (tuple(opp), tuple(me))


_analyzers: dict[tuple[str, bool], BgBotAnalyzer] = {}
_lock = threading.Lock()


TIE = 1e-9
"""Equities closer than this are equal (a cash with no gammon chances: no double and double/pass are
both worth exactly the game)."""


def doubles(no_double: float, take: float, drop: float) -> bool:
    """Whether the player on roll should double, from their equities: when doubling is worth more
    than playing on, the opponent answering as well as it can. A tie with a pass is a double, as GNU
    Backgammon has it ("Double, pass": cash the game rather than play it out for nothing more)."""
    if drop <= take:  # the opponent passes
        return no_double <= drop + TIE
    return take > no_double


def analyzer(eval_level: str, cubeful: bool) -> BgBotAnalyzer:
    """The shared analyzer of a setting (made on first use)."""
    key = (eval_level, cubeful)
    with _lock:
        found = _analyzers.get(key)
        if found is None:
            found = BgBotAnalyzer(eval_level=eval_level, cubeful=cubeful, parallel_threads=1)
            _analyzers[key] = found
        return found


@dataclass(frozen=True, slots=True)
class Context:
    """What bgsage is told of the match, from one seat's view."""

    cube_value: int
    cube_owner: str
    away1: int
    away2: int
    crawford: bool
    cubeful: bool
    jacoby: bool = False
    beaver: bool = False

    def kwargs(self) -> dict[str, Any]:
        return {
            "cube_value": self.cube_value,
            "cube_owner": self.cube_owner,
            "away1": self.away1,
            "away2": self.away2,
            "is_crawford": self.crawford,
            "jacoby": self.jacoby,
            "beaver": self.beaver,
        }


def context(state: BackgammonState, seat: int, money: bool) -> Context:
    """The match as ``seat`` sees it: cubeless money play for the benchmark and Old English, cubeful
    money play under its Jacoby and beaver rules in a money session, else the match score (a 1-point
    match: 1-away each), evaluated cubeful (only the cubeful analyzer reads the score)."""
    if money or state.rules in APPROXIMATE_RULES:
        return Context(1, "centered", 0, 0, False, cubeful=False)
    owner = "centered" if state.cube_owner is None else "player" if state.cube_owner == seat else "opponent"
    if state.money is not None:
        # A money session: cubeful money play (0-away each) under the session's Jacoby and beaver rules.
        rules = state.money
        return Context(
            state.cube, owner, 0, 0, False, cubeful=True, jacoby=rules.jacoby, beaver=rules.beavers
        )
    return Context(
        cube_value=state.cube,
        cube_owner=owner,
        away1=state.length - state.score[seat],
        away2=state.length - state.score[1 - seat],
        crawford=state.crawford,
        cubeful=True,  # bgsage's cubeless analyzer ignores the match score
    )


def turn_start(state: BackgammonState) -> Board:
    """The board when the roll was made (``board[1]`` on roll), even if some checkers have moved."""
    if state.start is None:
        return state.board
    seat = state.turn_seat or 0
    return (state.start[1 - seat], state.start[seat])


def ranked_plays(
    state: BackgammonState, eval_level: str, money: bool = False, keep: Board | None = None
) -> list[tuple[float, Play]]:
    """OUR legal plays (finishing the play in progress) with bgsage's equity, best first.

    Standard and nackgammon: bgsage's ``checker_play`` from the turn's start, every play it lists
    mapped back to ours (``EngineMismatchError`` if one is not ours); Old English: bgsage's
    evaluation of the positions our plays reach. Plays bgsage does not rank (Old English beyond
    the screen) are left out, but for the play reaching ``keep`` (the play an analysis judges).

    A play that bears off the last checker wins at once: those are ranked by the points they win,
    without bgsage. (bgsage ends the game with the last checker off even when our must-play rule
    wants both dice used first, say 2/1*/off rather than 2/off with 2-1 and a blot on the 1-point:
    the one place where its plays and ours differ, see the tests.)
    """
    plays = state.plays()
    if not plays:
        raise ValueError(f"no play to choose in phase {state.phase.value}")
    if state.dice is None:
        raise ValueError("no dice to play")
    if len(plays) == 1:
        return [(0.0, plays[0])]  # forced, or nothing can be played: nothing to ask
    finishing = [play for play in plays if borne_off(play.result[1]) == CHECKERS]
    if finishing:
        return sorted(
            ((float(_points_won(play.result)), play) for play in finishing), key=lambda pair: -pair[0]
        )
    seat = state.turn_seat or 0
    ctx = context(state, seat, money)
    if state.rules in APPROXIMATE_RULES:
        return _ranked_by_position(plays, eval_level, ctx, keep)
    ours = {play.result: play for play in plays}
    result = analyzer(eval_level, ctx.cubeful).checker_play(
        sage_board(turn_start(state)), state.dice[0], state.dice[1], **ctx.kwargs()
    )
    ranked: list[tuple[float, Play]] = []
    for move in result.moves:
        play = ours.get(board_from_sage(move.board))
        if play is not None:
            ranked.append((float(move.equity), play))
        elif not state.played:
            raise EngineMismatchError(
                f"bgsage plays to {move.board}, which is no legal play of ours (dice {state.dice})"
            )
    if not ranked:
        raise EngineMismatchError(f"none of bgsage's plays of {state.dice} is a legal play of ours")
    return ranked


def _points_won(board: Board) -> int:
    """What bearing off the last checker wins (1, 2 or 3), ``board`` after the play."""
    return POINTS[score(board[1], board[0])]


def _position_equities(boards: list[Board], eval_level: str, ctx: Context) -> list[float]:
    sage = analyzer(eval_level, ctx.cubeful)
    owner = ctx.cube_owner
    return [
        float(sage.post_move_analytics(sage_board(b), owner, ctx.cube_value, jacoby=False).cubeless_equity)
        for b in boards
    ]


def _ranked_by_position(
    plays: tuple[Play, ...], eval_level: str, ctx: Context, keep: Board | None = None
) -> list[tuple[float, Play]]:
    screened = sorted(
        zip(_position_equities([p.result for p in plays], SCREEN_LEVEL, ctx), plays, strict=True),
        key=lambda pair: -pair[0],
    )
    if eval_level == SCREEN_LEVEL:
        return screened
    best = screened[0][0]
    kept = [p for e, p in screened[:SCREEN_KEEP] if e >= best - SCREEN_WINDOW]
    kept += [p for p in plays if p.result == keep and p not in kept]
    deeper = _position_equities([p.result for p in kept], eval_level, ctx)
    return sorted(zip(deeper, kept, strict=True), key=lambda pair: -pair[0])


@dataclass(frozen=True, slots=True)
class SagePlayer:
    """A computer level: bgsage at ``eval_level`` for checker play in cubeless money play (the
    arena's benchmark, Old English), ``match_level`` for checker play in matches (cubeful, which
    costs more: 3-ply cubeful takes seconds at times), ``cube_level`` for the cube;
    ``noise`` adds a normal error of that standard deviation (equity) to each play's equity;
    ``money``: a single game is cubeless money play (the arena's benchmark)."""

    name: str
    eval_level: str
    match_level: str
    cube_level: str
    noise: float = 0.0
    money: bool = False

    def for_money(self) -> SagePlayer:
        return replace(self, money=True)

    def __call__(self, view: GameView, rng: random.Random) -> Action:
        state = view
        if not isinstance(state, BackgammonState):
            raise TypeError("a backgammon player needs a backgammon position")
        if state.phase is Phase.DECIDE:
            return Double() if self._should_double(state) else RollOn()
        if state.phase is Phase.TAKE:
            decision = self._cube(state)
            if state.may_beaver() and decision.is_beaver:
                return Beaver()  # bgsage's own beaver decision (money play with beavers only)
            return Take() if decision.should_take else Pass()
        if state.phase is Phase.RESIGN:
            return AcceptResignation() if self._accepts(state) else DeclineResignation()
        cubeless = self.money or state.rules in APPROXIMATE_RULES
        ranked = ranked_plays(state, self.eval_level if cubeless else self.match_level, self.money)
        if self.noise > 0:
            ranked = sorted(ranked, key=lambda pair: -(pair[0] + rng.gauss(0.0, self.noise)))
        play = ranked[0][1]
        return Checkers(play.moves, play.result)

    def _cube(self, state: BackgammonState) -> Any:
        doubler = state.turn_seat or 0
        ctx = context(state, doubler, self.money)
        return analyzer(self.cube_level, True).cube_action(sage_board(state.board), **ctx.kwargs())

    def _should_double(self, state: BackgammonState) -> bool:
        cube = self._cube(state)
        return doubles(float(cube.equity_nd), float(cube.equity_dt), float(cube.equity_dp))

    def _accepts(self, state: BackgammonState) -> bool:
        """Accept a resignation worth at least what playing on is expected to bring (cubeless, from
        the position before the roll; enough points to win the match are always accepted)."""
        offerer = state.turn_seat or 0
        answerer = 1 - offerer
        worth = state.offer * state.cube
        if state.length > 1 and worth >= state.length - state.score[answerer]:
            return True
        ctx = context(state, offerer, money=True)
        cube = analyzer(SCREEN_LEVEL, False).cube_action(sage_board(state.board), **ctx.kwargs())
        expected = -float(cube.cubeless_equity) * state.cube
        return worth >= expected


EASY = SagePlayer("easy", "1ply", "1ply", "1ply", noise=0.1)
MEDIUM = SagePlayer("medium", "1ply", "1ply", "1ply")
HARD = SagePlayer("hard", "2ply", "2ply", "2ply")
LEVELS = {player.name: player for player in (EASY, MEDIUM, HARD)}

COACH_LEVEL = "3ply"
"""The depth of every hint and every analysed decision: one ply deeper than ``HARD`` (a 5-point match
is analysed with about 9 s of CPU, its checker plays through move filters, bench/README.md; 4-ply would take
many times that)."""
COACH = SagePlayer("coach", COACH_LEVEL, COACH_LEVEL, COACH_LEVEL)
"""Hints and analyses: not a level anyone plays against (not in ``LEVELS``)."""


def for_money(player: Any) -> Any:
    """``player`` playing single games as cubeless money play (a level's money version: a player
    with a ``for_money`` method, as ``SagePlayer`` and the expert level; other players, which never
    look at the score, unchanged)."""
    money = getattr(player, "for_money", None)
    return money() if callable(money) else player
