"""Checker plays judged at depth the way GNU Backgammon analyses them: every legal play screened
cheaply, only the few that stay near the best looked at deeper.

bgsage's own cubeful ``checker_play`` at N-ply re-scores *every* legal play with its cube-aware N-ply
tree (its 1-ply filter only decides which plays its cubeless pass looks at): a 3-ply analysis paid
36 ms of CPU for each of the 28 plays of an average roll, 83% of a match's analysis. Here the same
cube-aware evaluation (``bgbot_cpp.cubeful_probs_and_equity_nply``, the very function bgsage calls,
or ``cubeful_equity_nply``, the same equity where the root pins no network: a play judged at full
depth gets bgsage's equity to the last digit) is spent only on:

1. every play at 1-ply (the network alone, GNU Backgammon's 0-ply): kept, at most ``count`` of
   them within ``window`` of the best (GNU Backgammon's default for analysis: 8 within 0.16);
2. those at each intermediate ply, kept the same way by the next filter;
3. the survivors at the full depth, and always the plays named in ``keep`` (the play made: its
   loss is never read off a shallower value than the best play's).

Plays dropped by a filter keep the value of the last ply that saw them, ranked below every play
that reached full depth (a shallower value is never compared with a deeper one).

The cube (``cube_equities``): bgsage's ``cube_action`` costs about 65 ms at 3-ply, of which 22 ms
load its 24 networks again and 17 ms evaluate the position once more cubeless (a figure nobody
here reads). In a match the decision is made of two evaluations with the loaded networks instead:
the position as it is (the value of the opponent's play before it, ``PreRollValues``, so already
known) and with the cube doubled and turned (double/take), bgsage's ``cube_action`` only where the
player should double (the first value is then the double's, not the no double's). Why the two
routes differ (by up to 0.009 and, rarely, more): with more than 16 plays to a roll,
``cube_action`` chooses inside its tree among the 15 best by PubEval, these among all of them by
the network (as GNU Backgammon does, and as the checker plays are judged here); and double/take
evaluated on its own differs from the one inside the no double's tree by up to 3e-3
(``DOUBLE_TIE``). The luck (``roll_outlook``) is every roll's best play at 1-ply.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

import bgbot_cpp
from bgsage.analyzer import resolve_owner

from engine.ai import bgsage_internals
from engine.ai.backgammon_bgsage import Context, analyzer


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """After a ply: keep at most ``count`` plays, the best one and those within ``window`` of it
    (GNU Backgammon's move filter with nothing accepted unconditionally: ``accept 0``, ``extra``
    ``count``, ``threshold`` ``window``)."""

    count: int
    window: float


FILTERS: dict[int, tuple[MoveFilter, ...]] = {
    2: (MoveFilter(8, 0.16),),
    3: (MoveFilter(8, 0.16), MoveFilter(3, 0.06)),
    4: (MoveFilter(8, 0.16), MoveFilter(2, 0.04), MoveFilter(2, 0.02)),
}
"""The filters of each depth (bgsage's plies), one after each ply below it: GNU Backgammon's
"normal" move filters shifted by one ply (bgsage's 1-ply is its 0-ply), but for 3-ply (GNU
Backgammon's 2-ply), which also screens at 2-ply, keeping at most 3 within 0.06 (GNU Backgammon's
3-ply filter there keeps 2 within 0.04): a full-depth evaluation costs 16 times a 2-ply one here.
2 within 0.04 lowered one player's PR by 0.5 in three matches (the best play dropped); 3 within
0.06 gives the PRs of every play judged at 3-ply to 0.05 (bench/README.md)."""


@dataclass(frozen=True, slots=True)
class Judged:
    """A play's resulting position (bgsage's cells, mover's view), its cubeful equity, and the ply
    that gave it."""

    board: tuple[int, ...]
    equity: float
    plies: int


def _plies(level: str) -> int:
    return int(level.removesuffix("ply"))


def _network() -> Any:
    return bgsage_internals.network(analyzer("1ply", True))


def _match_kwargs(ctx: Context) -> dict[str, Any]:
    """What every ``bgbot_cpp`` call of this module is told of the match besides the board and the
    cube's owner (``ctx``: the roller's view), on one thread."""
    return {
        "n_threads": 1,
        "cube_value": ctx.cube_value,
        "away1": ctx.away1,
        "away2": ctx.away2,
        "is_crawford": ctx.crawford,
        "jacoby": ctx.jacoby,
        "beaver": ctx.beaver,
        "bearoff_db": bgsage_internals.bearoff_db(analyzer("1ply", True)),
    }


Evaluate = Callable[[list[int], int], dict[str, Any]]
"""``evaluate(cells, plies)``: bgsage's cube-aware evaluation of a position before its roll."""


def pre_roll_evaluator(ctx: Context, root: Sequence[int]) -> Evaluate:
    """bgsage's cube-aware N-ply evaluation of positions before their roll, ``ctx`` the roller's
    view, the roller's cube options included; ``root`` routes the networks (the position the
    analysed decision is made in). What the calls share is looked up once (a third of a 1-ply
    evaluation's cost otherwise)."""
    network, owner, kwargs, root_board = (
        _network(),
        resolve_owner(ctx.cube_owner),
        _match_kwargs(ctx),
        list(root),
    )

    def evaluate(cells: list[int], plies: int) -> dict[str, Any]:
        return dict(
            bgbot_cpp.cubeful_probs_and_equity_nply(
                cells, owner, network, plies, root_board=root_board, **kwargs
            )
        )

    return evaluate


def _pre_roll(cells: Sequence[int], ctx: Context, plies: int, root: Sequence[int]) -> dict[str, Any]:
    """``pre_roll_evaluator`` for one position."""
    return pre_roll_evaluator(ctx, root)(list(cells), plies)


NO_PIN = -1
"""``root_pin_for`` of a root that pins no network (all but bgsage's snake positions)."""


def pre_roll_equity(cells: Sequence[int], ctx: Context, plies: int, root: Sequence[int]) -> float:
    """The cubeful equity of ``_pre_roll``. Where neither ``root`` nor the position pins a network,
    bgsage's ``cubeful_equity_nply`` gives the same (the root routes nothing) and keeps its positions
    for the next calls on this thread: a position evaluated again, or met again inside a deeper
    tree, costs nothing (GNU Backgammon keeps its evaluations the same way)."""
    network = _network()
    if network.root_pin_for(list(root)) != NO_PIN or network.root_pin_for(list(cells)) != NO_PIN:
        return float(_pre_roll(cells, ctx, plies, root)["equity"])
    kwargs = _match_kwargs(ctx)
    return float(
        bgbot_cpp.cubeful_equity_nply(list(cells), resolve_owner(ctx.cube_owner), network, plies, **kwargs)
    )


def opponent_context(ctx: Context) -> Context:
    """``ctx`` from the other player's view (after a play, before the opponent's roll)."""
    owner = {"player": "opponent", "opponent": "player"}.get(ctx.cube_owner, ctx.cube_owner)
    return replace(ctx, cube_owner=owner, away1=ctx.away2, away2=ctx.away1)


class PreRollValues:
    """The cubeful equities of pre-roll positions at N-ply, each position computed once per analysis
    (by the first thread that asks; the others wait for it). A play judged at full depth is the
    opponent's pre-roll position, the very one of the opponent's cube decision on the next turn:
    the two share it. The key has the network the root pins (bgsage routes one network, its snake
    network, by the root position), so a shared value is the same computation, to the last digit."""

    def __init__(self) -> None:
        self._seen: dict[Hashable, Future[float]] = {}
        self._lock = threading.Lock()

    def equity(self, cells: Sequence[int], ctx: Context, plies: int, root: Sequence[int]) -> float:
        """The roller's cubeful equity (``cells`` and ``ctx`` their view), their cube options included."""
        key = (tuple(cells), ctx, plies, _network().root_pin_for(list(root)))
        return self.once(key, lambda: pre_roll_equity(cells, ctx, plies, root))

    def once(self, key: Hashable, work: Callable[[], float]) -> float:
        with self._lock:
            found = self._seen.get(key)
            mine = found is None
            if found is None:
                found = self._seen[key] = Future()
        if mine:
            try:
                found.set_result(work())
            except BaseException as error:
                found.set_exception(error)
                raise
        return found.result()


def _equity(
    cells: Sequence[int], root: list[int], ctx: Context, plies: int, values: PreRollValues | None
) -> float:
    """The cubeful equity (mover's view) of the position after a play, at ``plies``."""
    opponent, flipped = opponent_context(ctx), bgbot_cpp.flip_board(list(cells))
    if values is not None:
        return -values.equity(flipped, opponent, plies, root)
    return -pre_roll_equity(flipped, opponent, plies, root)


def _kept(judged: list[Judged], rule: MoveFilter) -> list[Judged]:
    best = judged[0].equity
    return [judged[0]] + [j for j in judged[1 : max(1, rule.count)] if best - j.equity <= rule.window]


def filtered_plays(
    root: list[int],
    dice: tuple[int, int],
    ctx: Context,
    level: str,
    keep: Sequence[Sequence[int]] = (),
    filters: Sequence[MoveFilter] | None = None,
    values: PreRollValues | None = None,
) -> list[Judged]:
    """Every legal play of ``dice`` from ``root`` (bgsage's cells, roller's view), best first, each
    with its equity at the deepest ply it reached; the best play and every board in ``keep`` reach
    ``level``. ``filters`` (one per ply below ``level``) default to ``FILTERS``; ``values``, the
    analysis's shared evaluations (None: each play evaluated here)."""
    depth = _plies(level)
    rules = tuple(FILTERS.get(depth, ())) if filters is None else tuple(filters)
    if len(rules) != depth - 1:
        raise ValueError(f"{level} needs {depth - 1} move filters, not {len(rules)}")
    boards = {tuple(b) for b in bgbot_cpp.possible_moves(root, dice[0], dice[1])}
    wanted = {tuple(b) for b in keep} & boards
    alive = [Judged(b, 0.0, 0) for b in sorted(boards)]
    dropped: list[Judged] = []
    for ply in range(1, depth + 1):
        judged = sorted(
            (Judged(j.board, _equity(j.board, root, ctx, ply, values), ply) for j in alive),
            key=lambda j: -j.equity,
        )
        if ply == depth:
            return judged + sorted(dropped, key=lambda j: (-j.plies, -j.equity))
        survivors = _kept(judged, rules[ply - 1])
        survivors += [j for j in judged if j.board in wanted and j not in survivors]
        dropped += [j for j in judged if j not in survivors]
        alive = survivors
    raise AssertionError("unreachable")  # depth >= 1: the loop returns at its last ply


@dataclass(frozen=True, slots=True)
class CubeEquities:
    """A pre-roll position's cube decision, from the player who may double: no double, double/take,
    double/pass (cubeful, in units of the current cube, as bgsage's ``cube_action``)."""

    equity_nd: float
    equity_dt: float
    equity_dp: float


DOUBLE_TIE = 0.01
"""A position worth no more than this above its double/take (in ``cube_equities``) may be one the
player should double: its double/take evaluated apart, with the cube doubled at the root, differs
from the one inside the position's own tree (where both cube values share the moves and the
leaves) by up to 3e-3 in bench/analysis_vs_gnubg.py's matches."""
SCREEN_MARGIN = 0.16
"""How far above ``close`` (``cube_equities``) the no double must be above the double judged one
ply shallower for the deeper double/take not to be asked: one ply less misjudged double/take by
up to 0.13 in the 202 cube decisions of bench/analysis_vs_gnubg.py's three matches (95% within
0.08), and skipped nearly half of them."""


def cube_equities(
    cells: list[int],
    ctx: Context,
    level: str,
    values: PreRollValues | None = None,
    close: float | None = None,
) -> CubeEquities:
    """The cube decision at ``level``: no double, double/take, double/pass.

    In a match, with ``values`` (the analysis's shared evaluations) and two plies or more, from two
    cube-aware evaluations of the position: with the cube as it is (worth the best of the player's
    cube actions: no double, when the player should not double) and with the cube doubled and
    owned by the opponent (double/take); double/pass wins the cube's points (1). The first is the
    value the opponent's checker play on the previous turn was judged by (shared), and the moves
    inside both are chosen among every legal play by the network, as GNU Backgammon chooses them.
    Where the player should double, no double is not among these, and elsewhere (money play, one
    ply, no ``values``) the cube decision is bgsage's own (``cube_action``).

    ``close``: only whether doubling comes within ``close`` of the best matters, not by how much
    (a no double that is no decision unless it is close): where the double judged one ply shallower
    is more than ``close + SCREEN_MARGIN`` below no double, that shallower double/take is given."""
    plies = _plies(level)
    if values is None or plies < 2 or ctx.away1 <= 0 or ctx.away2 <= 0:
        return cube_action(cells, ctx, level)
    best = values.equity(cells, ctx, plies, cells)
    doubled = replace(ctx, cube_value=2 * ctx.cube_value, cube_owner="opponent")
    if close is not None:
        rough = _in_cubes(values.equity(cells, doubled, plies - 1, cells), doubled, ctx.cube_value)
        if best - min(rough, 1.0) > close + SCREEN_MARGIN:
            return CubeEquities(best, rough, 1.0)
    take = _in_cubes(values.equity(cells, doubled, plies, cells), doubled, ctx.cube_value)
    if best <= min(take, 1.0) + DOUBLE_TIE:
        return cube_action(cells, ctx, level)
    return CubeEquities(best, take, 1.0)


def _in_cubes(equity: float, ctx: Context, cube: int) -> float:
    """A match equity of the player of ``ctx`` in units of ``ctx.cube_value``, in units of ``cube``."""
    chances = bgbot_cpp.eq2mwc(equity, ctx.away1, ctx.away2, ctx.cube_value, ctx.crawford)
    return float(bgbot_cpp.mwc2eq(chances, ctx.away1, ctx.away2, cube, ctx.crawford))


def cube_action(cells: list[int], ctx: Context, level: str) -> CubeEquities:
    """bgsage's cube decision at ``level`` (its ``cube_action``, asked directly on this thread:
    bgsage's own wrapper would use two threads per call and clear the evaluation cache after it).
    It loads the networks again at each call (22 ms), evaluates the position once more cubeless
    (17 ms at 3-ply, unused here) and chooses the moves inside its tree among the 15 best by PubEval
    when a roll has more than 16 plays."""
    weights = bgsage_internals.weights(analyzer(level, True))
    kwargs = _match_kwargs(ctx)
    del kwargs["cube_value"]
    result = bgbot_cpp.cube_decision_nply_unified(
        cells,
        ctx.cube_value,
        resolve_owner(ctx.cube_owner),
        _plies(level),
        weights.strategy_type,
        weights.weight_paths_list,
        weights.hidden_sizes_list,
        **kwargs,
    )
    return CubeEquities(float(result["equity_nd"]), float(result["equity_dt"]), float(result["equity_dp"]))


ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


@dataclass(frozen=True, slots=True)
class RollOutlook:
    """Before a roll: for each of the 21 rolls the cubeful equity after its best play (1-ply, the
    roller's view), and the roller's cubeless winning chance averaged over the rolls."""

    equities: dict[tuple[int, int], float]
    win: float

    def luck(self, dice: tuple[int, int], opening: bool = False) -> float:
        """The equity after the best play of ``dice`` minus the rolls' average (an opening roll: the
        15 rolls that are not doubles)."""
        weights = {
            roll: 1 if roll[0] == roll[1] else 2 for roll in ROLLS if not (opening and roll[0] == roll[1])
        }
        average = sum(self.equities[roll] * w for roll, w in weights.items()) / sum(weights.values())
        return self.equities[(min(dice), max(dice))] - average


def roll_outlook(cells: list[int], ctx: Context) -> RollOutlook:
    """Every roll's best play by the network alone (GNU Backgammon's 0-ply, its default depth for
    luck): a few milliseconds, where a full cube analysis would take a hundred."""
    evaluate = pre_roll_evaluator(opponent_context(ctx), cells)
    equities: dict[tuple[int, int], float] = {}
    win = 0.0
    for roll in ROLLS:
        boards = bgbot_cpp.possible_moves(cells, roll[0], roll[1]) or [cells]
        best = max((_outcome(b, evaluate) for b in boards), key=lambda pair: pair[0])
        equities[roll] = best[0]
        win += best[1] * (1 if roll[0] == roll[1] else 2)
    return RollOutlook(equities, win / 36)


def _outcome(board: Sequence[int], evaluate: Evaluate) -> tuple[float, float]:
    """(cubeful equity, cubeless winning chance) of the mover after a play, at 1-ply (``evaluate``:
    the opponent's)."""
    result = evaluate(bgbot_cpp.flip_board(list(board)), 1)
    return -float(result["equity"]), 1.0 - float(result["probs"][0])
