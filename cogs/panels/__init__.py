"""One panel per game: the controls a player sees, named by the game's kit (``GameKit.panel``)."""

from __future__ import annotations

from collections.abc import Mapping

from cogs.panels.base import Panel
from kits import KITS, KitTable

PANELS: Mapping[str, Panel] = KitTable(KITS, lambda kit: kit.panel)
