"""Heavy jobs (migrations 025 and 026, ``bot.jobs``): analyses of our finished matches and of match
files sent to ``/analyse file:``, replays (``/replay``, ``bot.replays``) and rollouts (``/rollout``,
``bot.rollouts``: the result kept as the replay's GIF is, ``finish_replay``), queued in the database so
that a restart loses none; files and replays within their ``Limits`` (``_admit``).

A job is taken by one process at a time for a lease (``claim``, ``take``: a conditional update, so two
processes never both take one), renewed as it goes (``progress``); its result is saved together with
the job's end in one transaction (``finish_analysis``, ``finish_file``, ``finish_replay``: the GIF
kept in the job until it is posted), so a job computed twice (its
process was thought gone) is saved once. A running job whose process is gone or whose lease ran out
goes back to the queue (``free_owner``, ``free_expired``). What is done or failed is posted or told
once (``told``, conditional on ``posted = 0``).
"""

from __future__ import annotations

from typing import Any

from bot.store.connection import Connection
from bot.store.job_records import (
    ANALYSIS,
    FILE,
    JOB_DONE,
    JOB_FAILED,
    LIGHT_COLUMNS,
    PRIORITY,
    QUEUED,
    REPLAY,
    ROLLOUT,
    RUNNING,
    JobRecord,
    Limits,
    Refused,
    job_record,
    pack_file,
    unpack_file,
)
from bot.store.job_runs import JobRuns


async def _admit(db: Any, kind: str, owner_id: int, guild_id: int | None, limits: Limits) -> None:
    """``Refused`` when one more job of ``kind`` for ``owner_id`` on ``guild_id`` would pass a limit."""
    await db.serialize("heavy-jobs-admission")  # two at once are counted one after the other
    open_ = _held(kind)
    held = await db.all(
        f"SELECT {LIGHT_COLUMNS} FROM heavy_jobs WHERE {open_} AND owner_id = ? ORDER BY id", (owner_id,)
    )
    if len(held) >= limits.per_member:
        raise Refused("member", limits.per_member, job_record(held[0]))
    if guild_id is not None:
        here = await db.one(f"SELECT COUNT(*) FROM heavy_jobs WHERE {open_} AND guild_id = ?", (guild_id,))
        if here is not None and int(here[0]) >= limits.per_server:
            raise Refused("server", limits.per_server)
    everywhere = await db.one(f"SELECT COUNT(*) FROM heavy_jobs WHERE {open_}")
    if everywhere is not None and int(everywhere[0]) >= limits.in_all:
        raise Refused("all", limits.in_all)


def _held(kind: str) -> str:
    """The jobs of ``kind`` that hold a place within the limits: queued or running, and a replay (a
    rollout) until its GIF (its result) is posted, or its failure told."""
    open_ = f"kind = '{kind}' AND (state IN ('{QUEUED}', '{RUNNING}')"
    if kind in (REPLAY, ROLLOUT):
        open_ += f" OR (state IN ('{JOB_DONE}', '{JOB_FAILED}') AND posted = 0)"
    return open_ + ")"


class JobStore(JobRuns):
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    # -- queueing -------------------------------------------------------------------------------------

    async def add_analysis(
        self,
        *,
        match_id: int,
        game: str,
        guild_id: int | None,
        channel_id: int,
        size: int,
        message_id: int | None,
        now: float,
    ) -> int | None:
        """Queue the analysis of our match (once per match: None if it has its job already, which is
        given ``message_id`` if it had none)."""
        async with self._c.transaction() as db:
            found = await db.insert(
                "INSERT INTO heavy_jobs (kind, priority, guild_id, channel_id, match_id, game, size, state,"
                " message_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (match_id) WHERE match_id IS NOT NULL DO NOTHING",
                (
                    ANALYSIS,
                    PRIORITY[ANALYSIS],
                    guild_id,
                    channel_id,
                    match_id,
                    game,
                    size,
                    QUEUED,
                    message_id,
                    now,
                ),
            )
            if found is None and message_id is not None:
                # Queued already (a scheduler round came first): the result message is known now.
                await db.execute(
                    "UPDATE heavy_jobs SET message_id = ? WHERE match_id = ? AND message_id IS NULL",
                    (message_id, match_id),
                )
            return found

    async def add_file(
        self,
        *,
        owner_id: int,
        guild_id: int | None,
        channel_id: int,
        game: str,
        file_name: str,
        payload: bytes,
        size: int,
        reply_token: str | None,
        limits: Limits,
        now: float,
    ) -> int:
        """Queue a file's analysis, within ``limits`` (``Refused`` says which one it would pass)."""
        async with self._c.transaction() as db:
            await _admit(db, FILE, owner_id, guild_id, limits)
            found = await db.insert(
                "INSERT INTO heavy_jobs (kind, priority, owner_id, guild_id, channel_id, game, file_name,"
                " payload, size, state, reply_token, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    FILE,
                    PRIORITY[FILE],
                    owner_id,
                    guild_id,
                    channel_id,
                    game,
                    file_name,
                    payload,
                    size,
                    QUEUED,
                    reply_token,
                    now,
                ),
            )
        assert found is not None
        return found

    async def add_replay(
        self,
        *,
        owner_id: int,
        guild_id: int | None,
        channel_id: int,
        match_id: int,
        game: str,
        size: int,
        detail: str,
        reply_token: str | None,
        limits: Limits,
        now: float,
    ) -> int:
        """Queue the replay of match ``match_id`` for member ``owner_id`` (``detail``: JSON, the names
        and file size limit), within ``limits`` (``Refused`` says which one it would pass)."""
        return await self._add_asked(
            REPLAY, owner_id, guild_id, channel_id, match_id, game, size, detail, reply_token, limits, now
        )

    async def add_rollout(
        self,
        *,
        owner_id: int,
        guild_id: int | None,
        channel_id: int,
        match_id: int | None,
        game: str,
        size: int,
        detail: str,
        reply_token: str | None,
        limits: Limits,
        now: float,
    ) -> int:
        """Queue a rollout for member ``owner_id`` (``detail``: JSON, the position, games and seed;
        ``match_id``: the match it comes from, kept in ``replay_of``: ``match_id`` is the analysis's
        own; ``size``: the games to play), within ``limits`` (``Refused`` says which one it passes)."""
        return await self._add_asked(
            ROLLOUT, owner_id, guild_id, channel_id, match_id, game, size, detail, reply_token, limits, now
        )

    async def _add_asked(
        self,
        kind: str,
        owner_id: int,
        guild_id: int | None,
        channel_id: int,
        match_id: int | None,
        game: str,
        size: int,
        detail: str,
        reply_token: str | None,
        limits: Limits,
        now: float,
    ) -> int:
        """Queue a job a member asked for about a match or a position (a replay, a rollout: the match
        in ``replay_of``), within ``limits``."""
        async with self._c.transaction() as db:
            await _admit(db, kind, owner_id, guild_id, limits)
            found = await db.insert(
                "INSERT INTO heavy_jobs (kind, priority, owner_id, guild_id, channel_id, replay_of, game,"
                " size, state, reply_token, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    PRIORITY[kind],
                    owner_id,
                    guild_id,
                    channel_id,
                    match_id,
                    game,
                    size,
                    QUEUED,
                    reply_token,
                    detail,
                    now,
                ),
            )
        assert found is not None
        return found

    async def open_count(self, kind: str) -> int:
        """How many jobs of ``kind`` hold a place (``_held``)."""
        row = await self._c.one(f"SELECT COUNT(*) FROM heavy_jobs WHERE {_held(kind)}")
        return 0 if row is None else int(row[0])

    async def result(self, job_id: int) -> bytes | None:
        """A replay's GIF (a rollout's result, JSON), kept until it is posted (None: not made, or
        posted)."""
        row = await self._c.one("SELECT result FROM heavy_jobs WHERE id = ?", (job_id,))
        return None if row is None or row[0] is None else bytes(row[0])

    async def answered(self, job_id: int, message_id: int | None, shown: str) -> None:
        """The message that shows the job (a file's private answer) and what it shows."""
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE heavy_jobs SET message_id = COALESCE(?, message_id), shown = ? WHERE id = ?",
                (message_id, shown, job_id),
            )

    async def shown(self, job_id: int, line: str) -> None:
        async with self._c.transaction() as db:
            await db.execute("UPDATE heavy_jobs SET shown = ? WHERE id = ?", (line, job_id))

    # -- reading ---------------------------------------------------------------------------------------

    async def get(self, job_id: int) -> JobRecord | None:
        row = await self._c.one(f"SELECT {LIGHT_COLUMNS} FROM heavy_jobs WHERE id = ?", (job_id,))
        return None if row is None else job_record(row)

    async def of_match(self, match_id: int) -> JobRecord | None:
        row = await self._c.one(f"SELECT {LIGHT_COLUMNS} FROM heavy_jobs WHERE match_id = ?", (match_id,))
        return None if row is None else job_record(row)

    async def file_of(self, owner_id: int) -> JobRecord | None:
        """The member's file queued or running, if any (the oldest)."""
        row = await self._c.one(
            f"SELECT {LIGHT_COLUMNS} FROM heavy_jobs WHERE kind = ? AND owner_id = ? AND state IN (?, ?) ORDER BY id",
            (FILE, owner_id, QUEUED, RUNNING),
        )
        return None if row is None else job_record(row)

    async def payload(self, job_id: int) -> bytes | None:
        row = await self._c.one("SELECT payload FROM heavy_jobs WHERE id = ?", (job_id,))
        return None if row is None or row[0] is None else bytes(row[0])

    async def open(self) -> list[JobRecord]:
        """The jobs queued or running, in the order they are taken (running first)."""
        rows = await self._c.all(
            f"SELECT {LIGHT_COLUMNS} FROM heavy_jobs WHERE state IN (?, ?)"
            " ORDER BY CASE WHEN state = ? THEN 0 ELSE 1 END, priority, id",
            (RUNNING, QUEUED, RUNNING),
        )
        return [job_record(r) for r in rows]

    async def to_tell(self) -> list[JobRecord]:
        """The jobs done or failed whose result (or failure) is not posted yet, oldest first."""
        rows = await self._c.all(
            f"SELECT {LIGHT_COLUMNS} FROM heavy_jobs WHERE state IN (?, ?) AND posted = 0 ORDER BY id",
            (JOB_DONE, JOB_FAILED),
        )
        return [job_record(r) for r in rows]

    async def seconds_per_action(self, last: int = 20) -> float | None:
        """The wall seconds per action of the ``last`` analyses done (None: none yet; replays, a
        hundred times faster, have their own rate: ``bot.jobs.places``)."""
        rows = await self._c.all(
            "SELECT seconds, size FROM heavy_jobs WHERE state = ? AND seconds IS NOT NULL AND size > 0"
            f" AND kind NOT IN ('{REPLAY}', '{ROLLOUT}')"
            " ORDER BY finished_at DESC, id DESC LIMIT ?",
            (JOB_DONE, last),
        )
        actions = sum(int(r["size"]) for r in rows)
        return sum(float(r["seconds"]) for r in rows) / actions if actions else None

    async def workers(self, now: float) -> list[str]:
        """The processes running a job now (their lease not run out)."""
        rows = await self._c.all(
            "SELECT DISTINCT worker FROM heavy_jobs WHERE state = ? AND lease_until > ?", (RUNNING, now)
        )
        return [str(r[0]) for r in rows if r[0] is not None]

    async def running_owners(self) -> list[str]:
        rows = await self._c.all("SELECT DISTINCT worker FROM heavy_jobs WHERE state = ?", (RUNNING,))
        return [str(r[0]) for r in rows if r[0] is not None]

    async def told(self, job_id: int) -> bool:
        """The job's result (or failure) posted: True for the one caller that marks it first."""
        async with self._c.transaction() as db:
            return (
                await db.execute(
                    "UPDATE heavy_jobs SET posted = 1, result = NULL WHERE id = ? AND posted = 0", (job_id,)
                )
                == 1
            )

    async def purge_before(self, finished_before: float) -> int:
        """Delete the jobs posted (or told) that ended before ``finished_before``; how many."""
        async with self._c.transaction() as db:
            return await db.execute(
                "DELETE FROM heavy_jobs WHERE posted = 1 AND finished_at < ? AND match_id IS NULL",
                (finished_before,),
            )


__all__ = [
    "ANALYSIS",
    "FILE",
    "JOB_DONE",
    "JOB_FAILED",
    "QUEUED",
    "REPLAY",
    "ROLLOUT",
    "RUNNING",
    "JobRecord",
    "JobStore",
    "Limits",
    "Refused",
    "pack_file",
    "unpack_file",
]
