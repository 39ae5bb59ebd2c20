"""The live clock (issue 24), as on Backgammon Galaxy: ``/challenge ... clock:2m+12s`` gives each
player a reserve for the match and a delay per decision used first; the board shows both reserves;
a reserve that runs out loses the match ("lost on time") through the timeout's due work, once; the
clock pauses while the bot is down, however short the outage and whatever stopped it (issue 33);
every redraw shows the reserves as they are then. Time moves by the manual clock only; a kill -9
is the store closed under the bot, so it writes nothing more (the real one: ``test_process.py``)."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest

from app.client import RingsideBot
from app.heartbeat import LIVE_BEAT
from bot.clock import ManualClock
from bot.session import UserError
from bot.sessions import SessionManager
from bot.store import MatchRecord, Store
from cogs.board import caption_of
from engine.backgammon.game import BackgammonState, Phase
from engine.backgammon.variant import VARIANT
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, live_board, match_id_of, user_on_turn
from render import Caption
from tests.bot.test_backgammon_discord import buttons, play_turn_by_clicks, text_of
from tests.support import start_bot, stop_bot

HOUR = 3600.0


async def saved(bot_store: Store, mid: int) -> MatchRecord:
    record = await bot_store.matches.get(mid)
    assert record is not None
    return record


async def killed(bot: RingsideBot) -> None:
    """As ``kill -9`` leaves things: the bot writes nothing more (its store is gone first)."""
    await bot.store.close()
    await bot.close()


async def beating(bot: RingsideBot, clock: ManualClock, seconds: int) -> None:
    """``seconds`` of the running bot, its heartbeat written every ``LIVE_BEAT`` as its loop does."""
    for _ in range(int(seconds / LIVE_BEAT)):
        clock.advance(LIVE_BEAT)
        await bot.store.deadlines.beat_live(clock.now())


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
async def test_a_kill_9_costs_the_player_on_turn_none_of_a_short_outage(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The issue's case: 1m+5s, 57.2 s left when the bot is killed, started again 30 s later (under
    the turn clocks' slack): the player has their 57.2 s again, less at most the heartbeat's
    interval (the bot may have run that long after its last beat), and the board says so."""
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot, board, _, _ = await clocked(fake, tmp_path, clock, clock="1m+5s")
    mid = match_id_of(board)
    await beating(bot, clock, 7)
    clock.advance(0.8)  # 57.2 s left; the bot dies before its next beat
    before = await saved(bot.store, mid)
    assert before.timeout_at is not None and before.timeout_at - clock.now() == pytest.approx(57.2)
    await killed(bot)
    clock.advance(30)
    bot = await start_bot(fake, db, clock, seed=4)
    record = await saved(bot.store, mid)
    assert record.timeout_at is not None and record.clock_since is not None
    left = record.timeout_at - clock.now()
    assert 57.2 - LIVE_BEAT <= left <= 57.2 + 1e-6, left
    assert record.timeout_at - before.timeout_at == pytest.approx(
        record.clock_since - (before.clock_since or 0)
    )
    await bot.run_due_tasks()
    assert f"runs out <t:{int(record.timeout_at)}:R>" in text_of(live_board(fake, board.channel_id))
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_no_player_gets_back_time_the_bot_was_running(fake: FakeDiscord, tmp_path: Path) -> None:
    """The last heartbeat before the board was shown is no measure of that player's downtime: their
    clock started later, and ran until the bot died (before its first beat after it); at most a
    heartbeat's interval more is charged, and nothing of the time before their clock started is
    given to them."""
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot = await start_bot(fake, db, clock)
    await bot.run_due_tasks()  # the scheduler's heartbeat
    clock.advance(25)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "backgammon", clock="1m+5s")
    mid = match_id_of(board)
    started = (await saved(bot.store, mid)).clock_since
    assert started == clock.now()
    clock.advance(0.5)
    await killed(bot)
    clock.advance(20)
    bot = await start_bot(fake, db, clock, seed=4)
    record = await saved(bot.store, mid)
    assert record.clock_since is not None and record.timeout_at is not None
    used = clock.now() - record.clock_since  # what the clock has run, charged at the next decision
    assert 0.5 <= used <= 0.5 + LIVE_BEAT, used
    assert record.timeout_at == pytest.approx(record.clock_since + 65)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_stop_by_sigterm_gives_back_every_second_from_the_moment_clicks_were_refused(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """SIGTERM drains: from its first moment clicks are answered that the bot is restarting, so the
    clock stops there exactly, however long the draining takes and the bot stays down."""
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot, board, _, _ = await clocked(fake, tmp_path, clock, clock="1m+5s")
    mid = match_id_of(board)
    clock.advance(10)
    await bot.drain()
    clock.advance(4)  # the draining and the closing take their time
    await stop_bot(bot)
    clock.advance(20)
    bot = await start_bot(fake, db, clock, seed=4)
    record = await saved(bot.store, mid)
    assert record.clock_since == clock.now() - 10 and record.timeout_at == clock.now() + 55
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_clock_also_waits_while_the_restarted_bot_connects_to_discord(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """The restarted bot gives the downtime back before it connects to Discord; until it is
    connected nobody can click, so that wait is given back too, when it connects."""
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot, board, _, _ = await clocked(fake, tmp_path, clock, clock="1m+5s")
    mid = match_id_of(board)
    clock.advance(10)
    await stop_bot(bot)
    clock.advance(100)
    store = await Store.open(db)
    bot = RingsideBot(store, clock=clock, rng=random.Random(4), run_scheduler=False, render_workers=0)
    await bot.login(fake.token)  # the bot is set up (setup_hook), not connected yet
    clock.advance(3)
    await bot.connected()  # as discord.py's "connect" event does
    record = await saved(bot.store, mid)
    assert record.clock_since == clock.now() - 10 and record.timeout_at == clock.now() + 55
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_every_redraw_shows_the_reserves_as_they_are_then(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After Roll, 30 s into a 1m+5s turn, the board says 0:35 for the player on turn (text and
    picture), not the 1:00 saved at the last decision; the running-out moment Discord counts down
    stays the saved one."""
    clock = ManualClock()
    bot, board, first, users = await clocked(fake, tmp_path, clock, clock="1m+5s", length=5)
    mid = match_id_of(board)
    board = await play_turn(fake, board, first)  # the opening roll is played as it comes
    second = user_on_turn(board, users)
    assert second is not None and second is not first
    seat = (await saved(bot.store, mid)).players.index(second.id)
    publisher = bot.get_cog("Play").publisher  # type: ignore[union-attr]
    captions: list[Caption] = []
    draw = publisher.picture

    async def picture(view: object, caption: Caption) -> bytes:
        captions.append(caption)
        return await draw(view, caption)

    monkeypatch.setattr(publisher, "picture", picture)
    clock.advance(30)
    await fake.click(second, board, buttons(board)["Roll"], idle=True)
    record = await saved(bot.store, mid)
    assert record.clock_left == (60.0, 60.0) and record.clock_seat == seat  # charged at the decision
    assert record.timeout_at is not None
    shown = ["1:00", "1:00"]
    shown[seat] = "0:35"
    names = ("White", "Black")
    reserves = f"White {shown[0]} · Black {shown[1]}"
    line = f"⏱️ {reserves} — {names[seat]}'s clock runs out <t:{int(record.timeout_at)}:R>"
    assert line in text_of(live_board(fake, board.channel_id))
    assert captions and captions[-1].clocks == tuple(shown) and captions[-1].clock_running == seat
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
    record = MatchRecord(
        1, 1, 10, None, "backgammon", {}, (101, 202), "", 3, "active", None, True, 0.0, 0.0,
        clock_delay=5.0, clock_left=(100.0, 90.0), clock_seat=1 - taker, clock_since=50.0,
    )  # fmt: skip
    caption = caption_of(SimpleNamespace(record=record, state=asked), ("a", "b"))  # type: ignore[arg-type]
    assert caption.clocks == ("1:40", "1:30") and caption.clock_running == taker
    # Drawn 20 s after the doubler's clock started (5 s of delay): their reserve as it stands then.
    caption = caption_of(SimpleNamespace(record=record, state=asked), ("a", "b"), now=70.0)  # type: ignore[arg-type]
    assert caption.clocks == (("1:25", "1:30") if taker == 1 else ("1:40", "1:15"))
