"""Backgammon hints: the engine's best plays, or its cube decision, for the player on hand.

Pure: a position in, a ``Hint`` out (``engine.ai.coaching``). The hint uses the settings of
``COACH`` unless told (the analysis's too, so the play a hint names best is never charged in the
analysis; one ply deeper than the hard computer): ``ranked_plays`` at its checker depth (cubeful
with the score, the cube and the Crawford game in matches; cubeless in Old English), and
``cube_action`` at its cube depth.

Cube hints in a match also give the match winning chances (MWC) of no double, double/take and
double/pass, the taker's take point and the score as players say it ("3-away / 2-away"). The MWC
are bgsage's cubeful equities turned back into match winning chances with bgsage's match equity
table (``bgbot_cpp.eq2mwc``; its table is Kazaross-XG2's, GNU Backgammon's default); the take point
is bgsage's for the score and cube (``bgsage.matchinfo.take_points``: gammonless, live cube).

Old English: the engine does not know the five-checker limit, so the candidates are OUR legal plays,
each evaluated by the engine as a position (``APPROXIMATE_RULES``): the hint says it is approximate.
"""

from __future__ import annotations

from typing import Any

from bgbot_cpp import eq2mwc
from bgsage.matchinfo import take_points

from engine.ai.backgammon_bgsage import (
    APPROXIMATE_RULES,
    COACH,
    MEDIUM,
    SCREEN_LEVEL,
    SCREEN_WINDOW,
    SagePlayer,
    analyzer,
    context,
    doubles,
    ranked_plays,
    sage_board,
)
from engine.ai.coaching import Choice, Hint, NoHintError, Scale
from engine.backgammon.board import CHECKERS, borne_off
from engine.backgammon.game import BackgammonState, Beaver, Checkers, Double, Pass, Phase, RollOn, Take
from engine.backgammon.notation import play_text
from engine.protocol import GameView

SHOWN = 5
"""How many plays a hint lists."""
APPROXIMATE = (
    "approximate: the engine does not know the five-checker limit; the candidates are your legal plays, "
    "each evaluated by the engine"
)


def level_words(level: str) -> str:
    """``"2ply"`` -> ``"2-ply"``."""
    return level.replace("ply", "-ply") if level.endswith("ply") else level


def checker_level(state: BackgammonState, player: SagePlayer = COACH) -> str:
    """The depth ``player`` plays checkers at in this match (cubeless where it plays cubeless)."""
    return player.eval_level if state.rules in APPROXIMATE_RULES else player.match_level


def scale_of(state: BackgammonState) -> Scale:
    """What the equities of a decision in ``state`` measure: cubeless money play where the engine
    plays the rules only approximately, a money session's cubeful equity, else the match's."""
    if state.rules in APPROXIMATE_RULES:
        return Scale.MONEY
    return Scale.CUBEFUL_MONEY if state.is_money else Scale.MATCH


def hint(view: GameView, player: SagePlayer = COACH, shown: int = SHOWN) -> Hint:
    """The hint for the decision on hand in ``view``; ``NoHintError`` when there is none to give."""
    if not isinstance(view, BackgammonState):
        raise TypeError("a backgammon hint needs a backgammon position")
    state = view
    if state.result is not None:
        raise NoHintError("The match is over.")
    if state.phase is Phase.PLAY:
        return _play_hint(state, player, shown)
    if state.phase is Phase.DECIDE:
        return _double_hint(state, player)
    if state.phase is Phase.TAKE:
        return _take_hint(state, player)
    if state.phase is Phase.ROLL:
        raise NoHintError("There is nothing to decide before the roll: roll, then ask for a hint.")
    if state.phase is Phase.RESIGN:
        raise NoHintError("Hints do not cover resignation offers; the board shows what it is worth.")
    raise NoHintError("There is nothing to decide yet: the opening roll comes first.")


def _play_hint(state: BackgammonState, player: SagePlayer, shown: int) -> Hint:
    if state.start is not None and state.played:
        # A turn in progress is hinted from its start: the committed position.
        raise NoHintError("Your turn is in progress: undo your moves to see the hint from the roll.")
    plays = state.plays()
    dice = state.dice_text
    if len(plays) == 1:
        raise NoHintError(f"Your only legal play of {dice} is {play_text(plays[0])}: nothing to choose.")
    level = checker_level(state, player)
    ranked = ranked_plays(state, level)
    finishing = borne_off(ranked[0][1].result[1]) == CHECKERS
    best = ranked[0][0]
    choices = tuple(
        Choice(play_text(play), equity, equity - best, i == 0, Checkers(play.moves, play.result).notation)
        for i, (equity, play) in enumerate(ranked[:shown])
    )
    approximate = state.rules in APPROXIMATE_RULES and not finishing
    cut = (
        f"plays more than {SCREEN_WINDOW:.2f} behind at {level_words(SCREEN_LEVEL)} are not evaluated deeper"
        if approximate and level != SCREEN_LEVEL and len(choices) < min(shown, len(plays))
        else ""
    )
    return Hint(
        question=f"Your play of {dice}",
        choices=choices,
        total=len(plays),
        advice=cut,
        scale=Scale.POINTS if finishing else scale_of(state),
        level="exact" if finishing else level_words(level),
        approximate=APPROXIMATE if approximate else None,
    )


def _cube(state: BackgammonState, player: SagePlayer) -> tuple[Any, tuple[float, float, float]]:
    seat = state.turn_seat or 0
    ctx = context(state, seat, money=False)
    cube = analyzer(player.cube_level, True).cube_action(sage_board(state.board), **ctx.kwargs())
    probs = cube.probs
    return cube, (float(probs.win), float(probs.gammon_win), float(probs.gammon_loss))


TOO_GOOD = "No double, too good"


def cube_best(no_double: float, take: float, drop: float) -> str:
    """The best cube action in words, from the doubler's equities: ``Double``, ``No double``, or
    ``TOO_GOOD`` when playing on beats cashing a game the opponent would pass."""
    if doubles(no_double, take, drop):
        return "Double"
    return TOO_GOOD if take > drop and no_double > drop else "No double"


def _double_hint(state: BackgammonState, player: SagePlayer) -> Hint:
    """Double or roll, for the player on turn (the doubler)."""
    cube, chances = _cube(state, player)
    nd, dt, dp = float(cube.equity_nd), float(cube.equity_dt), float(cube.equity_dp)
    double = min(dt, dp)  # the opponent answers as well as it can
    best = cube_best(nd, dt, dp)
    rows = [
        (f"{TOO_GOOD} (roll)" if best == TOO_GOOD else "No double (roll)", nd, RollOn().notation),
        (f"Double to {state.cube * 2}", double, Double().notation),
    ]
    if best == "Double":
        rows.reverse()  # on a tie (a cash), the double comes first: it is the best choice
    choices = _choices(rows)
    answer = "take" if dt <= dp else "pass"
    words = "Too good to double (play on for a gammon)" if best == TOO_GOOD else best
    advice = f"{words}: the engine's opponent would {answer} (double/take {dt:+.3f}, double/pass {dp:+.3f})"
    seat = state.turn_seat or 0
    advice += match_words(state, seat, nd, dt, dp)
    return Hint(
        question="Double or roll",
        choices=choices,
        total=2,
        scale=scale_of(state),
        level=level_words(player.cube_level),
        advice=advice,
        chances=chances,
    )


def _take_hint(state: BackgammonState, player: SagePlayer) -> Hint:
    """Take or pass, for the player doubled: the doubler's equities turned round."""
    cube, doubler = _cube(state, player)
    take, drop = -float(cube.equity_dt), -float(cube.equity_dp)
    rows = [(f"Take (cube at {state.cube * 2})", take, Take().notation), ("Pass", drop, Pass().notation)]
    if state.may_beaver():
        # Money play: a beaver keeps the cube too, at twice the take's stake, so twice its equity.
        rows.insert(1, (f"Beaver (cube at {state.cube * 4})", 2 * take, Beaver().notation))
    choices = _choices(rows)
    win, gammon, lose_gammon = doubler
    seat = state.turn_seat or 0
    return Hint(
        question="Take, beaver or pass" if state.may_beaver() else "Take or pass",
        choices=choices,
        total=len(rows),
        scale=scale_of(state),
        level=level_words(player.cube_level),
        advice=match_words(state, seat, float(cube.equity_nd), -take, -drop, taker=True).removeprefix("; "),
        chances=(1.0 - win, lose_gammon, gammon),
    )


def match_words(
    state: BackgammonState, doubler: int, nd: float, dt: float, dp: float, taker: bool = False
) -> str:
    """``"; 3-away / 2-away: match winning chances ..., take point 26%"`` for the player deciding (the
    doubler, or the taker when ``taker``), from the doubler's equities; empty outside match play."""
    if state.length <= 1 or state.rules in APPROXIMATE_RULES:
        return ""
    away = (state.length - state.score[doubler], state.length - state.score[1 - doubler])
    crawford, cube = state.crawford, state.cube

    def mwc(equity: float) -> float:
        chance = float(eq2mwc(equity, away[0], away[1], cube, crawford))
        return 1.0 - chance if taker else chance

    point = float(take_points(away[0], away[1], cube)[1])
    mine, theirs = (away[1], away[0]) if taker else away
    if taker:
        options = f"take {mwc(dt):.1%}, pass {mwc(dp):.1%}"
    else:
        options = f"no double {mwc(nd):.1%}, double/take {mwc(dt):.1%}, double/pass {mwc(dp):.1%}"
    whose = "your" if taker else "your opponent's"
    return (
        f"; {mine}-away / {theirs}-away: match winning chances {options}; "
        f"{whose} take point {point:.0%} (the game winning chances a take needs)"
    )


def _choices(rows: list[tuple[str, float, str]]) -> tuple[Choice, ...]:
    ordered = sorted(rows, key=lambda row: -row[1])
    best = ordered[0][1]
    return tuple(
        Choice(text, equity, equity - best, i == 0, action)
        for i, (text, equity, action) in enumerate(ordered)
    )


NOT_SENSIBLE = 0.2
"""How much worse than rolling on a double must be, at ``AUTO_ROLL_PLAYER``'s depth, for the bot to
roll by itself for a player who asked it to (``auto_roll``): a double costing that much is a blunder
at any depth, so a cheap evaluation's error cannot turn a reasonable double into an automatic roll."""
AUTO_ROLL_PLAYER = MEDIUM
"""Whose cube decision says that a double is not sensible: a cheap depth (1-ply), as the bot asks it
at every turn of a player with ``auto_roll`` on (about 30 ms in a compute worker)."""


def double_not_sensible(view: GameView) -> bool:
    """Whether the player on roll in ``view`` may double but should clearly not (no double beats the
    double, taken or passed as the opponent would, by ``NOT_SENSIBLE`` or more: too early, or too good
    to double); False where there is no double to decide."""
    if not isinstance(view, BackgammonState) or view.roll_on() is None:
        return False
    cube, _ = _cube(view, AUTO_ROLL_PLAYER)
    double = min(float(cube.equity_dt), float(cube.equity_dp))
    return float(cube.equity_nd) - double >= NOT_SENSIBLE
