"""``/users``, ``/oauth2/applications/@me`` and ``/gateway``: the bot's own user, DMs, the application."""

from __future__ import annotations

from .. import payloads as P
from ..world import (
    Request,
)
from .errors import ApiError, invalid_form
from .model import MessageModel
from .routing import RestResult, _int


class UserRoutes(MessageModel):
    def _add_user_routes(self) -> None:
        add = self._add
        add("GET", "/users/@me", "get_current_user", self.get_current_user)
        add("PATCH", "/users/@me", "edit_current_user", self.edit_current_user)
        add("POST", "/users/@me/channels", "create_dm", self.create_dm)
        add("GET", "/users/{user_id}", "get_user", self.get_user)
        add("GET", "/oauth2/applications/@me", "get_application", self.get_application)
        add("GET", "/applications/@me", "get_application", self.get_application)
        add("GET", "/gateway", "get_gateway", self.get_gateway)
        add("GET", "/gateway/bot", "get_gateway_bot", self.get_gateway_bot)

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
