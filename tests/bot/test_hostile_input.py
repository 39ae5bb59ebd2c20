"""Hostile and broken input (issue 8): forged custom ids, controls delivered on the wrong message.

A forged control is simulated by rewriting a component of a message in the fake's world, as a
modified client or a replayed payload would deliver it: the bot must answer privately and change
nothing.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import discord
import pytest

from fakediscord import FakeDiscord
from fakediscord.matches import challenge_and_accept, match_id_of
from fakediscord.world import FakeMessage, FakeUser
from tests.support import start_bot, stop_bot

HUGE = "9" * 30


def forge(message: FakeMessage, old: str, new: str) -> None:
    """Replace the custom id ``old`` on ``message`` by ``new`` (what a forging client would send)."""

    def walk(components: list[dict[str, Any]]) -> None:
        for comp in components:
            if comp.get("custom_id") == old:
                comp["custom_id"] = new
            walk(comp.get("components") or [])

    walk(message.components)
    assert new in message.custom_ids


def roll_of(message: FakeMessage) -> str:
    return next(b.custom_id for b in message.buttons if b.label == "Roll" and b.custom_id)


def on_turn(message: FakeMessage, *users: FakeUser) -> FakeUser:
    return next(u for u in users if message.content.split(" — ")[-1].startswith(u.mention))


@pytest.mark.asyncio
async def test_ids_beyond_64_bits_get_a_private_answer_and_change_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    version = (await bot.sessions.get(mid)).version
    player = on_turn(board, alice, bob)
    current = roll_of(board)
    log = len(await bot.store.matches.action_log(mid))
    edits = len(board.history)
    forged_ids = [
        f"g:{HUGE}:{version}:roll",
        f"g:{mid}:{HUGE}:roll",
        f"g:{mid}:9223372036854775808:roll",  # 19 digits, one past signed 64-bit
        f"hand:{HUGE}",
        f"rm:{HUGE}",
        f"rs:{HUGE}:yes",
        f"ch:{HUGE}:accept",
        "rules:ring:99999",
        f"g:{mid}:{version}:explode",
    ]
    for forged in forged_ids:
        forge(board, current, forged)
        current = forged
        answer = await fake.click(player, board, forged, idle=True)
        assert answer.ephemeral, forged
        assert answer.message is not None and "not valid" in answer.message.content, forged
    assert (await bot.sessions.get(mid)).version == version
    assert len(await bot.store.matches.action_log(mid)) == log
    assert len(fake.message(board).history) == edits
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_control_of_another_match_on_a_board_is_refused(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    board_a = await challenge_and_accept(fake, alice, bob)
    board_b = await challenge_and_accept(fake, carol, dave)
    a, b = match_id_of(board_a), match_id_of(board_b)
    va, vb = (await bot.sessions.get(a)).version, (await bot.sessions.get(b)).version
    edits_a = len(fake.message(board_a).history)
    # B's Roll delivered on A's board (A's thread), clicked by B's player on turn.
    b_roll = roll_of(board_b)
    forge(board_a, roll_of(board_a), b_roll)
    answer = await fake.click(on_turn(board_b, carol, dave), board_a, b_roll, idle=True)
    assert answer.ephemeral and answer.message is not None
    assert "does not belong to this message" in answer.message.content
    assert (await bot.sessions.get(a)).version == va and (await bot.sessions.get(b)).version == vb
    assert len(fake.message(board_a).history) == edits_a
    # My hand of B on A's board is refused the same way.
    forge(board_a, b_roll, f"hand:{b}")
    hand = await fake.click(carol, board_a, f"hand:{b}", idle=True)
    assert hand.ephemeral and "does not belong" in hand.message.content  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_control_of_another_match_in_the_same_channel_is_refused(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    role = fake.add_role("admins", discord.Permissions(manage_guild=True))
    ada = fake.add_user("ada", roles=[role])
    await fake.slash(ada, "settings", {"threads": False})
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    for x, y in ((alice, bob), (carol, dave)):
        result = await fake.slash(x, "challenge", {"opponent": y, "game": "ring"})
        assert result.message is not None
        accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))
        await fake.click(y, result.message, accept, idle=True)
    matches = await bot.store.matches.active()
    a = next(m for m in matches if alice.id in m.players)
    b = next(m for m in matches if carol.id in m.players)
    assert a.channel_id == b.channel_id and a.message_id and b.message_id
    board_a, board_b = fake.message(a.message_id), fake.message(b.message_id)
    edits_a = len(board_a.history)
    b_roll = roll_of(board_b)
    forge(board_a, roll_of(board_a), b_roll)
    answer = await fake.click(on_turn(board_b, carol, dave), board_a, b_roll, idle=True)
    assert answer.ephemeral and "does not belong" in answer.message.content  # type: ignore[union-attr]
    assert (await bot.sessions.get(b.id)).version == b.version
    assert len(fake.message(board_a).history) == edits_a
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rematch_of_a_live_match_is_refused(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    before = len([m for m in fake.messages_in(board.channel_id) if not m.ephemeral])
    forge(board, roll_of(board), f"rm:{mid}")
    answer = await fake.click(alice, board, f"rm:{mid}", idle=True)
    assert answer.ephemeral and "not a finished match" in answer.message.content  # type: ignore[union-attr]
    assert len([m for m in fake.messages_in(board.channel_id) if not m.ephemeral]) == before
    assert (await bot.store.challenges.pending(alice.id, bob.id, bot.clock.now())) is None
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.sqlite_only("holds SQLite's file lock from another connection")
async def test_a_write_the_database_refuses_gets_a_private_answer(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    version = (await bot.sessions.get(mid)).version
    bot.store.connection.lock_wait = 0.2  # give up quickly, as if stuck
    # Another process holds the database locked for writing.
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        player = on_turn(board, alice, bob)
        answer = await fake.click(player, board, roll_of(board), idle=True)
        refusal = answer.private
        assert refusal is not None
        assert "database is busy" in refusal.content and "nothing was changed" in refusal.content
        assert (await bot.sessions.get(mid)).version == version
        command = await fake.slash(alice, "challenge", {"opponent": carol, "game": "ring"}, idle=True)
        assert command.ephemeral and "try again" in command.message.content  # type: ignore[union-attr]
    finally:
        other.execute("ROLLBACK")
        other.close()
    # Once the lock is gone the same click works.
    await fake.click(player, board, roll_of(board), idle=True)
    assert (await bot.sessions.get(mid)).version > version
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_resign_confirmation_sent_from_the_public_board_changes_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Resign / Keep playing belong to the private confirmation; a modified client can send them from
    the public board, where answering by editing the message would wipe the board's controls."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    before = fake.message(board).all_components
    for op in ("no", "yes"):
        forged = await fake.forge(
            alice, board, {"type": 2, "style": 2, "label": op, "custom_id": f"rs:{mid}:{op}"}
        )
        assert forged.ephemeral and forged.message is not None
        assert "Nothing was changed" in forged.message.content
    assert fake.message(board).all_components == before
    assert (await bot.sessions.get(mid)).record.status == "active"
    fake.assert_clean()
    await stop_bot(bot)
