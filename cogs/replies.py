"""Private replies that work whether or not the interaction was already answered."""

from __future__ import annotations

from typing import Any

import discord


async def reply_privately(interaction: discord.Interaction[Any], text: str) -> None:
    text = text[:2000]
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True)
    else:
        await interaction.response.send_message(text, ephemeral=True)
