""":class:`RestApi`: every resource's routes in one router over the world model."""

from __future__ import annotations

from ..world import FakeMessage, Request, World
from .channels import ChannelRoutes
from .commands import CommandRoutes
from .guilds import GuildRoutes
from .interactions import InteractionRoutes
from .messages import MessageRoutes
from .routing import Emit, _Route
from .users import UserRoutes


class RestApi(UserRoutes, CommandRoutes, InteractionRoutes, ChannelRoutes, MessageRoutes, GuildRoutes):
    """Discord's REST API over a :class:`~fakediscord.world.World`; ``handle(req)`` answers a request."""

    def __init__(self, world: World, emit: Emit) -> None:
        self.world = world
        self.emit = emit
        self.routes: list[_Route] = []
        self._add_user_routes()
        self._add_command_routes()
        self._add_interaction_routes()
        self._add_channel_routes()
        self._add_message_routes()
        self._add_guild_routes()

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
