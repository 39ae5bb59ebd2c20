"""The space game's kit: Terran Defense Force against the Evil Empire on a 28-sector ring."""

from __future__ import annotations

from kits.base import GameKit, Part

KIT = GameKit(
    key="space",
    variant=Part("engine.space.variant:VARIANT"),
    players=Part("engine.ai.space_levels:PLAYERS"),
    bot_player="greedy",
    renderer=Part("render.space:render"),
    seats=Part("render.space:SEATS"),
    panel=Part("cogs.panels.space:PANEL"),
    samples=Part("render.space_samples:SAMPLES"),
    rules_page="space.md",
    palette=Part("render.space:PICTURE.write_palette"),
    rules_sheets=Part("render.space_samples:RULES_SHEETS"),
)
