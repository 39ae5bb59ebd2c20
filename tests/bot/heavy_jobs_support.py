"""What the tests of heavy jobs share (``test_heavy_jobs``, ``test_replay_jobs``): a store opened on
the test's database, a file's job and a match queued in it, a job's record as the queue holds it, and
a bot with a finished match to ask replays of."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.store import MatchRecord, Store
from bot.store.jobs import FILE, JobRecord, Limits, pack_file
from fakediscord import FakeDiscord, FakeUser
from fakediscord.results import InteractionResult
from tests.bot.test_analyse_file import ONE_POINT
from tests.bot.test_replay_command import _finished_match
from tests.support import start_bot


@contextlib.asynccontextmanager
async def opened_store(tmp_path: Path) -> AsyncIterator[Store]:
    """The store of the test's database (``tmp_path / "db.sqlite3"``), closed at the end."""
    store = await Store.open(tmp_path / "db.sqlite3")
    try:
        yield store
    finally:
        await store.close()


async def queued_file(
    store: Store,
    owner: int,
    guild: int | None = 1,
    limits: Limits | None = None,
    *,
    channel: int = 10,
    name: str | None = None,
) -> int:
    """A one-point match file sent by member ``owner`` (``m<owner>.mat`` unless ``name``), queued; its job's id."""
    return await store.jobs.add_file(
        owner_id=owner,
        guild_id=guild,
        channel_id=channel,
        game="backgammon",
        file_name=name or f"m{owner}.mat",
        payload=pack_file(ONE_POINT),
        size=30,
        reply_token=None,
        limits=limits or Limits(),
        now=1.0,
    )


async def empty_match(store: Store) -> MatchRecord:
    """A backgammon match of members 100 and 101 in channel 10 of server 1, without actions."""
    return await store.matches.create(
        guild_id=1, channel_id=10, parent_id=None, game="backgammon", options={},
        players=(100, 101), state="{}", actions=[], rated=False, now=5.0,
    )  # fmt: skip


def job_record(job_id: int, state: str, size: int, done: int = 0, total: int = 0) -> JobRecord:
    """A file's job of ``size`` actions as the queue would hold it (for ``bot.jobs.places``)."""
    return JobRecord(
        id=job_id, kind=FILE, priority=1, owner_id=job_id, guild_id=1, channel_id=1, match_id=None,
        game="backgammon", file_name="m.mat", size=size, state=state, done=done, total=total,
        message_id=None, reply_token=None, shown=None, attempts=0, worker=None, lease_until=None,
        error=None, result_id=None, posted=False, seconds=None, created_at=0.0,
    )  # fmt: skip


async def bot_with_a_finished_match(
    fake: FakeDiscord, tmp_path: Path, clock: ManualClock | None = None
) -> tuple[RingsideBot, int, int]:
    """A bot on the test's database, and a ring match it played to its end (resigned): (the bot, the
    match's id, its channel)."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    match_id, channel = await _finished_match(fake, bot)
    return bot, match_id, channel


async def ask_replay(
    fake: FakeDiscord, match_id: int, channel: int, user: FakeUser | None = None
) -> InteractionResult:
    """``/replay`` of ``match_id`` asked in ``channel`` by ``user`` (a new member, carol, unless given),
    answered."""
    asker = user or fake.add_user("carol")
    return await fake.slash(asker, "replay", {"match": match_id}, channel=channel, idle=True)
