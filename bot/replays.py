"""How many replays are made at once: per member, per server and in all (:class:`ReplayLimits`).

A replay of a long match takes a heavy worker for seconds (``app.render_pool``): it never delays a
board picture, but the heavy workers are few, so one member must not queue a dozen of them and one
server must not take them all. A request over a limit is refused at once, privately, with the limit
named; a slot is held from the request until the GIF is posted (or the attempt failed).
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from bot.session import UserError

PER_MEMBER = 1
"""Replays one member may have in the making at once."""
PER_SERVER = 2
"""Replays one server may have in the making at once."""
IN_ALL = 4
"""Replays the bot makes at once, all servers together (the heavy workers are few)."""


class ReplayRefused(UserError):
    """Too many replays in the making: the message names the limit."""


@dataclass(frozen=True, slots=True)
class ReplayLimits:
    per_member: int = PER_MEMBER
    per_server: int = PER_SERVER
    in_all: int = IN_ALL


class Replays:
    """The replays in the making, counted per member and per server."""

    def __init__(self, limits: ReplayLimits | None = None) -> None:
        self.limits = limits or ReplayLimits()
        self._members: Counter[int] = Counter()
        self._servers: Counter[int] = Counter()
        self._total = 0

    @property
    def in_making(self) -> int:
        return self._total

    @contextlib.contextmanager
    def slot(self, member_id: int, guild_id: int | None) -> Iterator[None]:
        """Hold a place for one replay while the block runs; ``ReplayRefused`` if there is none."""
        limits = self.limits
        server = guild_id or 0
        if self._members[member_id] >= limits.per_member:
            raise ReplayRefused(
                f"Your last replay is still being made: wait for it before asking for another "
                f"(at most {_count(limits.per_member)} at a time per member)."
            )
        if self._servers[server] >= limits.per_server:
            raise ReplayRefused(
                f"{_count(limits.per_server).capitalize()} being made on this server already "
                f"(at most {_count(limits.per_server)} at a time per server): try again in a minute."
            )
        if self._total >= limits.in_all:
            raise ReplayRefused(
                f"The bot is making {_count(limits.in_all)} already (at most {limits.in_all} at a time): "
                "try again in a minute."
            )
        self._members[member_id] += 1
        self._servers[server] += 1
        self._total += 1
        try:
            yield
        finally:
            self._total -= 1
            _release(self._members, member_id)
            _release(self._servers, server)


def _count(n: int) -> str:
    return "one replay" if n == 1 else f"{n} replays"


def _release(counts: Counter[int], key: int) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]
