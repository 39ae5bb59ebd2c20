"""The games that have a coach: hints during play and the analysis of a finished match.

Optional per game (a kit without a ``coach`` has neither); the bot and the cogs look a game up here by
its key and never name one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai.coaching import Analysis, Hint, ProgressReport, StopCheck, TutorNote
from engine.protocol import GameView
from kits import KITS, KitTable

HintFunction = Callable[[GameView], Hint]
RollJudge = Callable[[GameView], bool]
TutorFunction = Callable[[GameView, Sequence[str]], TutorNote | None]
AnalysisFunction = Callable[
    [Mapping[str, Any] | None, Sequence[str], StopCheck | None, ProgressReport | None], Analysis
]

HINTS: Mapping[str, HintFunction] = KitTable(KITS, lambda kit: kit.coach.hint if kit.coach else None)
"""Per game: the hint for the decision on hand in the deciding seat's view (``NoHintError``: none)."""

ANALYSES: Mapping[str, AnalysisFunction] = KitTable(
    KITS, lambda kit: kit.coach.analysis if kit.coach else None
)
"""Per game: the analysis of a finished match from its options and action log (asked between
decisions whether to stop, and told its progress)."""

ROLL_JUDGES: Mapping[str, RollJudge] = KitTable(
    KITS, lambda kit: kit.coach.roll_judge if kit.coach and kit.coach.roll_judge else None
)
"""Per game that has one: whether a double is clearly wrong in a view (the ``auto_roll`` preference)."""


def double_not_sensible(game: str, view: GameView) -> bool:
    """Whether ``game``'s coach finds a double clearly wrong in ``view`` (False for a game without a
    judge): the job the bot runs in a compute worker for the ``auto_roll`` preference."""
    judge = ROLL_JUDGES.get(game)
    return judge is not None and judge(view)


TUTORS: Mapping[str, TutorFunction] = KitTable(
    KITS, lambda kit: kit.coach.tutor if kit.coach and kit.coach.tutor else None
)
"""Per game that has one: the tutor's warning for a decision about to be final (``bot.tutor``)."""


def has_tutor(game: str) -> bool:
    """Whether ``game`` has a tutor (backgammon only, so far), read off its kit without loading it."""
    return any(key == game for key in TUTORS)


def tutor_check(game: str, view: GameView, chosen: Sequence[str]) -> TutorNote | None:
    """The tutor's warning for the decision ``chosen`` (its steps' notations) in ``view``, or None
    (also for a game without a tutor): the job the bot runs in a compute worker."""
    check = TUTORS.get(game)
    return check(view, chosen) if check is not None else None
