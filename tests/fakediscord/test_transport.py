"""The in-process fake Discord, driven by a tiny real discord.py bot."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any, Literal

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from PIL import Image

from fakediscord import (
    SPEC_AVAILABLE,
    SPEC_UNAVAILABLE_REASON,
    BotError,
    ComponentDisabled,
    ComponentNotFound,
    FakeDiscord,
    MessageNotVisible,
    NoResponse,
    Request,
    check_request,
    get_validator,
)
from tests import oracles

# --------------------------------------------------------------------------------------------
# a tiny bot using what the real one uses


def png(name: str, colour: str = "red", size: tuple[int, int] = (40, 30)) -> discord.File:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    buf.seek(0)
    return discord.File(buf, filename=name)


class Counter(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"counter:(?P<count>\d+)"):
    def __init__(self, count: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {count}", custom_id=f"counter:{count}", style=discord.ButtonStyle.primary
            )
        )
        self.count = count

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any
    ) -> Counter:
        return cls(int(match["count"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Counter(self.count + 1))
        await interaction.response.edit_message(content=f"Counter {self.count + 1}", view=view)


class BoardView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=180)

    @discord.ui.button(label="Flip", custom_id="flip", style=discord.ButtonStyle.primary)
    async def flip(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        button.disabled = True
        await interaction.response.edit_message(
            content="Flipped", attachments=[png("flipped.png", "blue")], view=self
        )

    @discord.ui.button(label="Resign", custom_id="resign", style=discord.ButtonStyle.danger, disabled=True)
    async def resign(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.send_message("resigned")

    @discord.ui.select(
        custom_id="colour",
        placeholder="Pick a colour",
        options=[
            discord.SelectOption(label="Red", value="red"),
            discord.SelectOption(label="Blue", value="blue"),
        ],
    )
    async def colour(self, interaction: discord.Interaction[Any], select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"You picked {select.values[0]}", ephemeral=True)


class SecretView(discord.ui.View):
    @discord.ui.button(label="Reveal", custom_id="reveal")
    async def reveal(self, interaction: discord.Interaction[Any], button: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(content="Revealed", view=None)


class Feedback(discord.ui.Modal, title="Feedback"):
    text: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Your feedback", custom_id="feedback_text")

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(f"Thanks: {self.text.value}", ephemeral=True)


class TinyBot(commands.Bot):
    def __init__(self, *, dev_guild_id: int | None = None) -> None:
        super().__init__(command_prefix="!", intents=discord.Intents.default())
        self.dev_guild_id = dev_guild_id
        self.setup_ran = False
        self.synced: list[app_commands.AppCommand] = []
        self.add_tiny_commands()

    async def setup_hook(self) -> None:
        self.setup_ran = True
        self.add_dynamic_items(Counter)
        if self.dev_guild_id is None:
            self.synced = await self.tree.sync()
        else:
            guild = discord.Object(id=self.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            self.synced = await self.tree.sync(guild=guild)

    def add_tiny_commands(self) -> None:
        tree = self.tree

        @tree.command(description="Show the board")
        async def board(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message(
                "Here is the board", file=png("board.png"), view=BoardView()
            )

        @tree.command(description="A secret")
        async def secret(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("Psst", ephemeral=True, view=SecretView())

        @tree.command(description="Slow work")
        async def slow(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0)
            await interaction.followup.send("Done", file=png("result.png"))
            await interaction.followup.send("And one more thing")

        @tree.command(description="Start a game thread")
        async def game(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("Game on")
            message = await interaction.original_response()
            try:
                thread = await message.create_thread(name="ring game")
            except discord.Forbidden:
                await interaction.followup.send("I may not create threads here", ephemeral=True)
                return
            await thread.send("First move", file=png("move.png", "green"))

        @tree.command(description="Challenge someone")
        @app_commands.describe(opponent="Who", game="Which game")
        async def challenge(
            interaction: discord.Interaction[Any],
            opponent: discord.Member,
            game: Literal["ring", "backgammon"],
        ) -> None:
            assert isinstance(interaction.user, discord.Member)
            await interaction.response.send_message(
                f"{opponent.mention}, {interaction.user.name} challenges you to {game}",
                allowed_mentions=discord.AllowedMentions(users=[opponent], roles=False, everyone=False),
            )

        @tree.command(description="A counter")
        async def counter(interaction: discord.Interaction[Any]) -> None:
            view = discord.ui.View(timeout=None)
            view.add_item(Counter(0))
            await interaction.response.send_message("Counter 0", view=view)

        @tree.command(description="Post and edit with the bot token")
        async def post(interaction: discord.Interaction[Any]) -> None:
            assert isinstance(interaction.channel, discord.TextChannel)
            message = await interaction.channel.send("v1")
            await message.edit(content="v2")
            await interaction.response.send_message("Posted", ephemeral=True)

        @tree.command(description="Too long")
        async def toolong(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_message("x" * 2001)

        @tree.command(description="Give feedback")
        async def feedback(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.send_modal(Feedback())

        @tree.command(description="Several steps, privately")
        async def steps(interaction: discord.Interaction[Any]) -> None:
            await interaction.response.defer(ephemeral=True, thinking=True)
            first = await interaction.followup.send("step 1", wait=True)
            await first.edit(content="step 1 done")
            temp = await interaction.followup.send("temporary", ephemeral=True, wait=True)
            await temp.delete()
            await interaction.edit_original_response(content="all done", attachments=[png("summary.png")])

        @tree.command(description="Does nothing")
        async def silent(interaction: discord.Interaction[Any]) -> None:
            return None

        @tree.command(description="Pick a colour")
        async def paint(interaction: discord.Interaction[Any], colour: str) -> None:
            await interaction.response.send_message(f"Painted {colour}")

        @paint.autocomplete("colour")
        async def paint_colours(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            names = ["red", "green", "blue", "rose"]
            return [app_commands.Choice(name=n, value=n) for n in names if n.startswith(current)]


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord) -> AsyncIterator[TinyBot]:
    b = TinyBot()
    await fake.connect(b)
    try:
        yield b
    finally:
        await b.close()


def png_size(data: bytes) -> tuple[int, int]:
    with Image.open(io.BytesIO(data)) as image:
        assert image.format == "PNG"
        return image.size


# --------------------------------------------------------------------------------------------
# tests


@pytest.mark.asyncio
async def test_login_runs_setup_hook_syncs_commands_and_caches_the_guild(
    fake: FakeDiscord, bot: TinyBot
) -> None:
    assert bot.setup_ran
    assert bot.is_ready()
    assert fake.synced
    assert {c["name"] for c in fake.commands} >= {"board", "challenge", "game", "slow"}
    assert all(c["id"] for c in fake.commands)
    assert {c.name for c in bot.synced} == {c["name"] for c in fake.commands}
    guild = bot.get_guild(fake.guild.id)
    assert guild is not None and guild.me is not None
    assert bot.get_channel(fake.channel.id) is not None
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    fake.assert_clean()


@pytest.mark.asyncio
async def test_slash_reply_with_file_and_view_then_button_and_select(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")

    result = await fake.slash(alice, "board")
    assert result.callback_type == 4
    message = result.message
    assert message is not None and message.content == "Here is the board"
    assert message.interaction_id == result.id
    assert png_size(message.attachment_bytes("board.png")) == (40, 30)
    assert [(b.custom_id, b.label, b.disabled) for b in message.buttons] == [
        ("flip", "Flip", False),
        ("resign", "Resign", True),
    ]
    assert message.selects[0].custom_id == "colour"
    assert fake.last_message(fake.channel) is message

    clicked = await fake.click(bob, message, "flip")
    assert clicked.callback_type == 7
    assert clicked.message is message  # edited in place, current state
    assert message.content == "Flipped"
    assert [a.filename for a in message.attachments] == ["flipped.png"]
    assert message.component("flip").disabled
    assert len(message.history) == 1 and message.history[0]["content"] == "Here is the board"
    # the click carried the message it was on, as Discord sends it
    assert clicked.payload["message"]["id"] == str(message.id)

    with pytest.raises(ComponentDisabled):
        await fake.click(bob, message, "flip")
    with pytest.raises(ComponentNotFound):
        await fake.click(bob, message, "nope")

    picked = await fake.select(alice, message, "colour", ["blue"])
    reply = picked.message
    assert reply is not None and reply.content == "You picked blue"
    assert picked.ephemeral and reply.visible_to == alice.id
    assert reply in fake.messages_in(fake.channel, as_user=alice)
    assert reply not in fake.messages_in(fake.channel, as_user=bob)
    with pytest.raises(ValueError):
        await fake.select(alice, message, "colour", ["green"])

    await fake.wait_idle()
    assert fake.violations == []
    fake.assert_clean()


@pytest.mark.asyncio
async def test_ephemeral_reply_only_its_user_can_use(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    result = await fake.slash(alice, "secret")
    message = result.message
    assert message is not None and message.ephemeral
    with pytest.raises(MessageNotVisible):
        await fake.click(bob, message, "reveal")
    revealed = await fake.click(alice, message, "reveal")
    assert revealed.callback_type == 7
    assert message.content == "Revealed" and message.components == []
    fake.assert_clean()


@pytest.mark.asyncio
async def test_defer_then_followups(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "slow", idle=True)
    assert result.callback_type == 5
    kinds = [r.kind for r in result.replies]
    assert kinds == ["callback", "followup", "followup"]
    original = result.message
    # the first followup after a defer fills in the "thinking" message
    assert original is not None and not original.loading and original.content == "Done"
    assert png_size(original.attachment_bytes()) == (40, 30)
    assert [m.content for m in result.followups] == ["And one more thing"]
    assert [m.content for m in result.messages] == ["Done", "And one more thing"]
    fake.assert_clean()


@pytest.mark.asyncio
async def test_followups_edited_and_deleted_through_the_webhook(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    result = await fake.slash(alice, "steps", idle=True)
    assert [r.kind for r in result.replies] == [
        "callback",
        "followup",
        "edit_followup",
        "followup",
        "delete_followup",
        "edit_original",
    ]
    original = result.message
    assert original is not None and original.ephemeral and original.visible_to == alice.id
    assert original.content == "all done"
    assert [c["content"] for c in original.history] == ["", "step 1", "step 1 done"]
    assert png_size(original.attachment_bytes("summary.png")) == (40, 30)
    assert [m.deleted for m in result.followups] == [True]
    assert fake.messages_in(fake.channel, as_user=bob) == []
    assert fake.messages_in(fake.channel, as_user=alice) == [original]
    fake.assert_clean()


@pytest.mark.asyncio
async def test_guild_scoped_sync_and_a_command_in_dms(fake: FakeDiscord) -> None:
    alice = fake.add_user("alice")
    dev = TinyBot(dev_guild_id=fake.guild.id)
    await fake.connect(dev)
    try:
        assert fake.commands == []
        assert {c["name"] for c in fake.guild_commands()} >= {"board", "challenge"}
        result = await fake.slash(alice, "board")
        assert result.payload["data"]["guild_id"] == str(fake.guild.id)
        assert result.message is not None and result.message.content == "Here is the board"
        with pytest.raises(LookupError, match="not registered"):
            await fake.slash(alice, "board", channel=fake.dm_channel(alice))
    finally:
        await dev.close()

    bot = TinyBot()
    await fake.connect(bot)
    try:
        in_dm = await fake.slash(alice, "board", channel=fake.dm_channel(alice))
        assert "guild_id" not in in_dm.payload and in_dm.payload["user"]["id"] == str(alice.id)
        assert in_dm.message is not None and in_dm.message.guild_id is None
    finally:
        await bot.close()
    fake.assert_clean()


@pytest.mark.asyncio
async def test_thread_from_the_response_message(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "game", idle=True)
    message = result.message
    assert message is not None
    thread = fake.thread_of(message)
    assert thread is not None and thread.id == message.id and thread.parent_id == fake.channel.id
    assert thread.name == "ring game"
    in_thread = fake.messages_in(thread)
    assert [m.content for m in in_thread] == ["First move"]
    assert png_size(in_thread[0].attachment_bytes("move.png")) == (40, 30)
    assert [r.kind for r in result.replies] == ["callback", "get_original", "create_thread", "send"]
    # the THREAD_CREATE event reached discord.py's cache
    assert bot.get_channel(thread.id) is not None

    # the bot can be clicked on in a thread as well: a slash command inside the thread
    inside = await fake.slash(alice, "board", channel=thread)
    assert inside.payload["channel"]["type"] == 11
    assert inside.message is not None and inside.message.channel_id == thread.id
    fake.assert_clean()


@pytest.mark.asyncio
async def test_missing_thread_permission_is_enforced(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    fake.set_bot_permissions(fake.channel, deny=discord.Permissions(create_public_threads=True))
    assert not fake.bot_permissions(fake.channel).create_public_threads
    result = await fake.slash(alice, "game", idle=True)
    assert not discord.Permissions(int(result.payload["app_permissions"])).create_public_threads
    assert fake.threads() == []
    assert [m.content for m in result.followups] == ["I may not create threads here"]
    statuses = [(r.kind, r.request.status) for r in result.replies]
    assert ("create_thread", 403) in statuses
    # discord.py saw the overwrite too
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    assert not channel.permissions_for(channel.guild.me).create_public_threads


@pytest.mark.asyncio
async def test_user_option_and_choices(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    other = fake.add_bot_user("otherbot")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    assert result.message is not None
    assert result.message.content == f"<@{bob.id}>, alice challenges you to ring"
    assert result.message.mention_ids == [bob.id]
    resolved = result.payload["data"]["resolved"]
    assert str(bob.id) in resolved["users"] and str(bob.id) in resolved["members"]
    await fake.slash(alice, "challenge", {"opponent": other, "game": "backgammon"})
    with pytest.raises(ValueError, match="choices"):
        await fake.slash(alice, "challenge", {"opponent": bob, "game": "chess"})
    with pytest.raises(ValueError, match="required"):
        await fake.slash(alice, "challenge", {"game": "ring"})
    with pytest.raises(LookupError, match="not registered"):
        await fake.slash(alice, "nosuchcommand")
    fake.assert_clean()


@pytest.mark.asyncio
async def test_dynamic_item_keeps_working_after_a_restart(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "counter")
    message = result.message
    assert message is not None and message.custom_ids == ["counter:0"]
    await fake.click(alice, message, "counter:0")
    assert message.custom_ids == ["counter:1"]
    await bot.close()

    second = TinyBot()  # a new process would start like this: no view is stored for the message
    await fake.connect(second)
    try:
        clicked = await fake.click(alice, message, "counter:1")
        assert clicked.callback_type == 7
        assert message.content == "Counter 2" and message.custom_ids == ["counter:2"]
        # the commands kept their ids across the second sync
        assert fake.world.command_syncs == 2
    finally:
        await second.close()
    fake.assert_clean()


@pytest.mark.asyncio
async def test_a_forged_control_reaches_the_bot_and_leaves_the_message_as_it_was(
    fake: FakeDiscord, bot: TinyBot
) -> None:
    """A modified client can send a control it was never given (a copy of someone else's, a made-up
    custom id): the interaction carries it on the message the user sees; the stored message is unchanged."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    counter = (await fake.slash(alice, "counter")).message
    board = (await fake.slash(alice, "board")).message
    assert counter is not None and board is not None
    forged = await fake.forge(bob, board, counter.component("counter:0").raw)
    assert forged.callback_type == 7 and forged.payload["data"]["custom_id"] == "counter:0"
    assert forged.payload["message"]["id"] == str(board.id)
    assert board.content == "Counter 1", "the bot answered on the message the control came on"

    board = (await fake.slash(alice, "board")).message
    assert board is not None and board.component("resign").disabled
    shown = list(board.components)
    resigned = await fake.forge(bob, board, board.component("resign").raw)  # shown disabled: forged live
    assert resigned.message is not None and resigned.message.content == "resigned"
    picked = await fake.forge(bob, board, board.component("colour").raw, ["red"])
    assert picked.message is not None and picked.message.content == "You picked red"
    assert board.components == shown and board.component("resign").disabled

    secret = (await fake.slash(alice, "secret")).message
    assert secret is not None
    with pytest.raises(MessageNotVisible):  # only on a message the user can see
        await fake.forge(bob, secret, counter.component("counter:0").raw)
    fake.assert_clean()


@pytest.mark.asyncio
async def test_a_control_of_an_earlier_version_is_sent_with_the_message_as_it_is_now(
    fake: FakeDiscord, bot: TinyBot
) -> None:
    """A client that has not shown an edit yet still shows the old controls: its click carries the old
    custom id and, as Discord sends it, the message as it is now (discord.py then finds no such
    component on it and leaves the click unanswered)."""
    alice = fake.add_user("alice")
    message = (await fake.slash(alice, "counter")).message
    assert message is not None
    await fake.click(alice, message, "counter:0")
    assert message.custom_ids == ["counter:1"]
    assert [c.custom_id for c in message.earlier_components()] == ["counter:0"]
    old = await fake.click_earlier(alice, message, "counter:0", expect_response=False)
    assert old.payload["data"]["custom_id"] == "counter:0" and old.payload["data"]["component_type"] == 2
    shown = [c["custom_id"] for row in old.payload["message"]["components"] for c in row["components"]]
    assert shown == ["counter:1"] and not old.answered
    assert message.custom_ids == ["counter:1"] and message.content == "Counter 1"
    with pytest.raises(ComponentNotFound):
        await fake.click_earlier(alice, message, "counter:7")
    with pytest.raises(TypeError):
        await fake.click_earlier(alice, message, "counter:0", ["x"])
    # A forged control the interaction's message does not carry either.
    forged = await fake.forge(
        alice, message, {"type": 2, "custom_id": "counter:5"}, on_message=False, expect_response=False
    )
    assert forged.payload["data"]["custom_id"] == "counter:5" and not forged.answered
    assert "counter:5" not in str(forged.payload["message"]["components"])
    fake.assert_clean()


@pytest.mark.asyncio
async def test_channel_message_sent_and_edited_with_the_bot_token(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "post", idle=True)
    kinds = [(r.kind, r.request.transport) for r in result.replies]
    assert kinds == [("send", "http"), ("edit", "http"), ("callback", "webhook")]
    posted = [m for m in fake.messages_in(fake.channel) if m.interaction_id is None]
    assert [m.content for m in posted] == ["v2"]
    assert posted[0].history[0]["content"] == "v1"
    assert all(r.request.authorized for r in result.replies if r.kind in ("send", "edit"))
    fake.assert_clean()


@pytest.mark.asyncio
async def test_modal_and_autocomplete(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    opened = await fake.slash(alice, "feedback")
    assert opened.callback_type == 9 and opened.modal is not None
    assert opened.modal["title"] == "Feedback"
    submitted = await fake.submit_modal(alice, opened, {"feedback_text": "great game"})
    assert submitted.message is not None and submitted.message.content == "Thanks: great game"

    typed = await fake.autocomplete(alice, "paint", {"colour": "r"}, focused="colour")
    assert typed.callback_type == 8
    assert [c["value"] for c in typed.choices or []] == ["red", "rose"]
    fake.assert_clean()


@pytest.mark.asyncio
async def test_unanswered_interaction_and_bot_errors_surface(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    with pytest.raises(NoResponse):
        await fake.slash(alice, "silent")
    silent = await fake.slash(alice, "silent", expect_response=False)
    assert not silent.answered

    # 2001 characters: Discord (and the fake) refuse it, discord.py raises in the handler
    with pytest.raises(BotError, match="50035"):
        await fake.slash(alice, "toolong")
    assert any("content has 2001 characters (max 2000)" in v for v in fake.violations)
    assert fake.requests[-1].status == 400


@pytest.mark.asyncio
async def test_unknown_routes_answer_404_and_are_recorded(fake: FakeDiscord, bot: TinyBot) -> None:
    with pytest.raises(discord.NotFound):
        await bot.http.request(discord.http.Route("GET", "/sticker-packs"))
    assert [(r.method, r.path) for r in fake.unhandled] == [("GET", "/sticker-packs")]
    with pytest.raises(AssertionError, match="unhandled route"):
        fake.assert_clean()


@pytest.mark.asyncio
async def test_expired_token_forces_bot_token_edits(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "board")
    fake.expire_interaction(result)
    assert bot.user is not None
    webhook = discord.Webhook.partial(bot.user.id, result.token, client=bot)
    with pytest.raises(discord.HTTPException) as caught:
        await webhook.edit_message(result.message.id if result.message else 0, content="late")
    assert caught.value.status == 401 and caught.value.code == 50027
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)
    assert result.message is not None
    await channel.get_partial_message(result.message.id).edit(content="edited later")
    assert result.message.content == "edited later"


# --------------------------------------------------------------------------------------------
# the checkers can fail


def _req(method: str, path: str, body: Any, files: list[tuple[str, bytes]] | None = None) -> Request:
    return Request(method, path, {}, body, files or [])


def _button(custom_id: str, label: str = "ok") -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": custom_id, "label": label}


def test_limits_report_bad_payloads() -> None:
    long_id = "x" * 101
    problems = check_request(
        _req(
            "POST",
            "/channels/1/messages",
            {
                "content": "y" * 2001,
                "components": [
                    {"type": 1, "components": [_button(f"b{i}") for i in range(6)]},
                    {"type": 1, "components": [_button(long_id, "z" * 81)]},
                    {
                        "type": 1,
                        "components": [
                            {
                                "type": 3,
                                "custom_id": "s",
                                "options": [{"label": str(i), "value": str(i)} for i in range(26)],
                            },
                            _button("b0"),
                        ],
                    },
                ],
                "embeds": [{"title": "t" * 257, "description": "d" * 4096}, {"description": "d" * 2000}],
                "attachments": [{"id": 0, "filename": "a.png"}],
            },
        )
    )
    text = "\n".join(problems)
    assert "content has 2001 characters (max 2000)" in text
    assert "components[0] has 6 components (1..5)" in text
    assert "custom_id has 101 characters" in text
    assert "label has 81 characters (max 80)" in text
    assert "26 options (1..25)" in text
    assert "select menu must be alone" in text
    assert "'b0' is also used by" in text
    assert "title has 257 characters" in text
    assert "embeds have 6353 characters in total (max 6000)" in text
    assert "refers to files[0], which was not uploaded" in text
    assert all(p.startswith("POST /channels/1/messages: ") for p in problems)

    assert check_request(_req("POST", "/channels/1/messages", {"content": "fine"})) == []
    too_many_rows = {
        "type": 4,
        "data": {"components": [{"type": 1, "components": [_button(f"r{i}")]} for i in range(6)]},
    }
    assert any(
        "6 action rows" in p for p in check_request(_req("POST", "/interactions/1/t/callback", too_many_rows))
    )
    link = {"type": 1, "components": [{"type": 2, "style": 5, "label": "site", "custom_id": "x"}]}
    problems = check_request(_req("PATCH", "/webhooks/1/t/messages/@original", {"components": [link]}))
    assert any("link button needs a url" in p for p in problems)
    assert any("link button cannot have a custom_id" in p for p in problems)
    assert any("empty message" in p for p in check_request(_req("POST", "/webhooks/1/t", {})))


def test_openapi_accepts_real_payloads_and_rejects_bad_ones() -> None:
    if not SPEC_AVAILABLE:
        oracles.missing(SPEC_UNAVAILABLE_REASON)
    validator = get_validator()
    ok = {"type": 4, "data": {"content": "hi", "components": [{"type": 1, "components": [_button("a")]}]}}
    assert validator.validate("POST", "/interactions/1/tok/callback", ok) == []
    bad = {"type": 4, "data": {"components": [{"type": 1, "components": [_button("x" * 101)]}]}}
    errors = validator.validate("POST", "/interactions/1/tok/callback", bad)
    assert errors and "custom_id" in errors[0] and "too long" in errors[0]
    six = {"components": [{"type": 1, "components": [_button(f"b{i}") for i in range(6)]}]}
    assert any("too long" in e for e in validator.validate("POST", "/channels/1/messages", six))
    # attachments ids are integers in discord.py's payloads; Discord accepts that
    upload = {"content": "x", "attachments": [{"id": 0, "filename": "a.png"}]}
    assert validator.validate("PATCH", "/webhooks/1/tok/messages/@original", upload) == []
    operation = validator.operation_for("PATCH", "/webhooks/1/tok/messages/@original")
    assert operation is not None and operation.template.endswith("/messages/@original")


@pytest.mark.asyncio
async def test_everything_the_tiny_bot_sends_validates_against_the_spec(
    fake: FakeDiscord, bot: TinyBot
) -> None:
    if not SPEC_AVAILABLE:
        oracles.missing(SPEC_UNAVAILABLE_REASON)
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    board = await fake.slash(alice, "board")
    await fake.click(alice, board, "flip")
    await fake.select(alice, board, "colour", ["red"])
    await fake.slash(alice, "slow", idle=True)
    await fake.slash(alice, "game", idle=True)
    await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    await fake.slash(alice, "post", idle=True)
    await fake.slash(alice, "steps", idle=True)
    counter = await fake.slash(alice, "counter")
    await fake.click(alice, counter, "counter:0")
    opened = await fake.slash(alice, "feedback")
    await fake.submit_modal(alice, opened, {"feedback_text": "x"})
    await fake.autocomplete(alice, "paint", {"colour": "b"}, focused="colour")
    validated = [r for r in fake.requests if r.method in ("POST", "PUT", "PATCH")]
    assert {r.route for r in validated} >= {
        "PUT /applications/{application_id}/commands",
        "POST /interactions/{interaction_id}/{token}/callback",
        "POST /webhooks/{application_id}/{token}",
        "POST /channels/{channel_id}/messages",
        "PATCH /channels/{channel_id}/messages/{message_id}",
        "POST /channels/{channel_id}/messages/{message_id}/threads",
    }
    assert fake.spec_errors == []
    fake.assert_clean()


@pytest.mark.asyncio
async def test_bot_token_rest_routes(fake: FakeDiscord, bot: TinyBot) -> None:
    alice = fake.add_user("alice")
    channel = bot.get_channel(fake.channel.id)
    assert isinstance(channel, discord.TextChannel)

    async with channel.typing():
        sent = await channel.send("hello", file=png("hello.png"))
    stored = fake.message(sent.id)
    assert stored.content == "hello" and stored.attachments[0].width == 40
    assert await sent.attachments[0].read() == stored.attachment_bytes()  # served by the fake CDN
    await sent.add_reaction("\N{THUMBS UP SIGN}")
    assert stored.reactions == {"\N{THUMBS UP SIGN}": {fake.bot_user.id}}
    with pytest.raises(discord.Forbidden):  # the bot's role may not pin by default
        await sent.pin()
    fake.set_bot_permissions(channel, allow=discord.Permissions(pin_messages=True))
    await sent.pin()
    assert stored.pinned
    reply = await sent.reply("a reply")
    assert fake.message(reply.id).type == 19
    assert [m.content async for m in channel.history(limit=5)] == ["a reply", "hello"]

    assert (await bot.fetch_user(alice.id)).name == "alice"
    member = await channel.guild.fetch_member(alice.id)
    assert member.id == alice.id
    dm = await (await bot.fetch_user(alice.id)).send("psst")
    assert fake.message(dm.id).channel_id == fake.dm_channel(alice).id

    thread = await sent.create_thread(name="talk")
    with pytest.raises(discord.HTTPException) as twice:
        await sent.create_thread(name="again")
    assert twice.value.code == 160004
    await thread.edit(archived=True)
    assert fake.world.channels[thread.id].archived
    await thread.send("wake up")  # sending unarchives an unlocked thread
    assert not fake.world.channels[thread.id].archived

    theirs = fake.user_message(alice, "mine")
    with pytest.raises(discord.Forbidden) as forbidden:
        await channel.get_partial_message(theirs.id).edit(content="hijacked")
    assert forbidden.value.code == 50005
    await sent.delete()
    assert stored.deleted and stored not in fake.messages_in(channel)
    with pytest.raises(discord.NotFound):
        await channel.fetch_message(sent.id)

    result = await fake.slash(alice, "secret")
    assert result.message is not None
    with pytest.raises(discord.NotFound):  # ephemeral messages are not channel messages
        await channel.fetch_message(result.message.id)
    fake.assert_clean()
