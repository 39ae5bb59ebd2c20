"""Backgammon's kit: match play with the cube, and the Old English and nackgammon rule sets."""

from __future__ import annotations

from kits.base import Coach, GameKit, Part

KIT = GameKit(
    key="backgammon",
    variant=Part("engine.backgammon.variant:VARIANT"),
    players=Part("engine.ai.backgammon_players:PLAYERS"),
    bot_player="medium",
    renderer=Part("render.backgammon:render"),
    seats=Part("render.backgammon:SEATS"),
    panel=Part("cogs.panels.backgammon:PANEL"),
    samples=Part("render.backgammon_samples:SAMPLES"),
    rules_page="backgammon.md",
    palette=Part("render.backgammon:PICTURE.write_palette"),
    coach=Coach(
        hint=Part("engine.ai.backgammon_hints:hint"),
        analysis=Part("engine.ai.backgammon_analysis:analyse_match"),
        roll_judge=Part("engine.ai.backgammon_hints:double_not_sensible"),
        tutor=Part("engine.ai.backgammon_tutor:tutor_check"),
        rollout=Part("engine.ai.backgammon_rollout:ROLLOUT"),
    ),
    benchmark=Part("engine.ai.backgammon_players:BENCHMARK"),
    commands=Part("engine.backgammon.commands:COMMANDS"),
)
