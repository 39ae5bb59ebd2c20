"""The local fake Discord server, with a real bot process connected to it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import textwrap
from pathlib import Path

import aiohttp
import pytest

from fakediscord import FakeDiscord, FakeDiscordServer, limits, point_discord_py_at

REPO = Path(__file__).resolve().parents[2]

BOT_SCRIPT = textwrap.dedent(
    """
    from __future__ import annotations

    import logging
    import sys

    import discord
    from discord.ext import commands

    from fakediscord.server import point_discord_py_at

    if len(sys.argv) != 2:
        sys.exit("usage: tiny_bot.py http://127.0.0.1:PORT")
    point_discord_py_at(sys.argv[1])


    class PingView(discord.ui.View):
        @discord.ui.button(label="Again", custom_id="again")
        async def again(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
            await interaction.response.edit_message(content="pong again", view=None)


    class TinyBot(commands.Bot):
        async def setup_hook(self) -> None:
            await self.tree.sync()
            print("synced", flush=True)


    bot = TinyBot(command_prefix="!", intents=discord.Intents.default())


    @bot.tree.command(description="Ping")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong", view=PingView())


    bot.run("fake-token", log_handler=logging.StreamHandler(), log_level=logging.INFO)
    """
)


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.send_signal(signal.SIGINT)  # discord.py's run() closes the bot cleanly on Ctrl-C
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@pytest.mark.asyncio
async def test_rest_answers_with_plain_application_json() -> None:
    async with FakeDiscordServer() as server, aiohttp.ClientSession() as session:
        headers = {"Authorization": "Bot fake-token"}
        async with session.get(f"{server.base_url}/api/v10/users/@me", headers=headers) as resp:
            assert resp.status == 200
            assert resp.headers["Content-Type"] == "application/json"
            assert (await resp.json())["bot"] is True
        async with session.get(f"{server.base_url}/api/v10/nothing/here", headers=headers) as resp:
            assert resp.status == 404
            assert (await resp.json())["code"] == 0
        assert [r.path for r in server.fake.unhandled] == ["/nothing/here"]


@pytest.mark.asyncio
async def test_uploads_are_taken_up_to_discords_limits_and_refused_like_discord_past_them() -> None:
    """Discord takes a file up to the upload limit (10 MiB without boosts) in a request up to 25 MiB;
    past either it answers 413, code 40005. (aiohttp alone refuses any body over 1 MiB.)"""
    fake = FakeDiscord()
    async with FakeDiscordServer(fake) as server, aiohttp.ClientSession() as session:
        url = f"{server.base_url}/api/v10/channels/{fake.channel.id}/messages"
        headers = {"Authorization": "Bot fake-token"}
        answers = []
        for size in (3_000_000, limits.DEFAULT_MAX_UPLOAD_BYTES + 1, limits.MAX_REQUEST_BYTES + 1):
            form = aiohttp.FormData()
            form.add_field("payload_json", '{"content": "a replay"}', content_type="application/json")
            form.add_field("files[0]", bytes(size), filename="match-1.gif", content_type="image/gif")
            async with session.post(url, data=form, headers=headers) as resp:
                answers.append((resp.status, await resp.json()))
    assert answers[0][0] == 200 and answers[0][1]["attachments"][0]["size"] == 3_000_000
    assert answers[1:] == [(413, {"message": "Request entity too large", "code": 40005})] * 2


def test_point_discord_py_at_sets_rest_and_gateway() -> None:
    import discord.gateway
    import discord.http

    saved = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    try:
        point_discord_py_at("http://127.0.0.1:1234/")
        assert discord.http.Route.BASE == "http://127.0.0.1:1234/api/v10"
        assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:1234/gateway"
    finally:
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved


@pytest.mark.asyncio
async def test_bot_process_end_to_end(tmp_path: Path) -> None:
    fake = FakeDiscord(timeout=10)
    alice = fake.add_user("alice")
    script = tmp_path / "tiny_bot.py"
    script.write_text(BOT_SCRIPT)
    log_path = tmp_path / "bot.log"
    async with FakeDiscordServer(fake) as server:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        with log_path.open("wb") as log:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                str(script),
                server.base_url,
                env=env,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
                cwd=tmp_path,
            )
            try:
                session = await server.wait_until_identified(timeout=20)
                assert session.identify is not None and session.identify["token"] == "fake-token"
                assert fake.synced and [c["name"] for c in fake.commands] == ["ping"]

                result = await fake.slash(alice, "ping")
                message = result.message
                assert message is not None and message.content == "pong"
                assert message.buttons[0].custom_id == "again"

                await fake.click(alice, message, "again")
                assert message.content == "pong again" and message.components == []

                transports = {r.transport for r in fake.requests}
                assert transports == {"server"}
                fake.assert_clean()
            except BaseException:
                with contextlib.suppress(Exception):
                    print(log_path.read_text())
                raise
            finally:
                await _stop(proc)
    assert proc.returncode is not None
