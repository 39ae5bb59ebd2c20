"""Which servers' scheduled work this process does: those of its Discord shards.

Discord gives each shard the servers with ``(guild_id >> 22) % shard_count == shard_id`` and direct
messages to shard 0. A process that runs some of the shards does the scheduled work (reminders,
timeouts, response windows, boards to repair, analyses, rematch expiry, challenge expiry) of the
matches and challenges of those servers only, and another process those of the others; the store's
queries of due work carry the condition (``where``). Each piece of work is also claimed in the
database when it is taken (``ClaimStore``), so two processes that serve the same shard by mistake
still never both do it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scope:
    """Shards ``ids`` of ``count`` (``ids`` None: every shard, all servers)."""

    count: int = 1
    ids: frozenset[int] | None = None

    @classmethod
    def of(cls, count: int | None, ids: tuple[int, ...] | None) -> Scope:
        if count is None or ids is None or set(ids) == set(range(count)):
            return cls()
        return cls(count, frozenset(ids))

    @property
    def everything(self) -> bool:
        return self.ids is None

    def serves(self, guild_id: int | None) -> bool:
        """Whether this process does the work of server ``guild_id`` (None: a direct message)."""
        return self.ids is None or shard_of(guild_id, self.count) in self.ids

    def where(self, column: str = "guild_id") -> str:
        """The SQL condition on ``column`` (a server id, NULL for direct messages) for this scope."""
        if self.ids is None:
            return "1 = 1"
        shards = ", ".join(str(int(shard)) for shard in sorted(self.ids))
        return f"((COALESCE({column}, 0) / 4194304) % {int(self.count)}) IN ({shards})"


def shard_of(guild_id: int | None, count: int) -> int:
    """Discord's shard of a server (direct messages: shard 0)."""
    return 0 if guild_id is None else (guild_id >> 22) % count
