"""The analysis of a finished backgammon match: error rates, doubtful moves, errors, blunders, luck
and the winning chances over the match. Pure: the match's options and action log in, an ``Analysis``
(``engine.ai.coaching``) out; the match is replayed with ``engine.replay_states``.

Definitions (``docs/analysis.md`` says them for players):

- Equity: bgsage's, from the deciding player's view, in units of the current cube; cubeful with the
  match score, the cube and the Crawford game (``Scale.MATCH``); in a money session cubeful money
  equity (``Scale.CUBEFUL_MONEY``: the cube, Jacoby and beavers as the session plays them);
  cubeless money equity in Old English (``Scale.MONEY``, approximate: the engine does not know the
  five-checker limit).
- Every decision is analysed at one depth, ``COACH_LEVEL`` (``level``), the hints' own: a play the
  hint names best is never charged. A checker play's equity lost is the best play's equity minus
  the played one's. It is unforced (counted) when the roll has more than one legal play and no play
  bears off the last checker (the game is then won whatever is played, by the most points each
  play can win: no equity to compare).
- The cube: for the player who may double, no double is worth ND and a double min(D/T, D/P) (the
  opponent answers as well as possible); for the player doubled, a take is worth -D/T and a pass
  -D/P. When no double beats both and the opponent would pass, the player is too good to double:
  best "No double, too good", and a double there is charged ND - D/P. A take or pass always counts;
  a double or no double counts when the player doubled, or when the best choice is less than
  ``CLOSE_CUBE`` above the double (GNU Backgammon's "close or actual cube decisions", the same
  0.16) and the cube is alive (a single win at the current cube does not already win the match):
  a plain roll far from a double, or with a dead cube, is no decision.
- Error rate (PR): 500 times the mean equity lost per counted decision. Categories by equity lost
  (each decision in one): doubtful from 0.02, an error from 0.04, a blunder from 0.08 (``DOUBTFUL``,
  ``ERROR``, ``BLUNDER``, eXtreme Gammon's usual marks).
- Luck of a roll: the equity after the best play of the roll that came minus the average of that
  over the 21 rolls (15 for an opening roll), before the roll, from the roller's view (bgsage's
  ``roll_luck``, at one ply less than ``level``); a player's luck is the sum over their rolls,
  forced and blocked ones included.
- Winning chances: the player on roll's cubeless chance to win the game before each roll, turned to
  seat 0's; a game that was played out closes at 1 or 0.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from engine.ai.backgammon_bgsage import (
    APPROXIMATE_RULES,
    COACH_LEVEL,
    EngineMismatchError,
    board_from_sage,
    context,
    ranked_plays,
    sage_board,
    turn_start,
)
from engine.ai.backgammon_candidates import cube_candidates, play_candidates
from engine.ai.backgammon_filter import (
    CubeEquities,
    PreRollValues,
    RollOutlook,
    cube_equities,
    filtered_plays,
    roll_outlook,
)
from engine.ai.backgammon_hints import APPROXIMATE, cube_best, level_words, scale_of
from engine.ai.backgammon_luck import LuckTally, opening_luck, with_luck
from engine.ai.coaching import (
    Analysis,
    AnalysisStopped,
    Decision,
    PlayerReport,
    ProgressReport,
    StopCheck,
)
from engine.backgammon.board import CHECKERS, Board, borne_off
from engine.backgammon.game import (
    BackgammonState,
    Beaver,
    Checkers,
    Double,
    MoveChecker,
    Opening,
    Pass,
    Phase,
    Roll,
    RollOn,
    Take,
)
from engine.backgammon.notation import play_text
from engine.backgammon.plays import Play
from engine.backgammon.turn import Stepped
from engine.backgammon.variant import VARIANT
from engine.backgammon.words import move_number
from engine.protocol import replay_states

LEVEL = COACH_LEVEL
"""The depth of every decision (bench/README.md has the time it takes)."""
THREADS = min(4, len(os.sched_getaffinity(0)))
"""The threads of an analysis (``analyse_match`` reads it at each call): the machine's cores, at most
4. The result does not depend on it (every position is judged alone); bgsage releases the GIL."""
DOUBTFUL, ERROR, BLUNDER = 0.02, 0.04, 0.08
CLOSE_CUBE = 0.16
"""A no double counts as a decision when the best cube action is less than this above doubling."""


def category(loss: float) -> str | None:
    """``doubtful``, ``error``, ``blunder`` or None, by the equity lost."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= ERROR:
        return "error"
    if loss >= DOUBTFUL:
        return "doubtful"
    return None


@dataclass(slots=True)
class _Tally:
    unforced: int = 0
    lost: float = 0.0
    counts: dict[str, int] = field(default_factory=lambda: {"doubtful": 0, "error": 0, "blunder": 0})
    luck: float = 0.0
    rolls: int = 0
    gnu: LuckTally = field(default_factory=LuckTally)
    """The luck as GNU Backgammon counts it, and in MWC (``engine.ai.backgammon_luck``)."""

    def add(self, decision: Decision) -> None:
        if not decision.unforced:
            return
        self.unforced += 1
        self.lost += decision.loss
        kind = category(decision.loss)
        if kind is not None:
            self.counts[kind] += 1

    def report(self, seat: int) -> PlayerReport:
        return PlayerReport(
            seat=seat,
            unforced=self.unforced,
            equity_lost=self.lost,
            doubtful=self.counts["doubtful"],
            errors=self.counts["error"],
            blunders=self.counts["blunder"],
            luck=self.luck,
            rolls=self.rolls,
        )


class _Later:
    """A job of an analysis on one thread: done when first asked for."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self._work: Callable[[], Any] | None = work
        self._value: Any = None

    def result(self) -> Any:
        if self._work is not None:
            self._value, self._work = self._work(), None
        return self._value


class _Jobs:
    """Positions judged once each (a double, its answer and the roll after it share one position),
    ahead of time on ``threads`` threads, or when first asked for on one."""

    def __init__(self, threads: int = 1) -> None:
        self._pool = ThreadPoolExecutor(threads, thread_name_prefix="analysis") if threads > 1 else None
        self._seen: dict[Hashable, Future[Any] | _Later] = {}
        self._lock = threading.Lock()
        self._stopped = False

    def ask(self, key: Hashable, work: Callable[[], Any]) -> Future[Any] | _Later:
        """The job of ``key`` (started now on a thread, when there are threads, unless it already was)."""
        with self._lock:
            found = self._seen.get(key)
            if found is None:
                run = lambda: self._run(work)  # noqa: E731
                found = self._seen[key] = _Later(run) if self._pool is None else self._pool.submit(run)
            return found

    def get(self, key: Hashable, work: Callable[[], Any]) -> Any:
        """The result of the job of ``key`` (waited for)."""
        return self.ask(key, work).result()

    def _run(self, work: Callable[[], Any]) -> Any:
        if self._stopped:
            return None  # the analysis was stopped or failed: nobody reads this any more
        return work()

    def close(self) -> None:
        """Drop the jobs not started and wait for the running ones (each a fraction of a second)."""
        self._stopped = True
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)


class Cubes:
    """bgsage's pre-roll analyses of the positions of a match: the cube decision at ``level``,
    the rolls' outlook (luck, winning chances) at 1-ply; each position once. ``values``: the
    evaluations the cube decisions and the checker plays share."""

    def __init__(self, level: str, jobs: _Jobs | None = None) -> None:
        self.level = level
        self.jobs = jobs if jobs is not None else _Jobs()
        self.values = PreRollValues()

    def of(self, board: Board, state: BackgammonState, seat: int, close: float | None = None) -> CubeEquities:
        """The cube decision of ``seat`` on roll on ``board`` (``close``: as ``cube_equities``)."""
        return self.jobs.get(*self._cube(board, state, seat, close))  # type: ignore[no-any-return]

    def ahead(self, board: Board, state: BackgammonState, seat: int, close: float | None = None) -> None:
        self.jobs.ask(*self._cube(board, state, seat, close))

    def _cube(
        self, board: Board, state: BackgammonState, seat: int, close: float | None
    ) -> tuple[Hashable, Callable[[], Any]]:
        ctx = context(state, seat, money=False)
        cells = sage_board(board)
        key = ("cube", tuple(cells), ctx, self.level, close)
        return key, lambda: cube_equities(cells, ctx, self.level, self.values, close)

    def outlook(self, board: Board, state: BackgammonState, seat: int) -> RollOutlook:
        """The rolls of ``seat`` on roll on ``board``."""
        return self.jobs.get(*self._outlook(board, state, seat))  # type: ignore[no-any-return]

    def outlook_ahead(self, board: Board, state: BackgammonState, seat: int) -> None:
        self.jobs.ask(*self._outlook(board, state, seat))

    def _outlook(self, board: Board, state: BackgammonState, seat: int) -> tuple[Hashable, Callable[[], Any]]:
        ctx = context(state, seat, money=False)
        cells = sage_board(board)
        return ("rolls", tuple(cells), ctx), lambda: roll_outlook(cells, ctx)


def analyse(
    options: Mapping[str, Any] | None,
    log: Sequence[str],
    *,
    level: str = LEVEL,
    should_stop: StopCheck | None = None,
    progress: ProgressReport | None = None,
    threads: int = 1,
) -> Analysis:
    """The analysis of the match played by ``log`` (action notations) from ``options``.

    ``should_stop`` is asked between decisions; when it says so, ``AnalysisStopped`` is raised.
    ``progress`` is told ``(done, total)`` after each position judged (a roll, a cube decision, a
    take, a checker play), ``total`` counted before the first. ``threads``: how many positions are
    judged at once (the same analysis whatever the number).
    ``GameError`` if the log does not replay, ``EngineMismatchError`` if the engine and our rules
    disagree about a play.
    """
    states = list(replay_states(VARIANT, options, log))
    first = states[0]
    assert isinstance(first, BackgammonState)
    jobs = _Jobs(threads)
    try:
        cubes = Cubes(level, jobs)
        actions = [VARIANT.parse_action(state, text) for state, text in zip(states, log, strict=False)]
        judged = [i for i, action in enumerate(actions) if _judged(states[i], action)]
        for i in judged:
            _ahead(states, log, actions, i, cubes, level)
        return _analysis(first, states, log, actions, judged, cubes, level, should_stop, progress)
    finally:
        jobs.close()


def _ahead(
    states: Sequence[Any], log: Sequence[str], actions: Sequence[Any], i: int, cubes: Cubes, level: str
) -> None:
    """Start judging the position of ``actions[i]`` (on a thread, when the analysis has them)."""
    state, action = states[i], actions[i]
    if isinstance(action, Opening | Roll):
        roller = _roller(state, action)
        if roller is not None:
            cubes.outlook_ahead(roller[1], state, roller[0])
    elif isinstance(action, RollOn | Double | Take | Beaver | Pass):
        close = CLOSE_CUBE if isinstance(action, RollOn) else None
        cubes.ahead(state.board, state, state.turn_seat or 0, close)
    else:
        chosen = _played_result(states, log, i) if _has_choice(state) else None
        if chosen is not None:
            cubes.jobs.ask(*_play_job(state, chosen, level, cubes.values))


def _analysis(
    first: BackgammonState,
    states: Sequence[Any],
    log: Sequence[str],
    actions: Sequence[Any],
    judged: Sequence[int],
    cubes: Cubes,
    level: str,
    should_stop: StopCheck | None,
    progress: ProgressReport | None,
) -> Analysis:
    tallies = (_Tally(), _Tally())
    decisions: list[Decision] = []
    games: list[list[float]] = [[]]
    done = 0
    for i, action in enumerate(actions):
        if should_stop is not None and should_stop():
            raise AnalysisStopped("the analysis was stopped")
        state, after = states[i], states[i + 1]
        assert isinstance(state, BackgammonState) and isinstance(after, BackgammonState)
        if isinstance(action, Opening | Roll):
            _roll(state, action, cubes, tallies, games[-1])
        elif isinstance(action, RollOn | Double) and state.phase is Phase.DECIDE:
            decision = replace(double_decision(state, isinstance(action, Double), cubes), action=i)
            decisions.append(decision)
            tallies[decision.seat].add(decision)
        elif isinstance(action, Take | Beaver | Pass):
            decision = replace(_take(state, _ANSWERS[type(action)], cubes), action=i)
            decisions.append(decision)
            tallies[decision.seat].add(decision)
        elif isinstance(action, MoveChecker | Checkers) and not state.played:
            play = _checker_play(state, states, log, i, level, cubes)
            if play is not None:
                decisions.append(replace(play, action=i))
                tallies[play.seat].add(play)
        if progress is not None and done < len(judged) and judged[done] == i:
            done += 1
            progress(done, len(judged))
        if after.score != state.score:
            # A game ended (played out, passed or resigned): close its curve at the result.
            games[-1].append(1.0 if after.score[0] > state.score[0] else 0.0)
            if after.result is None:
                games.append([])
    approximate = APPROXIMATE if first.rules in APPROXIMATE_RULES else None
    reports = (tallies[0].report(0), tallies[1].report(1))
    return Analysis(
        players=with_luck(reports, (tallies[0].gnu, tallies[1].gnu), first, states[-1]),
        decisions=tuple(decisions),
        chances=tuple(tuple(game) for game in games if game),
        scale=scale_of(first),
        level=level_words(level),
        approximate=approximate,
        thresholds=(DOUBTFUL, ERROR, BLUNDER),
    )


def _judged(state: Any, action: Any) -> bool:
    """Whether the analysis judges a position at ``action`` (what ``progress`` counts)."""
    if isinstance(action, Opening | Roll | Take | Beaver | Pass):
        return True
    if isinstance(action, RollOn | Double):
        return bool(state.phase is Phase.DECIDE)
    return isinstance(action, MoveChecker | Checkers) and not state.played


def _roller(state: BackgammonState, action: Opening | Roll) -> tuple[int, Board] | None:
    """Who rolls ``action`` and the board they roll on (``board[1]`` theirs); None for an opening
    tie (rolled again: nobody's luck)."""
    if isinstance(action, Opening):
        if action.die0 == action.die1:
            return None
        seat = 0 if action.die0 > action.die1 else 1
        return seat, (state.sides[1 - seat], state.sides[seat])
    return state.turn_seat or 0, state.board


def _roll(
    state: BackgammonState,
    action: Opening | Roll,
    cubes: Cubes,
    tallies: tuple[_Tally, _Tally],
    curve: list[float],
) -> None:
    roller = _roller(state, action)
    if roller is None:
        return
    seat, board = roller
    dice = (action.die0, action.die1) if isinstance(action, Opening) else (action.d1, action.d2)
    outlook = cubes.outlook(board, state, seat)
    curve.append(outlook.win if seat == 0 else 1.0 - outlook.win)
    tallies[seat].rolls += 1
    luck = outlook.luck(dice, opening=isinstance(action, Opening))
    tallies[seat].luck += luck
    if isinstance(action, Opening):  # GNU Backgammon's opening luck: the opponent's 15 first moves count
        luck = opening_luck(
            outlook.equities, cubes.outlook((board[1], board[0]), state, 1 - seat).equities, dice
        )
    tallies[seat].gnu.add(luck, state, seat)


def double_decision(state: BackgammonState, doubled: bool, cubes: Cubes) -> Decision:
    """The decision to double (``doubled``) or to roll on, before the roll in ``state``."""
    seat = state.turn_seat or 0
    # Not doubled: how far doubling is below the best matters only when it is close.
    cube = cubes.of(state.board, state, seat, None if doubled else CLOSE_CUBE)
    no_double, take, drop = float(cube.equity_nd), float(cube.equity_dt), float(cube.equity_dp)
    double = min(take, drop)
    best = max(no_double, double)
    loss = best - (double if doubled else no_double)
    chosen = double if doubled else no_double
    return Decision(
        seat=seat,
        game=state.game_number,
        turn=move_number(state),  # game G, move M as players count it (words.move_number)
        kind="cube",
        played="Double" if doubled else "No double",
        best=cube_best(no_double, take, drop),
        loss=max(0.0, loss),
        unforced=doubled or (_cube_alive(state, seat) and best - double < CLOSE_CUBE),
        **_standing(chosen, (no_double, double)),
        candidates=cube_candidates(no_double, take, drop),
    )


def _cube_alive(state: BackgammonState, seat: int) -> bool:
    """Whether doubling can change anything for ``seat``: not when a single win at the current cube
    already wins the match (a dead cube: GNU Backgammon does not count such a roll as a cube decision)."""
    return state.score[seat] + state.cube < state.length


_ANSWERS: dict[type, str] = {Take: "Take", Beaver: "Beaver", Pass: "Pass"}


def _take(state: BackgammonState, answer: str, cubes: Cubes) -> Decision:
    """The answer to a double: take, pass, or in a money session with beavers a beaver (a take that
    redoubles at once, keeping the cube: twice the take's equity, as the hint counts it)."""
    doubler = state.turn_seat or 0
    cube = cubes.of(state.board, state, doubler)
    take, drop = -float(cube.equity_dt), -float(cube.equity_dp)
    worth = {"Take": take, "Pass": drop}
    if state.may_beaver():
        worth["Beaver"] = 2 * take
    best = max(worth, key=lambda name: worth[name])
    return Decision(
        seat=1 - doubler,
        game=state.game_number,
        turn=move_number(state),  # game G, move M as players count it (words.move_number)
        kind="take",
        played=answer,
        best=best,
        loss=max(0.0, worth[best] - worth[answer]),
        unforced=True,
        **_standing(worth[answer], tuple(worth.values())),
        candidates=cube_candidates(float(cube.equity_nd), float(cube.equity_dt), float(cube.equity_dp)),
    )


def _has_choice(state: BackgammonState) -> bool:
    """Whether the roll leaves a choice to judge: more than one legal play, none bearing off the last
    checker (the game is then won whatever is played)."""
    plays = state.plays()
    return len(plays) > 1 and not any(borne_off(p.result[1]) == CHECKERS for p in plays)


def _checker_play(
    state: BackgammonState, states: Sequence[Any], log: Sequence[str], i: int, level: str, cubes: Cubes
) -> Decision | None:
    """The play begun by ``log[i]`` (the turn's first step), or None when it is no choice."""
    if not _has_choice(state):
        return None
    chosen = _played_result(states, log, i)
    if chosen is None:
        return None  # the match ended in the middle of this turn: no play was made to judge
    ranked = cubes.jobs.get(*_play_job(state, chosen, level, cubes.values))
    return _play_decision(state, chosen, ranked, where=f" at action {i + 1} ({log[i]!r})")


def _play_job(
    state: BackgammonState, chosen: Board, level: str, values: PreRollValues
) -> tuple[Hashable, Callable[[], Any]]:
    key = ("play", state.game_number, state.turn_number, chosen)
    return key, lambda: judged_plays(state, level, chosen, values)


def judged_plays(
    state: BackgammonState, level: str, chosen: Board, values: PreRollValues | None = None
) -> tuple[list[tuple[float, Play]], int]:
    """OUR legal plays of the roll in ``state`` that reached ``level``, with their equity, best first,
    and how many legal plays there are. The play reaching ``chosen`` always reaches ``level``;
    ``values``: the evaluations shared with the analysis's cube decisions.

    In matches and money sessions of the standard and nackgammon rules, the plays are screened by
    move filters (``engine.ai.backgammon_filter``, as GNU Backgammon analyses); elsewhere (Old
    English, forced plays) bgsage's ranking as the hints have it (``ranked_plays``)."""
    seat = state.turn_seat or 0
    ctx = context(state, seat, money=False)
    plays = state.plays()
    if state.rules in APPROXIMATE_RULES or not ctx.cubeful or state.dice is None or state.played:
        return ranked_plays(state, level, keep=chosen), len(plays)
    ours = {play.result: play for play in plays}
    root = sage_board(turn_start(state))
    keep = [sage_board(chosen)] if chosen in ours else []
    ranked: list[tuple[float, Play]] = []
    deepest = 0
    for judged in filtered_plays(root, state.dice, ctx, level, keep=keep, values=values):
        play = ours.get(board_from_sage(judged.board))
        if play is None:
            raise EngineMismatchError(
                f"bgsage plays to {list(judged.board)}, which is no legal play of ours (dice {state.dice})"
            )
        deepest = max(deepest, judged.plies)
        if judged.plies == deepest:
            ranked.append((judged.equity, play))
    return ranked, len(plays)


def play_decision(state: BackgammonState, chosen: Board, level: str = LEVEL, where: str = "") -> Decision:
    """The checker play from ``state`` (its roll, no step made) that reached ``chosen`` (mover's
    view), judged at ``level``; ``EngineMismatchError`` if the engine does not know that play."""
    return _play_decision(state, chosen, judged_plays(state, level, chosen), where)


def _play_decision(
    state: BackgammonState, chosen: Board, judged: tuple[list[tuple[float, Play]], int], where: str = ""
) -> Decision:
    ranked, choices = judged
    equities = {play.result: equity for equity, play in ranked}
    if chosen not in equities:
        raise EngineMismatchError(f"the play made{where} is not among the engine's plays")
    best_equity, best_play = ranked[0]
    played = next(play for _, play in ranked if play.result == chosen)
    return Decision(
        seat=state.turn_seat or 0,
        game=state.game_number,
        turn=move_number(state),  # game G, move M as players count it (words.move_number)
        kind="play",
        played=play_text(played),
        best=play_text(best_play),
        loss=max(0.0, best_equity - equities[chosen]),
        unforced=True,
        roll=state.dice_text,
        **_standing(equities[chosen], [equity for equity, _ in ranked], choices),
        candidates=play_candidates(ranked, played),
    )


def _standing(chosen: float, equities: Sequence[float], choices: int | None = None) -> dict[str, Any]:
    """What a review shows of a decision besides the loss: the equities of the choice made and of the
    best one, and the choice's rank among ``equities`` (the choices judged at full depth, tied ones
    sharing a rank; the ones a filter dropped rank below them) out of ``choices`` (all of them)."""
    return {
        "played_equity": chosen,
        "best_equity": max(equities),
        "rank": 1 + sum(1 for equity in equities if equity > chosen),
        "choices": len(equities) if choices is None else choices,
    }


def _played_result(states: Sequence[Any], log: Sequence[str], i: int) -> Board | None:
    """The position (mover's view) the turn begun at ``log[i]`` reached: its steps are followed to the
    one that ends the turn. None when the log ends before the turn does (a forced step was saved, then
    the match was resigned or timed out with the rest of the turn unplayed)."""
    start: BackgammonState = states[i]
    j = i
    while True:
        if j >= len(log):
            return None
        state: BackgammonState = states[j]
        action = VARIANT.parse_action(state, log[j])
        nxt: BackgammonState = states[j + 1]
        ends = not (
            nxt.phase is Phase.PLAY
            and nxt.turn_number == start.turn_number
            and nxt.game_number == start.game_number
            and nxt.played
        )
        if ends:
            return _result_of(state, action)
        j += 1


def _result_of(state: BackgammonState, action: Any) -> Board:
    """The position after the step ``action`` from ``state`` (mover's view)."""
    if isinstance(action, Checkers):
        return action.result
    if isinstance(action, MoveChecker):
        wanted = Stepped(action.move, action.die)
        for stepped, board in state.steps():
            if stepped == wanted:
                return board
    raise EngineMismatchError(f"{action} does not end a play from this position")


def analyse_match(
    options: Mapping[str, Any] | None,
    log: Sequence[str],
    should_stop: StopCheck | None,
    progress: ProgressReport | None = None,
) -> Analysis:
    """``analyse`` at the module's ``LEVEL`` on ``THREADS`` threads, read at each call so a test or a
    benchmark may set them."""
    return analyse(options, log, level=LEVEL, should_stop=should_stop, progress=progress, threads=THREADS)
