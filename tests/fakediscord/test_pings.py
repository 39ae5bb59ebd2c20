"""Whom a message the fake Discord receives notifies, as Discord decides it: the mentions in its
content (never its embeds) that its ``allowed_mentions`` let through; without any, all of them."""

from __future__ import annotations

from typing import Any

import discord

from fakediscord.rest.model import note_pings
from fakediscord.world import FakeMessage, FakeUser

CONTENT = "<@11> <@!12> <@&21> @everyone, see <@13>"


def pinged(allowed: Any, content: str = CONTENT) -> tuple[list[int], list[int], bool]:
    message = FakeMessage(id=1, channel_id=2, guild_id=3, author=FakeUser(4, "bot"), content=content)
    note_pings(message, allowed)
    return message.pinged_users, message.pinged_roles, message.pinged_everyone


def test_without_allowed_mentions_every_mention_in_the_content_notifies() -> None:
    assert pinged(None) == ([11, 12, 13], [21], True)
    assert pinged(None, "@here") == ([], [], True)


def test_allowed_mentions_let_through_only_whom_they_name() -> None:
    named = discord.AllowedMentions(users=[discord.Object(12)], roles=False, everyone=False).to_dict()
    assert pinged(named) == ([12], [], False)
    assert pinged(discord.AllowedMentions.none().to_dict()) == ([], [], False)
    assert pinged(discord.AllowedMentions(users=True, roles=False, everyone=False).to_dict()) == (
        [11, 12, 13],
        [],
        False,
    )
    assert pinged({"parse": ["roles", "everyone"]}) == ([], [21], True)
