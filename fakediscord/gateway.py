"""Where gateway events go: the :class:`Sink` protocol, a bot in this process, and its stand-in websocket.

The local server's websocket clients (``server.GatewaySession``) are the other kind of sink.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING, Any, Protocol

import discord

from . import payloads as P
from .tracking import _CURRENT, _Tracker

if TYPE_CHECKING:
    from .fake import FakeDiscord

JSON = dict[str, Any]

_log = logging.getLogger("discord.fakediscord")


class Sink(Protocol):
    #: whether handler tasks can be tracked (only for a bot in this process)
    trackable: bool

    def alive(self) -> bool: ...

    def dispatch(self, event: str, data: JSON) -> None: ...

    def dispatch_interaction(self, payload: JSON, tracker: _Tracker) -> None: ...

    def serves(self, guild_id: int | None) -> bool:
        """Whether this client gets the events of ``guild_id`` (None: direct messages)."""
        ...


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that receives a guild's events: Discord's formula, ``(guild_id >> 22) % count``."""
    return (guild_id >> 22) % shard_count


class _InProcessSink:
    trackable = True

    def __init__(self, fake: FakeDiscord, bot: discord.Client) -> None:
        self.fake = fake
        self.bot = bot
        self.closed = False

    def alive(self) -> bool:
        return not self.closed and not self.bot.is_closed()

    def serves(self, guild_id: int | None) -> bool:
        return True

    def dispatch(self, event: str, data: JSON) -> None:
        tracker = _CURRENT.get()
        if tracker is not None:
            tracker.pending += 1
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._deliver(event, data, tracker)
        else:
            # Like the real gateway, events arrive after the REST answer, not inside it.
            loop.call_soon(self._deliver, event, data, tracker)

    def _deliver(self, event: str, data: JSON, tracker: _Tracker | None) -> None:
        try:
            if self.alive():
                parser = self.bot._connection.parsers.get(event)
                if parser is not None:
                    parser(data)
        except Exception:
            _log.exception("discord.py failed to parse the fake %s event", event)
        finally:
            if tracker is not None:
                tracker.pending -= 1
            self.fake._notify()

    def dispatch_interaction(self, payload: JSON, tracker: _Tracker) -> None:
        token = _CURRENT.set(tracker)
        try:
            self.bot._connection.parsers["INTERACTION_CREATE"](payload)
        finally:
            _CURRENT.reset(token)


class _StubGateway:
    """Stands in for ``bot.ws`` of a bot connected in process (presence, member chunks, close)."""

    def __init__(self, fake: FakeDiscord, sink: _InProcessSink) -> None:
        self.fake = fake
        self.sink = sink
        self.open = True
        self.latency = 0.0
        self.shard_id: int | None = None
        self.session_id = secrets.token_hex(16)
        self.sequence = 0

    def is_ratelimited(self) -> bool:
        return False

    async def change_presence(self, *, activity: Any = None, status: Any = None, since: float = 0.0) -> None:
        act = activity.to_dict() if activity is not None and hasattr(activity, "to_dict") else None
        self.fake.gateway_commands.append(
            {
                "op": 3,
                "d": {
                    "activities": [act] if act else [],
                    "status": str(status),
                    "since": since,
                    "afk": False,
                },
            }
        )

    async def request_chunks(
        self,
        guild_id: int,
        query: str | None = None,
        *,
        limit: int,
        user_ids: list[int] | None = None,
        presences: bool = False,
        nonce: str | None = None,
    ) -> None:
        self.fake.gateway_commands.append({"op": 8, "d": {"guild_id": str(guild_id), "nonce": nonce}})
        guild = self.fake.world.guilds.get(guild_id)
        members = list(guild.members.values()) if guild else []
        if user_ids:
            members = [m for m in members if m.user.id in user_ids]
        elif query:
            members = [m for m in members if m.user.name.lower().startswith(query.lower())]
        if limit:
            members = members[:limit]
        data: JSON = {
            "guild_id": str(guild_id),
            "members": [P.member_payload(m) for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
            "presences": [],
        }
        if nonce is not None:
            data["nonce"] = nonce
        self.sink.dispatch("GUILD_MEMBERS_CHUNK", data)

    async def voice_state(self, *args: Any, **kwargs: Any) -> None:
        self.fake.gateway_commands.append({"op": 4, "d": {"args": [str(a) for a in args]}})

    async def close(self, code: int = 4000) -> None:
        self.open = False
