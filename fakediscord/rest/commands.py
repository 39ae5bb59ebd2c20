"""``/applications/{id}/commands`` (global and per guild): syncing and editing slash commands."""

from __future__ import annotations

import copy

from ..world import (
    Request,
)
from .errors import ApiError
from .model import MessageModel
from .routing import JSON, RestResult, _int


class CommandRoutes(MessageModel):
    def _add_command_routes(self) -> None:
        add = self._add
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
