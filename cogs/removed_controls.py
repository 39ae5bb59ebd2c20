"""Clicks on a control that its message no longer carries: answered, never left to fail.

A player whose client has not shown the bot's latest edit of a message yet still sees the controls it
had: the old Roll, a move, Resign's question, a rules page's Next. Discord delivers such a click with
the message as it is now, and discord.py's dynamic items answer a custom id only when the message
carries a component of that custom id and type (``ViewStore.schedule_dynamic_item_call``): it ignores
the rest, and the player sees "This interaction failed".

``removed_answer`` takes exactly those clicks: a component interaction whose custom id one of the
bot's kinds matches (``cogs.control_kinds.DYNAMIC_ITEMS``) and whose message does not carry that
component, decided by the same test discord.py makes on the same message, so one of the two answers
every such click and never both. The kind answers it through ``Control.on_removed``, with the fields
of its custom id, as any click: a game control from an earlier position is refused by the version
check with a link to the latest board (its player's turn in progress gets its private panel), a rules
or review page's button shows the page it leads to, My hand shows the present; Resign's question, which
its message loses only by being answered, says that it was (``Control.answer_when_removed``). Forged ids
reach the same checks as on the message.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Coroutine, Mapping
from typing import Any

import discord

from cogs.control_framework import Control, RefusedControl
from cogs.control_kinds import DYNAMIC_ITEMS

log = logging.getLogger(__name__)


def carries(message: discord.Message, component_type: int, custom_id: str) -> bool:
    """Whether ``message`` carries a component of this type and custom id, found as discord.py finds
    it before it answers a dynamic item (the message read into a view, every child walked)."""
    view_cls = discord.ui.LayoutView if message.flags.components_v2 else discord.ui.View
    try:
        view = view_cls.from_message(message, timeout=None)
    except Exception:
        return False  # discord.py fails on it the same way, before it answers anything: answer here
    return any(
        item.type.value == component_type and getattr(item, "custom_id", None) == custom_id
        for item in view.walk_children()
    )


def removed_answer(interaction: discord.Interaction[Any]) -> Coroutine[Any, Any, None] | None:
    """The answer to ``interaction`` if it is a click on one of the bot's kinds of control that its
    message does not carry (discord.py leaves it unanswered); None for anything discord.py answers
    or that is not the bot's. Call it as the interaction arrives: the decision is made on the
    interaction as it came, so it cannot race discord.py's."""
    if interaction.type is not discord.InteractionType.component:
        return None
    data: Mapping[str, Any] = interaction.data or {}
    custom_id, component_type = data.get("custom_id"), data.get("component_type")
    if not isinstance(custom_id, str) or not isinstance(component_type, int):
        return None
    found = _kind_of(custom_id)
    if found is None:
        return None
    message = interaction.message
    if message is not None and carries(message, component_type, custom_id):
        return None
    kind, match = found
    return _answer(interaction, kind, match, component_type, custom_id)


def _kind_of(custom_id: str) -> tuple[type[discord.ui.DynamicItem[Any]], re.Match[str]] | None:
    """The kind whose template takes ``custom_id`` (the kinds never share one), and the match."""
    for kind in DYNAMIC_ITEMS:
        match = kind.__discord_ui_compiled_template__.fullmatch(custom_id)
        if match is not None:
            return kind, match
    return None


async def _answer(
    interaction: discord.Interaction[Any],
    kind: type[discord.ui.DynamicItem[Any]],
    match: re.Match[str],
    component_type: int,
    custom_id: str,
) -> None:
    # What the message would have carried: a button, or a select for a select's click.
    base: discord.ui.Item[Any] = (
        discord.ui.Button(custom_id=custom_id)
        if component_type == discord.ComponentType.button.value
        else discord.ui.Select(custom_id=custom_id)
    )
    try:
        item = await kind.from_custom_id(interaction, base, match)
        if isinstance(item, Control | RefusedControl):
            await item.on_removed(interaction)
    except Exception:
        # As discord.py reports a control's failure (the answer deadline still acknowledges it).
        log.exception("Ignoring exception in the answer to a removed control %r", custom_id)
