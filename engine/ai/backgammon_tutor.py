"""The backgammon tutor: before a checker play or a cube decision is final, what it loses against the
best choice, when that is an error (``engine.ai.coaching.ERROR``, the analysis's error threshold).

Pure: the position before the decision and the decision's steps in (their notations, as the bot
saved them), a ``TutorNote`` or None out. It is asked before every final decision of a player with
the tutor on, so it must be fast: it uses the hard computer's depth (``TUTOR``, 2-ply, cubeful with
the score), one ply below the hint's and the analysis's 3-ply. Measured by ``bench/tutor.py`` in one
process (bench/README.md): a checker play's check at 2-ply takes about 40 ms at the median and 130 ms
at the 95th percentile, where 3-ply takes 0.7 s and 3 s; a cube decision's about 35 ms and 50 ms.
The depths can disagree near the threshold (in the bench's 80 decisions 2-ply named 8 errors,
3-ply 9), so the tutor may say nothing of a decision the analysis later calls an error, or the
other way round.

Not warned of: forced plays, plays that bear off the last checker (ranked by the points they win,
not by equity), Old English (the engine plays it only approximately), and anything that is not a
checker play or a cube action (resignations, stopping a money session).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.backgammon_bgsage import APPROXIMATE_RULES, HARD, SagePlayer, ranked_plays
from engine.ai.backgammon_hints import checker_level, hint, level_words, scale_of
from engine.ai.coaching import ERROR, Hint, NoHintError, TutorNote
from engine.backgammon.board import CHECKERS, borne_off
from engine.backgammon.game import BackgammonState, Beaver, Double, Pass, Phase, RollOn, Take
from engine.backgammon.notation import play_text
from engine.errors import GameError
from engine.protocol import GameView

TUTOR: SagePlayer = HARD
"""Whose depth the tutor judges at: the hard computer's (2-ply), fast enough for every decision."""

CUBE_WORDS = {
    Double().notation: "double",
    RollOn().notation: "roll",
    Take().notation: "take",
    Pass().notation: "pass",
    Beaver().notation: "beaver",
}
"""The cube actions the tutor judges, by notation, and what a player calls each."""


def tutor_check(view: GameView, chosen: Sequence[str], player: SagePlayer = TUTOR) -> TutorNote | None:
    """The tutor's warning for the decision ``chosen`` (the notations of its steps, in order) taken
    in ``view`` (the position before it, the deciding player's), or None when it loses less than
    ``ERROR``, or is nothing the tutor judges."""
    if not isinstance(view, BackgammonState) or not chosen or view.rules in APPROXIMATE_RULES:
        return None
    if view.result is not None:
        return None
    if view.phase is Phase.PLAY:
        return play_check(view, chosen, player)
    if view.phase in (Phase.DECIDE, Phase.TAKE) and len(chosen) == 1 and chosen[0] in CUBE_WORDS:
        return cube_check(view, chosen[0], player)
    return None


def played_board(state: BackgammonState, chosen: Sequence[str]) -> BackgammonState | None:
    """The position after the steps ``chosen`` from ``state``; None if one of them is not legal."""
    position = state
    try:
        for text in chosen:
            position = position.apply(position.parse(text))
    except GameError:
        return None
    return position


def play_check(state: BackgammonState, chosen: Sequence[str], player: SagePlayer = TUTOR) -> TutorNote | None:
    """A checker play: the play reaching the position of ``chosen`` against the best play."""
    plays = state.plays()
    if len(plays) < 2 or (state.start is not None and state.played):
        return None  # forced, or asked in the middle of a turn (the bot asks from its start)
    if any(borne_off(play.result[1]) == CHECKERS for play in plays):
        return None
    after = played_board(state, chosen)
    if after is None:
        return None
    seat = state.turn_seat or 0
    reached = (after.sides[1 - seat], after.sides[seat])
    ranked = ranked_plays(state, checker_level(state, player), keep=reached)
    mine = next(((equity, play) for equity, play in ranked if play.result == reached), None)
    if mine is None:
        return None
    best_equity, best = ranked[0]
    loss = best_equity - mine[0]
    if loss < ERROR:
        return None
    return TutorNote(
        what="play",
        chosen=play_text(mine[1]),
        better=play_text(best),
        loss=loss,
        scale=scale_of(state),
        level=level_words(checker_level(state, player)),
    )


def cube_check(state: BackgammonState, action: str, player: SagePlayer = TUTOR) -> TutorNote | None:
    """A cube action (double or roll, take, pass or beaver) against the best of its alternatives,
    with the hint's equities (the opponent answering a double as well as it can)."""
    try:
        given: Hint = hint(state, player)
    except NoHintError:
        return None
    mine = next((choice for choice in given.choices if choice.action == action), None)
    best = given.choices[0]
    if mine is None or -mine.diff < ERROR:
        return None
    return TutorNote(
        what=CUBE_WORDS[action],
        chosen=mine.text,
        better=best.text,
        loss=-mine.diff,
        scale=given.scale,
        level=given.level,
    )
