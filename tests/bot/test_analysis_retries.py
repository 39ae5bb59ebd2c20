"""bot.analyses: an analysis whose worker is lost is tried once more, then reported as failed."""

from __future__ import annotations

from typing import Any

import pytest

from app.render_pool import RenderPool
from bot.analyses import Analyses
from bot.publishing import Publishers
from bot.worker_lanes import HeavyWorkFailed


class LosingPool(RenderPool):
    """Loses the worker of the first ``losses`` analyses."""

    def __init__(self, losses: int) -> None:
        super().__init__(0)
        self.losses = losses
        self.calls = 0

    async def analyse(self, game: str, options: Any, log: Any, should_stop: Any) -> Any:
        self.calls += 1
        if self.calls <= self.losses:
            raise HeavyWorkFailed("a heavy worker died")
        return "the analysis"


@pytest.mark.asyncio
async def test_a_lost_worker_costs_one_more_try_and_two_are_reported() -> None:
    once = LosingPool(1)
    analyses = Analyses(None, None, Publishers, once)  # type: ignore[arg-type]
    assert await analyses._analysed("backgammon", None, []) == "the analysis"
    assert once.calls == 2
    twice = LosingPool(2)
    analyses = Analyses(None, None, Publishers, twice)  # type: ignore[arg-type]
    with pytest.raises(HeavyWorkFailed):
        await analyses._analysed("backgammon", None, [])
    assert twice.calls == 2
