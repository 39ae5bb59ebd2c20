"""``/channels/{id}/messages``: history, sending, editing, deleting, pins and reactions with the bot token."""

from __future__ import annotations

import time

from ..world import (
    FakeMessage,
    Request,
)
from .errors import ApiError, invalid_form
from .model import MessageModel
from .routing import RestResult


class MessageRoutes(MessageModel):
    def _add_message_routes(self) -> None:
        add = self._add
        ch = "/channels/{channel_id}"
        add("GET", ch + "/messages", "history", self.list_messages)
        add("POST", ch + "/messages", "send", self.create_message)
        add("PUT", ch + "/messages/pins/{message_id}", "pin", self.pin)
        add("DELETE", ch + "/messages/pins/{message_id}", "unpin", self.unpin)
        add("PUT", ch + "/pins/{message_id}", "pin", self.pin)
        add("DELETE", ch + "/pins/{message_id}", "unpin", self.unpin)
        add("GET", ch + "/messages/{message_id}", "get_message", self.get_message)
        add("PATCH", ch + "/messages/{message_id}", "edit", self.edit_message)
        add("DELETE", ch + "/messages/{message_id}", "delete", self.delete_message)
        add("PUT", ch + "/messages/{message_id}/reactions/{emoji}/@me", "add_reaction", self.add_reaction)
        add(
            "DELETE",
            ch + "/messages/{message_id}/reactions/{emoji}/@me",
            "remove_reaction",
            self.remove_reaction,
        )
        add("DELETE", ch + "/messages/{message_id}/reactions", "clear_reactions", self.clear_reactions)

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
        repeated = self._repeated(body)
        if repeated is not None:
            # enforce_nonce: the same author's message with this nonce, made in the past few minutes,
            # is returned instead of a second one.
            return RestResult(200, self._message_json(repeated), message=repeated)
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
        if body.get("nonce") is not None:
            msg.nonce = str(body["nonce"])
            if body.get("enforce_nonce"):
                self.world.nonces[(msg.author.id, msg.nonce)] = (msg.id, time.monotonic())
        if msg_type == 19 and isinstance(ref, dict):
            msg.message_reference = {
                "type": 0,
                "message_id": str(ref["message_id"]),
                "channel_id": str(channel.id),
                **({"guild_id": str(channel.guild_id)} if channel.guild_id else {}),
            }
        return RestResult(200, self._message_json(msg), message=msg)

    def _repeated(self, body: dict[str, object]) -> FakeMessage | None:
        """The bot's message created with this nonce in the past few minutes, when the body asks for
        the nonce to be enforced (a deleted one is not returned: a new message is made)."""
        nonce = body.get("nonce")
        if not body.get("enforce_nonce") or nonce is None:
            return None
        found = self.world.nonces.get((self.world.bot_user.id, str(nonce)))
        if found is None or time.monotonic() - found[1] > self.world.nonce_seconds:
            return None
        msg = self.world.messages.get(found[0])
        return msg if msg is not None and not msg.deleted else None

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
