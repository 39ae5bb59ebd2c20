"""Building interactions as Discord's client would: slash command options, select values, modal inputs.

A mixin of :class:`~fakediscord.fake.FakeDiscord`. Values are checked like the client checks them
(required options, choices, lengths and ranges, select counts, modal inputs) before the bot sees
them, and users, channels, roles and attachments go into ``resolved``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import payloads as P
from .lookups import Lookups
from .world import FakeAttachment, FakeChannel, FakeGuild, FakeInteraction, FakeMessage, FakeRole, FakeUser

if TYPE_CHECKING:
    from .rest import RestApi

JSON = dict[str, Any]


class InteractionData(Lookups):
    """``_new_interaction`` and the ``data`` of each interaction type."""

    rest: RestApi

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
