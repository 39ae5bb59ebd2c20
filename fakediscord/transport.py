"""FakeDiscord: an in-memory Discord that real discord.py talks to.

``install()`` replaces ``discord.http.HTTPClient.request`` (bot-token REST) and
``discord.webhook.async_.AsyncWebhookAdapter.request`` (interaction callbacks, followups, edits of
the original response) with a recorder that answers like Discord from a small world model, plus
``HTTPClient.get_from_cdn`` so attachment downloads work. ``connect(bot)`` logs the bot in for
real (``setup_hook`` runs) and feeds READY/GUILD_CREATE to its parsers; ``slash``/``click``/
``select``/``submit_modal``/``autocomplete`` inject INTERACTION_CREATE and wait for the answer.

Every request is checked against Discord's documented limits (``limits.py``; by default a
violating request is refused with Discord's 400 "Invalid Form Body", as Discord would) and, when the
spec file is present, against Discord's OpenAPI schema (``openapi.py``).

Handler tasks are tracked through a context variable and a task factory: every task created while
discord.py handles an injected interaction (and the tasks those create) belongs to it, so
``wait_idle()`` can wait for a multi-step reply (defer, then followup) without sleeping.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import re
import secrets
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, Protocol, Union

import discord
import yarl
from discord.http import HTTPClient, Route
from discord.webhook.async_ import AsyncWebhookAdapter

from . import limits, openapi
from . import payloads as P
from .rest import RestApi, RestResult
from .world import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    ComponentDisabled,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Overwrite,
    Reply,
    Request,
    World,
    perm_value,
)

JSON = dict[str, Any]
#: A user: FakeUser, its id, its name, or a discord.py object with that id (User, Member, Object).
UserLike = FakeUser | int | str | discord.abc.Snowflake
#: A channel or thread: FakeChannel, its id, or a discord.py object with that id.
ChannelLike = FakeChannel | int | discord.abc.Snowflake
#: A message: FakeMessage, its id, a discord.py Message, or an InteractionResult (its response).
MessageLike = Union[FakeMessage, int, discord.abc.Snowflake, "InteractionResult"]

_log = logging.getLogger("discord.fakediscord")
_CURRENT: contextvars.ContextVar[_Tracker | None] = contextvars.ContextVar(
    "fakediscord_interaction", default=None
)
_INSTALLED: FakeDiscord | None = None
_API_PREFIX = re.compile(r"^/api/v\d+")


class NoResponse(AssertionError):
    """The bot did not answer an interaction (Discord would show "This interaction failed")."""


class BotError(AssertionError):
    """The bot logged an error (an exception in a handler) while handling an interaction."""


class MessageNotVisible(LookupError):
    """The test used a message the acting user cannot see (deleted, or someone else's ephemeral)."""


# --------------------------------------------------------------------------------------------
# task tracking


def _is_background(task: asyncio.Task[Any]) -> bool:
    """Long-lived tasks a handler starts that are not part of "handling" (view timeouts)."""
    coro = task.get_coro()
    name = getattr(coro, "__qualname__", "") or ""
    return "timeout_task_impl" in name


class _Tracker:
    """The tasks and pending gateway deliveries belonging to one injected interaction."""

    def __init__(self, fake: FakeDiscord, interaction_id: int, *, trackable: bool = True) -> None:
        self.fake = fake
        self.interaction_id = interaction_id
        self.trackable = trackable
        self.tasks: set[asyncio.Task[Any]] = set()
        self.pending = 0
        self.errors: list[logging.LogRecord] = []
        self.raised = 0

    def add(self, task: asyncio.Task[Any]) -> None:
        self.tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.fake._notify()

    def busy(self) -> list[asyncio.Task[Any]]:
        return [t for t in self.tasks if not t.done() and not _is_background(t)]

    def idle(self) -> bool:
        return not self.busy() and self.pending == 0


class _ErrorCollector(logging.Handler):
    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__(logging.ERROR)
        self.fake = fake

    def emit(self, record: logging.LogRecord) -> None:
        self.fake.errors.append(record)
        tracker = _CURRENT.get()
        if tracker is not None:
            tracker.errors.append(record)
        self.fake._notify()


def _format_records(records: Iterable[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(name)s: %(message)s")
    return "\n".join(formatter.format(r) for r in records)


# --------------------------------------------------------------------------------------------
# event sinks: where gateway events go (a bot in this process, or a websocket of the server)


class Sink(Protocol):
    #: whether handler tasks can be tracked (only for a bot in this process)
    trackable: bool

    def alive(self) -> bool: ...

    def dispatch(self, event: str, data: JSON) -> None: ...

    def dispatch_interaction(self, payload: JSON, tracker: _Tracker) -> None: ...


class _InProcessSink:
    trackable = True

    def __init__(self, fake: FakeDiscord, bot: discord.Client) -> None:
        self.fake = fake
        self.bot = bot
        self.closed = False

    def alive(self) -> bool:
        return not self.closed and not self.bot.is_closed()

    def dispatch(self, event: str, data: JSON) -> None:
        tracker = _CURRENT.get()
        if tracker is not None:
            tracker.pending += 1
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._deliver(event, data, tracker)
        else:
            # Like the real gateway, events arrive after the REST answer, not inside it.
            loop.call_soon(self._deliver, event, data, tracker)

    def _deliver(self, event: str, data: JSON, tracker: _Tracker | None) -> None:
        try:
            if self.alive():
                parser = self.bot._connection.parsers.get(event)
                if parser is not None:
                    parser(data)
        except Exception:
            _log.exception("discord.py failed to parse the fake %s event", event)
        finally:
            if tracker is not None:
                tracker.pending -= 1
            self.fake._notify()

    def dispatch_interaction(self, payload: JSON, tracker: _Tracker) -> None:
        token = _CURRENT.set(tracker)
        try:
            self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        finally:
            _CURRENT.reset(token)


class _StubGateway:
    """Stands in for ``bot.ws`` of a bot connected in process (presence, member chunks, close)."""

    def __init__(self, fake: FakeDiscord, sink: _InProcessSink) -> None:
        self.fake = fake
        self.sink = sink
        self.open = True
        self.latency = 0.0
        self.shard_id: int | None = None
        self.session_id = secrets.token_hex(16)
        self.sequence = 0

    def is_ratelimited(self) -> bool:
        return False

    async def change_presence(self, *, activity: Any = None, status: Any = None, since: float = 0.0) -> None:
        act = activity.to_dict() if activity is not None and hasattr(activity, "to_dict") else None
        self.fake.gateway_commands.append(
            {
                "op": 3,
                "d": {
                    "activities": [act] if act else [],
                    "status": str(status),
                    "since": since,
                    "afk": False,
                },
            }
        )

    async def request_chunks(
        self,
        guild_id: int,
        query: str | None = None,
        *,
        limit: int,
        user_ids: list[int] | None = None,
        presences: bool = False,
        nonce: str | None = None,
    ) -> None:
        self.fake.gateway_commands.append({"op": 8, "d": {"guild_id": str(guild_id), "nonce": nonce}})
        guild = self.fake.world.guilds.get(guild_id)
        members = list(guild.members.values()) if guild else []
        if user_ids:
            members = [m for m in members if m.user.id in user_ids]
        elif query:
            members = [m for m in members if m.user.name.lower().startswith(query.lower())]
        if limit:
            members = members[:limit]
        data: JSON = {
            "guild_id": str(guild_id),
            "members": [P.member_payload(m) for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "presences": [],
        }
        if nonce is not None:
            data["nonce"] = nonce
        self.sink.dispatch("GUILD_MEMBERS_CHUNK", data)

    async def voice_state(self, *args: Any, **kwargs: Any) -> None:
        self.fake.gateway_commands.append({"op": 4, "d": {"args": [str(a) for a in args]}})

    async def close(self, code: int = 4000) -> None:
        self.open = False


# --------------------------------------------------------------------------------------------
# the patched discord.py entry points


class _FakeResponse:
    """What discord.HTTPException reads from a response (status, reason)."""

    def __init__(self, status: int, method: str, url: str) -> None:
        self.status = status
        self.reason = _REASONS.get(status, "Error")
        self.method = method
        self.url = url
        self.headers: dict[str, str] = {"Content-Type": "application/json"}


_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


def _raise_http_error(status: int, data: Any, method: str, url: str) -> None:
    response: Any = _FakeResponse(status, method, url)
    if status == 403:
        raise discord.Forbidden(response, data)
    if status == 404:
        raise discord.NotFound(response, data)
    if status >= 500:
        raise discord.DiscordServerError(response, data)
    raise discord.HTTPException(response, data)


def _read_multipart(
    form: Iterable[Mapping[str, Any]] | None, files: Sequence[discord.File] | None
) -> tuple[Any, list[tuple[str, bytes]]]:
    for file in files or []:
        file.reset(seek=True)
    payload: Any = None
    uploads: list[tuple[int, str, bytes]] = []
    for entry in form or []:
        name = str(entry.get("name"))
        value = entry.get("value")
        if name == "payload_json":
            payload = json.loads(value) if isinstance(value, str | bytes) else value
        elif name.startswith("files["):
            index = int(name[6:-1])
            data = value.read() if value is not None and hasattr(value, "read") else bytes(value or b"")
            uploads.append((index, str(entry.get("filename") or ""), bytes(data)))
    uploads.sort(key=lambda u: u[0])
    return payload, [(name, data) for _, name, data in uploads]


def _installed() -> FakeDiscord:
    if _INSTALLED is None:
        raise RuntimeError("no FakeDiscord is installed")
    return _INSTALLED


async def _http_request(
    client: HTTPClient,
    route: Route,
    *,
    files: Sequence[discord.File] | None = None,
    form: Iterable[dict[str, Any]] | None = None,
    **kwargs: Any,
) -> Any:
    fake = _installed()
    body = kwargs.get("json")
    uploads: list[tuple[str, bytes]] = []
    if form:
        body, uploads = _read_multipart(form, files)
    return await fake._transport_request(
        route.method,
        route.url,
        kwargs.get("params"),
        body,
        uploads,
        transport="http",
        authorized=client.token is not None,
    )


async def _webhook_request(
    adapter: AsyncWebhookAdapter,
    route: Route,
    session: Any = None,
    *,
    payload: dict[str, Any] | None = None,
    multipart: list[dict[str, Any]] | None = None,
    proxy: str | None = None,
    proxy_auth: Any = None,
    files: Sequence[discord.File] | None = None,
    reason: str | None = None,
    auth_token: str | None = None,
    params: dict[str, Any] | None = None,
) -> Any:
    fake = _installed()
    body: Any = payload
    uploads: list[tuple[str, bytes]] = []
    if multipart:
        body, uploads = _read_multipart(multipart, files)
    return await fake._transport_request(
        route.method, route.url, params, body, uploads, transport="webhook", authorized=auth_token is not None
    )


async def _get_from_cdn(client: HTTPClient, url: str) -> bytes:
    fake = _installed()
    data = fake.cdn_bytes(url)
    if data is None:
        _raise_http_error(404, "asset not found", "GET", url)
    assert data is not None
    return data


def split_url(url: str, params: Mapping[str, Any] | None = None) -> tuple[str, dict[str, str]]:
    """(path without the /api/vN prefix, query) of a request URL."""
    parsed = yarl.URL(url)
    path = _API_PREFIX.sub("", parsed.path) or "/"
    query = {k: v for k, v in parsed.query.items()}
    for key, value in (params or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        query[str(key)] = str(value)
    return path, query


# --------------------------------------------------------------------------------------------
# results


class InteractionResult:
    """What happened in answer to one injected interaction (live: reflects later replies too)."""

    def __init__(self, fake: FakeDiscord, interaction: FakeInteraction, tracker: _Tracker) -> None:
        self.fake = fake
        self.interaction = interaction
        self._tracker = tracker

    @property
    def id(self) -> int:
        return self.interaction.id

    @property
    def token(self) -> str:
        return self.interaction.token

    @property
    def payload(self) -> JSON:
        """The INTERACTION_CREATE payload the bot received."""
        return self.interaction.payload

    @property
    def answered(self) -> bool:
        return self.interaction.answered

    @property
    def callback_type(self) -> int | None:
        """4 message, 5 deferred message, 6 deferred update, 7 update message, 8 choices, 9 modal."""
        return self.interaction.callback_type

    @property
    def replies(self) -> list[Reply]:
        return self.fake.replies_to(self.interaction.id)

    @property
    def callback(self) -> Request | None:
        for reply in self.replies:
            if reply.kind == "callback" and 200 <= reply.request.status < 300:
                return reply.request
        return None

    @property
    def message(self) -> FakeMessage | None:
        """The original response (for 6/7: the message the component is on), current state."""
        mid = self.interaction.original_message_id
        return self.fake.world.messages.get(mid) if mid else None

    @property
    def followups(self) -> list[FakeMessage]:
        return [self.fake.world.messages[m] for m in self.interaction.followup_ids]

    @property
    def messages(self) -> list[FakeMessage]:
        """Every message created in answer (original, followups, channel messages sent by the handler)."""
        seen: dict[int, FakeMessage] = {}
        for reply in self.replies:
            msg = reply.message
            if msg is not None and msg.id not in seen and reply.kind in ("callback", "followup", "send"):
                if reply.kind == "callback" and reply.callback_type not in (4, 5):
                    continue
                seen[msg.id] = msg
        return list(seen.values())

    @property
    def ephemeral(self) -> bool:
        """Whether the response message is ephemeral (seen only by the interaction's user)."""
        msg = self.message
        return msg is not None and msg.ephemeral

    @property
    def modal(self) -> JSON | None:
        return self.interaction.modal

    @property
    def choices(self) -> list[JSON] | None:
        return self.interaction.choices

    @property
    def errors(self) -> list[logging.LogRecord]:
        return list(self._tracker.errors)

    def idle(self) -> bool:
        return self._tracker.idle()

    async def wait_idle(self, timeout: float | None = None) -> InteractionResult:
        """Wait until every task of the bot's handler for this interaction has finished."""
        await self.fake._wait_trackers([self._tracker], timeout)
        return self

    async def wait_for_followups(self, count: int = 1, timeout: float | None = None) -> list[FakeMessage]:
        await self.fake.wait_for(
            lambda: len(self.interaction.followup_ids) >= count, timeout, what=f"{count} followup(s)"
        )
        return self.followups

    def __repr__(self) -> str:
        return (
            f"<InteractionResult id={self.id} type={self.interaction.type} "
            f"callback={self.callback_type} replies={len(self.replies)}>"
        )


# --------------------------------------------------------------------------------------------
# the fake


class FakeDiscord:
    """An in-memory Discord for real discord.py. See the module docstring.

    The world starts with the bot user (id = application id), its owner, one guild
    (``fake.guild``) with @everyone, the bot's managed role and one text channel (``fake.channel``).

    Options: ``bot_permissions`` (the bot role's permissions), ``timeout`` (default wait of the
    helpers, seconds), ``reject_invalid`` (answer requests that break Discord's documented limits
    with 400 "Invalid Form Body" like Discord; they are recorded in ``violations`` either way),
    ``validate_openapi`` (check bodies against the spec when it is available), ``gateway_events``
    (send MESSAGE_CREATE/UPDATE/DELETE, THREAD_CREATE, CHANNEL_UPDATE... to connected bots),
    ``raise_bot_errors`` (helpers raise :class:`BotError` when the bot logged an error while handling
    the interaction), ``error_logger`` (logger whose ERROR records are collected), and
    ``response_deadline`` (initial responses later than this many seconds are violations).
    """

    def __init__(
        self,
        *,
        bot_name: str = "ringside",
        application_name: str | None = None,
        guild_name: str = "Test Server",
        channel_name: str = "general",
        bot_permissions: discord.Permissions | int | None = None,
        token: str = "fake-token",
        timeout: float = 5.0,
        reject_invalid: bool = True,
        validate_openapi: bool = True,
        gateway_events: bool = True,
        raise_bot_errors: bool = True,
        error_logger: str | None = "",
        response_deadline: float | None = 3.0,
    ) -> None:
        self.world = World(
            bot_name=bot_name,
            application_name=application_name,
            bot_permissions=bot_permissions,
            guild_name=guild_name,
            channel_name=channel_name,
        )
        self.rest = RestApi(self.world, self._emit)
        self.token = token
        self.timeout = timeout
        self.reject_invalid = reject_invalid
        self.validate_openapi = validate_openapi
        self.gateway_events = gateway_events
        self.raise_bot_errors = raise_bot_errors
        self.error_logger = error_logger
        self.response_deadline = response_deadline
        #: every request, in order
        self.requests: list[Request] = []
        #: requests to routes the fake does not implement (answered 404)
        self.unhandled: list[Request] = []
        #: violations of Discord's documented limits (limits.py), "METHOD path: problem"
        self.violations: list[str] = []
        #: problems found by validating bodies against Discord's OpenAPI spec (when available)
        self.spec_errors: list[str] = []
        #: ERROR log records (exceptions discord.py caught in the bot's handlers and views, errors the
        #: bot logged itself) from ``error_logger`` ("" = the root logger, None = not collected)
        self.errors: list[logging.LogRecord] = []
        #: gateway commands the bot sent (presence updates, member requests)
        self.gateway_commands: list[JSON] = []
        self._replies: dict[int, list[Reply]] = {}
        self._trackers: dict[int, _Tracker] = {}
        self._sinks: list[Sink] = []
        self._waiters: list[asyncio.Future[None]] = []
        self._log_handler = _ErrorCollector(self)
        self._saved: tuple[Any, Any, Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._prev_factory: Any = None

    # world shortcuts ------------------------------------------------------------------------
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

    # install --------------------------------------------------------------------------------
    def install(self) -> FakeDiscord:
        global _INSTALLED
        if _INSTALLED is self:
            return self
        if _INSTALLED is not None:
            raise RuntimeError("another FakeDiscord is installed; uninstall() it first")
        self._saved = (HTTPClient.request, AsyncWebhookAdapter.request, HTTPClient.get_from_cdn)
        HTTPClient.request = _http_request  # type: ignore[method-assign, assignment]
        AsyncWebhookAdapter.request = _webhook_request  # type: ignore[method-assign, assignment]
        HTTPClient.get_from_cdn = _get_from_cdn  # type: ignore[method-assign, assignment]
        _INSTALLED = self
        if self.error_logger is not None:
            logging.getLogger(self.error_logger).addHandler(self._log_handler)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            self._install_task_factory(loop)
        return self

    def uninstall(self) -> None:
        global _INSTALLED
        if _INSTALLED is not self:
            return
        assert self._saved is not None
        HTTPClient.request, AsyncWebhookAdapter.request, HTTPClient.get_from_cdn = self._saved  # type: ignore[method-assign]
        _INSTALLED = None
        if self.error_logger is not None:
            logging.getLogger(self.error_logger).removeHandler(self._log_handler)
        loop = self._loop
        if loop is not None and not loop.is_closed() and loop.get_task_factory() == self._task_factory:
            loop.set_task_factory(self._prev_factory)
        self._loop = None

    @property
    def installed(self) -> bool:
        return _INSTALLED is self

    def __enter__(self) -> FakeDiscord:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    async def __aenter__(self) -> FakeDiscord:
        return self.install()

    async def __aexit__(self, *exc: object) -> None:
        await self.close_bots()
        self.uninstall()

    async def close_bots(self) -> None:
        """Close every bot connected in process (``await bot.close()``)."""
        for sink in self._sinks:
            if isinstance(sink, _InProcessSink) and not sink.bot.is_closed():
                await sink.bot.close()

    def _install_task_factory(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        self._loop = loop
        self._prev_factory = loop.get_task_factory()
        loop.set_task_factory(self._task_factory)  # type: ignore[arg-type]

    def _task_factory(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any
    ) -> asyncio.Task[Any]:
        context = kwargs.get("context")
        tracker = context.get(_CURRENT) if context is not None else _CURRENT.get()
        task: asyncio.Task[Any]
        if self._prev_factory is not None:
            task = self._prev_factory(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        if tracker is not None:
            tracker.add(task)
        return task

    # requests -------------------------------------------------------------------------------
    async def _transport_request(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        body: Any,
        files: list[tuple[str, bytes]],
        *,
        transport: str,
        authorized: bool,
    ) -> Any:
        path, query = split_url(url, params)
        req = Request(method, path, query, body, files, transport=transport, authorized=authorized)
        status, data = self.handle(req)
        await asyncio.sleep(0)  # a real request yields to the loop
        if 200 <= status < 300:
            return "" if data is None else data
        _raise_http_error(status, data, method, url)

    def handle(self, req: Request) -> tuple[int, Any]:
        """Record, check and answer one request (used in process and by the local server)."""
        tracker = _CURRENT.get()
        existing = self.rest.existing_attachment_ids(req)
        req.violations = limits.check_request(req, existing_attachment_ids=existing)
        self.violations.extend(req.violations)
        if self.validate_openapi and openapi.SPEC_AVAILABLE and req.method in ("POST", "PUT", "PATCH"):
            try:
                req.spec_errors = openapi.validate_request(req)
            except Exception as exc:  # a broken spec must not break the bot under test
                req.spec_errors = [f"{req.method} {req.path}: OpenAPI validation failed: {exc!r}"]
            self.spec_errors.extend(req.spec_errors)
        self.requests.append(req)
        if req.violations and self.reject_invalid:
            found = self.rest.match(req.method, req.path)
            result = RestResult(
                400,
                {
                    "message": "Invalid Form Body",
                    "code": 50035,
                    "errors": {
                        "_limits": {"_errors": [{"code": "LIMIT", "message": v} for v in req.violations]}
                    },
                },
                kind=found[0].name if found else None,
            )
            if found:
                req.route = f"{found[0].method} {found[0].template}"
        else:
            result = self.rest.handle(req)
        if result.unhandled:
            self.unhandled.append(req)
            _log.warning("fake Discord has no route for %s %s (answered 404)", req.method, req.path)
        req.status = result.status
        req.response = result.body
        iid = result.interaction_id
        if iid is None and tracker is not None:
            iid = tracker.interaction_id
        req.interaction_id = iid
        if iid is not None:
            self._replies.setdefault(iid, []).append(Reply(result.kind or "unknown", req, result.message))
        if result.kind == "callback" and 200 <= result.status < 300 and iid is not None:
            self._check_deadline(self.world.interactions[iid], req)
        self._notify()
        return result.status, result.body

    def _check_deadline(self, inter: FakeInteraction, req: Request) -> None:
        if self.response_deadline is None or inter.callback_at is None:
            return
        delay = inter.callback_at - inter.created_at
        if delay > self.response_deadline:
            problem = (
                f"{req.method} {req.path}: initial response after {delay:.2f} s (Discord requires it "
                f"within {self.response_deadline:g} s; defer first when work may take longer)"
            )
            req.violations.append(problem)
            self.violations.append(problem)

    def cdn_bytes(self, url: str) -> bytes | None:
        parts = yarl.URL(url).path.split("/")
        for part in parts:
            if part.isdigit() and int(part) in self.world.attachments:
                return self.world.attachments[int(part)].data
        return None

    def _emit(self, event: str, data: JSON) -> None:
        if not self.gateway_events:
            return
        for sink in self._sinks:
            if sink.alive():
                sink.dispatch(event, data)

    def attach_sink(self, sink: Sink) -> None:
        """Register a connected gateway client (used by the local server)."""
        self._sinks.append(sink)
        self._notify()

    def _active_sink(self) -> Sink:
        for sink in reversed(self._sinks):
            if sink.alive():
                return sink
        raise RuntimeError(
            "no bot is connected: `await fake.connect(bot)` (in process) or let the bot connect to the "
            "fake server's gateway first"
        )

    @property
    def connected(self) -> bool:
        return any(s.alive() for s in self._sinks)

    # waiting --------------------------------------------------------------------------------
    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    async def wait_for(
        self, predicate: Callable[[], bool], timeout: float | None = None, what: str = "a condition"
    ) -> None:
        """Wait (without polling) until ``predicate()`` holds; re-checked after every request/event."""
        loop = asyncio.get_running_loop()
        limit = self.timeout if timeout is None else timeout
        deadline = loop.time() + limit
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"timed out after {limit:g} s waiting for {what}")
            fut: asyncio.Future[None] = loop.create_future()
            self._waiters.append(fut)
            try:
                await asyncio.wait([fut], timeout=remaining)
            finally:
                if not fut.done():
                    fut.cancel()
                if fut in self._waiters:
                    self._waiters.remove(fut)

    async def _wait_trackers(self, trackers: list[_Tracker], timeout: float | None) -> None:
        trackers = [t for t in trackers if t.trackable]

        def idle() -> bool:
            return all(t.idle() for t in trackers)

        try:
            await self.wait_for(idle, timeout, what="the bot's handlers to finish")
        except TimeoutError as exc:
            busy = [t.get_name() for tr in trackers for t in tr.busy()]
            raise TimeoutError(f"{exc}; still running: {busy}") from None
        # let call_soon deliveries scheduled by the last request run
        await asyncio.sleep(0)
        if not idle():
            await self.wait_for(idle, timeout, what="the bot's handlers to finish")
        self._raise_errors(trackers)

    async def wait_idle(self, timeout: float | None = None) -> None:
        """Wait until the handlers of every interaction injected in process have finished."""
        await self._wait_trackers(list(self._trackers.values()), timeout)

    def _raise_errors(self, trackers: Iterable[_Tracker]) -> None:
        if not self.raise_bot_errors:
            return
        fresh: list[logging.LogRecord] = []
        for tracker in trackers:
            fresh += tracker.errors[tracker.raised :]
            tracker.raised = len(tracker.errors)
        if fresh:
            raise BotError("the bot logged errors while handling the interaction:\n" + _format_records(fresh))

    # interactions ---------------------------------------------------------------------------
    def _new_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: JSON,
        *,
        message: FakeMessage | None = None,
        locale: str = "en-US",
        name: str | None = None,
        custom_id: str | None = None,
        parent: FakeInteraction | None = None,
    ) -> FakeInteraction:
        iid = self.world.ids.next()
        token = self.world.new_token()
        payload = P.interaction_payload(
            self.world,
            interaction_id=iid,
            token=token,
            type=itype,
            user=user,
            channel=channel,
            data=data,
            message=message,
            locale=locale,
        )
        inter = FakeInteraction(
            iid,
            token,
            itype,
            user,
            channel.guild_id,
            channel.id,
            payload,
            source_message_id=message.id if message is not None else None,
            parent_interaction_id=parent.id if parent is not None else None,
            name=name,
            custom_id=custom_id,
        )
        self.world.interactions[iid] = inter
        self.world.interactions_by_token[token] = inter
        return inter

    async def dispatch_interaction(
        self,
        inter: FakeInteraction,
        *,
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Send a prepared interaction to the connected bot and wait for its answer."""
        sink = self._active_sink()
        tracker = _Tracker(self, inter.id, trackable=sink.trackable)
        self._trackers[inter.id] = tracker
        result = InteractionResult(self, inter, tracker)
        what = f"the bot to answer interaction {self._describe(inter)}"
        inter.created_at = time.monotonic()
        sink.dispatch_interaction(inter.payload, tracker)
        limit = self.timeout if timeout is None else timeout
        try:
            if sink.trackable:
                await self.wait_for(lambda: inter.answered or tracker.idle(), limit, what=what)
            else:
                await self.wait_for(lambda: inter.answered, limit, what=what)
        except TimeoutError as exc:
            if tracker.errors:
                self._raise_errors([tracker])
            if expect_response:
                busy = [t.get_name() for t in tracker.busy()]
                raise NoResponse(
                    f"{exc}" + (f"; handler tasks still running: {busy}" if busy else "")
                ) from None
            return result
        if not inter.answered and sink.trackable:
            await asyncio.sleep(0)
        self._raise_errors([tracker])
        if expect_response and not inter.answered:
            raise NoResponse(
                f"the bot did not answer interaction {self._describe(inter)}: no handler responded "
                "(a real user would see 'This interaction failed')"
            )
        if idle:
            await result.wait_idle(timeout)
        return result

    def _describe(self, inter: FakeInteraction) -> str:
        if inter.type == APPLICATION_COMMAND:
            return f"/{inter.name}"
        if inter.type == AUTOCOMPLETE:
            return f"autocomplete /{inter.name}"
        return f"{inter.custom_id!r} (type {inter.type})"

    async def slash(
        self,
        user: UserLike,
        name: str,
        options: Mapping[str, Any] | None = None,
        *,
        channel: ChannelLike | None = None,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` runs ``/name`` (``"group sub"`` for subcommands) with ``options`` by name.

        The command must have been synced by the bot (its definition gives option types; values are
        checked like the client would: required options, choices, min/max). User options take a
        :class:`FakeUser`, channel options a :class:`FakeChannel`, role options a :class:`FakeRole`,
        attachment options ``(filename, bytes)``. Returns once the bot has answered (``idle=True``:
        once its handler has finished).
        """
        u = self._user(user)
        ch = self._channel(channel)
        data = self._command_data(name, options or {}, ch, u, focused=None)
        inter = self._new_interaction(APPLICATION_COMMAND, u, ch, data, locale=locale, name=name)
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    async def autocomplete(
        self,
        user: UserLike,
        name: str,
        options: Mapping[str, Any],
        *,
        focused: str,
        channel: ChannelLike | None = None,
        locale: str = "en-US",
        timeout: float | None = None,
    ) -> InteractionResult:
        """The user is typing ``options[focused]``; returns the result with ``.choices``."""
        u = self._user(user)
        ch = self._channel(channel)
        data = self._command_data(name, options, ch, u, focused=focused)
        inter = self._new_interaction(AUTOCOMPLETE, u, ch, data, locale=locale, name=name)
        return await self.dispatch_interaction(inter, timeout=timeout)

    async def click(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        *,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` clicks the button ``custom_id`` on ``message`` (which must show it, enabled)."""
        u = self._user(user)
        msg = self._visible_message(message, u)
        comp = msg.component(custom_id)
        if not comp.is_button:
            raise TypeError(f"{custom_id!r} is not a button (component type {comp.type}); use fake.select()")
        if comp.disabled:
            raise ComponentDisabled(
                f"button {custom_id!r} on message {msg.id} is disabled; a user cannot click it"
            )
        data: JSON = {"custom_id": custom_id, "component_type": 2}
        if comp.id is not None:
            data["id"] = comp.id
        channel = self.world.channels[msg.channel_id]
        inter = self._new_interaction(
            MESSAGE_COMPONENT, u, channel, data, message=msg, locale=locale, custom_id=custom_id
        )
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    async def select(
        self,
        user: UserLike,
        message: MessageLike,
        custom_id: str,
        values: Sequence[Any],
        *,
        locale: str = "en-US",
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` picks ``values`` in the select menu ``custom_id`` on ``message``.

        String selects take option values; user/role/mentionable/channel selects take
        FakeUser/FakeRole/FakeChannel objects (or ids).
        """
        u = self._user(user)
        msg = self._visible_message(message, u)
        comp = msg.component(custom_id)
        if not comp.is_select:
            raise TypeError(
                f"{custom_id!r} is not a select menu (component type {comp.type}); use fake.click()"
            )
        if comp.disabled:
            raise ComponentDisabled(f"select {custom_id!r} on message {msg.id} is disabled")
        channel = self.world.channels[msg.channel_id]
        data = self._select_data(comp.raw, list(values), channel, u)
        inter = self._new_interaction(
            MESSAGE_COMPONENT, u, channel, data, message=msg, locale=locale, custom_id=custom_id
        )
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    async def submit_modal(
        self,
        user: UserLike,
        opened_by: InteractionResult | FakeInteraction | int,
        values: Mapping[str, str | Sequence[str]],
        *,
        idle: bool = False,
        timeout: float | None = None,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Submit the modal the bot opened (callback type 9) in answer to ``opened_by``.

        ``values`` maps text input custom_ids to text (select custom_ids to lists of values).
        """
        source = self._interaction(opened_by)
        if source.modal is None:
            raise LookupError(f"the bot did not open a modal in answer to {self._describe(source)}")
        u = self._user(user)
        if u.id != source.user.id:
            raise MessageNotVisible("only the user who triggered the modal can submit it")
        modal = source.modal
        given = dict(values)
        components = [self._submitted(c, given) for c in modal.get("components") or []]
        components = [c for c in components if c is not None]
        if given:
            raise ValueError(f"the modal has no inputs {sorted(given)}")
        data = {"custom_id": modal.get("custom_id"), "components": components}
        channel = self.world.channels[source.channel_id]
        message = self.world.messages.get(source.source_message_id or 0)
        inter = self._new_interaction(
            MODAL_SUBMIT,
            u,
            channel,
            data,
            message=message,
            custom_id=str(modal.get("custom_id")),
            parent=source,
        )
        return await self.dispatch_interaction(
            inter, idle=idle, timeout=timeout, expect_response=expect_response
        )

    def _submitted(self, comp: JSON, given: dict[str, Any]) -> JSON | None:
        ctype = comp.get("type")
        if ctype == 1:
            children = [self._submitted(c, given) for c in comp.get("components") or []]
            return {"type": 1, "components": [c for c in children if c is not None]}
        if ctype == 18:
            inner = self._submitted(comp.get("component") or {}, given)
            out: JSON = {"type": 18, "component": inner}
            if comp.get("id") is not None:
                out["id"] = comp["id"]
            return out
        custom_id = str(comp.get("custom_id"))
        if ctype == 4:
            value = given.pop(custom_id, comp.get("value") or "")
            if not isinstance(value, str):
                raise TypeError(f"text input {custom_id!r} takes a string")
            if comp.get("required", True) and not value:
                raise ValueError(f"text input {custom_id!r} is required")
            low, high = comp.get("min_length"), comp.get("max_length")
            if value and ((low is not None and len(value) < low) or (high is not None and len(value) > high)):
                raise ValueError(f"text input {custom_id!r} needs {low}..{high} characters")
            out = {"type": 4, "custom_id": custom_id, "value": value}
            if comp.get("id") is not None:
                out["id"] = comp["id"]
            return out
        if ctype in (3, 5, 6, 7, 8):
            picked = given.pop(custom_id, [])
            out = {"type": ctype, "custom_id": custom_id, "values": [str(v) for v in picked]}
            if comp.get("id") is not None:
                out["id"] = comp["id"]
            return out
        if ctype == 10:
            return {"type": 10, "id": comp.get("id")}
        return None

    # interaction data builders --------------------------------------------------------------
    def _find_command(self, name: str, guild: FakeGuild | None) -> tuple[JSON, bool]:
        if guild is not None:
            for cmd in self.world.guild_commands.get(guild.id, []):
                if cmd["name"] == name and cmd.get("type", 1) == 1:
                    return cmd, True
        for cmd in self.world.global_commands:
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                return cmd, False
        known = [c["name"] for c in self.world.global_commands]
        if guild is not None:
            known += [c["name"] for c in self.world.guild_commands.get(guild.id, [])]
        raise LookupError(
            f"/{name} is not registered with (fake) Discord; registered: {sorted(known)}. "
            "Did the bot sync its command tree (e.g. `await bot.tree.sync()` in setup_hook)?"
        )

    def _command_data(
        self,
        name: str,
        options: Mapping[str, Any],
        channel: FakeChannel,
        user: FakeUser,
        *,
        focused: str | None,
    ) -> JSON:
        guild = self.world.guild_of(channel)
        parts = name.split()
        cmd, guild_scoped = self._find_command(parts[0], guild)
        defs: list[JSON] = cmd.get("options") or []
        resolved: JSON = {}
        chain: list[JSON] = []
        for part in parts[1:]:
            sub = next((o for o in defs if o["name"] == part and o["type"] in (1, 2)), None)
            if sub is None:
                subs = [o["name"] for o in defs if o["type"] in (1, 2)]
                raise LookupError(f"/{' '.join(parts)}: no subcommand {part!r} (has {subs})")
            chain.append(sub)
            defs = sub.get("options") or []
        if any(o["type"] in (1, 2) for o in defs):
            subs = [o["name"] for o in defs if o["type"] in (1, 2)]
            raise LookupError(f"/{name} needs a subcommand: one of {subs}")
        top = self._options(defs, options, resolved, channel, user, focused)
        for sub in reversed(chain):
            node: JSON = {"name": sub["name"], "type": sub["type"]}
            node["options"] = top
            top = [node]
        data: JSON = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if top:
            data["options"] = top
        if resolved:
            data["resolved"] = resolved
        if guild_scoped and guild is not None:
            data["guild_id"] = str(guild.id)
        return data

    def _options(
        self,
        defs: list[JSON],
        given: Mapping[str, Any],
        resolved: JSON,
        channel: FakeChannel,
        user: FakeUser,
        focused: str | None,
    ) -> list[JSON]:
        by_name = {d["name"]: d for d in defs}
        unknown = [k for k in given if k not in by_name]
        if unknown:
            raise LookupError(f"unknown option(s) {unknown}; the command has {list(by_name)}")
        out: list[JSON] = []
        for d in defs:
            oname = d["name"]
            if oname not in given:
                if d.get("required") and oname != focused:
                    raise ValueError(f"required option {oname!r} is missing")
                continue
            value = given[oname]
            if oname == focused:
                out.append({"name": oname, "type": d["type"], "value": str(value), "focused": True})
                continue
            out.append(
                {
                    "name": oname,
                    "type": d["type"],
                    "value": self._option_value(d, value, resolved, channel, user),
                }
            )
        if focused is not None and focused not in given:
            raise ValueError(f"focused option {focused!r} needs a (partial) value in options")
        return out

    def _option_value(self, d: JSON, value: Any, resolved: JSON, channel: FakeChannel, user: FakeUser) -> Any:
        otype = d["type"]
        oname = d["name"]
        guild = self.world.guild_of(channel)
        choices = [c["value"] for c in d.get("choices") or []]
        if otype in (3, 4, 10):
            if otype == 3 and not isinstance(value, str):
                raise TypeError(f"option {oname!r} is a string option, got {value!r}")
            if otype == 4 and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"option {oname!r} is an integer option, got {value!r}")
            if otype == 10 and (isinstance(value, bool) or not isinstance(value, int | float)):
                raise TypeError(f"option {oname!r} is a number option, got {value!r}")
            if choices and value not in choices:
                raise ValueError(f"option {oname!r} must be one of the choices {choices}, got {value!r}")
            if otype == 3:
                low, high = d.get("min_length"), d.get("max_length")
                if (low is not None and len(value) < low) or (high is not None and len(value) > high):
                    raise ValueError(f"option {oname!r} needs {low}..{high} characters")
            else:
                low, high = d.get("min_value"), d.get("max_value")
                if (low is not None and value < low) or (high is not None and value > high):
                    raise ValueError(f"option {oname!r} must be within {low}..{high}, got {value}")
            return value
        if otype == 5:
            if not isinstance(value, bool):
                raise TypeError(f"option {oname!r} is a boolean option, got {value!r}")
            return value
        if otype == 6 or (otype == 9 and not isinstance(value, FakeRole)):
            target = self._user(value)
            P.resolved_user(self.world, target, guild, channel, resolved)
            return str(target.id)
        if otype == 7:
            target_ch = self._channel(value)
            types = d.get("channel_types")
            if types and target_ch.type not in types:
                raise ValueError(f"option {oname!r} takes channel types {types}, got {target_ch.type}")
            P.resolved_channel(self.world, target_ch, user, resolved)
            return str(target_ch.id)
        if otype in (8, 9):
            role = self._role(value, guild)
            P.resolved_role(role, resolved)
            return str(role.id)
        if otype == 11:
            att = self._option_attachment(value, channel)
            resolved.setdefault("attachments", {})[str(att.id)] = P.attachment_payload(att)
            return str(att.id)
        raise ValueError(f"option {oname!r} has unsupported type {otype}")

    def _option_attachment(self, value: Any, channel: FakeChannel) -> FakeAttachment:
        if isinstance(value, FakeAttachment):
            return value
        filename, data = value
        att = self.rest._make_attachment(channel.id, str(filename), bytes(data), None)
        att.ephemeral = True
        return att

    def _select_data(self, comp: JSON, values: list[Any], channel: FakeChannel, user: FakeUser) -> JSON:
        ctype = int(comp["type"])
        low = comp.get("min_values", 1)
        high = comp.get("max_values", 1)
        low = 1 if low is None else low
        high = 1 if high is None else high
        if not low <= len(values) <= high:
            raise ValueError(
                f"select {comp.get('custom_id')!r} takes {low}..{high} values, got {len(values)}"
            )
        data: JSON = {"custom_id": comp.get("custom_id"), "component_type": ctype}
        if comp.get("id") is not None:
            data["id"] = comp["id"]
        guild = self.world.guild_of(channel)
        resolved: JSON = {}
        out: list[str] = []
        if ctype == 3:
            allowed = [str(o.get("value")) for o in comp.get("options") or []]
            for v in values:
                if str(v) not in allowed:
                    raise ValueError(
                        f"{v!r} is not an option of select {comp.get('custom_id')!r} ({allowed})"
                    )
                out.append(str(v))
        else:
            for v in values:
                if ctype == 8 or isinstance(v, FakeChannel):
                    target_ch = self._channel(v)
                    P.resolved_channel(self.world, target_ch, user, resolved)
                    out.append(str(target_ch.id))
                elif ctype == 6 or isinstance(v, FakeRole):
                    role = self._role(v, guild)
                    P.resolved_role(role, resolved)
                    out.append(str(role.id))
                else:
                    target = self._user(v)
                    P.resolved_user(self.world, target, guild, channel, resolved)
                    out.append(str(target.id))
        data["values"] = out
        if resolved:
            data["resolved"] = resolved
        return data

    # lookups --------------------------------------------------------------------------------
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

    # views for tests ------------------------------------------------------------------------
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

    # connecting a bot in process ------------------------------------------------------------
    async def connect(self, bot: discord.Client, *, timeout: float | None = None) -> None:
        """Log ``bot`` in for real (runs ``setup_hook``), then feed READY and GUILD_CREATE.

        Returns when the bot is ready (``on_ready`` dispatched). The bot has no websocket; events
        reach it through its parsers. Close it with ``await bot.close()``.
        """
        if isinstance(bot, discord.AutoShardedClient):
            raise NotImplementedError("connect() drives unsharded clients; use the fake server for sharding")
        self.install()
        self._install_task_factory(asyncio.get_running_loop())
        await bot.login(self.token)
        sink = _InProcessSink(self, bot)
        bot.ws = _StubGateway(self, sink)  # type: ignore[assignment]
        state = bot._connection
        saved = state.guild_ready_timeout
        # discord.py waits guild_ready_timeout (2 s) after the last GUILD_CREATE before on_ready;
        # all guilds are delivered at once here, so a short wait is enough.
        state.guild_ready_timeout = min(saved, 0.01)
        self._sinks.append(sink)
        try:
            state.parsers["READY"](
                P.ready_payload(
                    self.world, session_id=secrets.token_hex(16), resume_gateway_url=self.world.gateway_url
                )
            )
            for guild in self.world.guilds.values():
                state.parsers["GUILD_CREATE"](P.guild_create_payload(self.world, guild))
            await asyncio.wait_for(bot.wait_until_ready(), self.timeout if timeout is None else timeout)
        finally:
            state.guild_ready_timeout = saved
        self._notify()

    def disconnect(self, bot: discord.Client) -> None:
        """Stop sending events to ``bot`` (closing it does that too)."""
        for sink in self._sinks:
            if isinstance(sink, _InProcessSink) and sink.bot is bot:
                sink.closed = True
