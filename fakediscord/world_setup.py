"""Arranging the fake world from a test: users, guilds, channels, roles, permissions, user messages.

A mixin of :class:`~fakediscord.fake.FakeDiscord`; every change is also sent to connected bots as
the gateway event Discord would send (GUILD_MEMBER_ADD, CHANNEL_UPDATE, GUILD_ROLE_CREATE...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from . import payloads as P
from .lookups import ChannelLike, Lookups, UserLike
from .results import InteractionResult
from .world import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Overwrite,
    perm_value,
)

if TYPE_CHECKING:
    from .rest import RestApi

JSON = dict[str, Any]


class WorldSetup(Lookups):
    """The ``add_*`` / ``set_*`` helpers."""

    rest: RestApi

    if TYPE_CHECKING:

        def _emit(self, event: str, data: JSON) -> None: ...

    def add_user(
        self,
        name: str,
        *,
        guild: FakeGuild | None = None,
        roles: Sequence[FakeRole] = (),
        global_name: str | None = None,
        bot: bool = False,
    ) -> FakeUser:
        """A user who is a member of ``guild`` (default guild)."""
        guild = guild or self.guild
        user = self.world.add_user(
            name, bot=bot, global_name=global_name, guild=guild, roles=[r.id for r in roles]
        )
        member = guild.members[user.id]
        self._emit("GUILD_MEMBER_ADD", {**P.member_payload(member), "guild_id": str(guild.id)})
        return user

    def add_bot_user(self, name: str, *, guild: FakeGuild | None = None) -> FakeUser:
        """Another bot account in the guild (not the bot under test)."""
        return self.add_user(name, guild=guild, bot=True)

    def add_member(self, user: FakeUser, guild: FakeGuild) -> None:
        """Make an existing user a member of another guild."""
        guild.members[user.id] = FakeMember(user, guild.id)
        self._emit(
            "GUILD_MEMBER_ADD", {**P.member_payload(guild.members[user.id]), "guild_id": str(guild.id)}
        )

    def add_text_channel(
        self, name: str, *, guild: FakeGuild | None = None, topic: str | None = None
    ) -> FakeChannel:
        channel = self.world.add_text_channel(name, guild or self.guild, topic=topic)
        self._emit("CHANNEL_CREATE", P.channel_payload(self.world, channel))
        return channel

    def add_guild(self, name: str, *, channel_name: str = "general") -> FakeGuild:
        guild = self.world.add_guild(name, channel_name=channel_name)
        self._emit("GUILD_CREATE", P.guild_create_payload(self.world, guild))
        return guild

    def add_role(
        self, name: str, permissions: discord.Permissions | int = 0, *, guild: FakeGuild | None = None
    ) -> FakeRole:
        guild = guild or self.guild
        role = self.world.add_role(name, perm_value(permissions), guild)
        self._emit("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": P.role_payload(role)})
        return role

    def set_bot_permissions(
        self,
        channel: ChannelLike | None = None,
        *,
        allow: discord.Permissions | int | None = None,
        deny: discord.Permissions | int | None = None,
        guild: FakeGuild | None = None,
    ) -> None:
        """Change what the bot may do.

        With a channel: set a member permission overwrite for the bot on it (threads use their
        parent's), e.g. ``deny=discord.Permissions(create_public_threads=True)``. Without: replace the
        permissions of the bot's role in the guild by ``allow`` (``deny`` is removed from them).
        Shown to the bot as CHANNEL_UPDATE / GUILD_ROLE_UPDATE and in ``app_permissions``.
        """
        if channel is None:
            guild = guild or self.guild
            assert guild.bot_role_id is not None
            role = guild.roles[guild.bot_role_id]
            if allow is not None:
                role.permissions = perm_value(allow)
            role.permissions &= ~perm_value(deny)
            self._emit("GUILD_ROLE_UPDATE", {"guild_id": str(guild.id), "role": P.role_payload(role)})
            return
        target = self.world.root_channel(self._channel(channel))
        target.overwrites[self.bot_user.id] = Overwrite(
            self.bot_user.id, 1, allow=perm_value(allow), deny=perm_value(deny)
        )
        self._emit("CHANNEL_UPDATE", P.channel_payload(self.world, target))

    def set_channel_overwrite(
        self,
        channel: ChannelLike,
        target: FakeUser | FakeRole | FakeGuild,
        *,
        allow: discord.Permissions | int | None = None,
        deny: discord.Permissions | int | None = None,
    ) -> None:
        """A permission overwrite for a user, a role or @everyone (pass the guild) on a channel."""
        ch = self.world.root_channel(self._channel(channel))
        kind = 1 if isinstance(target, FakeUser) else 0
        ch.overwrites[target.id] = Overwrite(target.id, kind, allow=perm_value(allow), deny=perm_value(deny))
        self._emit("CHANNEL_UPDATE", P.channel_payload(self.world, ch))

    def delete_channel(self, channel: ChannelLike) -> None:
        """A channel or thread deleted (by a moderator): Discord answers 404 Unknown Channel for it."""
        target = self._channel(channel)
        target.deleted = True
        if target.is_thread:
            data = {"id": str(target.id), "guild_id": str(target.guild_id), "type": target.type}
            self._emit("THREAD_DELETE", {**data, "parent_id": str(target.parent_id)})
        else:
            self._emit("CHANNEL_DELETE", P.channel_payload(self.world, target))

    def remove_bot(self, guild: FakeGuild | None = None) -> None:
        """The server removes (kicks) the bot: Discord answers 403 Missing Access for its channels."""
        guild = guild or self.guild
        guild.members.pop(self.bot_user.id, None)
        self._emit("GUILD_DELETE", {"id": str(guild.id)})

    def bot_permissions(self, channel: ChannelLike | None = None) -> discord.Permissions:
        return discord.Permissions(self.world.permissions_for(self.bot_user.id, self._channel(channel)))

    def dm_channel(self, user: UserLike) -> FakeChannel:
        """The direct-message channel between ``user`` and the bot (created on first use)."""
        return self.world.dm_channel(self._user(user))

    def expire_interaction(self, interaction: InteractionResult | FakeInteraction | int) -> None:
        """Make an interaction's token invalid, as Discord does after 15 minutes."""
        self._interaction(interaction).expired = True

    def user_message(self, user: UserLike, content: str, channel: ChannelLike | None = None) -> FakeMessage:
        """A message posted by a user (MESSAGE_CREATE is sent to the bot)."""
        return self.rest._new_message(
            self._channel(channel), {"content": content}, [], author=self._user(user)
        )
