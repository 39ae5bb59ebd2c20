"""Heavy jobs being run (``bot.store.jobs``): taken by one process at a time for a lease, their
progress saved, their end saved with their result in one transaction, given back when their process is
gone. ``JobStore`` is this and the queueing part."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.store.analyses import FAILED, PENDING, save_analysis
from bot.store.connection import Connection
from bot.store.imports import NewImport, add_import
from bot.store.job_records import (
    ANALYSIS,
    FILE,
    JOB_DONE,
    JOB_FAILED,
    LIGHT_COLUMNS,
    QUEUED,
    RUNNING,
    JobRecord,
    job_record,
)


class JobRuns:
    _c: Connection

    async def claim(
        self, owner: str, now: float, lease: float, kinds: Sequence[str] = (ANALYSIS, FILE)
    ) -> JobRecord | None:
        """Take the next queued job (priority, then age) for ``owner`` until ``now + lease``."""
        marks = ", ".join("?" for _ in kinds)
        for _ in range(5):  # another process took the one we chose: choose again
            # Chosen by a read (an idle process writes nothing), taken by a conditional update.
            row = await self._c.one(
                f"SELECT id FROM heavy_jobs WHERE state = ? AND kind IN ({marks}) ORDER BY priority, id LIMIT 1",
                (QUEUED, *kinds),
            )
            if row is None:
                return None
            async with self._c.transaction() as db:
                taken = await self._take(db, int(row[0]), owner, now, lease, expired_too=False)
            if taken is not None:
                return taken
        return None

    async def take(self, job_id: int, owner: str, now: float, lease: float) -> JobRecord | None:
        """Take job ``job_id`` (dispatched to this process): if queued, or running with its lease run
        out; None otherwise (another process has it, or it is over)."""
        async with self._c.transaction() as db:
            return await self._take(db, job_id, owner, now, lease, expired_too=True)

    async def _take(
        self, db: Any, job_id: int, owner: str, now: float, lease: float, *, expired_too: bool
    ) -> JobRecord | None:
        expired = f" OR (state = '{RUNNING}' AND lease_until <= ?)" if expired_too else ""
        row = await db.one(
            "UPDATE heavy_jobs SET state = ?, worker = ?, lease_until = ?, attempts = attempts + 1,"
            f" started_at = ?, done = 0 WHERE id = ? AND (state = ?{expired}) RETURNING {LIGHT_COLUMNS}",
            (RUNNING, owner, now + lease, now, job_id, QUEUED, *([now] if expired_too else [])),
        )
        return None if row is None else job_record(row)

    async def progress(self, job_id: int, owner: str, done: int, total: int, until: float) -> bool:
        """The running job's progress, and its lease renewed; False when ``owner`` no longer holds it."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE heavy_jobs SET done = ?, total = ?, lease_until = ? WHERE id = ? AND worker = ?"
                " AND state = ?",
                (done, total, until, job_id, owner, RUNNING),
            )
        return changed == 1

    async def release(self, job_id: int, owner: str, *, again: bool = True) -> bool:
        """Back to the queue (the process is stopping, or its worker was lost: ``again``, counted)."""
        async with self._c.transaction() as db:
            changed = await db.execute(
                "UPDATE heavy_jobs SET state = ?, worker = NULL, lease_until = NULL, done = 0,"
                f" attempts = attempts - {0 if again else 1} WHERE id = ? AND worker = ? AND state = ?",
                (QUEUED, job_id, owner, RUNNING),
            )
        return changed == 1

    async def finish_analysis(
        self, job: JobRecord, owner: str, analysis: Any, seconds: float, now: float
    ) -> bool:
        """Our match's analysis computed: saved (``match_analyses``, to post) with the job's end, in one
        transaction, if ``owner`` still holds the job; whether it did."""
        assert job.match_id is not None
        async with self._c.transaction() as db:
            if not await self._end(db, job.id, owner, JOB_DONE, None, None, seconds, now):
                return False
            await save_analysis(db, job.match_id, analysis, now, only_if=PENDING)
        return True

    async def finish_file(
        self,
        job: JobRecord,
        owner: str,
        *,
        names: Sequence[str],
        options: dict[str, Any],
        packed_log: bytes,
        packed_analysis: bytes,
        seconds: float,
        now: float,
    ) -> int | None:
        """A file analysed: kept (``imported_matches``, to post) with the job's end, in one transaction,
        if ``owner`` still holds the job; the imported match's id (None: not ours any more)."""
        assert job.file_name is not None and job.owner_id is not None
        new = NewImport(
            guild_id=job.guild_id,
            channel_id=job.channel_id,
            sender_id=job.owner_id,
            game=job.game,
            file_name=job.file_name,
            names=names,
            options=options,
            packed_log=packed_log,
            packed_analysis=packed_analysis,
            now=now,
        )
        try:
            async with self._c.transaction() as db:
                import_id = await add_import(db, new)
                if not await self._end(db, job.id, owner, JOB_DONE, None, import_id, seconds, now):
                    raise _NotOurs  # rolls the import back
        except _NotOurs:
            return None
        return import_id

    async def finish_replay(
        self, job: JobRecord, owner: str, gif: bytes, detail: str, seconds: float, now: float
    ) -> bool:
        """A replay made: its GIF kept (to post) with the job's end and ``detail`` (its frames), in one
        transaction, if ``owner`` still holds the job; whether it did."""
        async with self._c.transaction() as db:
            if not await self._end(db, job.id, owner, JOB_DONE, None, None, seconds, now):
                return False
            await db.execute(
                "UPDATE heavy_jobs SET result = ?, detail = ? WHERE id = ?", (gif, detail, job.id)
            )
        return True

    async def finish_rollout(
        self, job: JobRecord, owner: str, result: bytes, seconds: float, now: float
    ) -> bool:
        """A rollout done: its result (JSON) kept to post, as a replay's GIF is, with the job's end."""
        return await self.finish_replay(job, owner, result, job.detail or "{}", seconds, now)

    async def fail(self, job: JobRecord, owner: str | None, error: str, now: float) -> bool:
        """The job cannot be done (``error``: why, for its asker); our match's analysis is marked
        failed with it. ``owner`` None: whoever holds it (a job found unreadable before it ran)."""
        async with self._c.transaction() as db:
            if not await self._end(db, job.id, owner, JOB_FAILED, error, None, None, now):
                return False
            if job.match_id is not None:
                await db.execute(
                    "UPDATE match_analyses SET status = ?, computed_at = ? WHERE match_id = ? AND status = ?",
                    (FAILED, now, job.match_id, PENDING),
                )
        return True

    async def _end(
        self,
        db: Any,
        job_id: int,
        owner: str | None,
        state: str,
        error: str | None,
        result_id: int | None,
        seconds: float | None,
        now: float,
    ) -> bool:
        mine = " AND worker = ?" if owner is not None else ""
        changed = await db.execute(
            "UPDATE heavy_jobs SET state = ?, error = ?, result_id = ?, seconds = ?, finished_at = ?,"
            f" payload = NULL, lease_until = NULL WHERE id = ? AND state IN (?, ?){mine}",
            (
                state,
                error,
                result_id,
                seconds,
                now,
                job_id,
                QUEUED,
                RUNNING,
                *([owner] if owner is not None else []),
            ),
        )
        return bool(changed == 1)

    async def free_owner(self, owner: str) -> int:
        """The running jobs of a process known to be gone, back to the queue; how many."""
        async with self._c.transaction() as db:
            return await db.execute(
                "UPDATE heavy_jobs SET state = ?, worker = NULL, lease_until = NULL, done = 0"
                " WHERE state = ? AND worker = ?",
                (QUEUED, RUNNING, owner),
            )

    async def free_expired(self, now: float) -> int:
        """The running jobs whose lease ran out (their process stopped renewing it), back to the queue."""
        if (
            await self._c.one("SELECT 1 FROM heavy_jobs WHERE state = ? AND lease_until <= ?", (RUNNING, now))
            is None
        ):
            return 0  # nothing to write (an idle process writes nothing)
        async with self._c.transaction() as db:
            return await db.execute(
                "UPDATE heavy_jobs SET state = ?, worker = NULL, lease_until = NULL, done = 0"
                " WHERE state = ? AND lease_until <= ?",
                (QUEUED, RUNNING, now),
            )


class _NotOurs(Exception):
    """Raised inside ``finish_file``'s transaction to roll it back: the job is no longer ours."""
