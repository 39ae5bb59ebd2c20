"""``/replay``: a finished match as an animated GIF, posted in the channel; clear refusals otherwise."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from PIL import Image

import render.replay as replay_module
from engine.space.game import SpaceView
from fakediscord import FakeDiscord
from fakediscord.matches import (
    challenge_and_accept,
    controls_of,
    match_id_of,
    play_one,
    play_until_over,
    resign,
)
from tests.support import start_bot, stop_bot


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
    result = await fake.slash(bob, "replay", {}, channel=board.channel_id, idle=True)
    posted = result.messages[-1]
    assert f"Replay of match #{match_id}, Ring" in posted.content and not result.ephemeral
    gif = Image.open(io.BytesIO(posted.attachment(f"match-{match_id}.gif").data))
    assert gif.format == "GIF" and gif.n_frames == actions + 1
    # By number too, by someone who did not play.
    carol = fake.add_user("carol")
    again = await fake.slash(carol, "replay", {"match": match_id}, channel=board.channel_id, idle=True)
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
    result = await fake.slash(alice, "replay", {}, channel=board.channel_id, idle=True)
    gif = Image.open(io.BytesIO(result.messages[-1].attachment().data))
    assert gif.n_frames == len(await bot.store.matches.action_log(match_id)) + 1
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
    result = await fake.slash(bob, "replay", {}, channel=board.channel_id, idle=True)
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
        await fake.slash(bob, "replay", {}, channel=board.channel_id, idle=True)
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
