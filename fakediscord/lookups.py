"""Finding things for tests: users, channels, roles, messages, threads, commands, requests, problems.

A mixin of :class:`~fakediscord.fake.FakeDiscord`; helpers accept a fake object, its id or the
discord.py object with that id (see ``UserLike``, ``ChannelLike``, ``MessageLike``).
"""

from __future__ import annotations

import logging
from typing import Any, Union

import discord

from .errors import MessageNotVisible
from .results import InteractionResult
from .tracking import _format_records
from .world import (
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeRole,
    FakeUser,
    Reply,
    Request,
    World,
)

JSON = dict[str, Any]
#: A user: FakeUser, its id, its name, or a discord.py object with that id (User, Member, Object).
UserLike = FakeUser | int | str | discord.abc.Snowflake
#: A channel or thread: FakeChannel, its id, or a discord.py object with that id.
ChannelLike = FakeChannel | int | discord.abc.Snowflake
#: A message: FakeMessage, its id, a discord.py Message, or an InteractionResult (its response).
MessageLike = Union[FakeMessage, int, discord.abc.Snowflake, "InteractionResult"]


class Lookups:
    """World shortcuts, lookups by id or object, and read-only views of what happened."""

    world: World
    requests: list[Request]
    unhandled: list[Request]
    violations: list[str]
    spec_errors: list[str]
    errors: list[logging.LogRecord]
    _replies: dict[int, list[Reply]]

    @property
    def bot_user(self) -> FakeUser:
        return self.world.bot_user

    @property
    def application_id(self) -> int:
        return self.world.application_id

    @property
    def guild(self) -> FakeGuild:
        """The default guild."""
        return self.world.default_guild

    @property
    def channel(self) -> FakeChannel:
        """The default guild's first text channel."""
        return self.world.channels[self.guild.channel_ids[0]]

    def _user(self, user: UserLike) -> FakeUser:
        if isinstance(user, FakeUser):
            return user
        if isinstance(user, str):
            for u in self.world.users.values():
                if u.name == user:
                    return u
            raise LookupError(f"no user named {user!r}")
        uid = user if isinstance(user, int) else getattr(user, "id", None)
        if uid in self.world.users:
            return self.world.users[uid]
        raise LookupError(f"unknown user {user!r}")

    def _channel(self, channel: ChannelLike | None) -> FakeChannel:
        if channel is None:
            return self.channel
        if isinstance(channel, FakeChannel):
            return channel
        cid = channel if isinstance(channel, int) else getattr(channel, "id", None)
        if cid in self.world.channels:
            return self.world.channels[cid]
        raise LookupError(f"unknown channel {channel!r}")

    def _role(self, role: FakeRole | int | Any, guild: FakeGuild | None) -> FakeRole:
        if isinstance(role, FakeRole):
            return role
        rid = role if isinstance(role, int) else getattr(role, "id", None)
        for g in [guild] if guild is not None else list(self.world.guilds.values()):
            if rid in g.roles:
                return g.roles[rid]
        raise LookupError(f"unknown role {role!r}")

    def message(self, message: MessageLike) -> FakeMessage:
        """The current state of a message (by FakeMessage, id, discord.Message or InteractionResult)."""
        if isinstance(message, InteractionResult):
            found = message.message
            if found is None:
                raise LookupError(f"{message!r} has no response message")
            return found
        mid: Any = message if isinstance(message, int) else getattr(message, "id", None)
        if mid in self.world.messages:
            return self.world.messages[mid]
        raise LookupError(f"unknown message {message!r}")

    def _visible_message(self, message: MessageLike, user: FakeUser) -> FakeMessage:
        msg = self.message(message)
        if msg.deleted:
            raise MessageNotVisible(f"message {msg.id} was deleted")
        if not msg.is_visible_to(user):
            raise MessageNotVisible(
                f"message {msg.id} is ephemeral for another user; {user.name} cannot see it"
            )
        channel = self.world.channels[msg.channel_id]
        if channel.guild_id is not None and not self.world.permissions_for(user.id, channel) & 1 << 10:
            raise MessageNotVisible(f"{user.name} cannot view channel {channel.name}")
        return msg

    def _interaction(self, interaction: InteractionResult | FakeInteraction | int) -> FakeInteraction:
        if isinstance(interaction, InteractionResult):
            return interaction.interaction
        if isinstance(interaction, FakeInteraction):
            return interaction
        return self.world.interactions[interaction]

    def messages_in(
        self,
        channel: ChannelLike | None = None,
        *,
        as_user: UserLike | None = None,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        """Messages of a channel or thread in order, current state. ``as_user``: only what that
        user sees (public messages and their own ephemeral ones)."""
        ch = self._channel(channel)
        msgs = [m for m in self.world.messages.values() if m.channel_id == ch.id]
        if not include_deleted:
            msgs = [m for m in msgs if not m.deleted]
        if as_user is not None:
            u = self._user(as_user)
            msgs = [m for m in msgs if m.is_visible_to(u)]
        return msgs

    def last_message(
        self, channel: ChannelLike | None = None, *, as_user: UserLike | None = None
    ) -> FakeMessage | None:
        msgs = self.messages_in(channel, as_user=as_user)
        return msgs[-1] if msgs else None

    def replies_to(self, interaction: InteractionResult | FakeInteraction | int) -> list[Reply]:
        """Everything the bot sent in answer to one interaction, in order (callback, followups,
        edits, and in process also bot-token requests made by its handler)."""
        return list(self._replies.get(self._interaction(interaction).id, []))

    def threads(self, parent: ChannelLike | None = None) -> list[FakeChannel]:
        threads = [c for c in self.world.channels.values() if c.is_thread and not c.deleted]
        if parent is not None:
            pid = self._channel(parent).id
            threads = [t for t in threads if t.parent_id == pid]
        return threads

    def thread_of(self, message: MessageLike) -> FakeChannel | None:
        msg = self.message(message)
        return self.world.channels.get(msg.thread_id) if msg.thread_id else None

    @property
    def commands(self) -> list[JSON]:
        """Global application commands as synced by the bot (with ids)."""
        return list(self.world.global_commands)

    def guild_commands(self, guild: FakeGuild | None = None) -> list[JSON]:
        return list(self.world.guild_commands.get((guild or self.guild).id, []))

    @property
    def synced(self) -> bool:
        """Whether the bot has bulk-overwritten its commands at least once."""
        return self.world.command_syncs > 0

    def find_requests(self, method: str | None = None, route: str | None = None) -> list[Request]:
        """Requests filtered by method and/or route template (e.g. ``"/channels/{channel_id}/messages"``)."""
        return [
            r
            for r in self.requests
            if (method is None or r.method == method)
            and (route is None or (r.route or "").endswith(" " + route))
        ]

    def picture_writes(self, channel: ChannelLike | None = None, *, since: float = 0.0) -> list[Request]:
        """Successful requests that created or edited a message with uploaded files (a new picture),
        in order: channel posts/edits, interaction callbacks 4/7, followups, edits of the original
        response or a followup. ``channel``: only messages there (None: anywhere); ``since``: only
        requests answered at or after that ``time.perf_counter()`` value.
        """
        channel_id = None if channel is None else self._channel(channel).id
        return [
            r
            for r in self.requests
            if r.files
            and r.method in ("POST", "PATCH")
            and 200 <= r.status < 300
            and r.message_id is not None
            and (channel_id is None or r.channel_id == channel_id)
            and r.answered_at >= since
        ]

    def problems(self) -> list[str]:
        out = list(self.violations) + list(self.spec_errors)
        out += [f"unhandled route {r.method} {r.path}" for r in self.unhandled]
        out += [f"bot error: {_format_records([r])}" for r in self.errors]
        return out

    def assert_clean(self) -> None:
        """Fail when any limit violation, spec error, unhandled route or bot error was recorded."""
        problems = self.problems()
        if problems:
            raise AssertionError("fake Discord recorded problems:\n" + "\n".join(problems))
