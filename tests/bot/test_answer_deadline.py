"""Every command and control answers within Discord's 3 seconds while another process holds the
database locked (issue 21): the store gives up on the lock after ``LOCK_WAIT`` with "busy, try
again", and a handler that is still late is deferred by its deadline (``cogs.answer_deadline``) and
answers after.

The lock is real: a second SQLite connection to the bot's file holding ``BEGIN EXCLUSIVE``. Timing is
asserted only as an order of events: each interaction's callback (recorded by the fake) came before
the lock was released.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakediscord import FakeDiscord, FakeMessage, InteractionResult
from fakediscord.matches import challenge_and_accept, user_on_turn
from tests.bot.test_clock_settings import admin, challenge_and_accept_in_channel
from tests.bot.test_hostile_input import roll_of
from tests.support import start_bot, stop_bot

HELD = 4.5
"""How long the other process holds the lock: beyond the deadline (2.5 s) and the store's lock wait
(2 s), below SQLite's usual 5 s wait that made every command wait for the lock before."""


@contextlib.contextmanager
def locked(db: Path) -> Iterator[sqlite3.Connection]:
    """Another process's connection holding the database's write lock (released on leaving)."""
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield other
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()


def public(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    return [m for m in fake.messages_in(channel_id) if m.visible_to is None and not m.deleted]


def private_text(result: InteractionResult) -> str:
    answer = result.private
    assert answer is not None, result.replies
    return answer.content


@pytest.mark.asyncio
@pytest.mark.sqlite_only("holds SQLite's file lock from another connection")
async def test_every_command_and_control_answers_while_another_process_holds_the_database(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    board = await challenge_and_accept(fake, alice, bob)
    pending = await fake.slash(carol, "challenge", {"opponent": dave, "game": "ring"}, idle=True)
    assert pending.message is not None
    accept = next(c for c in pending.message.custom_ids if c.endswith(":accept"))
    player = user_on_turn(board, {alice.id: alice, bob.id: bob})
    assert player is not None
    version = (await bot.sessions.get(int(roll_of(board).split(":")[1]))).version
    released = 0.0
    with locked(db) as other:

        async def release() -> None:
            nonlocal released
            await asyncio.sleep(HELD)
            other.execute("ROLLBACK")
            released = time.perf_counter()

        releasing = asyncio.create_task(release())
        # The game control first: its write waits for the lock while the others arrive (before, the
        # reads of /board and /stats queued behind that waiting write on the store's one thread).
        roll = await fake.click(player, board, roll_of(board))
        results = await asyncio.gather(
            fake.slash(alice, "challenge", {"opponent": carol, "game": "ring"}, timeout=30),
            fake.click(dave, pending.message, accept, timeout=30),
            fake.slash(alice, "board", channel=board.channel_id, timeout=30),
            fake.slash(alice, "stats", timeout=30),
        )
        answered = {
            "roll": roll,
            **dict(zip(("/challenge", "Accept", "/board", "/stats"), results, strict=True)),
        }
        await releasing
    for name, result in answered.items():
        callback_at = result.interaction.callback_at
        assert callback_at is not None and callback_at < released, f"{name} was answered after the lock"
    await fake.wait_idle()
    # What needed a write says, privately, that the database is busy, and changed nothing.
    assert "try again" in private_text(answered["/challenge"])
    assert "try again" in private_text(answered["Accept"])
    assert "try again" in private_text(answered["roll"])
    assert (await bot.sessions.get(int(roll_of(board).split(":")[1]))).version == version
    assert await bot.store.challenges.pending(carol.id, dave.id, bot.clock.now()) is not None
    # What only reads works through the lock.
    assert "has no rated matches" in private_text(answered["/stats"])
    assert answered["/board"].callback_type == 5
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.sqlite_only("holds SQLite's file lock from another connection")
async def test_a_handler_still_waiting_at_its_deadline_is_deferred_and_its_answer_follows(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The store told to wait for the lock as long as it takes: the deadline answers in its place
    (a private "thinking…" for a command, a silent acknowledgement for a click), and the handler's
    own answer follows once the lock is gone, as it would have been."""
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    pending = await fake.slash(carol, "challenge", {"opponent": dave, "game": "ring"}, idle=True)
    assert pending.message is not None
    accept = next(c for c in pending.message.custom_ids if c.endswith(":accept"))
    bot.store.connection.lock_wait = 600.0
    with locked(db):
        # Released only once both are answered: without the deadline neither ever would be.
        challenge, accepted = await asyncio.gather(
            fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"}, timeout=20),
            fake.click(dave, pending.message, accept, timeout=20),
        )
        assert challenge.callback_type == 5 and challenge.ephemeral  # a private "thinking…"
        assert accepted.callback_type == 6  # a silent acknowledgement
    await challenge.wait_idle()
    await accepted.wait_idle()
    # The challenge is a public message of its own (its mention notifies Bob), the placeholder gone.
    assert challenge.message is None or challenge.message.deleted
    (posted,) = [m for m in challenge.messages if not m.deleted]
    assert not posted.ephemeral and posted.content.startswith(
        f"{bob.mention}, {alice.mention} challenges you"
    )
    assert not posted.history, "posted as a new message, not as an edit (an edit notifies nobody)"
    # The store knows that message: Bob's Accept on it starts the match.
    await fake.click(bob, posted, next(c for c in posted.custom_ids if c.endswith(":accept")), idle=True)
    # Accept edited the challenge it was clicked on, and the first board of that match was posted.
    assert "accepted" in fake.message(pending.message).content
    assert len(await bot.store.matches.active()) == 2
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_deferred_at_once_every_kind_of_answer_still_arrives(fake: FakeDiscord, tmp_path: Path) -> None:
    """A deadline of 0 s: the deferral races every handler's first answer (and mostly wins), so each
    kind of answer goes through its late form, with nothing refused by Discord."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = (fake.add_user(n) for n in ("alice", "bob", "carol"))
    await fake.slash(await admin(fake), "settings", {"threads": False})
    await challenge_and_accept_in_channel(fake, alice, bob)
    bot.answer_deadline = 0.0
    channel = fake.channel.id
    # A command answered publicly (/challenge), then a click that edits the message it is on (Accept).
    made = await fake.slash(alice, "challenge", {"opponent": carol, "game": "ring"}, idle=True)
    assert made.callback_type == 5  # deferred first: the challenge came as a followup
    (challenge,) = [m for m in made.messages if not m.deleted]
    assert not challenge.ephemeral and "challenges you" in challenge.content
    boards = len(public(fake, channel))
    await fake.click(
        carol, challenge, next(c for c in challenge.custom_ids if c.endswith(":accept")), idle=True
    )
    assert "accepted" in fake.message(challenge).content and len(public(fake, channel)) == boards + 1
    # A command answered privately with a select (/board with two matches here), and the select.
    asked = await fake.slash(alice, "board", idle=True)
    question = next(m for m in asked.messages if m.ephemeral and m.selects)
    _, second = await bot.store.matches.active()
    await fake.select(alice, question, str(question.selects[0].custom_id), [str(second.id)], idle=True)
    board = public(fake, channel)[-1]
    assert "The board, as it stands" in board.embeds[0]["description"] and carol.mention in board.content
    # A game control (deferred by itself), and the Rules button (a private message, sent before the
    # deferral could start: the deferral then finds it answered).
    player = user_on_turn(board, {alice.id: alice, carol.id: carol})
    assert player is not None
    edits = len(board.history)
    await fake.click(player, board, roll_of(board), idle=True)
    assert len(fake.message(board).history) > edits or public(fake, channel)[-1].id != board.id
    rules = await fake.click(
        bob, board, next(c for c in board.custom_ids if c.startswith("rules:")), idle=True
    )
    page = next(m for m in rules.messages if not m.deleted)
    assert asked.callback_type == 5
    assert page.ephemeral and page.visible_to == bob.id and "Ring" in page.content + str(page.embeds)
    # A private command answer (/stats of a player without results) fills its "thinking…".
    stats = await fake.slash(bob, "stats", idle=True)
    assert stats.callback_type == 5
    assert stats.message is not None and stats.ephemeral and "has no rated matches" in stats.message.content
    fake.assert_clean()
    await stop_bot(bot)
