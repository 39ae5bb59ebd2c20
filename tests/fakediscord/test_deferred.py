"""Answering a component first (defer: callback 6 or 5) and finishing later, as a slow handler does:
the original response edited with a new picture, an ephemeral followup, plain channel posts and
edits; every step carries a ``time.perf_counter()`` timestamp a bench can read."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
import pytest_asyncio
from discord.ext import commands
from PIL import Image

from fakediscord import FakeDiscord, FakeMessage

WORK = 0.02  # the "slow part" (a picture drawn elsewhere), seconds


def png(name: str, colour: str) -> discord.File:
    buf = io.BytesIO()
    Image.new("RGB", (20, 10), colour).save(buf, format="PNG")
    buf.seek(0)
    return discord.File(buf, filename=name)


class SlowBoard(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Roll", custom_id="roll")
    async def roll(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()  # type 6: the board stays, no "thinking"
        await asyncio.sleep(WORK)
        await interaction.edit_original_response(
            content="rolled", attachments=[png("board.png", "blue")], view=SlowBoard()
        )

    @discord.ui.button(label="Hint", custom_id="hint")
    async def hint(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()
        await asyncio.sleep(WORK)
        await interaction.followup.send("only you see this", file=png("hint.png", "green"), ephemeral=True)

    @discord.ui.button(label="Think", custom_id="think")
    async def think(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)  # type 5
        await asyncio.sleep(WORK)
        await interaction.followup.send("thought it over", file=png("plan.png", "red"), ephemeral=True)
        await interaction.followup.send("and one more", ephemeral=True)

    @discord.ui.button(label="Next", custom_id="next")
    async def next_board(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.defer()
        assert interaction.message is not None and interaction.channel is not None
        assert isinstance(interaction.channel, discord.TextChannel)
        await asyncio.sleep(WORK)
        # the old board retired with a bot-token edit, the new one posted in the channel
        await interaction.message.edit(content="old board", attachments=[png("old.png", "grey")], view=None)
        new = await interaction.channel.send("new board", file=png("board.png", "white"))
        await new.edit(content="new board, final")


class SlowBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())

    async def setup_hook(self) -> None:
        self.add_view(SlowBoard())


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[SlowBot]:
    b = SlowBot()
    await fake.connect(b)
    try:
        yield b
    finally:
        await b.close()


async def post_board(bot: SlowBot, fake: FakeDiscord, channel_id: int | None = None) -> FakeMessage:
    channel = bot.get_channel(channel_id or fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    sent = await channel.send("board", file=png("board.png", "black"), view=SlowBoard())
    await fake.wait_idle()
    return fake.message(sent.id)


@pytest.mark.asyncio
async def test_deferred_update_then_the_original_response_edited_with_a_new_picture(
    fake: FakeDiscord, bot: SlowBot
) -> None:
    alice = fake.add_user("alice")
    board = await post_board(bot, fake)
    before = time.perf_counter()
    result = await fake.click(alice, board, "roll")
    assert result.callback_type == 6
    assert result.message is board and board.content == "board"  # answered; the work is still going
    answer = result.answer_seconds
    assert answer is not None and 0 <= answer < WORK
    await result.wait_idle()
    assert board.content == "rolled" and [a.filename for a in board.attachments] == ["board.png"]
    assert [r.kind for r in result.replies] == ["callback", "edit_original"]
    callback, edit = result.replies
    assert result.interaction.created_at >= before
    assert result.interaction.created_at <= callback.request.at <= callback.at
    assert result.interaction.callback_at == pytest.approx(callback.at, abs=0.01)
    assert edit.has_files and not callback.has_files
    assert edit.at - result.interaction.created_at >= WORK
    assert edit.request.route == "PATCH /webhooks/{application_id}/{token}/messages/@original"
    # the same picture write, found by channel and time
    assert fake.picture_writes(fake.channel, since=result.interaction.created_at) == [edit.request]
    assert edit.request.message_id == board.id and edit.request.channel_id == fake.channel.id
    fake.assert_clean()


@pytest.mark.asyncio
async def test_deferred_update_then_an_ephemeral_followup(fake: FakeDiscord, bot: SlowBot) -> None:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await post_board(bot, fake)
    result = await fake.click(alice, board, "hint", idle=True)
    assert result.callback_type == 6
    assert [r.kind for r in result.replies] == ["callback", "followup"]
    (private,) = result.followups
    assert private.ephemeral and private.visible_to == alice.id
    assert private.content == "only you see this" and private.attachment_bytes("hint.png")
    assert private in fake.messages_in(fake.channel, as_user=alice)
    assert private not in fake.messages_in(fake.channel, as_user=bob)
    assert board.content == "board"  # a deferred update that never edits leaves the board as it was
    assert result.replies[1].request.route == "POST /webhooks/{application_id}/{token}"
    fake.assert_clean()


@pytest.mark.asyncio
async def test_deferred_message_on_a_component_then_followups(fake: FakeDiscord, bot: SlowBot) -> None:
    alice = fake.add_user("alice")
    board = await post_board(bot, fake)
    result = await fake.click(alice, board, "think", idle=True)
    assert result.callback_type == 5
    original = result.message
    # the first followup fills in the ephemeral "thinking" message, the second is a new message
    assert original is not None and original is not board and original.ephemeral
    assert not original.loading and original.content == "thought it over"
    assert original.attachment_bytes("plan.png")
    assert [m.content for m in result.followups] == ["and one more"]
    assert result.followups[0].ephemeral
    fake.assert_clean()


@pytest.mark.asyncio
async def test_deferred_then_plain_channel_posts_and_edits(fake: FakeDiscord, bot: SlowBot) -> None:
    alice = fake.add_user("alice")
    board = await post_board(bot, fake)
    result = await fake.click(alice, board, "next", idle=True)
    assert result.callback_type == 6
    assert [r.kind for r in result.replies] == ["callback", "edit", "send", "edit"]
    assert board.content == "old board" and board.components == []
    new = fake.last_message(fake.channel)
    assert new is not board and new.content == "new board, final"
    assert [a.filename for a in new.attachments] == ["board.png"]
    stamps = [r.at for r in result.replies]
    assert stamps == sorted(stamps)
    # the two requests that carried a picture (the last edit only changed the text)
    writes = fake.picture_writes(fake.channel, since=result.interaction.created_at)
    assert [(w.method, w.message_id) for w in writes] == [("PATCH", board.id), ("POST", new.id)]
    fake.assert_clean()


@pytest.mark.asyncio
async def test_simultaneous_clicks_are_all_answered_first_and_finished_later(
    fake: FakeDiscord, bot: SlowBot
) -> None:
    users = [fake.add_user(f"player{i}") for i in range(6)]
    channels = [fake.add_text_channel(f"match-{i}") for i in range(6)]
    await fake.wait_idle()  # CHANNEL_CREATE reaches the bot
    boards = [await post_board(bot, fake, c.id) for c in channels]
    # half through fake.click, half prepared first and then dispatched (what a burst bench does)
    prepared = [fake.prepare_click(u, b, "roll") for u, b in zip(users[3:], boards[3:], strict=True)]
    assert all(not p.answered and p.callback_at is None for p in prepared)
    results = await asyncio.gather(
        *(fake.click(u, b, "roll", idle=False) for u, b in zip(users[:3], boards[:3], strict=True)),
        *(fake.dispatch_interaction(p) for p in prepared),
    )
    assert [r.callback_type for r in results] == [6] * 6
    await fake.wait_idle()
    for result, channel, board in zip(results, channels, boards, strict=True):
        (write,) = fake.picture_writes(channel, since=result.interaction.created_at)
        assert write.message_id == board.id and board.content == "rolled"
        callback_at = result.interaction.callback_at
        assert callback_at is not None and callback_at < write.answered_at
    assert fake.picture_writes(fake.channel, since=results[0].interaction.created_at) == []
    fake.assert_clean()
