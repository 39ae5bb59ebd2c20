"""The world model of the fake Discord: users, guilds, channels, messages, interactions.

Plain mutable dataclasses. A :class:`FakeMessage` is updated in place when the bot edits it (the
previous versions are kept in ``history``), so a reference held by a test always shows the current
state. Nothing here talks to discord.py; the REST handlers (``rest.py``) and the payload builders
(``payloads.py``) work on these objects.
"""

from __future__ import annotations

import datetime as dt
import random
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import discord

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1420070400000

# Message flags (https://discord.com/developers/docs/resources/message#message-object-message-flags)
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_HAS_THREAD = 1 << 5
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_IS_COMPONENTS_V2 = 1 << 15

# Channel types
TEXT_CHANNEL = 0
DM_CHANNEL = 1
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({10, PUBLIC_THREAD, PRIVATE_THREAD})

# Interaction types
PING = 1
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

ALL_PERMISSIONS = discord.Permissions.all().value

#: What a fresh guild's @everyone role may do (close to Discord's default).
DEFAULT_EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    create_private_threads=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    external_emojis=True,
    external_stickers=True,
    read_message_history=True,
    use_application_commands=True,
    connect=True,
    speak=True,
    change_nickname=True,
    create_instant_invite=True,
).value

#: What the bot's managed role gets by default (what an invite link would typically ask for).
DEFAULT_BOT_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    external_emojis=True,
    read_message_history=True,
    use_application_commands=True,
).value


def perm_value(value: discord.Permissions | int | None) -> int:
    if value is None:
        return 0
    if isinstance(value, discord.Permissions):
        return value.value
    return int(value)


def iso(when: dt.datetime) -> str:
    return when.isoformat()


def snowflake_time(snowflake: int) -> dt.datetime:
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC)


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class SnowflakeGenerator:
    """Snowflakes with a real millisecond timestamp, a fixed worker/process id and a counter."""

    def __init__(self, worker: int = 1, process: int = 0) -> None:
        self._worker = worker & 0x1F
        self._process = process & 0x1F
        self._last_ms = 0
        self._increment = 0

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        if ms <= self._last_ms:
            ms = self._last_ms
            self._increment += 1
            if self._increment > 0xFFF:
                ms += 1
                self._increment = 0
        else:
            self._increment = 0
        self._last_ms = ms
        return (ms << 22) | (self._worker << 17) | (self._process << 12) | self._increment


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    global_name: str | None = None
    bot: bool = False
    avatar: str | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} id={self.id}{' bot' if self.bot else ''}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False
    bot_id: int | None = None
    color: int = 0
    hoist: bool = False
    mentionable: bool = False


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: dt.datetime = field(default_factory=now)


@dataclass(eq=False)
class Overwrite:
    id: int
    type: int  # 0 role, 1 member
    allow: int = 0
    deny: int = 0


@dataclass(eq=False)
class FakeChannel:
    id: int
    name: str
    type: int = TEXT_CHANNEL
    guild_id: int | None = None
    position: int = 0
    parent_id: int | None = None
    topic: str | None = None
    nsfw: bool = False
    rate_limit_per_user: int = 0
    overwrites: dict[int, Overwrite] = field(default_factory=dict)
    last_message_id: int | None = None
    # threads
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    archive_timestamp: dt.datetime | None = None
    created_at: dt.datetime = field(default_factory=now)
    member_ids: set[int] = field(default_factory=set)
    message_count: int = 0
    total_message_sent: int = 0
    # DMs
    recipient_ids: list[int] = field(default_factory=list)
    deleted: bool = False

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def __repr__(self) -> str:
        return f"<FakeChannel #{self.name} id={self.id} type={self.type}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)
    locale: str = "en-US"
    bot_role_id: int | None = None
    joined_at: dt.datetime = field(default_factory=now)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[self.id]

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeAttachment:
    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None
    width: int | None = None
    height: int | None = None
    url: str = ""
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"<FakeAttachment {self.filename} {self.size} bytes>"


@dataclass(frozen=True)
class ComponentInfo:
    """One interactive (or link) component of a message, flattened out of its rows/containers."""

    type: int
    custom_id: str | None
    label: str | None
    disabled: bool
    style: int | None
    url: str | None
    placeholder: str | None
    options: tuple[JSON, ...]
    min_values: int | None
    max_values: int | None
    row: int | None
    id: int | None
    raw: JSON

    @property
    def is_button(self) -> bool:
        return self.type == 2

    @property
    def is_select(self) -> bool:
        return self.type in (3, 5, 6, 7, 8)

    @property
    def option_values(self) -> list[str]:
        return [str(o.get("value")) for o in self.options]

    def pick(self, rng: random.Random) -> list[str]:
        """A choice a member could make in this string select: as many different options as it takes
        (``min_values`` to ``max_values``, one by default), drawn from ``rng``."""
        values = self.option_values
        low = 1 if self.min_values is None else self.min_values
        high = 1 if self.max_values is None else self.max_values
        return rng.sample(values, rng.randint(min(low, len(values)), min(high, len(values))))


def walk_components(components: list[JSON], row: int | None = None) -> Iterator[tuple[JSON, int | None]]:
    """Every component nested in ``components`` (action rows, sections, containers, labels)."""
    for index, comp in enumerate(components or []):
        ctype = comp.get("type")
        here = index if row is None else row
        yield comp, here
        if ctype == 1 or ctype == 17:
            yield from walk_components(comp.get("components") or [], here)
        elif ctype == 9:
            yield from walk_components(comp.get("components") or [], here)
            accessory = comp.get("accessory")
            if accessory:
                yield accessory, here
        elif ctype == 18:
            inner = comp.get("component")
            if inner:
                yield inner, here


def component_info(comp: JSON, row: int | None) -> ComponentInfo:
    return ComponentInfo(
        type=int(comp.get("type", 0)),
        custom_id=comp.get("custom_id"),
        label=comp.get("label"),
        disabled=bool(comp.get("disabled", False)),
        style=comp.get("style"),
        url=comp.get("url"),
        placeholder=comp.get("placeholder"),
        options=tuple(comp.get("options") or ()),
        min_values=comp.get("min_values"),
        max_values=comp.get("max_values"),
        row=row,
        id=comp.get("id"),
        raw=comp,
    )


class ComponentNotFound(LookupError):
    """The test tried to use a component that is not on the message (a real client could not)."""


class ComponentDisabled(RuntimeError):
    """The test tried to click a disabled button (a real client could not)."""


@dataclass(eq=False)
class FakeMessage:
    id: int
    channel_id: int
    guild_id: int | None
    author: FakeUser
    content: str = ""
    embeds: list[JSON] = field(default_factory=list)
    components: list[JSON] = field(default_factory=list)
    attachments: list[FakeAttachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    tts: bool = False
    #: user id of the only user who sees this message (ephemeral), None = everyone in the channel
    visible_to: int | None = None
    #: the interaction this message answers (original response or followup), if any
    interaction_id: int | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: JSON | None = None
    legacy_interaction: JSON | None = None
    message_reference: JSON | None = None
    mention_ids: list[int] = field(default_factory=list)
    #: whom the message notified, as Discord decides it when it is posted (or when the content of a
    #: deferred answer arrives): the users and roles mentioned in its content that its
    #: ``allowed_mentions`` let through (without any: all of them), and whether @everyone or @here did
    pinged_users: list[int] = field(default_factory=list)
    pinged_roles: list[int] = field(default_factory=list)
    pinged_everyone: bool = False
    thread_id: int | None = None
    pinned: bool = False
    poll: JSON | None = None
    sticker_ids: list[str] = field(default_factory=list)
    #: the nonce the message was created with, echoed back as Discord does
    nonce: str | None = None
    reactions: dict[str, set[int]] = field(default_factory=dict)
    edited_at: dt.datetime | None = None
    deleted: bool = False
    #: JSON snapshots of the earlier versions (oldest first)
    history: list[JSON] = field(default_factory=list)

    @property
    def created_at(self) -> dt.datetime:
        return snowflake_time(self.id)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True for the "<bot> is thinking..." placeholder of a deferred response not yet filled in."""
        return bool(self.flags & FLAG_LOADING)

    def is_visible_to(self, user: FakeUser | int) -> bool:
        uid = user if isinstance(user, int) else user.id
        return self.visible_to is None or self.visible_to == uid

    # components -----------------------------------------------------------------------------
    @property
    def all_components(self) -> list[ComponentInfo]:
        """Buttons, selects, text inputs... flattened, in display order."""
        return [
            component_info(comp, row)
            for comp, row in walk_components(self.components)
            if comp.get("type") in (2, 3, 4, 5, 6, 7, 8)
        ]

    @property
    def buttons(self) -> list[ComponentInfo]:
        return [c for c in self.all_components if c.is_button]

    @property
    def selects(self) -> list[ComponentInfo]:
        return [c for c in self.all_components if c.is_select]

    @property
    def custom_ids(self) -> list[str]:
        return [c.custom_id for c in self.all_components if c.custom_id is not None]

    def component(self, custom_id: str) -> ComponentInfo:
        for comp in self.all_components:
            if comp.custom_id == custom_id:
                return comp
        raise ComponentNotFound(
            f"no component with custom_id {custom_id!r} on message {self.id}; it has {self.custom_ids!r}"
        )

    def earlier_components(self) -> list[ComponentInfo]:
        """The controls an earlier version of the message showed (``history``, newest first) that this
        version no longer shows enabled: what a client that missed the later edits can still click."""
        shown = {c.custom_id for c in self.all_components if not c.disabled}
        found: dict[str, ComponentInfo] = {}
        for snapshot in reversed(self.history):
            for comp, row in walk_components(snapshot.get("components") or []):
                info = component_info(comp, row)
                if (
                    comp.get("type") in (2, 3, 4, 5, 6, 7, 8)
                    and info.custom_id is not None
                    and not info.disabled
                    and info.custom_id not in shown
                ):
                    found.setdefault(info.custom_id, info)
        return list(found.values())

    def earlier_component(self, custom_id: str) -> ComponentInfo:
        """The enabled control ``custom_id`` as the newest earlier version that showed it had it."""
        for snapshot in reversed(self.history):
            for comp, row in walk_components(snapshot.get("components") or []):
                if comp.get("custom_id") == custom_id and not comp.get("disabled", False):
                    return component_info(comp, row)
        raise ComponentNotFound(
            f"no earlier version of message {self.id} showed {custom_id!r} enabled "
            f"({len(self.history)} earlier versions)"
        )

    # attachments ----------------------------------------------------------------------------
    @property
    def files(self) -> list[tuple[str, bytes]]:
        return [(a.filename, a.data) for a in self.attachments]

    def attachment(self, filename: str | None = None) -> FakeAttachment:
        if filename is None:
            if len(self.attachments) != 1:
                names = [a.filename for a in self.attachments]
                raise LookupError(f"message {self.id} has {len(names)} attachments {names!r}; name one")
            return self.attachments[0]
        for att in self.attachments:
            if att.filename == filename:
                return att
        raise LookupError(f"no attachment {filename!r} on message {self.id}")

    def attachment_bytes(self, filename: str | None = None) -> bytes:
        return self.attachment(filename).data

    def __repr__(self) -> str:
        bits = [f"id={self.id}", f"channel={self.channel_id}"]
        if self.ephemeral:
            bits.append(f"ephemeral(for {self.visible_to})")
        if self.deleted:
            bits.append("deleted")
        text = self.content if len(self.content) <= 40 else self.content[:37] + "..."
        return f"<FakeMessage {' '.join(bits)} content={text!r}>"


@dataclass(eq=False)
class FakeInteraction:
    id: int
    token: str
    type: int
    user: FakeUser
    guild_id: int | None
    channel_id: int
    payload: JSON
    #: ``time.perf_counter()`` when the fake dispatched INTERACTION_CREATE to the bot
    created_at: float = field(default_factory=time.perf_counter)
    source_message_id: int | None = None
    #: for modal submits: the interaction that opened the modal
    parent_interaction_id: int | None = None
    name: str | None = None
    custom_id: str | None = None
    callback_type: int | None = None
    #: ``time.perf_counter()`` when the fake recorded the bot's (accepted) interaction callback
    callback_at: float | None = None
    original_message_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    modal: JSON | None = None
    choices: list[JSON] | None = None
    expired: bool = False

    @property
    def answered(self) -> bool:
        return self.callback_type is not None


@dataclass(eq=False)
class Request:
    """One HTTP request the bot made, as the fake Discord received it."""

    method: str
    path: str
    query: dict[str, str]
    json: Any
    files: list[tuple[str, bytes]]
    #: ``time.perf_counter()`` when the request reached the fake (same clock as
    #: ``FakeInteraction.created_at``/``callback_at``)
    at: float = field(default_factory=time.perf_counter)
    #: ``time.perf_counter()`` when the fake had answered it (the message created/edited), 0 before
    answered_at: float = 0.0
    #: the message the request created, edited, fetched or deleted (when the route has one)
    message_id: int | None = None
    #: the channel of that message
    channel_id: int | None = None
    #: "http" (bot token REST), "webhook" (interaction webhooks) or "server" (local fake server)
    transport: str = "http"
    authorized: bool = False
    status: int = 0
    response: Any = None
    route: str | None = None
    interaction_id: int | None = None
    violations: list[str] = field(default_factory=list)
    spec_errors: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.path} -> {self.status}>"


@dataclass(frozen=True, eq=False)
class Reply:
    """Something the bot sent in response to one interaction."""

    #: callback, followup, edit_original, get_original, delete_original, edit_followup, get_followup,
    #: delete_followup, send, edit, delete, create_thread, ... (the route's name)
    kind: str
    request: Request
    message: FakeMessage | None = None

    @property
    def callback_type(self) -> int | None:
        if self.kind == "callback" and isinstance(self.request.json, dict):
            value = self.request.json.get("type")
            return int(value) if value is not None else None
        return None

    @property
    def at(self) -> float:
        """``time.perf_counter()`` when the fake answered the request (the message now as it left it)."""
        return self.request.answered_at or self.request.at

    @property
    def has_files(self) -> bool:
        """Whether the request uploaded files (a new picture on the message)."""
        return bool(self.request.files)


class World:
    """All the state of the fake Discord."""

    def __init__(
        self,
        *,
        bot_name: str = "ringside",
        application_name: str | None = None,
        bot_permissions: discord.Permissions | int | None = None,
        guild_name: str = "Test Server",
        channel_name: str = "general",
    ) -> None:
        self.ids = SnowflakeGenerator()
        self.application_id = self.ids.next()
        # Discord's bot user id equals the application id for applications created since 2019+.
        self.bot_user = FakeUser(self.application_id, bot_name, None, bot=True)
        self.application_name = application_name or bot_name
        self.owner = FakeUser(self.ids.next(), "owner", "Owner")
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user, self.owner.id: self.owner}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.attachments: dict[int, FakeAttachment] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self.interactions_by_token: dict[str, FakeInteraction] = {}
        #: (author id, nonce) of messages created with ``enforce_nonce``: (message id, when, monotonic)
        self.nonces: dict[tuple[int, str], tuple[int, float]] = {}
        #: how long a nonce is enforced (Discord: "the past few minutes")
        self.nonce_seconds = 300.0
        self.global_commands: list[JSON] = []
        self.guild_commands: dict[int, list[JSON]] = {}
        self.command_syncs = 0
        self.cdn_base = "https://cdn.discordapp.com"
        self.gateway_url = "wss://gateway.discord.gg"
        self.default_bot_permissions = (
            DEFAULT_BOT_PERMISSIONS if bot_permissions is None else perm_value(bot_permissions)
        )
        self.default_guild = self.add_guild(guild_name, channel_name=channel_name)

    # building -------------------------------------------------------------------------------
    def add_guild(self, name: str, *, channel_name: str | None = "general") -> FakeGuild:
        gid = self.ids.next()
        guild = FakeGuild(gid, name, owner_id=self.owner.id)
        guild.roles[gid] = FakeRole(gid, gid, "@everyone", DEFAULT_EVERYONE_PERMISSIONS, position=0)
        bot_role = FakeRole(
            self.ids.next(),
            gid,
            self.bot_user.name,
            self.default_bot_permissions,
            position=1,
            managed=True,
            bot_id=self.bot_user.id,
        )
        guild.roles[bot_role.id] = bot_role
        guild.bot_role_id = bot_role.id
        self.guilds[gid] = guild
        guild.members[self.owner.id] = FakeMember(self.owner, gid)
        guild.members[self.bot_user.id] = FakeMember(self.bot_user, gid, roles=[bot_role.id])
        if channel_name:
            self.add_text_channel(channel_name, guild)
        return guild

    def add_text_channel(
        self, name: str, guild: FakeGuild | None = None, *, topic: str | None = None
    ) -> FakeChannel:
        guild = guild or self.default_guild
        channel = FakeChannel(
            self.ids.next(), name, TEXT_CHANNEL, guild.id, position=len(guild.channel_ids), topic=topic
        )
        self.channels[channel.id] = channel
        guild.channel_ids.append(channel.id)
        return channel

    def add_user(
        self,
        name: str,
        *,
        bot: bool = False,
        global_name: str | None = None,
        guild: FakeGuild | None = None,
        roles: list[int] | None = None,
    ) -> FakeUser:
        user = FakeUser(
            self.ids.next(), name, global_name if global_name is not None else name.title(), bot=bot
        )
        self.users[user.id] = user
        guild = guild or self.default_guild
        guild.members[user.id] = FakeMember(user, guild.id, roles=list(roles or []))
        return user

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between ``user`` and the bot (created on first use)."""
        for channel in self.channels.values():
            if channel.type == DM_CHANNEL and channel.recipient_ids == [user.id]:
                return channel
        channel = FakeChannel(self.ids.next(), "", DM_CHANNEL, None, recipient_ids=[user.id])
        self.channels[channel.id] = channel
        return channel

    def add_role(self, name: str, permissions: int, guild: FakeGuild | None = None) -> FakeRole:
        guild = guild or self.default_guild
        role = FakeRole(self.ids.next(), guild.id, name, permissions, position=len(guild.roles))
        guild.roles[role.id] = role
        return role

    def new_token(self) -> str:
        return "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(60)

    def attachment_url(self, channel_id: int, attachment_id: int, filename: str) -> str:
        return f"{self.cdn_base}/attachments/{channel_id}/{attachment_id}/{filename}"

    # lookups --------------------------------------------------------------------------------
    def guild_of(self, channel: FakeChannel) -> FakeGuild | None:
        return self.guilds.get(channel.guild_id) if channel.guild_id is not None else None

    def root_channel(self, channel: FakeChannel) -> FakeChannel:
        """The channel whose permission overwrites apply (the parent of a thread)."""
        if channel.is_thread and channel.parent_id is not None and channel.parent_id in self.channels:
            return self.channels[channel.parent_id]
        return channel

    def member(self, guild_id: int, user_id: int) -> FakeMember | None:
        guild = self.guilds.get(guild_id)
        return guild.members.get(user_id) if guild else None

    def base_permissions(self, guild: FakeGuild, user_id: int) -> int:
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        member = guild.members.get(user_id)
        perms = guild.everyone.permissions
        for rid in member.roles if member else []:
            role = guild.roles.get(rid)
            if role is not None:
                perms |= role.permissions
        if perms & discord.Permissions(administrator=True).value:
            return ALL_PERMISSIONS
        return perms

    def permissions_for(self, user_id: int, channel: FakeChannel) -> int:
        """Discord's permission computation: base role permissions, then channel overwrites."""
        guild = self.guild_of(channel)
        if guild is None:
            return discord.Permissions.text().value | discord.Permissions(view_channel=True).value
        perms = self.base_permissions(guild, user_id)
        if perms == ALL_PERMISSIONS:
            return perms
        root = self.root_channel(channel)
        everyone = root.overwrites.get(guild.id)
        if everyone is not None:
            perms = (perms & ~everyone.deny) | everyone.allow
        member = guild.members.get(user_id)
        allow = deny = 0
        for rid in member.roles if member else []:
            ow = root.overwrites.get(rid)
            if ow is not None and ow.type == 0:
                allow |= ow.allow
                deny |= ow.deny
        perms = (perms & ~deny) | allow
        own = root.overwrites.get(user_id)
        if own is not None and own.type == 1:
            perms = (perms & ~own.deny) | own.allow
        return perms

    def bot_can(self, channel: FakeChannel, **flags: bool) -> bool:
        needed = discord.Permissions(**flags).value
        return self.permissions_for(self.bot_user.id, channel) & needed == needed

    def channel_messages(self, channel_id: int) -> list[FakeMessage]:
        return [m for m in self.messages.values() if m.channel_id == channel_id and not m.deleted]
