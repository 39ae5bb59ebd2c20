"""Rollouts of a backgammon decision (issue 36): each candidate played out many times by bgsage.

A rollout settles what an evaluation cannot: it plays the position out ``trials`` games per candidate
(bgsage's Monte Carlo rollout, ``BgBotAnalyzer(eval_level="rollout")``: games played to the end,
1-ply moves, cubeful, variance reduction on, the first rolls stratified) and reports, per candidate,
the cubeful equity with its standard error and the chances of winning, of a gammon and of a
backgammon for both sides.

- A checker play (``Phase.PLAY``): the best ``RolloutSettings.plays`` plays by bgsage's 2-ply
  evaluation (``backgammon_bgsage.ranked_plays``), plus ``keep`` (the play a review judges) when it
  is not among them, each rolled out from the position it reaches (``post_move_analytics``, the
  cubeful equity of the player who plays, the opponent then on roll with the cube).
- A cube decision (``Phase.DECIDE``, ``Phase.ROLL``): no double, double/take and double/pass from the
  view of the player who may double (``cube_action``); ``Phase.ROLL`` (the cube not theirs to turn):
  no double only. The answer to a double (``Phase.TAKE``): take and pass from the view of the
  player who answers (the doubler's rollout, turned round).

Equities are per cube of the decision's value (a money game's points, a match's normalized
equity), as GNU Backgammon's cubeful rollouts give them. The same ``seed`` gives the same figures.
``progress(done, total)`` counts the games played (every candidate's together); ``should_stop`` is
asked as they go: once it says so the rollout ends (``RolloutStopped``) within a game or so.

Old English is refused (``RolloutRefused``): no engine knows its five-checker limit, and a rollout
that ignores it would give figures players could not tell from true ones (hints there say
"approximate"; a rollout is asked for precisely to settle a close decision, so it has none).
Positions with nothing to roll out are refused too: the game over, a play that ends the game (its
points are known), no decision in the phase.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bgsage import BgBotAnalyzer, RolloutCancelled

from engine.ai.backgammon_bgsage import APPROXIMATE_RULES, context, ranked_plays, sage_board
from engine.ai.rollouts import (
    BATCH,
    CUBE,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    MAX_TRIALS,
    MIN_TRIALS,
    NO_DOUBLE,
    PASS,
    PLAY,
    TAKE,
    Candidate,
    Chances,
    ProgressReport,
    Rollout,
    RolloutKit,
    RolloutRefused,
    RolloutStopped,
    StopCheck,
)
from engine.backgammon.actions import Checkers, Double, Pass, RollOn, Take
from engine.backgammon.board import CHECKERS, RuleSet, borne_off
from engine.backgammon.formats import MatchInfo
from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.notation import play_text
from engine.backgammon.plays import Play
from engine.backgammon.position_start import PastedPosition, read_code, start_from
from engine.errors import GameError
from engine.protocol import GameState

SCREEN = "2ply"
"""The cheap evaluation that picks the plays to roll out."""
MAX_PLAYS = 4
"""Checker plays rolled out at most by default (the played one may make one more)."""

__all__ = [
    "BATCH",
    "CUBE",
    "DOUBLE_PASS",
    "DOUBLE_TAKE",
    "NO_DOUBLE",
    "PASS",
    "PLAY",
    "ROLLOUT",
    "TAKE",
    "Rollout",
    "RolloutRefused",
    "RolloutSettings",
    "RolloutStopped",
    "decision_kind",
    "rollout",
    "rollout_json",
    "state_from_code",
]


@dataclass(frozen=True, slots=True)
class RolloutSettings:
    """``trials`` games per candidate (``MIN_TRIALS`` to ``MAX_TRIALS``), ``seed`` (the same seed,
    the same figures), ``plays``: the most checker plays rolled out (the played one aside),
    ``threads``: bgsage's threads (one core by default)."""

    trials: int = 324
    seed: int = 1
    plays: int = MAX_PLAYS
    threads: int = 1

    def __post_init__(self) -> None:
        if not MIN_TRIALS <= self.trials <= MAX_TRIALS or self.trials % BATCH:
            raise ValueError(
                f"trials must be a multiple of {BATCH} from {MIN_TRIALS} to {MAX_TRIALS}, not {self.trials}"
            )
        if self.plays < 1 or self.threads < 1:
            raise ValueError("plays and threads must be at least 1")


def decision_kind(state: BackgammonState) -> str:
    """What a rollout of ``state`` compares (``PLAY`` or ``CUBE``); ``RolloutRefused`` when there is
    nothing to roll out there, with the reason."""
    if state.rules in APPROXIMATE_RULES:
        raise RolloutRefused(
            "Rollouts are not made under Old English rules: the engine does not know the five-checker "
            "limit, so its games would not be games of these rules."
        )
    if state.phase is Phase.PLAY and state.dice is not None:
        if state.played:
            raise RolloutRefused(
                "Checkers have been moved this turn: roll the position out once the turn is played."
            )
        return PLAY
    if state.phase in (Phase.DECIDE, Phase.TAKE) or (
        state.phase is Phase.ROLL and state.turn_seat is not None
    ):
        return CUBE
    raise RolloutRefused(
        "There is no decision to roll out in that position (the game is over, or the opening roll is to come)."
    )


def rollout(
    state: BackgammonState,
    settings: RolloutSettings,
    *,
    keep: str | None = None,
    progress: ProgressReport | None = None,
    should_stop: StopCheck | None = None,
) -> Rollout:
    """Roll out the decision of ``state`` (see the module docstring); ``keep``: the notation of the
    play made there (a review's), rolled out whatever its screening and marked ``played``."""
    kind = decision_kind(state)
    run = _Run(settings, progress, should_stop)
    if kind == PLAY:
        return _roll_plays(state, settings, run, keep)
    return _roll_cube(state, settings, run, keep)


def rollout_json(
    state: Mapping[str, Any],
    keep: str | None,
    trials: int,
    seed: int,
    progress: ProgressReport | None = None,
    should_stop: StopCheck | None = None,
) -> dict[str, Any]:
    """``rollout`` of a backgammon state saved as JSON, its result as JSON: what a heavy job keeps."""
    found = rollout(
        BackgammonState.from_json(state),
        RolloutSettings(trials=trials, seed=seed),
        keep=keep,
        progress=progress,
        should_stop=should_stop,
    )
    return found.to_json()


def state_from_code(code: str) -> BackgammonState:
    """The position of a GNU Backgammon ID or an XGID (a bare position ID: a money game, its player on
    roll to decide the cube); ``RolloutRefused`` with the reason when ``code`` is none."""
    try:
        pasted = read_code(code)
        if pasted.info is None:
            pasted = PastedPosition(pasted.board, MatchInfo(), pasted.kind)
        return start_from(pasted, RuleSet.STANDARD, pasted.length or 0)
    except GameError as exc:
        raise RolloutRefused(str(exc)) from None


def candidate_count(state: GameState, keep: str | None) -> int:
    """The positions a rollout of ``state`` plays out at most, for its estimate: the plays and the
    one made, or two for the cube (no double and double/take, in one rollout)."""
    if isinstance(state, BackgammonState) and state.phase is Phase.PLAY:
        return MAX_PLAYS + (keep is not None)
    return 2


def _kind(state: GameState) -> str:
    if not isinstance(state, BackgammonState):
        raise RolloutRefused("That is not a backgammon position.")
    return decision_kind(state)


def _state_of(code: str) -> GameState:
    return state_from_code(code)


class _Run:
    """One rollout's analyzer, its progress over every candidate and its stop.

    Each candidate is rolled out in batches of ``BATCH`` games, each reseeded (``batch_seed``), and
    the batches' figures averaged: ``should_stop`` is asked between two batches (bgsage's own cancel
    does not reach its cubeful rollout of a position), and the standard error of the mean of
    independent batches is the root of their squared errors' sum over their number."""

    def __init__(
        self, settings: RolloutSettings, progress: ProgressReport | None, stop: StopCheck | None
    ) -> None:
        self.sage = BgBotAnalyzer(
            eval_level="rollout",
            cubeful=True,
            n_trials=BATCH,
            seed=settings.seed,
            parallel_threads=settings.threads,
        )
        self.seed = settings.seed
        self.batches = settings.trials // BATCH
        self.report = progress
        self.stop = stop
        self.parts = 1
        self.done = 0

    def check(self) -> None:
        if self.stop is not None and self.stop():
            raise RolloutStopped("the rollout was stopped")

    def tell(self, done: int, *_rest: Any) -> None:
        """bgsage's progress within one batch, as the whole rollout's."""
        if self.report is not None:
            total = self.parts * self.batches * BATCH
            self.report(min(self.done + min(done, BATCH), total), total)

    def batched(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> list[Any]:
        """``fn(*args, **kwargs)`` once per batch, each reseeded; ``RolloutStopped`` between two."""
        found = []
        for batch in range(self.batches):
            self.check()
            self.sage.set_seed(batch_seed(self.seed, batch))
            try:
                found.append(fn(*args, progress_callback=self.tell, **kwargs))
            except RolloutCancelled:
                raise RolloutStopped("the rollout was stopped") from None
            self.done += BATCH
        return found


def batch_seed(seed: int, batch: int) -> int:
    """The seed of batch ``batch`` of a rollout seeded ``seed`` (independent batches, reproducible)."""
    return (seed * 100_003 + batch * 7_919) % (1 << 31)


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _mean_se(errors: list[float]) -> float:
    return math.sqrt(sum(e * e for e in errors)) / len(errors)


def _chances(found: list[Any]) -> Chances:
    """The batches' chances, averaged."""
    return Chances(
        _mean([float(f.probs.win) for f in found]),
        _mean([float(f.probs.gammon_win) for f in found]),
        _mean([float(f.probs.backgammon_win) for f in found]),
        _mean([float(f.probs.gammon_loss) for f in found]),
        _mean([float(f.probs.backgammon_loss) for f in found]),
    )


def _is(keep: str | None, notation: str, label: str) -> bool:
    """Whether ``keep`` (the notation, or the words, of the choice made) names this candidate."""
    return keep is not None and keep.strip().lower() in (notation.lower(), label.lower())


def _screened(state: BackgammonState, plays: int, keep: str | None) -> list[Play]:
    """The plays to roll out: the best ``plays`` at the screen's level, and the one played."""
    ranked = [play for _, play in ranked_plays(state, SCREEN)]
    if any(borne_off(play.result[1]) == CHECKERS for play in ranked):
        raise RolloutRefused(
            "A play there bears off the last checker and ends the game: nothing to roll out."
        )
    chosen = ranked[:plays]
    if keep is not None and not any(_is(keep, Checkers(p.moves, p.result).notation, "") for p in chosen):
        chosen += [p for p in state.plays() if _is(keep, Checkers(p.moves, p.result).notation, "")][:1]
    return chosen


def _roll_plays(state: BackgammonState, settings: RolloutSettings, run: _Run, keep: str | None) -> Rollout:
    seat = state.turn_seat or 0
    ctx = context(state, seat, money=False)
    plays = _screened(state, settings.plays, keep)
    run.parts = len(plays)
    rolled: list[Candidate] = []
    for play in plays:
        notation = Checkers(play.moves, play.result).notation
        found = run.batched(
            run.sage.post_move_analytics,
            sage_board(play.result),
            ctx.cube_owner,
            ctx.cube_value,
            away1=ctx.away1,
            away2=ctx.away2,
            is_crawford=ctx.crawford,
            jacoby=ctx.jacoby,
        )
        rolled.append(
            Candidate(
                label=play_text(play),
                equity=_mean([float(f.cubeful_equity) for f in found]),
                se=_mean_se([float(f.cubeful_se or 0.0) for f in found]),
                chances=_chances(found),
                notation=notation,
                played=_is(keep, notation, play_text(play)),
            )
        )
    rolled.sort(key=lambda c: -c.equity)
    return Rollout(PLAY, tuple(rolled), settings.trials, settings.seed, seat)


def _roll_cube(state: BackgammonState, settings: RolloutSettings, run: _Run, keep: str | None) -> Rollout:
    """The cube rollout of the player whose turn it is (``turn_seat``: the doubler, whoever answers)."""
    assert state.turn_seat is not None
    doubler = state.turn_seat
    ctx = context(state, doubler, money=False)
    found = run.batched(run.sage.cube_action, sage_board(state.board), **ctx.kwargs())
    chances = _chances(found)
    nd, dt = _mean([f.equity_nd for f in found]), _mean([f.equity_dt for f in found])
    dp = _mean([f.equity_dp for f in found])
    nd_se = _mean_se([float(f.equity_nd_se or 0.0) for f in found])
    dt_se = _mean_se([float(f.equity_dt_se or 0.0) for f in found])
    seat = doubler
    if state.phase is Phase.TAKE:
        seat = 1 - doubler
        rows = [
            Candidate(TAKE, -dt, dt_se, chances.turned(), Take().notation),
            Candidate(PASS, -dp, 0.0, None, Pass().notation),
        ]
    else:
        rows = [Candidate(NO_DOUBLE, nd, nd_se, chances, RollOn().notation)]
        if state.phase is Phase.DECIDE:
            rows.append(Candidate(DOUBLE_TAKE, dt, dt_se, chances, Double().notation))
            rows.append(Candidate(DOUBLE_PASS, dp, 0.0, None, Double().notation))
    marked = tuple(
        Candidate(c.label, c.equity, c.se, c.chances, c.notation, _is(keep, c.notation, c.label))
        for c in rows
    )
    return Rollout(CUBE, marked, settings.trials, settings.seed, seat)


ROLLOUT = RolloutKit(check=_kind, from_code=_state_of, roll_out=rollout_json, candidates=candidate_count)
"""Backgammon's rollouts (``kits.backgammon``'s ``Coach.rollout``, ``engine.ai.rollouts.ROLLOUTS``)."""
