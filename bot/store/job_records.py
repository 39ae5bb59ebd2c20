"""The records of heavy jobs (migration 025, ``bot.store.jobs``): their states, kinds, limits and rows.

The parts of the store that read ``heavy_jobs`` (``bot.store.jobs``, ``bot.store.job_runs``) select
``LIGHT_COLUMNS`` and turn each row into a ``JobRecord`` with ``job_record``."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from bot.store.connection import Row

QUEUED, RUNNING, JOB_DONE, JOB_FAILED = "queued", "running", "done", "failed"
ANALYSIS, FILE, REPLAY, ROLLOUT = "analysis", "file", "replay", "rollout"
PRIORITY = {ANALYSIS: 0, REPLAY: 1, FILE: 2, ROLLOUT: 2}
"""Lower first: our own matches' analyses, then replays (a member waits for seconds of work), then
imported files (migration 026) and rollouts (minutes of work, ``bot.rollouts``; they have a lane of
their own in the bot, so this orders them only among the jobs a worker takes)."""

LIGHT_COLUMNS = (
    "id, kind, priority, owner_id, guild_id, channel_id, match_id, game, file_name, size, state, done,"
    " total, message_id, reply_token, shown, attempts, worker, lease_until, error, result_id, posted,"
    " seconds, created_at, started_at, finished_at, replay_of, detail"
)
"""Every column but the payload (a file's bytes, read only by the process that runs it) and the result
(a replay's GIF, read only by the process that posts it)."""


@dataclass(frozen=True, slots=True)
class JobRecord:
    id: int
    kind: str
    priority: int
    owner_id: int | None
    guild_id: int | None
    channel_id: int
    match_id: int | None
    game: str
    file_name: str | None
    size: int
    state: str
    done: int
    total: int
    message_id: int | None
    reply_token: str | None
    shown: str | None
    attempts: int
    worker: str | None
    lease_until: float | None
    error: str | None
    result_id: int | None
    posted: bool
    seconds: float | None
    created_at: float
    replay_of: int | None = None
    """A replay's match (migration 026); a rollout's, when its position is a match's."""
    detail: str | None = None
    """JSON: a replay's names and file size limit, then the frames it shows (migration 026); a
    rollout's position, games and seed (``bot.rollouts``)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """How many jobs of one kind (imported files, replays) may wait or run: per member, per server and
    in all."""

    per_member: int = 1
    per_server: int = 5
    in_all: int = 20


class Refused(Exception):
    """A job (a file, a replay) not queued: ``reason`` says which limit (``member``, ``server``, ``all``); ``holding`` is
    the member's own file already queued (for ``member``)."""

    def __init__(self, reason: str, limit: int, holding: JobRecord | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.limit = limit
        self.holding = holding


def pack_file(data: bytes) -> bytes:
    return zlib.compress(data, 6)


def unpack_file(payload: bytes) -> bytes:
    """A file's bytes as sent (``zlib.error`` when the payload is corrupt)."""
    return zlib.decompress(payload)


def job_record(row: Row) -> JobRecord:
    """A ``heavy_jobs`` row, selected with ``LIGHT_COLUMNS``, as a record."""
    return JobRecord(
        id=int(row["id"]),
        kind=row["kind"],
        priority=int(row["priority"]),
        owner_id=row["owner_id"],
        guild_id=row["guild_id"],
        channel_id=int(row["channel_id"]),
        match_id=row["match_id"],
        game=row["game"],
        file_name=row["file_name"],
        size=int(row["size"]),
        state=row["state"],
        done=int(row["done"]),
        total=int(row["total"]),
        message_id=row["message_id"],
        reply_token=row["reply_token"],
        shown=row["shown"],
        attempts=int(row["attempts"]),
        worker=row["worker"],
        lease_until=row["lease_until"],
        error=row["error"],
        result_id=row["result_id"],
        posted=bool(row["posted"]),
        seconds=row["seconds"],
        created_at=float(row["created_at"]),
        replay_of=row["replay_of"],
        detail=row["detail"],
    )
