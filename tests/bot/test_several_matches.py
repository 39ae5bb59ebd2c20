"""Several matches at once (issue 9): threads, pickers, the board's Resign, crossed challenges, Rematch
expiry, through the fake Discord."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.clock import ManualClock
from fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, match_id_of, resign
from tests.bot.test_clock_settings import admin, challenge_and_accept_in_channel
from tests.support import start_bot, stop_bot


def button(message: FakeMessage, label: str) -> str:
    found = next(b.custom_id for b in message.buttons if b.label == label)
    assert found is not None
    return found


@pytest.mark.asyncio
async def test_with_threads_off_board_and_resign_offer_a_picker_of_the_matches_here(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol, ada = (
        fake.add_user("alice"),
        fake.add_user("bob"),
        fake.add_user("carol"),
        await admin(fake),
    )
    await fake.slash(ada, "settings", {"threads": False})
    await challenge_and_accept_in_channel(fake, alice, bob)
    await challenge_and_accept_in_channel(fake, alice, carol)
    first, second = await bot.store.matches.active()
    shown = await fake.slash(alice, "board")
    assert shown.ephemeral and shown.message is not None and "which one" in shown.message.content
    (select,) = shown.message.selects
    assert select.custom_id is not None and len(select.options) == 2
    await fake.select(alice, shown.message, select.custom_id, [str(second.id)], idle=True)
    board = fake.messages_in(fake.channel)[-1]
    assert "The board, as it stands" in board.embeds[0]["description"] and carol.mention in board.content
    asked = await fake.slash(alice, "resign")
    assert asked.message is not None and asked.message.selects
    picker = asked.message.selects[0]
    assert picker.custom_id is not None
    confirm = await fake.select(alice, asked.message, picker.custom_id, [str(first.id)], idle=True)
    assert confirm.message is not None and f"Resign match #{first.id}?" in confirm.message.content
    await fake.click(alice, confirm.message, button(confirm.message, "Resign"), idle=True)
    assert [m.id for m in await bot.store.matches.active()] == [second.id]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_board_carries_its_own_resign_confirmed_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    board = await challenge_and_accept(fake, alice, bob)
    stranger = await fake.click(carol, board, button(board, "Resign"))
    assert stranger.ephemeral and "Only the players" in stranger.message.content  # type: ignore[union-attr]
    ask = await fake.click(bob, board, button(board, "Resign"))
    assert ask.ephemeral and ask.message is not None and "It counts as a loss" in ask.message.content
    await fake.click(bob, ask.message, button(ask.message, "Keep playing"), idle=True)
    assert await bot.store.matches.active() != []
    ask = await fake.click(bob, board, button(board, "Resign"))
    assert ask.message is not None
    await fake.click(bob, ask.message, button(ask.message, "Resign"), idle=True)
    final = fake.messages_in(board.channel_id)[-1]
    assert final.content.startswith(f"🏆 {alice.mention} wins")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_challenge_in_a_match_thread_opens_a_new_thread_of_the_channel(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    made = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "ring", "rated": False}, channel=board.channel_id
    )
    assert made.message is not None
    await fake.click(bob, made.message, button(made.message, "Accept"), idle=True)
    threads = fake.threads(fake.channel)
    assert len(threads) == 2 and threads[1].id != board.channel_id
    second = next(m for m in await bot.store.matches.active() if m.id != match_id_of(board))
    assert second.channel_id == threads[1].id and second.parent_id == fake.channel.id
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_computer_match_has_its_own_thread_and_one_at_a_time_per_place(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, thread = await against_the_computer(fake)
    (match,) = await bot.store.matches.active()
    assert match.channel_id == thread.id and match.parent_id == fake.channel.id
    again = await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "ring"}, idle=True)
    assert again.ephemeral and f"match #{match.id}" in again.message.content  # type: ignore[union-attr]
    from_thread = await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user}, channel=thread.id, idle=True
    )
    assert from_thread.ephemeral and len(await bot.store.matches.active()) == 1
    await resign(fake, alice, thread.id)
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "ring"}, idle=True)
    assert len(await bot.store.matches.active()) == 1 and len(fake.threads(fake.channel)) == 2
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_crossed_challenges_start_one_match(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    first = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
    crossed = await fake.slash(bob, "challenge", {"opponent": alice, "game": "ring"})
    assert crossed.ephemeral and crossed.message is not None
    assert f"{alice.mention} already challenged you" in crossed.message.content
    assert first.message is not None and str(first.message.id) in crossed.message.content
    assert await bot.store.challenges.get(2) is None
    # Atomic in the store: two creations at the same moment leave one pending challenge.
    made = await asyncio.gather(
        *(
            bot.challenges.create(
                guild_id=fake.guild.id,
                channel_id=fake.channel.id + 1,
                challenger_id=a,
                opponent_id=b,
                game="ring",
                options={},
                rated=True,
            )
            for a, b in ((alice.id, bob.id), (bob.id, alice.id))
        )
    )
    assert sorted(m.created for m in made) == [False, True] and made[0].record.id == made[1].record.id
    fake.assert_clean()
    await stop_bot(bot)


async def against_the_computer(fake: FakeDiscord) -> tuple[FakeUser, FakeChannel]:
    """A new player challenges the bot to ring: the player, and the thread the match is played in."""
    alice = fake.add_user("alice")
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "ring"}, idle=True)
    (thread,) = fake.threads(fake.channel)
    return alice, thread


async def finished_match(fake: FakeDiscord, alice: FakeUser, bob: FakeUser) -> FakeMessage:
    board = await challenge_and_accept(fake, alice, bob)
    await resign(fake, alice, board.channel_id)
    return fake.messages_in(board.channel_id)[-1]


@pytest.mark.asyncio
async def test_both_clicking_rematch_start_one_match(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    final = await finished_match(fake, alice, bob)
    offer = await fake.click(bob, final, button(final, "Rematch"))
    assert offer.message is not None and "wants a rematch" in offer.message.content
    second = await fake.click(alice, final, button(final, "Rematch"))
    assert second.ephemeral and "already asked for a rematch" in second.message.content  # type: ignore[union-attr]
    await fake.click(alice, offer.message, button(offer.message, "Accept"), idle=True)
    assert len(await bot.store.matches.active()) == 1
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize("restart", [False, True], ids=["running", "after-restart"])
async def test_rematch_is_greyed_out_when_its_time_runs_out(
    fake: FakeDiscord, tmp_path: Path, restart: bool
) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    final = await finished_match(fake, alice, bob)
    clock.advance(9 * 60)
    await bot.run_due_tasks()
    assert not fake.message(final).component(button(final, "Rematch")).disabled
    if restart:
        await stop_bot(bot)
        bot = await start_bot(fake, db, clock)
    clock.advance(60 + 1)
    await bot.run_due_tasks()
    await bot.run_due_tasks()
    assert fake.message(final).component(button(final, "Rematch")).disabled
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rematch_once_accepted_greys_out_rematch_and_a_late_click_is_refused(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    final = await finished_match(fake, alice, bob)
    rematch = button(final, "Rematch")
    # A click from a client that has not seen the button greyed out yet, sent later.
    late = fake.prepare_click(alice, final, rematch)
    offer = await fake.click(bob, final, rematch)
    assert offer.message is not None
    await fake.click(alice, offer.message, button(offer.message, "Accept"), idle=True)
    assert fake.message(final).component(rematch).disabled  # at once, not when its time runs out
    answer = await fake.dispatch_interaction(late, idle=True)
    assert answer.private is not None and "has had its rematch already" in answer.private.content
    [played] = await bot.store.matches.active()
    assert f"match #{played.id}" in answer.private.content
    assert await bot.store.challenges.pending(alice.id, bob.id, bot.clock.now()) is None  # no new offer
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rematch_against_the_computer_greys_out_its_rematch_at_once(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, thread = await against_the_computer(fake)
    await resign(fake, alice, thread.id)
    final = fake.messages_in(thread)[-1]
    await fake.click(alice, final, button(final, "Rematch"), idle=True)
    assert len(await bot.store.matches.active()) == 1
    assert fake.message(final).component(button(final, "Rematch")).disabled
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_board_resign_move_and_hint_in_a_channel_say_where_the_players_matches_are(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Issue 33: a player whose three matches are in the threads of a channel runs /board, /resign,
    /move or /hint in the channel itself: they are told where their matches are (a link to each
    thread), those in this channel's threads first; a player with none is told to start one."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol, dave, erin = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave", "erin"))
    other = fake.add_text_channel("elsewhere")
    boards = [await challenge_and_accept(fake, alice, x) for x in (bob, carol, dave)]
    made = await fake.slash(alice, "challenge", {"opponent": erin, "game": "ring"}, channel=other)
    assert made.message is not None
    accept = next(c for c in made.message.custom_ids if c.endswith(":accept"))
    await fake.click(erin, made.message, accept, idle=True)
    far = fake.thread_of(made.message)
    assert far is not None
    for command, options in (("board", {}), ("resign", {}), ("move", {"notation": "roll"}), ("hint", {})):
        answer = await fake.slash(alice, command, options)
        text = answer.private.content if answer.private else ""
        assert answer.ephemeral and "no match in progress here" in text, (command, text)
        places = [f"<#{board.channel_id}>" for board in boards] + [f"<#{far.id}>"]
        assert all(place in text for place in places), (command, text)
        assert [text.index(p) for p in places] == sorted(text.index(p) for p in places), text
        for board in boards:
            assert f"#{match_id_of(board)}" in text, (command, text)
    nobody = await fake.slash(fake.add_user("frank"), "board")
    assert nobody.private is not None and "Start one with /challenge" in nobody.private.content
    assert "<#" not in nobody.private.content
    fake.assert_clean()
    await stop_bot(bot)
