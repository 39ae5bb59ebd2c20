"""The fake Discord shards as Discord does (the ground for several bot processes, issue 23): a client
that identifies with ``shard: [id, count]`` gets the guilds of its shard only, by Discord's formula
``(guild_id >> 22) % count``, and the events and interactions of those guilds; an impossible shard
is closed with 4010."""

from __future__ import annotations

import asyncio
import contextlib
import json

import aiohttp
import discord
import pytest

from fakediscord import FakeDiscord, FakeDiscordServer, point_discord_py_at
from fakediscord.gateway import shard_of

COUNT = 2


def guilds_on_both_shards(fake: FakeDiscord) -> dict[int, list[int]]:
    """Guilds enough that each shard has at least two; every guild of the world, by shard."""
    n = 0
    while True:
        by_shard: dict[int, list[int]] = {shard: [] for shard in range(COUNT)}
        for guild_id in fake.world.guilds:
            by_shard[shard_of(guild_id, COUNT)].append(guild_id)
        if min(len(v) for v in by_shard.values()) >= 2:
            return by_shard
        fake.add_guild(f"server {n}")
        n += 1


@pytest.mark.asyncio
async def test_each_shard_gets_its_own_guilds_and_their_interactions() -> None:
    fake = FakeDiscord(timeout=10)
    by_shard = guilds_on_both_shards(fake)
    async with FakeDiscordServer(fake) as server:
        point_discord_py_at(server.base_url)
        clients = [
            discord.Client(intents=discord.Intents.default(), shard_id=shard, shard_count=COUNT)
            for shard in range(COUNT)
        ]
        tasks = []
        try:
            for client in clients:
                await client.login("fake-token")
                tasks.append(asyncio.create_task(client.connect(reconnect=False)))
            await asyncio.wait_for(asyncio.gather(*(c.wait_until_ready() for c in clients)), 20)
            for shard, client in enumerate(clients):
                assert sorted(g.id for g in client.guilds) == sorted(by_shard[shard])
            sessions = [s for s in server.sessions if s.identify is not None]
            assert sorted(s.shard for s in sessions if s.shard is not None) == [(0, COUNT), (1, COUNT)]
            for shard in range(COUNT):
                for guild_id in by_shard[shard]:
                    sink = fake._active_sink(guild_id)
                    assert getattr(sink, "shard", None) == (shard, COUNT)
            # Direct messages go to shard 0, as Discord sends them.
            assert getattr(fake._active_sink(None), "shard", None) == (0, COUNT)
        finally:
            for client in clients:
                await client.close()
            for task in tasks:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task


@pytest.mark.asyncio
@pytest.mark.parametrize("shard", [[2, 2], [0, 0], [-1, 2], ["0", 2], [0]])
async def test_an_impossible_shard_is_closed_with_4010(shard: list[object]) -> None:
    async with (
        FakeDiscordServer(FakeDiscord(timeout=5)) as server,
        aiohttp.ClientSession() as session,
        session.ws_connect(f"{server.base_url}/gateway") as ws,
    ):
        hello = json.loads((await ws.receive()).data)
        assert hello["op"] == 10
        await ws.send_str(json.dumps({"op": 2, "d": {"token": "fake-token", "intents": 0, "shard": shard}}))
        closing = await asyncio.wait_for(ws.receive(), 5)
        assert closing.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert ws.close_code == 4010
