"""The ring game's kit: a 12-space ring with stacks, three dice and a modifier die."""

from __future__ import annotations

from kits.base import GameKit, Part

KIT = GameKit(
    key="ring",
    variant=Part("engine.ring:VARIANT"),
    players=Part("engine.ai.ring_levels:PLAYERS"),
    bot_player="greedy",
    renderer=Part("render.ring:render"),
    seats=Part("render.ring:SEATS"),
    panel=Part("cogs.panels.ring:PANEL"),
    samples=Part("render.ring_samples:SAMPLES"),
    rules_page="ring.md",
    palette=Part("render.ring:PICTURE.write_palette"),
    rules_sheets=Part("render.ring_samples:RULES_SHEETS"),
)
