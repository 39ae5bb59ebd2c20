"""The registered games: one ``GameKit`` per game (``kits/<game>.py``), one ``register_module`` line
per game, and nothing else names a game.

Every table keyed by a game (``engine.VARIANTS``, ``render.RENDERERS``, ``cogs.panels.PANELS``, the
computer players, the coaches, the sample pictures) is derived from ``KITS``; see ``kits.base``, and
docs/architecture.md for adding a game."""

from __future__ import annotations

from kits.base import Coach, GameKit, KitRegistry, KitTable, Part

KITS = KitRegistry()
KITS.register_module("kits.ring")
KITS.register_module("kits.backgammon")
KITS.register_module("kits.space")

__all__ = ["KITS", "Coach", "GameKit", "KitRegistry", "KitTable", "Part"]
