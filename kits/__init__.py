"""The registered games: one ``GameKit`` per game, one ``register`` line per game.

Every table keyed by a game (``engine.VARIANTS``, ``render.RENDERERS``, ``cogs.panels.PANELS``, the
computer players, the coaches, the sample pictures) is derived from ``KITS``; see ``kits.base``."""

from __future__ import annotations

from kits import backgammon, ring, space
from kits.base import Coach, GameKit, KitRegistry, KitTable, Part

KITS = KitRegistry()
KITS.register(ring.KIT)
KITS.register(backgammon.KIT)
KITS.register(space.KIT)

__all__ = ["KITS", "Coach", "GameKit", "KitRegistry", "KitTable", "Part"]
