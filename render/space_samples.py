"""The space situations worth a picture, and the sheet of the space rules page."""

from __future__ import annotations

from collections.abc import Callable

from engine.protocol import GameState
from engine.space.game import Phase as SpacePhase
from engine.space.game import SpaceState, SpaceWin
from render.rules_pictures import Panel, Sheet
from render.samples import SampleSet, situation_samples
from render.space_geometry import HEIGHT

SPACE_SITUATIONS: dict[str, Callable[[SpaceState], bool]] = {
    "first-roll": lambda s: s.phase is SpacePhase.ROLL_CARDS and s.turn_number == 1,
    "move": lambda s: s.phase is SpacePhase.MOVE and " moved " in (s.last_text or ""),
    "three-dice": lambda s: s.phase is SpacePhase.MOVE and len(s.dice) == 3,
    "fight": lambda s: s.phase is SpacePhase.DEFEND and s.turn_number > 4,
    "fight-result": lambda s: s.phase is SpacePhase.KEEP and " against " in (s.last_text or ""),
    "mid-game": lambda s: s.phase is SpacePhase.MOVE and s.turn_number >= 30,
}
"""Situations of seeded random space games, each the first state that fits."""


def space_samples(seed: int, wanted: frozenset[str] = frozenset()) -> list[tuple[str, GameState]]:
    """The space situations worth a picture, in a fixed order, and one finished game per way of winning."""
    return situation_samples("space", SPACE_SITUATIONS, len(SpaceWin), seed, wanted)


SAMPLES = SampleSet(("start", *SPACE_SITUATIONS, *(f"won-{r}" for r in SpaceWin)), space_samples)


RULES_SHEETS: tuple[Sheet, ...] = (
    Sheet(
        "start",
        (
            Panel("start", "The start"),
            Panel("fight-result", "A fight won: keep units"),
        ),
        # From under the header to the sides' panels (the footer left out).
        crop=(0, 100, 800, HEIGHT - 90),
    ),
)
