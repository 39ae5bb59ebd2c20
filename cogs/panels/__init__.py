"""One panel per game: the controls a player sees. One line per game in ``PANELS``."""

from __future__ import annotations

from cogs.panels import backgammon, ring, space
from cogs.panels.base import Panel

PANELS: dict[str, Panel] = {
    "ring": ring.PANEL,
    "backgammon": backgammon.PANEL,
    "space": space.PANEL,
}
