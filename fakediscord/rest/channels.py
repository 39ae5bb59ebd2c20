"""``/channels/{id}`` itself and its threads: reading, editing, archiving, creating threads, thread members."""

from __future__ import annotations

from .. import payloads as P
from ..world import (
    DM_CHANNEL,
    FLAG_HAS_THREAD,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    FakeChannel,
    Request,
    iso,
    now,
)
from .errors import MISSING_PERMISSIONS, ApiError, _err, invalid_form
from .model import MessageModel
from .routing import JSON, RestResult, _int


class ChannelRoutes(MessageModel):
    def _add_channel_routes(self) -> None:
        add = self._add
        ch = "/channels/{channel_id}"
        add("GET", ch, "get_channel", self.get_channel)
        add("PATCH", ch, "edit_channel", self.edit_channel)
        add("DELETE", ch, "delete_channel", self.delete_channel)
        add("POST", ch + "/messages/{message_id}/threads", "create_thread", self.start_thread_from_message)
        add("POST", ch + "/threads", "create_thread", self.start_thread)
        add("POST", ch + "/typing", "typing", self.typing)
        add("GET", ch + "/thread-members", "thread_members", self.get_thread_members)
        add("PUT", ch + "/thread-members/{user_id}", "join_thread", self.add_thread_member)
        add("DELETE", ch + "/thread-members/{user_id}", "leave_thread", self.remove_thread_member)

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
