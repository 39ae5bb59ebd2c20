"""Discord's REST API over the world model: one handler per route, answering like Discord.

Shared by the in-process transport and the local fake server. ``RestApi.handle(req)`` never raises
for API-level problems: it returns a :class:`RestResult` with Discord's status and JSON error body
(``{"message", "code", "errors"?}``) so discord.py raises its usual ``NotFound``/``Forbidden``/
``HTTPException``. Routes the fake does not know answer 404 and are flagged ``unhandled``.
"""

from __future__ import annotations

import copy
import mimetypes
import re
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import payloads as P
from .world import (
    APPLICATION_COMMAND,
    DM_CHANNEL,
    FLAG_EPHEMERAL,
    FLAG_HAS_THREAD,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeAttachment,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    Request,
    World,
    iso,
    now,
)

JSON = dict[str, Any]
Emit = Callable[[str, JSON], None]
Handler = Callable[[Request, dict[str, str]], "RestResult"]

_UPLOAD_INDEX_LIMIT = 1 << 22
_CREATE_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_EPHEMERAL | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_IS_COMPONENTS_V2
_EDIT_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_IS_COMPONENTS_V2
_MENTION = re.compile(r"<@!?(\d+)>")

#: Callback types Discord accepts for each interaction type.
_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({4, 5, 9}),
    MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9}),
    4: frozenset({8}),
    MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}


class ApiError(Exception):
    """A Discord API error: HTTP status, Discord error code, message and optional field errors."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {message} (code {code})")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> JSON:
        data: JSON = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


def invalid_form(field: str, message: str, code: str = "BASE_TYPE_INVALID") -> ApiError:
    errors: JSON = {}
    node = errors
    parts = field.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = {"_errors": [{"code": code, "message": message}]}
    return ApiError(400, 50035, "Invalid Form Body", errors)


UNKNOWN_CHANNEL = (404, 10003, "Unknown Channel")
UNKNOWN_MESSAGE = (404, 10008, "Unknown Message")
MISSING_PERMISSIONS = (403, 50013, "Missing Permissions")


def _err(spec: tuple[int, int, str]) -> ApiError:
    return ApiError(*spec)


@dataclass
class RestResult:
    status: int
    body: Any
    kind: str | None = None
    message: FakeMessage | None = None
    interaction_id: int | None = None
    unhandled: bool = False


def truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true", "yes")


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ApiError(404, 0, "404: Not Found") from None


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return None


@dataclass
class _Route:
    method: str
    pattern: re.Pattern[str]
    template: str
    name: str
    handler: Handler


class RestApi:
    def __init__(self, world: World, emit: Emit) -> None:
        self.world = world
        self.emit = emit
        self.routes: list[_Route] = []
        add = self._add
        # users / application / gateway
        add("GET", "/users/@me", "get_current_user", self.get_current_user)
        add("PATCH", "/users/@me", "edit_current_user", self.edit_current_user)
        add("POST", "/users/@me/channels", "create_dm", self.create_dm)
        add("GET", "/users/{user_id}", "get_user", self.get_user)
        add("GET", "/oauth2/applications/@me", "get_application", self.get_application)
        add("GET", "/applications/@me", "get_application", self.get_application)
        add("GET", "/gateway", "get_gateway", self.get_gateway)
        add("GET", "/gateway/bot", "get_gateway_bot", self.get_gateway_bot)
        # application commands
        for base in (
            "/applications/{application_id}/commands",
            "/applications/{application_id}/guilds/{guild_id}/commands",
        ):
            add("GET", base, "get_commands", self.get_commands)
            add("PUT", base, "sync_commands", self.put_commands)
            add("POST", base, "create_command", self.post_command)
            add("GET", base + "/{command_id}", "get_command", self.get_command)
            add("PATCH", base + "/{command_id}", "edit_command", self.patch_command)
            add("DELETE", base + "/{command_id}", "delete_command", self.delete_command)
        # interactions
        add("POST", "/interactions/{interaction_id}/{token}/callback", "callback", self.interaction_callback)
        hook = "/webhooks/{application_id}/{token}"
        add("POST", hook, "followup", self.execute_webhook)
        add("GET", hook + "/messages/@original", "get_original", self.get_original)
        add("PATCH", hook + "/messages/@original", "edit_original", self.edit_original)
        add("DELETE", hook + "/messages/@original", "delete_original", self.delete_original)
        add("GET", hook + "/messages/{message_id}", "get_followup", self.get_followup)
        add("PATCH", hook + "/messages/{message_id}", "edit_followup", self.edit_followup)
        add("DELETE", hook + "/messages/{message_id}", "delete_followup", self.delete_followup)
        # channels and messages
        ch = "/channels/{channel_id}"
        add("GET", ch, "get_channel", self.get_channel)
        add("PATCH", ch, "edit_channel", self.edit_channel)
        add("DELETE", ch, "delete_channel", self.delete_channel)
        add("GET", ch + "/messages", "history", self.list_messages)
        add("POST", ch + "/messages", "send", self.create_message)
        add("PUT", ch + "/messages/pins/{message_id}", "pin", self.pin)
        add("DELETE", ch + "/messages/pins/{message_id}", "unpin", self.unpin)
        add("PUT", ch + "/pins/{message_id}", "pin", self.pin)
        add("DELETE", ch + "/pins/{message_id}", "unpin", self.unpin)
        add("GET", ch + "/messages/{message_id}", "get_message", self.get_message)
        add("PATCH", ch + "/messages/{message_id}", "edit", self.edit_message)
        add("DELETE", ch + "/messages/{message_id}", "delete", self.delete_message)
        add("POST", ch + "/messages/{message_id}/threads", "create_thread", self.start_thread_from_message)
        add("POST", ch + "/threads", "create_thread", self.start_thread)
        add("PUT", ch + "/messages/{message_id}/reactions/{emoji}/@me", "add_reaction", self.add_reaction)
        add(
            "DELETE",
            ch + "/messages/{message_id}/reactions/{emoji}/@me",
            "remove_reaction",
            self.remove_reaction,
        )
        add("DELETE", ch + "/messages/{message_id}/reactions", "clear_reactions", self.clear_reactions)
        add("POST", ch + "/typing", "typing", self.typing)
        add("GET", ch + "/thread-members", "thread_members", self.get_thread_members)
        add("PUT", ch + "/thread-members/{user_id}", "join_thread", self.add_thread_member)
        add("DELETE", ch + "/thread-members/{user_id}", "leave_thread", self.remove_thread_member)
        # guilds
        add("GET", "/guilds/{guild_id}", "get_guild", self.get_guild)
        add("GET", "/guilds/{guild_id}/channels", "get_guild_channels", self.get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", "get_roles", self.get_roles)
        add("GET", "/guilds/{guild_id}/members", "get_members", self.get_members)
        add("GET", "/guilds/{guild_id}/members/{user_id}", "get_member", self.get_member)
        add("GET", "/guilds/{guild_id}/threads/active", "active_threads", self.active_threads)

    # routing --------------------------------------------------------------------------------
    def _add(self, method: str, template: str, name: str, handler: Handler) -> None:
        regex = ""
        for piece in re.split(r"(\{\w+\})", template):
            if piece.startswith("{"):
                regex += f"(?P<{piece[1:-1]}>[^/]+)"
            else:
                regex += re.escape(piece)
        self.routes.append(_Route(method, re.compile(f"^{regex}$"), template, name, handler))

    def match(self, method: str, path: str) -> tuple[_Route, dict[str, str]] | None:
        for route in self.routes:
            if route.method == method:
                m = route.pattern.match(path)
                if m:
                    return route, m.groupdict()
        return None

    def handle(self, req: Request) -> RestResult:
        found = self.match(req.method, req.path)
        if found is None:
            return RestResult(404, {"message": "404: Not Found", "code": 0}, unhandled=True)
        route, params = found
        req.route = f"{route.method} {route.template}"
        try:
            result = route.handler(req, params)
        except ApiError as exc:
            return RestResult(exc.status, exc.body(), kind=route.name)
        if result.kind is None:
            result.kind = route.name
        return result

    def existing_attachment_ids(self, req: Request) -> set[int] | None:
        """For an edit request: ids of the attachments the target message has now."""
        found = self.match(req.method, req.path)
        if found is None:
            return None
        route, params = found
        msg: FakeMessage | None = None
        if route.name == "edit":
            msg = (
                self.world.messages.get(int(params["message_id"])) if params["message_id"].isdigit() else None
            )
        elif route.name in ("edit_original", "edit_followup", "callback"):
            inter = self.world.interactions_by_token.get(params["token"])
            if inter is not None:
                if route.name == "edit_original":
                    mid = inter.original_message_id
                elif route.name == "callback":
                    mid = inter.source_message_id
                else:
                    mid = int(params["message_id"]) if params["message_id"].isdigit() else None
                msg = self.world.messages.get(mid) if mid else None
        return {a.id for a in msg.attachments} if msg is not None else None

    # helpers --------------------------------------------------------------------------------
    def _channel(self, channel_id: str) -> FakeChannel:
        channel = self.world.channels.get(_int(channel_id))
        if channel is None or channel.deleted:
            raise _err(UNKNOWN_CHANNEL)
        if channel.guild_id is not None and not self.world.bot_can(channel, view_channel=True):
            raise ApiError(403, 50001, "Missing Access")
        return channel

    def _channel_message(self, channel: FakeChannel, message_id: str) -> FakeMessage:
        msg = self.world.messages.get(_int(message_id))
        # Ephemeral messages only exist for the interaction webhook, not as channel messages.
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise _err(UNKNOWN_MESSAGE)
        return msg

    def _require(self, channel: FakeChannel, **flags: bool) -> None:
        if channel.guild_id is not None and not self.world.bot_can(channel, **flags):
            raise _err(MISSING_PERMISSIONS)

    def _body(self, req: Request) -> JSON:
        return req.json if isinstance(req.json, dict) else {}

    def _message_json(self, msg: FakeMessage) -> JSON:
        return P.message_payload(self.world, msg)

    def _emit_message(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return  # Discord sends no gateway events for ephemeral messages
        if event == "MESSAGE_DELETE":
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if msg.guild_id is not None:
                data["guild_id"] = str(msg.guild_id)
            self.emit(event, data)
        else:
            self.emit(event, P.message_payload(self.world, msg, gateway=True))

    def _make_attachment(
        self, channel_id: int, filename: str, data: bytes, meta: JSON | None
    ) -> FakeAttachment:
        meta = meta or {}
        name = meta.get("filename") or filename
        att = FakeAttachment(
            id=self.world.ids.next(),
            filename=name,
            data=data,
            content_type=mimetypes.guess_type(name)[0],
            description=meta.get("description"),
        )
        size = png_size(data)
        if size is not None:
            att.width, att.height = size
        att.url = self.world.attachment_url(channel_id, att.id, name)
        self.world.attachments[att.id] = att
        return att

    def _number_components(self, components: list[JSON]) -> list[JSON]:
        """Discord echoes components with a numeric ``id`` on each (assigned when missing)."""
        result = copy.deepcopy(components)
        used = {c.get("id") for c, _ in _iter_components(result) if isinstance(c.get("id"), int)}
        counter = 0
        for comp, _ in _iter_components(result):
            if not isinstance(comp.get("id"), int) or comp.get("id") == 0:
                counter += 1
                while counter in used:
                    counter += 1
                comp["id"] = counter
        return result

    def _apply(self, msg: FakeMessage, body: JSON, files: list[tuple[str, bytes]], *, creating: bool) -> None:
        if not creating:
            msg.history.append(self._message_json(msg))
            msg.edited_at = now()
        if "content" in body:
            msg.content = "" if body["content"] is None else str(body["content"])
            msg.mention_ids = [int(u) for u in _MENTION.findall(msg.content) if int(u) in self.world.users]
        if "embeds" in body:
            msg.embeds = [{"type": "rich", **e} for e in body["embeds"] or [] if isinstance(e, dict)]
        if "components" in body:
            msg.components = self._number_components(body["components"] or [])
        if body.get("flags") is not None and not creating:
            # an edit can only change these; ephemeral/loading/has-thread stay as they are
            msg.flags = (msg.flags & ~_EDIT_FLAGS) | (int(body["flags"]) & _EDIT_FLAGS)
        meta = body.get("attachments")
        kept: list[FakeAttachment] = []
        if not creating:
            if meta is None:
                kept = list(msg.attachments)
            else:
                keep_ids = set()
                for entry in meta:
                    try:
                        aid = int(entry.get("id"))
                    except (TypeError, ValueError):
                        continue
                    if aid >= _UPLOAD_INDEX_LIMIT:
                        keep_ids.add(aid)
                kept = [a for a in msg.attachments if a.id in keep_ids]
        uploaded: list[FakeAttachment] = []
        used: set[int] = set()
        for entry in meta or []:
            try:
                index = int(entry.get("id"))
            except (TypeError, ValueError):
                continue
            if index < _UPLOAD_INDEX_LIMIT and index < len(files) and index not in used:
                used.add(index)
                name, data = files[index]
                uploaded.append(self._make_attachment(msg.channel_id, name, data, entry))
        for index, (name, data) in enumerate(files):
            if index not in used:
                uploaded.append(self._make_attachment(msg.channel_id, name, data, None))
        if msg.ephemeral:
            for att in uploaded:
                att.ephemeral = True
        if creating or meta is not None or files:
            msg.attachments = kept + uploaded
        if creating:
            msg.tts = bool(body.get("tts", False))
            if body.get("poll") is not None:
                msg.poll = body["poll"]
            msg.sticker_ids = [str(s) for s in body.get("sticker_ids") or []]

    def _new_message(
        self,
        channel: FakeChannel,
        body: JSON,
        files: list[tuple[str, bytes]],
        *,
        author: FakeUser,
        interaction: FakeInteraction | None = None,
        msg_type: int = 0,
        extra_flags: int = 0,
    ) -> FakeMessage:
        msg = FakeMessage(
            id=self.world.ids.next(),
            channel_id=channel.id,
            guild_id=channel.guild_id,
            author=author,
            type=msg_type,
        )
        flags = int(body.get("flags") or 0) & _CREATE_FLAGS
        if interaction is None:
            flags &= ~FLAG_EPHEMERAL  # only interaction responses can be ephemeral
        msg.flags = flags | extra_flags  # before _apply: attachments of ephemeral messages are ephemeral
        self._apply(msg, body, files, creating=True)
        if interaction is not None:
            msg.interaction_id = interaction.id
            msg.webhook_id = self.world.application_id
            msg.application_id = self.world.application_id
            if msg.ephemeral:
                msg.visible_to = interaction.user.id
            owners = (
                {"0": str(interaction.guild_id)} if interaction.guild_id else {"1": str(interaction.user.id)}
            )
            meta: JSON = {
                "id": str(interaction.id),
                "type": interaction.type,
                "user": P.user_payload(interaction.user),
                "authorizing_integration_owners": owners,
            }
            if interaction.type == APPLICATION_COMMAND and interaction.name:
                meta["name"] = interaction.name
                meta["command_type"] = 1
            if interaction.source_message_id is not None:
                meta["interacted_message_id"] = str(interaction.source_message_id)
            if interaction.original_message_id is not None:
                meta["original_response_message_id"] = str(interaction.original_message_id)
            msg.interaction_metadata = meta
            msg.legacy_interaction = {
                "id": str(interaction.id),
                "type": interaction.type,
                "name": interaction.name or interaction.custom_id or "",
                "user": P.user_payload(interaction.user),
            }
        self.world.messages[msg.id] = msg
        if not msg.ephemeral:
            channel.last_message_id = msg.id
            if channel.is_thread:
                channel.message_count += 1
                channel.total_message_sent += 1
        self._emit_message("MESSAGE_CREATE", msg)
        return msg

    def _edit(self, msg: FakeMessage, body: JSON, files: list[tuple[str, bytes]]) -> None:
        self._apply(msg, body, files, creating=False)
        msg.flags &= ~FLAG_LOADING
        self._emit_message("MESSAGE_UPDATE", msg)

    def _delete(self, msg: FakeMessage) -> None:
        msg.deleted = True
        self._emit_message("MESSAGE_DELETE", msg)

    def _check_thread_open(self, channel: FakeChannel, *, sending: bool) -> None:
        if not channel.is_thread or not channel.archived:
            return
        if channel.locked or not sending:
            raise ApiError(400, 50083, "Thread is archived")
        channel.archived = False  # sending a message unarchives an unlocked thread
        self.emit("THREAD_UPDATE", P.channel_payload(self.world, channel))

    # users / application / gateway ----------------------------------------------------------
    def get_current_user(self, req: Request, p: dict[str, str]) -> RestResult:
        if not req.authorized:
            raise ApiError(401, 0, "401: Unauthorized")
        return RestResult(200, P.bot_user_payload(self.world))

    def edit_current_user(self, req: Request, p: dict[str, str]) -> RestResult:
        body = self._body(req)
        if isinstance(body.get("username"), str):
            self.world.bot_user.name = body["username"]
        return RestResult(200, P.bot_user_payload(self.world))

    def get_user(self, req: Request, p: dict[str, str]) -> RestResult:
        user = self.world.users.get(_int(p["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return RestResult(200, P.user_payload(user))

    def create_dm(self, req: Request, p: dict[str, str]) -> RestResult:
        uid = _int(str(self._body(req).get("recipient_id")))
        if uid not in self.world.users:
            raise invalid_form("recipient_id", "Unknown user")
        return RestResult(200, P.channel_payload(self.world, self.world.dm_channel(self.world.users[uid])))

    def get_application(self, req: Request, p: dict[str, str]) -> RestResult:
        return RestResult(200, P.application_payload(self.world))

    def get_gateway(self, req: Request, p: dict[str, str]) -> RestResult:
        return RestResult(200, {"url": self.world.gateway_url})

    def get_gateway_bot(self, req: Request, p: dict[str, str]) -> RestResult:
        return RestResult(
            200,
            {
                "url": self.world.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 14400000,
                    "max_concurrency": 1,
                },
            },
        )

    # application commands -------------------------------------------------------------------
    def _command_list(self, p: dict[str, str]) -> tuple[list[JSON], int | None]:
        if _int(p["application_id"]) != self.world.application_id:
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in p:
            gid = _int(p["guild_id"])
            if gid not in self.world.guilds:
                raise ApiError(403, 50001, "Missing Access")
            return self.world.guild_commands.setdefault(gid, []), gid
        return self.world.global_commands, None

    def _command_json(self, cmd: JSON, guild_id: int | None, existing: list[JSON]) -> JSON:
        ctype = cmd.get("type", 1)
        old = next((c for c in existing if c["name"] == cmd.get("name") and c["type"] == ctype), None)
        data: JSON = {
            "id": old["id"] if old else str(self.world.ids.next()),
            "application_id": str(self.world.application_id),
            "version": str(self.world.ids.next()),
            "default_member_permissions": cmd.get("default_member_permissions"),
            "type": ctype,
            "name": cmd.get("name"),
            "name_localizations": cmd.get("name_localizations"),
            "description": cmd.get("description", ""),
            "description_localizations": cmd.get("description_localizations"),
            "dm_permission": cmd.get("dm_permission", True),
            "contexts": cmd.get("contexts"),
            "integration_types": cmd.get("integration_types", [0]),
            "nsfw": cmd.get("nsfw", False),
        }
        if cmd.get("options"):
            data["options"] = copy.deepcopy(cmd["options"])
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        return data

    def get_commands(self, req: Request, p: dict[str, str]) -> RestResult:
        commands, _ = self._command_list(p)
        return RestResult(200, copy.deepcopy(commands))

    def put_commands(self, req: Request, p: dict[str, str]) -> RestResult:
        commands, gid = self._command_list(p)
        body = req.json if isinstance(req.json, list) else []
        new = [self._command_json(c, gid, commands) for c in body if isinstance(c, dict)]
        commands[:] = new
        self.world.command_syncs += 1
        return RestResult(200, copy.deepcopy(new))

    def post_command(self, req: Request, p: dict[str, str]) -> RestResult:
        commands, gid = self._command_list(p)
        data = self._command_json(self._body(req), gid, commands)
        commands[:] = [c for c in commands if c["id"] != data["id"]] + [data]
        return RestResult(201, copy.deepcopy(data))

    def _find_command(self, p: dict[str, str]) -> tuple[list[JSON], JSON]:
        commands, _ = self._command_list(p)
        for cmd in commands:
            if cmd["id"] == p["command_id"]:
                return commands, cmd
        raise ApiError(404, 10063, "Unknown application command")

    def get_command(self, req: Request, p: dict[str, str]) -> RestResult:
        return RestResult(200, copy.deepcopy(self._find_command(p)[1]))

    def patch_command(self, req: Request, p: dict[str, str]) -> RestResult:
        _, cmd = self._find_command(p)
        cmd.update({k: v for k, v in self._body(req).items() if k != "id"})
        cmd["version"] = str(self.world.ids.next())
        return RestResult(200, copy.deepcopy(cmd))

    def delete_command(self, req: Request, p: dict[str, str]) -> RestResult:
        commands, cmd = self._find_command(p)
        commands.remove(cmd)
        return RestResult(204, None)

    # interactions ---------------------------------------------------------------------------
    def _interaction_message(
        self,
        inter: FakeInteraction,
        body: JSON,
        files: list[tuple[str, bytes]],
        *,
        msg_type: int,
        extra_flags: int = 0,
        channel: FakeChannel | None = None,
    ) -> FakeMessage:
        channel = channel or self.world.channels[inter.channel_id]
        return self._new_message(
            channel,
            body,
            files,
            author=self.world.bot_user,
            interaction=inter,
            msg_type=msg_type,
            extra_flags=extra_flags,
        )

    def interaction_callback(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self.world.interactions.get(_int(p["interaction_id"]))
        if inter is None or inter.token != p["token"] or inter.expired:
            raise ApiError(404, 10062, "Unknown interaction")
        if inter.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        body = self._body(req)
        ctype = body.get("type")
        allowed = _ALLOWED_CALLBACKS.get(inter.type, frozenset())
        if inter.type == MODAL_SUBMIT and inter.source_message_id is None:
            allowed = frozenset({4, 5})
        if ctype not in allowed:
            raise invalid_form(
                "type",
                f"Interaction callback type {ctype!r} is not valid for interaction type {inter.type} "
                f"(allowed: {sorted(allowed)})",
                "INTERACTION_CALLBACK_TYPE_INVALID",
            )
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        assert isinstance(data, dict)
        message: FakeMessage | None = None
        msg_type = 20 if inter.type == APPLICATION_COMMAND else 0
        if ctype == 4:
            message = self._interaction_message(inter, data, req.files, msg_type=msg_type)
            inter.original_message_id = message.id
        elif ctype == 5:
            flags = int(data.get("flags") or 0) & FLAG_EPHEMERAL
            message = self._interaction_message(
                inter, {"flags": flags}, [], msg_type=msg_type, extra_flags=FLAG_LOADING
            )
            inter.original_message_id = message.id
        elif ctype in (6, 7):
            source = self.world.messages.get(inter.source_message_id or 0)
            if source is None or source.deleted:
                raise _err(UNKNOWN_MESSAGE)
            inter.original_message_id = source.id
            if ctype == 7:
                self._edit(source, data, req.files)
                message = source
        elif ctype == 8:
            inter.choices = list(data.get("choices") or [])
        elif ctype == 9:
            inter.modal = copy.deepcopy(data)
        inter.callback_type = int(ctype)
        inter.callback_at = time.monotonic()
        result = RestResult(204, None, message=message, interaction_id=inter.id)
        if truthy(req.query.get("with_response")):
            info: JSON = {"id": str(inter.id), "type": inter.type}
            resource: JSON = {"type": ctype}
            if message is not None:
                info["response_message_id"] = str(message.id)
                info["response_message_loading"] = ctype == 5
                info["response_message_ephemeral"] = message.ephemeral
                resource["message"] = self._message_json(message)
            result.status = 200
            result.body = {"interaction": info, "resource": resource}
        return result

    def _webhook_interaction(self, p: dict[str, str]) -> FakeInteraction:
        inter = self.world.interactions_by_token.get(p["token"])
        if _int(p["application_id"]) != self.world.application_id or inter is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        if inter.expired:
            raise ApiError(401, 50027, "Invalid Webhook Token")
        if inter.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        return inter

    def execute_webhook(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        body = self._body(req)
        channel: FakeChannel | None = None
        if req.query.get("thread_id"):
            channel = self._channel(req.query["thread_id"])
        original = self.world.messages.get(inter.original_message_id or 0)
        if inter.callback_type == 5 and original is not None and original.loading and not original.deleted:
            # Discord: the first followup after a deferred (type 5) response edits the "thinking"
            # message instead of creating one; the ephemeral state of the defer is kept.
            edit = {k: v for k, v in body.items() if k != "flags"}
            self._edit(original, edit, req.files)
            msg = original
        else:
            msg = self._interaction_message(inter, body, req.files, msg_type=0, channel=channel)
            inter.followup_ids.append(msg.id)
        if truthy(req.query.get("wait")):
            return RestResult(200, self._message_json(msg), message=msg, interaction_id=inter.id)
        return RestResult(204, None, message=msg, interaction_id=inter.id)

    def _original(self, inter: FakeInteraction) -> FakeMessage:
        msg = self.world.messages.get(inter.original_message_id or 0)
        if msg is None or msg.deleted:
            raise _err(UNKNOWN_MESSAGE)
        return msg

    def _followup(self, inter: FakeInteraction, message_id: str) -> FakeMessage:
        mid = _int(message_id)
        msg = self.world.messages.get(mid)
        if msg is None or msg.deleted or mid not in (inter.original_message_id, *inter.followup_ids):
            raise _err(UNKNOWN_MESSAGE)
        return msg

    def get_original(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        msg = self._original(inter)
        return RestResult(200, self._message_json(msg), message=msg, interaction_id=inter.id)

    def edit_original(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        msg = self._original(inter)
        self._edit(msg, self._body(req), req.files)
        return RestResult(200, self._message_json(msg), message=msg, interaction_id=inter.id)

    def delete_original(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        msg = self._original(inter)
        self._delete(msg)
        return RestResult(204, None, message=msg, interaction_id=inter.id)

    def get_followup(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        msg = self._followup(inter, p["message_id"])
        return RestResult(200, self._message_json(msg), message=msg, interaction_id=inter.id)

    def edit_followup(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        msg = self._followup(inter, p["message_id"])
        self._edit(msg, self._body(req), req.files)
        return RestResult(200, self._message_json(msg), message=msg, interaction_id=inter.id)

    def delete_followup(self, req: Request, p: dict[str, str]) -> RestResult:
        inter = self._webhook_interaction(p)
        msg = self._followup(inter, p["message_id"])
        self._delete(msg)
        return RestResult(204, None, message=msg, interaction_id=inter.id)

    # channels -------------------------------------------------------------------------------
    def get_channel(self, req: Request, p: dict[str, str]) -> RestResult:
        return RestResult(200, P.channel_payload(self.world, self._channel(p["channel_id"])))

    def edit_channel(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        body = self._body(req)
        if channel.is_thread:
            own = channel.owner_id == self.world.bot_user.id
            if not own and not self.world.bot_can(channel, manage_threads=True):
                raise _err(MISSING_PERMISSIONS)
            if "locked" in body and not self.world.bot_can(channel, manage_threads=True):
                raise _err(MISSING_PERMISSIONS)
            for key in (
                "name",
                "archived",
                "locked",
                "auto_archive_duration",
                "rate_limit_per_user",
                "invitable",
            ):
                if key in body and body[key] is not None:
                    setattr(channel, key, body[key])
            if "archived" in body:
                channel.archive_timestamp = now()
            self.emit("THREAD_UPDATE", P.channel_payload(self.world, channel))
        else:
            self._require(channel, manage_channels=True)
            for key in ("name", "topic", "nsfw", "rate_limit_per_user", "position"):
                if key in body:
                    setattr(channel, key, body[key])
            self.emit("CHANNEL_UPDATE", P.channel_payload(self.world, channel))
        return RestResult(200, P.channel_payload(self.world, channel))

    def delete_channel(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        if channel.is_thread:
            self._require(channel, manage_threads=True)
        else:
            self._require(channel, manage_channels=True)
        channel.deleted = True
        if channel.is_thread:
            self.emit(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(channel.guild_id),
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
            )
        else:
            self.emit("CHANNEL_DELETE", P.channel_payload(self.world, channel))
        return RestResult(200, P.channel_payload(self.world, channel))

    def list_messages(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        self._require(channel, read_message_history=True)
        limit = max(1, min(100, int(req.query.get("limit", "50"))))
        msgs = [m for m in self.world.channel_messages(channel.id) if not m.ephemeral]
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])]
            msgs = msgs[:limit]
        msgs = sorted(msgs, key=lambda m: m.id, reverse=True)[:limit]
        return RestResult(200, [self._message_json(m) for m in msgs])

    def create_message(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        body = self._body(req)
        if channel.is_thread:
            self._require(channel, send_messages_in_threads=True)
            self._check_thread_open(channel, sending=True)
        else:
            self._require(channel, send_messages=True)
        if req.files:
            self._require(channel, attach_files=True)
        ref = body.get("message_reference")
        msg_type = 0
        if isinstance(ref, dict) and ref.get("message_id") is not None and ref.get("type", 0) == 0:
            target = self.world.messages.get(int(ref["message_id"]))
            if target is None or target.deleted or target.ephemeral:
                if ref.get("fail_if_not_exists", True):
                    raise invalid_form(
                        "message_reference", "Unknown message", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE"
                    )
            else:
                msg_type = 19
        msg = self._new_message(channel, body, req.files, author=self.world.bot_user, msg_type=msg_type)
        if msg_type == 19 and isinstance(ref, dict):
            msg.message_reference = {
                "type": 0,
                "message_id": str(ref["message_id"]),
                "channel_id": str(channel.id),
                **({"guild_id": str(channel.guild_id)} if channel.guild_id else {}),
            }
        return RestResult(200, self._message_json(msg), message=msg)

    def get_message(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        self._require(channel, read_message_history=True)
        msg = self._channel_message(channel, p["message_id"])
        return RestResult(200, self._message_json(msg), message=msg)

    def edit_message(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        msg = self._channel_message(channel, p["message_id"])
        if msg.author.id != self.world.bot_user.id:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        self._check_thread_open(channel, sending=False)
        self._edit(msg, self._body(req), req.files)
        return RestResult(200, self._message_json(msg), message=msg)

    def delete_message(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        msg = self._channel_message(channel, p["message_id"])
        if msg.author.id != self.world.bot_user.id:
            self._require(channel, manage_messages=True)
        self._delete(msg)
        return RestResult(204, None, message=msg)

    def pin(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        self._require(channel, pin_messages=True)
        self._channel_message(channel, p["message_id"]).pinned = True
        return RestResult(204, None)

    def unpin(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        self._require(channel, pin_messages=True)
        self._channel_message(channel, p["message_id"]).pinned = False
        return RestResult(204, None)

    def _new_thread(self, parent: FakeChannel, body: JSON, *, thread_id: int, ttype: int) -> FakeChannel:
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise invalid_form("name", "This field is required", "BASE_TYPE_REQUIRED")
        thread = FakeChannel(
            thread_id,
            name,
            ttype,
            parent.guild_id,
            parent_id=parent.id,
            owner_id=self.world.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            rate_limit_per_user=int(body.get("rate_limit_per_user") or 0),
            invitable=bool(body.get("invitable", True)),
            member_ids={self.world.bot_user.id},
        )
        self.world.channels[thread.id] = thread
        self.emit("THREAD_CREATE", P.thread_create_payload(self.world, thread, newly_created=True))
        return thread

    def start_thread_from_message(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        if channel.is_thread or channel.type == DM_CHANNEL:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        msg = self._channel_message(channel, p["message_id"])
        if msg.thread_id is not None:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        self._require(channel, create_public_threads=True)
        # A thread started from a message has the message's id.
        thread = self._new_thread(channel, self._body(req), thread_id=msg.id, ttype=PUBLIC_THREAD)
        msg.thread_id = thread.id
        msg.flags |= FLAG_HAS_THREAD
        return RestResult(201, P.channel_payload(self.world, thread))

    def start_thread(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        if channel.is_thread or channel.type == DM_CHANNEL:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        body = self._body(req)
        ttype = int(body.get("type") or PRIVATE_THREAD)
        if ttype == PRIVATE_THREAD:
            self._require(channel, create_private_threads=True)
        else:
            self._require(channel, create_public_threads=True)
        thread = self._new_thread(channel, body, thread_id=self.world.ids.next(), ttype=ttype)
        return RestResult(201, P.channel_payload(self.world, thread))

    def add_reaction(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        self._require(channel, add_reactions=True, read_message_history=True)
        msg = self._channel_message(channel, p["message_id"])
        msg.reactions.setdefault(p["emoji"], set()).add(self.world.bot_user.id)
        return RestResult(204, None)

    def remove_reaction(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        msg = self._channel_message(channel, p["message_id"])
        msg.reactions.get(p["emoji"], set()).discard(self.world.bot_user.id)
        return RestResult(204, None)

    def clear_reactions(self, req: Request, p: dict[str, str]) -> RestResult:
        channel = self._channel(p["channel_id"])
        self._require(channel, manage_messages=True)
        self._channel_message(channel, p["message_id"]).reactions.clear()
        return RestResult(204, None)

    def typing(self, req: Request, p: dict[str, str]) -> RestResult:
        self._channel(p["channel_id"])
        return RestResult(204, None)

    def _thread(self, channel_id: str) -> FakeChannel:
        channel = self._channel(channel_id)
        if not channel.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        return channel

    def get_thread_members(self, req: Request, p: dict[str, str]) -> RestResult:
        thread = self._thread(p["channel_id"])
        return RestResult(
            200,
            [
                {
                    "id": str(thread.id),
                    "user_id": str(u),
                    "join_timestamp": iso(thread.created_at),
                    "flags": 0,
                }
                for u in sorted(thread.member_ids)
            ],
        )

    def _thread_user(self, value: str) -> int:
        return self.world.bot_user.id if value == "@me" else _int(value)

    def add_thread_member(self, req: Request, p: dict[str, str]) -> RestResult:
        thread = self._thread(p["channel_id"])
        self._check_thread_open(thread, sending=False)
        uid = self._thread_user(p["user_id"])
        if uid not in self.world.users:
            raise ApiError(404, 10013, "Unknown User")
        thread.member_ids.add(uid)
        return RestResult(204, None)

    def remove_thread_member(self, req: Request, p: dict[str, str]) -> RestResult:
        thread = self._thread(p["channel_id"])
        thread.member_ids.discard(self._thread_user(p["user_id"]))
        return RestResult(204, None)

    # guilds ---------------------------------------------------------------------------------
    def _guild(self, guild_id: str) -> Any:
        guild = self.world.guilds.get(_int(guild_id))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    def get_guild(self, req: Request, p: dict[str, str]) -> RestResult:
        guild = self._guild(p["guild_id"])
        data = P.guild_payload(self.world, guild)
        if truthy(req.query.get("with_counts")):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return RestResult(200, data)

    def get_guild_channels(self, req: Request, p: dict[str, str]) -> RestResult:
        guild = self._guild(p["guild_id"])
        channels = [self.world.channels[c] for c in guild.channel_ids if not self.world.channels[c].deleted]
        return RestResult(200, [P.channel_payload(self.world, c) for c in channels])

    def get_roles(self, req: Request, p: dict[str, str]) -> RestResult:
        guild = self._guild(p["guild_id"])
        return RestResult(200, [P.role_payload(r) for r in guild.roles.values()])

    def get_members(self, req: Request, p: dict[str, str]) -> RestResult:
        guild = self._guild(p["guild_id"])
        limit = max(1, min(1000, int(req.query.get("limit", "1"))))
        after = int(req.query.get("after", "0"))
        members = sorted((m for m in guild.members.values() if m.user.id > after), key=lambda m: m.user.id)
        return RestResult(200, [P.member_payload(m) for m in members[:limit]])

    def get_member(self, req: Request, p: dict[str, str]) -> RestResult:
        guild = self._guild(p["guild_id"])
        member = guild.members.get(_int(p["user_id"]))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return RestResult(200, P.member_payload(member))

    def active_threads(self, req: Request, p: dict[str, str]) -> RestResult:
        guild = self._guild(p["guild_id"])
        threads = [
            c
            for c in self.world.channels.values()
            if c.guild_id == guild.id and c.is_thread and not c.archived and not c.deleted
        ]
        return RestResult(
            200, {"threads": [P.channel_payload(self.world, t) for t in threads], "members": []}
        )


def _iter_components(components: list[JSON]) -> list[tuple[JSON, int]]:
    out: list[tuple[JSON, int]] = []

    def visit(items: list[Any], depth: int) -> None:
        for comp in items:
            if not isinstance(comp, dict):
                continue
            out.append((comp, depth))
            if isinstance(comp.get("components"), list):
                visit(comp["components"], depth + 1)
            for key in ("accessory", "component"):
                if isinstance(comp.get(key), dict):
                    visit([comp[key]], depth + 1)

    visit(components, 0)
    return out
