"""The real ``python -m bot`` on Discord's shards, against the fake Discord (which shards as Discord does).

On PostgreSQL: two processes, ``SHARD_COUNT=2`` with ``SHARD_IDS=0`` and ``SHARD_IDS=1``, share one
database; each answers the servers of its own shard (and only those: the other process never sees
their interactions), and a match in each plays. On SQLite: one process with ``SHARD_COUNT=2`` runs both
shards itself (``AutoShardedBot``). A process started with a shard that does not exist stops with one
line.

Which process does the scheduled work of which server is checked in ``test_work_scopes.py``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fakediscord import FakeDiscord, FakeDiscordServer, FakeGuild, FakeUser
from fakediscord.gateway import shard_of
from tests.databases import backend, process_env

REPO = Path(__file__).resolve().parents[2]
TOKEN = "shard-token"
COUNT = 2


def _env(db: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISCORD_TOKEN", "DATABASE", "DATABASE_URL", "SHARD_COUNT", "SHARD_IDS", "DEV_GUILD_ID")
    }
    env.update(PYTHONPATH=str(REPO), DISCORD_TOKEN=TOKEN, **process_env(db), **extra)
    return env


def _guild_per_shard(fake: FakeDiscord) -> dict[int, FakeGuild]:
    found: dict[int, FakeGuild] = {}
    n = 0
    while len(found) < COUNT:
        guild = fake.add_guild(f"server {n}")
        found.setdefault(shard_of(guild.id, COUNT), guild)
        n += 1
    return found


async def _challenge_answered(fake: FakeDiscord, guild: FakeGuild, alice: FakeUser, bob: FakeUser) -> None:
    channel = fake.world.channels[guild.channel_ids[0]]
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"}, channel=channel)
    assert result.message is not None, result
    accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, result.message, accept)
    await fake.wait_for(
        lambda: any("your turn" in m.content for m in fake.world.messages.values() if m.guild_id == guild.id),
        30,
        f"the first board in {guild.name}",
    )


@pytest.mark.asyncio
async def test_each_process_answers_the_servers_of_its_own_shards(tmp_path: Path) -> None:
    fake = FakeDiscord(timeout=20, token=TOKEN)
    guilds = _guild_per_shard(fake)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    for guild in guilds.values():
        fake.add_member(alice, guild)
        fake.add_member(bob, guild)
    db = tmp_path / "db.sqlite3"
    if backend() == "postgres":
        shard_sets = [{"SHARD_COUNT": str(COUNT), "SHARD_IDS": str(shard)} for shard in range(COUNT)]
    else:
        shard_sets = [{"SHARD_COUNT": str(COUNT)}]  # SQLite: one process runs both shards
    log = (tmp_path / "bots.log").open("wb")
    async with FakeDiscordServer(fake) as server:
        processes = [
            await asyncio.create_subprocess_exec(
                *server.bot_command(),
                cwd=tmp_path,
                env=_env(db, **shards),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            for shards in shard_sets
        ]
        try:
            await fake.wait_for(
                lambda: (
                    sorted(s.shard for s in server.sessions if s.identify is not None and s.shard)
                    == [(shard, COUNT) for shard in range(COUNT)]
                ),
                40,
                "both shards identified",
            )
            await fake.wait_for(lambda: fake.synced, 30, "command sync")
            for guild in guilds.values():
                await _challenge_answered(fake, guild, alice, bob)
            for shard, guild in guilds.items():
                channel = fake.world.channels[guild.channel_ids[0]]
                about = await fake.slash(alice, "about", channel=channel)
                assert about.message is not None
                fields = {f["name"]: f["value"] for f in about.message.embeds[0]["fields"]}
                assert fields["Shard"] == f"{shard} of {COUNT} (this server)"
                assert fields["Matches in play: 2"]
            if backend() == "postgres":
                # Each server's gateway session is its own shard's, in its own process.
                owners = {shard: fake._active_sink(guild.id) for shard, guild in guilds.items()}
                assert owners[0] is not owners[1]
            assert all(p.returncode is None for p in processes)
        finally:
            for proc in processes:
                if proc.returncode is None:
                    proc.terminate()
            for proc in processes:
                await asyncio.wait_for(proc.wait(), 30)
            log.close()
    text = (tmp_path / "bots.log").read_text()
    assert "Traceback" not in text, text
    assert all(p.returncode == 0 for p in processes), text


def test_a_shard_that_does_not_exist_stops_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=_env(tmp_path / "db.sqlite3", SHARD_COUNT="2", SHARD_IDS="2"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: SHARD_IDS names shard 2, but SHARD_COUNT=2 has shards 0 to 1 only"
    ]
