"""``/about``: the bot's version, uptime, the shard of this server and the matches in play."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.about import uptime_text
from engine import VARIANTS

if TYPE_CHECKING:
    from app.client import RingsideBot

COLOUR = 0xF6C445


class About(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    @app_commands.command(name="about", description="This bot's version, uptime and matches in play.")
    async def about(self, interaction: discord.Interaction[Any]) -> None:
        facts = await self.bot.about.about(interaction.guild_id, self.bot.shard_count)
        embed = discord.Embed(title="Ringside", colour=COLOUR)
        embed.add_field(name="Version", value=facts.version)
        embed.add_field(name="Up for", value=uptime_text(facts.uptime))
        if facts.shard is not None and facts.shard_count is not None:
            where = "this server" if interaction.guild_id is not None else "direct messages"
            embed.add_field(name="Shard", value=f"{facts.shard} of {facts.shard_count} ({where})")
        total = sum(facts.in_play.values())
        games = "\n".join(
            f"{VARIANTS[key].title if key in VARIANTS else key}: {count}"
            for key, count in facts.in_play.items()
        )
        if total:
            embed.add_field(name=f"Matches in play: {total}", value=games, inline=False)
        else:
            embed.add_field(name="Matches in play", value="None right now.", inline=False)
        embed.set_footer(text=f"Saved in {facts.database}")
        await interaction.response.send_message(embed=embed, ephemeral=True)
