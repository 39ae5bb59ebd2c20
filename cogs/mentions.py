"""Whom a message of the bot may notify: exactly the players it is about, never a role, @everyone or
@here, whatever words of a user it carries (a tournament's name, an organiser's reason, a name).

Discord notifies the mentions in a message's content that its ``allowed_mentions`` let through.
Every message that is to notify someone names them here (``pings``); the client's default is
``NOBODY`` (``app.client``), so a message that names nobody notifies nobody.
"""

from __future__ import annotations

import discord

NOBODY = discord.AllowedMentions(everyone=False, users=False, roles=False, replied_user=False)
"""A message that notifies nobody (its mentions are shown, and ping no one)."""


def pings(*users: int | None) -> discord.AllowedMentions:
    """Mentions that notify these users (the players of the message) and nobody else: not a user
    named in someone's words, not a role, not @everyone or @here. None among them is skipped."""
    chosen = [discord.Object(user) for user in dict.fromkeys(users) if user is not None]
    return discord.AllowedMentions(everyone=False, users=chosen, roles=False, replied_user=False)
