"""The live clock (issue 24), as on Backgammon Galaxy: ``/challenge ... clock:2m+12s`` gives each
player a reserve for the match and a delay per decision used first; the board shows both reserves;
a reserve that runs out loses the match ("lost on time") through the timeout's due work, once; the
clock pauses while the bot is down. Time moves by the manual clock only."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.session import UserError
from bot.sessions import SessionManager
from bot.store import MatchRecord, Store
from cogs.board import caption_of
from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.variant import VARIANT
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, live_board, match_id_of, user_on_turn
from tests.bot.test_backgammon_discord import buttons, play_turn_by_clicks, text_of
from tests.support import start_bot, stop_bot

HOUR = 3600.0


async def saved(bot_store: Store, mid: int) -> MatchRecord:
    record = await bot_store.matches.get(mid)
    assert record is not None
    return record


async def play_turn(fake: FakeDiscord, board: FakeMessage, user: FakeUser) -> FakeMessage:
    """``user`` rolls if asked to, then plays and confirms; the new public board."""
    if "Roll" in buttons(board):
        await fake.click(user, board, buttons(board)["Roll"], idle=True)
        board = live_board(fake, board.channel_id)
    return await play_turn_by_clicks(fake, board, user)


async def clocked(
    fake: FakeDiscord, tmp_path: Path, manual: ManualClock, **options: object
) -> tuple[RingsideBot, FakeMessage, FakeUser, dict[int, FakeUser]]:
    """A bot, and a backgammon match between Alice and Bob with ``options``: its first board, the
    player it asks, both users."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3", manual)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob, "backgammon", **options)
    on_turn = user_on_turn(board, users)
    assert on_turn is not None
    return bot, board, on_turn, users


@pytest.mark.asyncio
async def test_the_delay_is_used_before_the_reserve_and_the_board_shows_both_reserves(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot, board, first, users = await clocked(fake, tmp_path, clock, clock="1m+10s")
    mid = match_id_of(board)
    seat = (await saved(bot.store, mid)).players.index(first.id)
    names = ("White", "Black")
    record = await saved(bot.store, mid)
    # The clock replaces the turn's deadline: no reminder, and the reserve running out is the timeout.
    assert record.clock_left == (60.0, 60.0) and record.clock_delay == 10.0
    assert record.clock_seat == seat and record.clock_since == clock.now()
    assert record.timeout_at == clock.now() + 70 and record.reminder_at is None
    due = int(clock.now() + 70)
    assert f"⏱️ White 1:00 · Black 1:00 — {names[seat]}'s clock runs out <t:{due}:R> (10 s delay first)." in (
        text_of(board)
    )
    assert "Play by" not in text_of(board)

    clock.advance(8)  # within the delay: the reserve is untouched, and the 2 s left are not banked
    board = await play_turn(fake, board, first)
    record = await saved(bot.store, mid)
    assert record.clock_left == (60.0, 60.0) and record.clock_seat == 1 - seat
    assert record.timeout_at == clock.now() + 70

    second = user_on_turn(board, users)
    assert second is not None and second is not first
    clock.advance(25)  # 15 s past the delay, the roll and the play together
    board = await play_turn(fake, board, second)
    record = await saved(bot.store, mid)
    left = [60.0, 60.0]
    left[1 - seat] = 45.0
    assert record.clock_left == tuple(left) and record.clock_seat == seat
    assert record.timeout_at == clock.now() + 70
    reserves = f"White {'1:00' if seat == 0 else '0:45'} · Black {'0:45' if seat == 0 else '1:00'}"
    assert f"⏱️ {reserves} — {names[seat]}'s clock runs out" in text_of(board)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_reserve_that_runs_out_loses_the_whole_match_on_time(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot, board, on_turn, users = await clocked(fake, tmp_path, clock, clock="30s+5s", length=5)
    mid = match_id_of(board)
    other = next(user for user in users.values() if user is not on_turn)
    clock.advance(34)  # 1 s of reserve left
    await bot.run_due_tasks()
    assert (await saved(bot.store, mid)).status == "active"
    clock.advance(1.5)
    # Too late: a click after the reserve ran out does not count, even before the scheduler's round.
    moves = [cid for label, cid in buttons(board).items() if "/" in label]
    refused = await fake.click(on_turn, board, moves[0], idle=True)
    assert refused.private is not None and "lose this match on time" in refused.private.content
    await bot.run_due_tasks()
    await bot.run_due_tasks()
    results = [m for m in fake.messages_in(board.channel_id) if m.content.startswith("🏆")]
    assert len(results) == 1 and other.mention in results[0].content
    assert "lost on time" in results[0].content
    outcome = await bot.sessions.history.result_of(mid)
    assert outcome is not None and outcome.reason == "timeout" and outcome.points == 5  # the whole match
    record = await saved(bot.store, mid)
    seat = record.players.index(on_turn.id)
    assert record.clock_left is not None and record.clock_left[seat] == 0.0 and record.clock_seat is None
    assert "0:00" in text_of(results[0]) or "0:00" in text_of(live_board(fake, board.channel_id))
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_clock_pauses_while_the_bot_is_down(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot, board, on_turn, _ = await clocked(fake, tmp_path, clock, clock="1m+10s")
    mid = match_id_of(board)
    seat = (await saved(bot.store, mid)).players.index(on_turn.id)
    clock.advance(20)
    await bot.run_due_tasks()  # alive 20 s in: 50 s of the clock left
    await stop_bot(bot)
    clock.advance(2 * HOUR)  # down far past the reserve
    bot = await start_bot(fake, db, clock, seed=4)
    await bot.run_due_tasks()
    record = await saved(bot.store, mid)
    assert record.status == "active" and record.clock_left == (60.0, 60.0)
    assert record.timeout_at == clock.now() + 50 and record.clock_since == clock.now() - 20
    # The player moves 30 s after the restart: 50 s used in all, 40 of them past the delay.
    clock.advance(30)
    board = live_board(fake, board.channel_id)
    await play_turn(fake, board, on_turn)
    record = await saved(bot.store, mid)
    assert record.clock_left is not None and record.clock_left[seat] == 20.0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_clock_that_cannot_be_read_or_makes_no_sense_is_refused_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    refusals = [
        ({"game": "backgammon", "clock": "fast"}, "Clock 'fast' cannot be read: write a reserve and a delay"),
        ({"game": "backgammon", "clock": "10s+5s"}, "A clock needs a reserve of at least 30 seconds"),
        ({"game": "backgammon", "clock": "3h"}, "A clock's reserve is at most 2 hours"),
        ({"game": "backgammon", "clock": "2m+5m"}, "A clock's delay is at most 60 seconds"),
        ({"game": "ring", "clock": "2m+12s"}, "Ring has no option clock"),
    ]
    for opponent in (bob, fake.bot_user):
        for given, message in refusals:
            refused = await fake.slash(alice, "challenge", {"opponent": opponent, **given}, idle=True)
            assert refused.ephemeral and refused.message is not None, given
            assert message in refused.message.content, (given, refused.message.content)
            assert len(refused.message.content.splitlines()) == 1
    assert await bot.store.challenges.get(1) is None and await bot.store.matches.active() == []
    assert [m for m in fake.messages_in(fake.channel) if not m.ephemeral] == []
    # Read as written, and written back one way: on the challenge, and kept for the match.
    made = await fake.slash(alice, "challenge", {"opponent": bob, "game": "backgammon", "clock": "90S + 8"})
    assert made.message is not None and "clock 1m30s+8s" in made.message.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_without_a_clock_each_turn_keeps_its_deadline(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "backgammon")
    record = await saved(bot.store, match_id_of(board))
    assert record.clock_left is None and record.clock_seat is None
    assert record.timeout_at == clock.now() + 48 * HOUR and record.reminder_at == clock.now() + 12 * HOUR
    assert "⏱️" not in text_of(board) and "Play by" in text_of(board)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_against_the_computer_only_the_persons_clock_runs(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice = fake.add_user("alice")
    await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon", "clock": "1m+10s"}, idle=True
    )
    (thread,) = fake.threads(fake.channel)
    board = live_board(fake, thread.id)
    mid = match_id_of(board)
    record = await saved(bot.store, mid)
    seat = record.players.index(alice.id)
    for turn in range(3):
        assert user_on_turn(board, {alice.id: alice}) is alice
        assert record.clock_seat == seat and record.clock_since == clock.now()
        clock.advance(15)  # 5 s past the delay each turn; the computer answers at once
        board = await play_turn(fake, board, alice)
        record = await saved(bot.store, mid)
        assert record.clock_left is not None
        assert record.clock_left[seat] == 60.0 - 5 * (turn + 1) and record.clock_left[1 - seat] == 60.0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_run_out_reserve_ends_the_match_once_across_two_processes(tmp_path: Path) -> None:
    clock = ManualClock()
    first = SessionManager(await Store.open(tmp_path / "db.sqlite3"), clock, rng=random.Random(1))
    second = SessionManager(await Store.open(tmp_path / "db.sqlite3"), clock, rng=random.Random(2))
    played = await first.start_match(
        game="backgammon",
        options={"length": 3, "rules": "standard", "clock": "1m+10s"},
        players=(101, 202),
        guild_id=1,
        channel_id=10,
        parent_id=None,
        rated=True,
    )
    session = played.session
    deadlines = await first.clocks.turn_clock(session, clock.now())
    clock.advance(3)  # the board took 3 s to post: the clock starts when it is shown
    assert await first.boards.mark_shown(session, 1, deadlines, session.record.board_version)
    assert session.record.clock_since == clock.now() and session.record.timeout_at == clock.now() + 70
    await second.get(session.id)  # the other process holds a copy too
    clock.advance(69)
    assert await first.clocks.timeout_due() == [] and await second.clocks.timeout_due() == []
    clock.advance(1)
    # Run out: a decision now does not count (whatever it is), in either process.
    on_turn = session.user_of(session.record.clock_seat or 0)
    for manager in (first, second):
        with pytest.raises(UserError, match="lose this match on time"):
            await manager.act(session.id, on_turn, None, "24/23")
    ended = [await first.clocks.timeout_due(), await second.clocks.timeout_due()]
    assert sorted(len(e) for e in ended) == [0, 1]  # one of them ended it; the other found it over
    assert await first.clocks.timeout(session.id) is None and await second.clocks.timeout(session.id) is None
    result = await second.store.matches.result(session.id)
    assert result is not None and result.points == 3 and "lost on time" in result.description
    await first.store.close()
    await second.store.close()


def test_the_picture_marks_the_clock_of_the_seat_that_must_act_before_it_is_shown() -> None:
    """A board is drawn before it is shown, and the decider's clock starts when it is shown: the
    picture marks the seat that must act, not the seat whose clock ran for the board before (the
    doubler's, here, while the other player is asked to take)."""
    asked = VARIANT.new_game({"position": "XGID=-b----E-C---eE---c-e----B-:0:0:-1:D:0:0:0:7:10"})
    taker = asked.to_move()
    assert isinstance(asked, BackgammonState) and asked.phase is Phase.TAKE and taker in (0, 1)
    record = SimpleNamespace(clock_left=(100.0, 90.0), clock_seat=1 - taker)
    caption = caption_of(SimpleNamespace(record=record, state=asked), ("a", "b"))  # type: ignore[arg-type]
    assert caption.clocks == ("1:40", "1:30") and caption.clock_running == taker
