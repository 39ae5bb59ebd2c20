"""What ``/about`` says of the running bot: its version, how long this process has run, the shard
that serves the asking server, and the matches in play."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata

from bot.clock import Clock
from bot.store import Store
from bot.store.matches import active_counts
from bot.store.scope import shard_of


def version() -> str:
    """The installed package's version (``pyproject.toml``)."""
    try:
        return metadata.version("ringside")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout without install
        return "unknown"


@dataclass(frozen=True, slots=True)
class About:
    version: str
    uptime: float
    """Seconds since this process started."""
    shard: int | None
    """The shard serving the asking server (None: the bot does not shard)."""
    shard_count: int | None
    in_play: dict[str, int]
    """Active matches by game, everywhere."""
    database: str
    """``SQLite`` or ``PostgreSQL`` (no path, no address: this is shown to players)."""


class AboutBot:
    """The facts of ``/about``, read from the store and the process."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self.store = store
        self.clock = clock
        self.started = clock.now()

    async def about(self, guild_id: int | None, shard_count: int | None) -> About:
        counts = await active_counts(self.store.connection)
        return About(
            version=version(),
            uptime=max(0.0, self.clock.now() - self.started),
            shard=None if shard_count is None else shard_of(guild_id, shard_count),
            shard_count=shard_count,
            in_play=dict(sorted(counts.items())),
            database="PostgreSQL" if self.store.connection.backend == "postgresql" else "SQLite",
        )


def uptime_text(seconds: float) -> str:
    """``3 d 4 h``, ``2 h 5 min``, ``12 min``, ``40 s``: two units at most."""
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d {hours} h"
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min"
    return f"{secs} s"
