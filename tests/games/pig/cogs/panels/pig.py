"""Pig's controls: Roll again, or Hold (the turn's first roll plays itself: it is the only choice)."""

from __future__ import annotations

from cogs.panels.base import ButtonSpec, PanelSpec, Style, act, chunk
from engine import GameView

LABELS = {"roll": ("Roll", Style.PRIMARY), "hold": ("Hold", Style.SUCCESS)}


class PigPanel:
    def controls(self, view: GameView, selection: str) -> PanelSpec:
        buttons = [
            ButtonSpec(LABELS[action.notation][0], act(action.notation), LABELS[action.notation][1])
            for action in view.legal_actions()
        ]
        return PanelSpec(rows=chunk(buttons))


PANEL = PigPanel()
