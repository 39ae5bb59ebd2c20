"""Interaction callbacks and the interaction webhook: followups, the original response and its edits."""

from __future__ import annotations

import copy
import time

from ..world import (
    APPLICATION_COMMAND,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    FakeChannel,
    FakeInteraction,
    FakeMessage,
    Request,
)
from .errors import UNKNOWN_MESSAGE, ApiError, _err, invalid_form
from .model import MessageModel
from .routing import JSON, RestResult, _int, truthy

#: Callback types Discord accepts for each interaction type.
_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    APPLICATION_COMMAND: frozenset({4, 5, 9}),
    MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9}),
    4: frozenset({8}),
    MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}


class InteractionRoutes(MessageModel):
    def _add_interaction_routes(self) -> None:
        add = self._add
        add("POST", "/interactions/{interaction_id}/{token}/callback", "callback", self.interaction_callback)
        hook = "/webhooks/{application_id}/{token}"
        add("POST", hook, "followup", self.execute_webhook)
        add("GET", hook + "/messages/@original", "get_original", self.get_original)
        add("PATCH", hook + "/messages/@original", "edit_original", self.edit_original)
        add("DELETE", hook + "/messages/@original", "delete_original", self.delete_original)
        add("GET", hook + "/messages/{message_id}", "get_followup", self.get_followup)
        add("PATCH", hook + "/messages/{message_id}", "edit_followup", self.edit_followup)
        add("DELETE", hook + "/messages/{message_id}", "delete_followup", self.delete_followup)

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
        inter.callback_at = time.perf_counter()
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
