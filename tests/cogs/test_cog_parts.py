"""Parts of the cogs with names of their own: the layout of a view's rows as discord.py makes it, and
the games ``/settings`` allows."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.session import UserError
from cogs.control_kinds import GameButton, GameSelect, HandButton
from cogs.help import add_rules_button, laid_out
from cogs.panels.base import ButtonSpec, SelectSpec
from cogs.settings import allowed_games


def _views() -> list[discord.ui.View]:
    select = SelectSpec(placeholder="Pick", options=())
    views = []
    for rows in ([None, None, None], [0, 0, 2], [None, 1, None, None, None, None, None], [3, None]):
        view = discord.ui.View(timeout=None)
        for n, row in enumerate(rows):
            view.add_item(
                GameButton.build(
                    1, 2, ButtonSpec(label=f"b{n}", value=f"n:{n}"), discord.ButtonStyle.primary, row or 0
                )
                if row is not None
                else HandButton.build(n)
            )
        views.append(view)
    with_select = discord.ui.View(timeout=None)
    with_select.add_item(GameSelect.build(1, 2, 1, select))
    with_select.add_item(HandButton.build(1))
    views.append(with_select)
    return views


@pytest.mark.asyncio
async def test_the_rows_of_a_view_are_those_discord_py_lays_out() -> None:
    for view in _views():
        rendered: dict[int, Any] = {id(item): item._rendered_row for item in view.children}
        assert laid_out(view) == rendered
        add_rules_button(view, "ring")
        assert all(item._rendered_row is not None for item in view.children)


def test_allowed_games_are_named_or_all() -> None:
    assert allowed_games("all") is None
    assert allowed_games(" Ring, ring ,backgammon") == ("ring", "backgammon")
    with pytest.raises(UserError, match="separated by commas"):
        allowed_games(" , ")
    with pytest.raises(UserError):
        allowed_games("ring, chess")
