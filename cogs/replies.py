"""Private replies that work whether or not the interaction was already answered."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import discord

from bot.store import WriteFailed
from cogs.outcomes import note, note_reply

log = logging.getLogger(__name__)

T = TypeVar("T")


async def reply_privately(interaction: discord.Interaction[Any], text: str) -> None:
    """``text`` to the user alone (a followup once the interaction is answered). Sent while a
    player's error is handled, it is a refusal (``cogs.outcomes``)."""
    note_reply(interaction)
    text = text[:2000]
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)


def answers_write_failures(
    callback: Callable[[T, discord.Interaction[Any]], Coroutine[Any, Any, None]],
) -> Callable[[T, discord.Interaction[Any]], Coroutine[Any, Any, None]]:
    """A control's callback whose write the database refused (locked, disk full) answers the clicker
    privately with what happened, instead of leaving the click unanswered. Either way, and when the
    callback raises anything else, the interaction's outcome is an error (``cogs.outcomes``)."""

    @functools.wraps(callback)
    async def wrapper(self: T, interaction: discord.Interaction[Any]) -> None:
        try:
            await callback(self, interaction)
        except WriteFailed as exc:
            note(interaction, "error")
            log.warning("a write failed for interaction %s: %r", interaction.id, exc.__cause__)
            await reply_privately(interaction, str(exc))
        except Exception:
            note(interaction, "error")
            raise

    return wrapper
