"""``/replay``: a finished match as an animated GIF, posted in the channel; clear refusals otherwise."""

from __future__ import annotations

import asyncio
import io
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from PIL import Image

import render.replay as replay_module
from app.client import RingsideBot
from bot.clock import ManualClock
from bot.replays import ReplayLimits, ReplayRefused, Replays
from bot.store import Store
from bot.worker_lanes import HeavyWorkFailed
from engine.space.game import SpaceView
from fakediscord import FakeDiscord, payloads
from fakediscord.matches import (
    challenge_and_accept,
    controls_of,
    match_id_of,
    play_one,
    play_until_over,
    resign,
)
from fakediscord.patience import patient
from fakediscord.results import InteractionResult
from render.replay import GIF_LIMIT, ReplayGif
from tests.support import start_bot, stop_bot


async def replayed(
    fake: FakeDiscord, bot: RingsideBot, user: Any, options: dict[str, Any], channel: int
) -> InteractionResult:
    """``/replay``, answered, and then (a job) made and posted or told: every replay asked is over."""
    result = await fake.slash(user, "replay", options, channel=channel, idle=True)
    await over(bot)
    return result


async def over(bot: RingsideBot) -> None:
    """Until no replay waits, is made or is still to be posted."""

    async def nothing_left() -> None:
        while True:
            bot.analyses.finished.clear()
            if await bot.replays.in_making() == 0:
                return
            await bot.analyses.finished.wait()

    await asyncio.wait_for(nothing_left(), patient(60))


@pytest.mark.asyncio
async def test_replay_of_a_finished_match_posts_a_gif_with_a_frame_per_action(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    match_id = match_id_of(board)
    await play_until_over(fake, board.channel_id, {alice.id: alice, bob.id: bob}, random.Random(6))
    actions = len(await bot.store.matches.action_log(match_id))
    result = await replayed(fake, bot, bob, {}, board.channel_id)
    posted = result.messages[-1]
    assert f"Replay of match #{match_id}, Ring" in posted.content and not result.ephemeral
    gif = Image.open(io.BytesIO(posted.attachment(f"match-{match_id}.gif").data))
    assert gif.format == "GIF" and gif.n_frames == actions + 1
    assert posted.content.endswith(f", every turn ({gif.n_frames} frames).")
    # The reply said at once that the replay was being made; the GIF then took its place.
    assert any(str(old.get("content")).startswith("Making the replay…") for old in posted.history)
    # By number too, by someone who did not play.
    carol = fake.add_user("carol")
    again = await replayed(fake, bot, carol, {"match": match_id}, board.channel_id)
    assert again.messages[-1].attachment(f"match-{match_id}.gif").data == posted.attachment().data
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_resigned_match_replays_to_where_play_stopped(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    match_id = match_id_of(board)
    await resign(fake, alice, board.channel_id)
    result = await replayed(fake, bot, alice, {}, board.channel_id)
    gif = Image.open(io.BytesIO(result.messages[-1].attachment().data))
    assert gif.n_frames == len(await bot.store.matches.action_log(match_id)) + 1
    # Its frames counted as the GIF has them, in words that read right (never "1 frames").
    counted = "1 frame" if gif.n_frames == 1 else f"{gif.n_frames} frames"
    assert result.messages[-1].content.endswith(f", every turn ({counted}).")
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_space_replay_shows_the_public_board_only(fake: FakeDiscord, tmp_path: Path) -> None:
    """Space has secret hands: the replay is drawn from the public view of each position, which
    shows the hands' sizes, never their cards, and never the deck's order."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, game="space")
    match_id = match_id_of(board)
    rng, users = random.Random(3), {alice.id: alice, bob.id: bob}
    for _ in range(60):
        message, user = controls_of(fake, board.channel_id, users)
        assert user is not None
        await play_one(fake, message, user, rng)
    await resign(fake, alice, board.channel_id)
    log_ = await bot.store.matches.action_log(match_id)
    result = await replayed(fake, bot, bob, {}, board.channel_id)
    posted = result.messages[-1]
    assert f"Replay of match #{match_id}, Space" in posted.content
    gif = Image.open(io.BytesIO(posted.attachment().data))
    assert gif.n_frames == len(log_) + 1
    spied: list[object] = []
    original = replay_module.render_board
    monkey = pytest.MonkeyPatch()
    monkey.setattr(
        replay_module, "render_board", lambda view, caption: spied.append(view) or original(view, caption)
    )
    try:
        await replayed(fake, bot, bob, {}, board.channel_id)
    finally:
        monkey.undo()
    assert len(spied) == len(log_) + 1
    assert all(isinstance(view, SpaceView) and view.seat is None for view in spied)
    assert all(view.hand == () and view.spied_hand is None for view in spied)  # type: ignore[attr-defined]
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_replay_refuses_active_unknown_and_missing_matches_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    nothing = await fake.slash(alice, "replay", {})
    assert nothing.ephemeral and "no finished match on this server" in nothing.message.content  # type: ignore[union-attr]
    board = await challenge_and_accept(fake, alice, bob)
    match_id = match_id_of(board)
    active = await fake.slash(alice, "replay", {"match": match_id}, channel=board.channel_id)
    assert active.ephemeral and "still being played" in active.message.content  # type: ignore[union-attr]
    unknown = await fake.slash(alice, "replay", {"match": 9999})
    assert unknown.ephemeral and "There is no match #9999 on this server" in unknown.message.content  # type: ignore[union-attr]
    negative = await fake.slash(alice, "replay", {"match": -3})
    assert negative.ephemeral and "There is no match #-3" in negative.message.content  # type: ignore[union-attr]
    await stop_bot(bot)


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord, tmp_path: Path) -> AsyncIterator[RingsideBot]:
    started = await start_bot(fake, tmp_path / "db.sqlite3")
    yield started
    await stop_bot(started)


async def _finished_match(fake: FakeDiscord, bot: RingsideBot) -> tuple[int, int]:
    """A resigned ring match between two new players: (its id, its channel)."""
    alice, bob = fake.add_user(f"a{len(fake.world.users)}"), fake.add_user(f"b{len(fake.world.users)}")
    board = await challenge_and_accept(fake, alice, bob)
    match_id = match_id_of(board)
    await resign(fake, alice, board.channel_id)
    return match_id, board.channel_id


def _held_replays(bot: RingsideBot, monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """Replays are made only once the returned event is set (they stay "in the making" until then)."""
    release = asyncio.Event()
    make = bot.render_pool.replay

    async def held(*args: Any, **kwargs: Any) -> ReplayGif:
        await release.wait()
        return await make(*args, **kwargs)

    monkeypatch.setattr(bot.render_pool, "replay", held)
    return release


@pytest.mark.asyncio
async def test_replays_in_the_making_are_limited_per_member_per_server_and_in_all(
    fake: FakeDiscord, bot: RingsideBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, channel = await _finished_match(fake, bot)
    release = _held_replays(bot, monkeypatch)
    carol, dave, erin = (fake.add_user(name) for name in ("carol", "dave", "erin"))
    first = await fake.slash(carol, "replay", {"match": match_id}, channel=channel, idle=False)
    again = await fake.slash(carol, "replay", {"match": match_id}, channel=channel)
    assert again.ephemeral and "at most one replay at a time per member" in again.message.content  # type: ignore[union-attr]
    second = await fake.slash(dave, "replay", {"match": match_id}, channel=channel, idle=False)
    third = await fake.slash(erin, "replay", {"match": match_id}, channel=channel)
    assert third.ephemeral and "at most 2 replays at a time per server" in third.message.content  # type: ignore[union-attr]
    assert await bot.replays.in_making() == 2
    release.set()
    await over(bot)
    for asked in (first, second):
        assert f"Replay of match #{match_id}" in asked.messages[-1].content
    assert await bot.replays.in_making() == 0
    # the places are given back: the same member may ask again
    done = await replayed(fake, bot, carol, {"match": match_id}, channel)
    assert done.messages[-1].attachment(f"match-{match_id}.gif").data
    fake.assert_clean()


@pytest.mark.asyncio
async def test_the_limit_in_all_counts_every_server(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "limits.sqlite3")
    replays = Replays(store, ManualClock(), ReplayLimits(per_member=1, per_server=2, in_all=3))

    async def ask(member: int, guild: int) -> int:
        return await replays.queue(
            owner_id=member,
            guild_id=guild,
            channel_id=guild,
            match_id=1,
            game="ring",
            size=10,
            names=("a", "b"),
            limit=GIF_LIMIT,
            reply_token=None,
        )

    for member, guild in ((1, 10), (2, 10), (3, 20)):
        await ask(member, guild)
    with pytest.raises(ReplayRefused, match="making 3 replays already"):
        await ask(4, 30)
    assert await replays.in_making() == 3
    await store.close()


@pytest.mark.asyncio
async def test_a_replay_whose_upload_fails_is_told_privately_without_a_traceback(
    fake: FakeDiscord, bot: RingsideBot
) -> None:
    match_id, channel = await _finished_match(fake, bot)
    carol = fake.add_user("carol")
    for status, words in ((413, "too large"), (403, "Discord refused it (403)")):
        # The GIF replaces the words counting its frames: an edit of the original reply.
        fault = fake.fail("PATCH", r"^/webhooks/.*/messages/@original", status=status, times=None)
        result = await replayed(fake, bot, carol, {"match": match_id}, channel)
        fault.clear()
        private = result.private
        assert private is not None and f"replay of match #{match_id} could not be posted" in private.content
        assert words in private.content
        # the public "thinking…" reply is not left behind
        assert result.message is None or result.message.deleted or result.message.ephemeral
        assert not result.errors
    assert await bot.replays.in_making() == 0


@pytest.mark.asyncio
async def test_a_replay_not_made_in_time_is_told_privately(
    fake: FakeDiscord, bot: RingsideBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id, channel = await _finished_match(fake, bot)

    async def lost(*args: Any, **kwargs: Any) -> ReplayGif:
        raise HeavyWorkFailed("a heavy worker hung")

    monkeypatch.setattr(bot.render_pool, "replay", lost)
    result = await replayed(fake, bot, fake.add_user("carol"), {"match": match_id}, channel)
    assert result.private is not None and "could not be made in time" in result.private.content
    assert not result.errors and await bot.replays.in_making() == 0


@pytest.mark.asyncio
async def test_the_gif_fits_the_upload_limit_discord_gives_in_the_interaction(
    fake: FakeDiscord, bot: RingsideBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    match_id = match_id_of(board)
    await play_until_over(fake, board.channel_id, {alice.id: alice, bob.id: bob}, random.Random(6))
    full = await replayed(fake, bot, bob, {}, board.channel_id)
    size = len(full.messages[-1].attachment().data)
    monkeypatch.setattr(payloads, "ATTACHMENT_SIZE_LIMIT", size // 2)
    smaller = await replayed(fake, bot, alice, {"match": match_id}, board.channel_id)
    assert len(smaller.messages[-1].attachment().data) <= size // 2  # fewer or smaller frames
