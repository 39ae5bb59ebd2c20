"""Pig's kit: roll or hold, first to 30. No palette, no levels, no coach."""

from __future__ import annotations

from kits.base import GameKit, Part

KIT = GameKit(
    key="pig",
    variant=Part("engine.pig:VARIANT"),
    players=Part("engine.ai.pig_players:PLAYERS"),
    bot_player="greedy",
    renderer=Part("render.pig:render"),
    seats=Part("render.pig:SEATS"),
    panel=Part("cogs.panels.pig:PANEL"),
    samples=Part("render.pig_samples:SAMPLES"),
    rules_page="pig.md",
)
