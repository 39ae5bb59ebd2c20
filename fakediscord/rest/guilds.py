"""``/guilds/{id}``: the guild, its channels, roles, members and active threads (read only)."""

from __future__ import annotations

from typing import Any

from .. import payloads as P
from ..world import (
    Request,
)
from .errors import ApiError
from .model import MessageModel
from .routing import RestResult, _int, truthy


class GuildRoutes(MessageModel):
    def _add_guild_routes(self) -> None:
        add = self._add
        add("GET", "/guilds/{guild_id}", "get_guild", self.get_guild)
        add("GET", "/guilds/{guild_id}/channels", "get_guild_channels", self.get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", "get_roles", self.get_roles)
        add("GET", "/guilds/{guild_id}/members", "get_members", self.get_members)
        add("GET", "/guilds/{guild_id}/members/{user_id}", "get_member", self.get_member)
        add("GET", "/guilds/{guild_id}/threads/active", "active_threads", self.active_threads)

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
