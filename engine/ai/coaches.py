"""The games that have a coach: hints during play and the analysis of a finished match.

Optional per game (a kit without a ``coach`` has neither); the bot and the cogs look a game up here by
its key and never name one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai.coaching import Analysis, Hint, ProgressReport, StopCheck
from engine.protocol import GameView
from kits import KITS, KitTable

HintFunction = Callable[[GameView], Hint]
RollJudge = Callable[[GameView], bool]
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
