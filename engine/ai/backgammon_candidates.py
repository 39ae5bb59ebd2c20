"""What an analysed backgammon decision keeps of the choices judged (``coaching.Candidate``): a checker
play's candidates best first, at most ``MOST`` and the played one always among them; a cube decision's
three actions from the doubler's view. The ``.sgf`` file of an analysed match
(``engine.backgammon.sgfexport``) carries them to GNU Backgammon."""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.coaching import Candidate
from engine.backgammon.notation import play_text
from engine.backgammon.plays import Play

MOST = 16
"""The most candidates a checker play keeps (besides the played one when it ranks lower)."""

NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = "No double", "Double, take", "Double, pass"
"""The texts of a cube decision's candidates, in this order."""


def play_candidates(ranked: Sequence[tuple[float, Play]], played: Play) -> tuple[Candidate, ...]:
    """The candidates of a checker play from the engine's plays (``(equity, play)``, best first)."""
    kept = [(equity, play) for equity, play in ranked[:MOST]]
    if all(play.result != played.result for _, play in kept):
        kept += [(equity, play) for equity, play in ranked[MOST:] if play.result == played.result]
    return tuple(Candidate(play_text(play), float(equity)) for equity, play in kept)


def cube_candidates(no_double: float, take: float, drop: float) -> tuple[Candidate, ...]:
    """The candidates of a cube decision (double, take or pass alike): the doubler's equities."""
    return (
        Candidate(NO_DOUBLE, float(no_double)),
        Candidate(DOUBLE_TAKE, float(take)),
        Candidate(DOUBLE_PASS, float(drop)),
    )
