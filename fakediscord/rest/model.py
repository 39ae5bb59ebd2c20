"""Messages, attachments and threads in the world, as the REST handlers change them.

Creating, editing and deleting a message (content, embeds, numbered components, attachments and
their uploads, interaction metadata, whom it notifies) and the gateway event each change sends; the channel and
message lookups with Discord's 403/404 answers.
"""

from __future__ import annotations

import copy
import mimetypes
import re
import struct
from typing import Any

from .. import payloads as P
from ..world import (
    APPLICATION_COMMAND,
    FLAG_EPHEMERAL,
    FLAG_IS_COMPONENTS_V2,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    FakeAttachment,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    Request,
    World,
    now,
)
from .errors import MISSING_ACCESS, MISSING_PERMISSIONS, UNKNOWN_CHANNEL, UNKNOWN_MESSAGE, ApiError, _err
from .routing import JSON, Emit, Router, _int

_UPLOAD_INDEX_LIMIT = 1 << 22
_CREATE_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_EPHEMERAL | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_IS_COMPONENTS_V2
_EDIT_FLAGS = FLAG_SUPPRESS_EMBEDS | FLAG_IS_COMPONENTS_V2
_MENTION = re.compile(r"<@!?(\d+)>")
_ROLE_MENTION = re.compile(r"<@&(\d+)>")
_EVERYONE = re.compile(r"@(?:everyone|here)\b")


def note_pings(msg: FakeMessage, allowed: Any) -> None:
    """Whom ``msg`` notifies, as Discord decides it: only mentions in its content (never in embeds),
    only those ``allowed`` (the request's ``allowed_mentions``) lets through; without it, all of them.
    Ephemeral messages are counted too (stricter than Discord, which shows them to one member)."""
    users = [int(u) for u in _MENTION.findall(msg.content)]
    roles = [int(r) for r in _ROLE_MENTION.findall(msg.content)]
    everyone = _EVERYONE.search(msg.content) is not None
    if isinstance(allowed, dict):
        parse = set(allowed.get("parse") or ())
        listed_users = {int(u) for u in allowed.get("users") or ()}
        listed_roles = {int(r) for r in allowed.get("roles") or ()}
        users = [u for u in users if "users" in parse or u in listed_users]
        roles = [r for r in roles if "roles" in parse or r in listed_roles]
        everyone = everyone and "everyone" in parse
    msg.pinged_users = list(dict.fromkeys(users))
    msg.pinged_roles = list(dict.fromkeys(roles))
    msg.pinged_everyone = everyone


class MessageModel(Router):
    """Shared by every resource's handlers: the world, the event emitter, lookups and message changes."""

    world: World
    emit: Emit

    def _channel(self, channel_id: str) -> FakeChannel:
        channel = self.world.channels.get(_int(channel_id))
        if channel is None or channel.deleted:
            raise _err(UNKNOWN_CHANNEL)
        if channel.guild_id is not None and (
            self.world.member(channel.guild_id, self.world.bot_user.id) is None
            or not self.world.bot_can(channel, view_channel=True)
        ):
            # A server that removed the bot, or a channel hidden from it.
            raise _err(MISSING_ACCESS)
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
        if creating or msg.flags & FLAG_LOADING:
            # Posted now (a deferred answer is posted when its content comes): who is notified.
            note_pings(msg, body.get("allowed_mentions"))
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


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return None


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
