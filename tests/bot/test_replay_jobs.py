"""Replays as heavy jobs (issue 34, ``bot.replays``): queued with a place, shown as they are made,
posted once by the bot, made after a restart that interrupted them, and told when they fail."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import app.render_pool as render_pool_module
from app.client import RingsideBot
from app.render_pool import RenderPool
from bot.clock import ManualClock
from bot.jobs import runner as runner_module
from bot.jobs.runner import JobRunner
from bot.replays import KEPT_AT_RESTART, MAKING
from bot.store.jobs import ANALYSIS, FILE, QUEUED, REPLAY, Limits
from bot.worker_lanes import HeavyWorkOverBudget
from fakediscord import FakeDiscord
from fakediscord.patience import patient
from render.replay import ReplayGif, ReplayTooLarge, write_progress
from tests.bot.heavy_jobs_support import (
    ask_replay,
    bot_with_a_finished_match,
    empty_match,
    job_record,
    opened_store,
    queued_file,
)
from tests.bot.test_replay_command import over
from tests.databases import sql
from tests.support import start_bot, stop_bot


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """Progress noted, saved and shown at once (the bounds are the tests', not a user's)."""
    monkeypatch.setattr(render_pool_module, "REPLAY_PROGRESS_POLL", 0.02)
    monkeypatch.setattr(runner_module, "PROGRESS_EVERY", 0.05)
    monkeypatch.setattr("bot.analyses.SHOW_EVERY", 0.05)


def held(bot: RingsideBot, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """The bot's replays note 40 of 212 frames drawn, then wait for the returned event to be made."""
    release = asyncio.Event()
    make = bot.render_pool.replay

    async def replay(match: Any, limit: int, progress: str | None = None) -> ReplayGif:
        if progress is not None:
            write_progress(progress, 40, 212)
        await release.wait()
        return await make(match, limit, progress)

    monkeypatch.setattr(bot.render_pool, "replay", replay)
    return release


def said(result: Any, start: str) -> bool:
    """Whether the reply said, now or before, something starting with ``start``."""
    msg = result.message
    if msg is None:
        return False
    return msg.content.startswith(start) or any(
        str(old.get("content")).startswith(start) for old in msg.history
    )


@pytest.mark.asyncio
async def test_a_replay_is_queued_with_its_place_shows_its_frames_and_is_posted_once(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("app.client.REPLAY_LANES", 1)  # one made at a time: the second waits
    bot, match_id, channel = await bot_with_a_finished_match(fake, tmp_path)
    release = held(bot, monkeypatch)
    carol, dave = fake.add_user("carol"), fake.add_user("dave")
    first = await ask_replay(fake, match_id, channel, carol)
    await fake.wait_for(
        lambda: said(first, f"{MAKING} 40 of 212 frames"), timeout=patient(30), what="its frames"
    )
    second = await ask_replay(fake, match_id, channel, dave)
    assert second.message is not None and not second.ephemeral
    assert second.message.content == f"{MAKING} (place 1 in the queue, ready in under a minute)"
    # One at a time per member: refused at once, privately, the limit named.
    again = await fake.slash(carol, "replay", {"match": match_id}, channel=channel)
    assert again.ephemeral and "at most one replay at a time per member" in again.message.content  # type: ignore[union-attr]
    release.set()
    await over(bot)
    for asked in (first, second):
        assert asked.message is not None
        assert asked.message.content.startswith(f"Replay of match #{match_id}, Ring")
        gif = Image.open(io.BytesIO(asked.message.attachment(f"match-{match_id}.gif").data))
        assert gif.format == "GIF"
    # Posted once: the GIF is each reply's, nothing else was sent, and both jobs are marked posted
    # with their GIF no longer kept.
    shown = [m.id for m in fake.messages_in(channel) if "Replay of match" in m.content]
    assert sorted(shown) == sorted(asked.message.id for asked in (first, second) if asked.message)
    rows = sql(tmp_path / "db.sqlite3", "SELECT kind, state, posted, result FROM heavy_jobs ORDER BY id")
    assert rows == [(REPLAY, "done", 1, None), (REPLAY, "done", 1, None)]
    assert await bot.analyses.tell() == 0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_replay_being_made_at_a_restart_is_made_after_it_and_posted_once(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, match_id, channel = await bot_with_a_finished_match(fake, tmp_path)
    held(bot, monkeypatch)  # never released: this process stops while it is being made
    asked = await ask_replay(fake, match_id, channel)
    await fake.wait_for(
        lambda: said(asked, f"{MAKING} 40 of 212 frames"), timeout=patient(30), what="its frames"
    )
    await stop_bot(bot)
    assert asked.message is not None and asked.message.content == KEPT_AT_RESTART
    assert sql(tmp_path / "db.sqlite3", "SELECT state, worker, posted FROM heavy_jobs") == [(QUEUED, None, 0)]
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    await fake.wait_for(
        lambda: (
            asked.message is not None and asked.message.content.startswith(f"Replay of match #{match_id}")
        ),
        timeout=patient(60),
        what="the replay",
    )
    await over(bot)
    assert asked.message.attachment(f"match-{match_id}.gif").data
    assert [m.id for m in fake.messages_in(channel) if "Replay of match" in m.content] == [asked.message.id]
    assert sql(tmp_path / "db.sqlite3", "SELECT state, posted FROM heavy_jobs") == [("done", 1)]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_replay_too_large_is_told_privately(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, match_id, channel = await bot_with_a_finished_match(fake, tmp_path)

    async def too_large(*args: Any, **kwargs: Any) -> ReplayGif:
        raise ReplayTooLarge("even the fewest frames are too large")

    monkeypatch.setattr(bot.render_pool, "replay", too_large)
    asked = await ask_replay(fake, match_id, channel)
    await over(bot)
    assert asked.private is not None
    assert asked.private.content == f"Match #{match_id} is too long for a replay Discord would take."
    # the public "Making the replay…" reply is not left behind
    assert asked.message is None or asked.message.deleted or asked.message.ephemeral
    assert sql(tmp_path / "db.sqlite3", "SELECT state, posted FROM heavy_jobs") == [("failed", 1)]
    assert not asked.errors
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_replay_made_after_its_token_ran_out_is_posted_in_the_channel_for_its_asker(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = ManualClock()
    bot, match_id, channel = await bot_with_a_finished_match(fake, tmp_path, clock)
    release = held(bot, monkeypatch)
    carol = fake.add_user("carol")
    await ask_replay(fake, match_id, channel, carol)
    clock.advance(20 * 60)  # Discord honours an interaction's token for 15 minutes
    release.set()
    await over(bot)
    (posted,) = [m for m in fake.messages_in(channel) if "Replay of match" in m.content]
    assert posted.content.startswith(f"<@{carol.id}> Replay of match #{match_id}, Ring")
    assert posted.attachment(f"match-{match_id}.gif").data
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_replays_are_taken_after_our_analyses_and_before_imported_files(tmp_path: Path) -> None:
    async with opened_store(tmp_path) as store:
        made = await empty_match(store)
        await queued_file(store, 100, name="m.mat")
        await store.jobs.add_replay(
            owner_id=101, guild_id=1, channel_id=10, match_id=made.id, game="backgammon", size=5,
            detail="{}", reply_token=None, limits=Limits(), now=2.0,
        )  # fmt: skip
        await store.jobs.add_analysis(
            match_id=made.id, game="backgammon", guild_id=1, channel_id=10, size=5, message_id=None, now=3.0
        )
        taken = []
        while (job := await store.jobs.claim("host:1:a", 10.0, 60.0, (ANALYSIS, REPLAY, FILE))) is not None:
            taken.append(job.kind)
        assert taken == [ANALYSIS, REPLAY, FILE]


@pytest.mark.asyncio
async def test_a_worker_process_makes_a_replay_through_the_database_and_the_bot_posts_it_once(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``python -m bot worker`` does with a replay handed to it (``bot.jobs.worker``: a runner
    without lanes, replays made in a thread): the GIF goes through the database, the bot posts it."""
    monkeypatch.setattr("app.client.REPLAY_LANES", 0)  # the bot makes none itself here
    bot, match_id, channel = await bot_with_a_finished_match(fake, tmp_path)
    asked = await ask_replay(fake, match_id, channel)
    (job,) = await bot.store.jobs.open()
    without = JobRunner(bot.store, bot.clock, owner="elsewhere:1:a", lanes=0)
    assert not await without.run_id(job.id)  # a worker without a replayer leaves it to the bot
    worker = JobRunner(bot.store, bot.clock, owner="elsewhere:1:b", lanes=0, replayer=RenderPool(0))
    assert await worker.run_id(job.id)
    await over(bot)
    assert asked.message is not None and asked.message.content.startswith(f"Replay of match #{match_id}")
    assert asked.message.attachment(f"match-{match_id}.gif").data
    assert sql(tmp_path / "db.sqlite3", "SELECT worker, state, posted FROM heavy_jobs") == [
        ("elsewhere:1:b", "done", 1)
    ]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_replay_over_its_cpu_budget_is_told_at_once_and_not_tried_again(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot, match_id, channel = await bot_with_a_finished_match(fake, tmp_path)
    tries: list[int] = []

    async def over_budget(*args: Any, **kwargs: Any) -> ReplayGif:
        tries.append(1)
        raise HeavyWorkOverBudget("a heavy job ran past its CPU budget")

    monkeypatch.setattr(bot.render_pool, "replay", over_budget)
    asked = await ask_replay(fake, match_id, channel)
    await over(bot)
    assert tries == [1]
    assert asked.private is not None and "could not be made in time: the bot is busy" in asked.private.content
    assert sql(tmp_path / "db.sqlite3", "SELECT state, attempts, posted FROM heavy_jobs") == [
        ("failed", 1, 1)
    ]
    assert not asked.errors
    await stop_bot(bot)


def test_a_replay_s_place_counts_the_replays_ahead_only_at_the_replays_rate() -> None:
    from dataclasses import replace

    from bot.jobs.places import REPLAY_SECONDS_PER_ACTION, places

    analysis = job_record(1, "running", 10_000)
    first, second = (replace(job_record(i, QUEUED, 500), kind=REPLAY) for i in (2, 3))
    found = places([analysis, first, second], 0.5, 1, replay_workers=1)
    assert (found[2].place, found[2].seconds) == (1, 500 * REPLAY_SECONDS_PER_ACTION)
    assert (found[3].place, found[3].seconds) == (2, 1000 * REPLAY_SECONDS_PER_ACTION)
    assert found[1].seconds == 10_000 * 0.5  # the analysis is not slowed by the replays
