"""The jobs the bot sends to its worker processes (``app.render_pool``) besides two that are sent as
they are (a replay, ``render.replay.replay_match``; the computer's move, ``engine.ai.levels.seeded_move``):
module-level functions, so they cross to a worker by reference, with arguments that are small values
(views, notations, names, a seed), never sessions or connections. Each also runs as it is in the
bot's process (a thread), for the bot without workers (tests, the sandbox) and as the fallback of a
lost worker.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import engine
import render
from bot.worker_lanes import report_progress
from engine.ai.coaches import ANALYSES, HINTS
from engine.ai.coaching import Analysis, AnalysisStopped, Hint, ProgressReport, StopCheck
from engine.ai.rollouts import ROLLOUTS, RolloutStopped
from engine.protocol import GameView
from render.analysis_chart import render_chances
from render.theme import NO_CAPTION, Caption, SeatStyle

_log = logging.getLogger(__name__)


def draw_board(view: GameView, caption: Caption) -> bytes:
    """A board picture (``render.render_board``)."""
    return render.render_board(view, caption)


def warm_pictures() -> None:
    """Draw one start position of every registered game: the fonts and each renderer's first-use
    costs are paid before the first real picture."""
    for key, renderer in list(render.RENDERERS.items()):
        variant = engine.VARIANTS.get(key)
        if variant is None:
            continue
        try:
            renderer(variant.new_game().view(None), NO_CAPTION)
        except Exception:  # a warm-up that fails only costs the first picture its warm-up
            _log.debug("warm-up picture of %s failed", key, exc_info=True)


def draw_chart(
    games: Sequence[Sequence[float]], seat: int, name: str, styles: tuple[SeatStyle, SeatStyle]
) -> bytes:
    """An analysis's winning-chances chart (``render.analysis_chart.render_chances``)."""
    return render_chances(games, seat, name, styles)


def hint(game: str, view: GameView) -> Hint:
    """The coach's hint for the decision in ``view`` (``engine.ai.coaches.HINTS``)."""
    return HINTS[game](view)


def analyse(
    game: str,
    options: Mapping[str, Any] | None,
    log: Sequence[str],
    should_stop: StopCheck | None = None,
    progress: ProgressReport | None = None,
) -> Analysis:
    """The analysis of a finished match (``engine.ai.coaches.ANALYSES``), in the bot's process:
    ``should_stop`` stops it between decisions (``AnalysisStopped``), ``progress`` is told
    ``(done, total)`` as it goes."""
    return ANALYSES[game](options, log, should_stop, progress)


def analyse_until(game: str, options: Mapping[str, Any] | None, log: Sequence[str], flag: str) -> Analysis:
    """``analyse`` in a heavy worker: it stops (``AnalysisStopped``) at the first decision after the
    file ``flag`` appears, and removes the file; its progress goes to the bot
    (``bot.worker_lanes.report_progress``: a no-op when the bot did not ask for it)."""
    try:
        return ANALYSES[game](options, log, lambda: os.path.exists(flag), report_progress)
    except AnalysisStopped:
        with contextlib.suppress(OSError):
            os.unlink(flag)
        raise


def roll_out_until(
    game: str, state: Mapping[str, Any], keep: str | None, trials: int, seed: int, flag: str
) -> dict[str, Any]:
    """A rollout of ``game`` (``engine.ai.rollouts.ROLLOUTS``) in a heavy worker: it stops
    (``RolloutStopped``) at the first batch of games after the file ``flag`` appears, and removes the
    file; its games played go to the bot (``bot.worker_lanes.report_progress``)."""
    try:
        return ROLLOUTS[game].roll_out(
            state, keep, trials, seed, report_progress, lambda: os.path.exists(flag)
        )
    except RolloutStopped:
        with contextlib.suppress(OSError):
            os.unlink(flag)
        raise
