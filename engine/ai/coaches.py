"""The games that have a coach: hints during play and the analysis of a finished match.

Optional per game (a game without an entry has neither); the bot and the cogs look a game up here by
its key and never name one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.ai import backgammon_analysis, backgammon_hints
from engine.ai.coaching import Analysis, Hint, StopCheck
from engine.protocol import GameView

HintFunction = Callable[[GameView], Hint]
AnalysisFunction = Callable[[Mapping[str, Any] | None, Sequence[str], StopCheck | None], Analysis]


def _analyse_backgammon(
    options: Mapping[str, Any] | None, log: Sequence[str], should_stop: StopCheck | None
) -> Analysis:
    # The module's depths are read at each call, so a test or a benchmark may set them.
    return backgammon_analysis.analyse(
        options,
        log,
        checker_level=backgammon_analysis.CHECKER_LEVEL,
        cube_level=backgammon_analysis.CUBE_LEVEL,
        should_stop=should_stop,
    )


HINTS: dict[str, HintFunction] = {"backgammon": backgammon_hints.hint}
"""Per game: the hint for the decision on hand in the deciding seat's view (``NoHintError``: none)."""
ANALYSES: dict[str, AnalysisFunction] = {"backgammon": _analyse_backgammon}
"""Per game: the analysis of a finished match from its options and action log."""
