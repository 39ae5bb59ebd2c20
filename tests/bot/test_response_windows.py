"""Response windows on Discord, with the test-only game Duel (answering a Strike is a window whose
pass is taking it): the window's wait and what happens when it runs out, the pass at once, the
standing answers "always pass" and "ask me", the per-server wait, refusals, downtime, and that nothing
of it tells the opponent more about the defender's hand than the card counts."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import discord
import pytest

from app.client import RingsideBot
from bot.clock import ManualClock
from bot.match_writer import MatchWriter
from bot.session import Session
from bot.steps import Step, step_of, steps_of
from bot.store import MatchRecord
from bot.turn_policy import was_asked
from cogs.board import board_message
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.games import duel
from tests.support import board_parts, register_kit, start_bot, stop_bot

HOUR = 3600.0
ALWAYS = "Always pass in this match"
ASK = "Ask me in windows"
SEED = 12
"""The bot's dice seed whose deal gives alice (Red) Strike 1, Strike 1, Strike 2 and bob (Blue) a Guard
and two Strike 3, with Strike 2 and a Guard left in the deck."""


@pytest.fixture(autouse=True)
def duel_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Duel in every registry, for this module's tests only."""
    register_kit(monkeypatch, duel.KIT)
    yield


def public_messages(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    return [m for m in fake.messages_in(channel_id) if not m.ephemeral]


def newest(fake: FakeDiscord, channel_id: int) -> FakeMessage:
    return public_messages(fake, channel_id)[-1]


def text_of(message: FakeMessage) -> str:
    return message.content + json.dumps(message.embeds)


async def start_duel(fake: FakeDiscord, alice: FakeUser, bob: FakeUser) -> FakeMessage:
    challenge = await fake.slash(alice, "challenge", {"opponent": bob, "game": "duel"})
    assert challenge.message is not None
    accept = next(c for c in challenge.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, challenge.message, accept, idle=True)
    thread = fake.thread_of(challenge.message)
    assert thread is not None
    return public_messages(fake, thread.id)[-1]


async def open_hand(fake: FakeDiscord, user: FakeUser, board: FakeMessage) -> FakeMessage:
    hand = next(b.custom_id for b in board.buttons if b.label == "My hand" and b.custom_id)
    result = await fake.click(user, board, hand, idle=True)
    assert result.ephemeral and result.message is not None
    return result.message


async def press(fake: FakeDiscord, user: FakeUser, message: FakeMessage, label: str) -> FakeMessage:
    """Click the button ``label`` of ``message`` as ``user``; the message as it is afterwards."""
    button = next(b for b in fake.message(message).buttons if b.label == label)
    await fake.click(user, message, button.custom_id or "", idle=True)
    return fake.message(message)


async def play(fake: FakeDiscord, user: FakeUser, label: str, channel_id: int) -> FakeMessage:
    """``user`` opens My hand on the newest board and clicks ``label`` in the private reply."""
    private = await open_hand(fake, user, newest(fake, channel_id))
    return await press(fake, user, private, label)


async def record_of(bot: RingsideBot, match_id: int) -> MatchRecord:
    record = await bot.store.matches.get(match_id)
    assert record is not None
    return record


async def dealt_duel(
    fake: FakeDiscord, db: Path, clock: ManualClock
) -> tuple[RingsideBot, FakeUser, FakeUser, FakeMessage, int]:
    bot = await start_bot(fake, db, clock, seed=SEED)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await start_duel(fake, alice, bob)
    match_id = (await bot.sessions.history.matches_of(alice.id))[0].id
    state = (await bot.sessions.get(match_id)).state
    assert isinstance(state, duel.DuelState)
    assert sorted(state.hands[0]) == ["S1", "S1", "S2"] and sorted(state.hands[1]) == ["G", "S3", "S3"]
    return bot, alice, bob, board, match_id


async def strike(
    fake: FakeDiscord, bot: RingsideBot, alice: FakeUser, bob: FakeUser, channel: int, card: str
) -> FakeMessage:
    """Alice strikes: the window opens for bob in a new board that mentions him."""
    before = len(public_messages(fake, channel))
    await play(fake, alice, f"Play {card}", channel)
    assert len(public_messages(fake, channel)) == before + 1
    return newest(fake, channel)


# -- the window's clock ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_a_window_that_runs_out_passes_for_the_defender_and_the_turn_goes_on(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot, alice, bob, board, mid = await dealt_duel(fake, tmp_path / "db.sqlite3", clock)
    channel = board.channel_id
    window = await strike(fake, bot, alice, bob, channel, "Strike 1")
    due = int(clock.now() + 120)
    # The defender is mentioned and told, in words that do not depend on the hand, how long it waits.
    assert window.content == f"{bob.mention}: open **My hand** to answer, or it passes by itself <t:{due}:R>."
    assert [b.label for b in window.buttons] == ["My hand", "Resign", "Rules"]
    assert "lost on time" not in text_of(window)
    record = await record_of(bot, mid)
    assert record.window_at == clock.now() + 120 and record.timeout_at is None and record.reminder_at is None

    clock.advance(119)
    await bot.run_due_tasks()
    assert newest(fake, channel).id == window.id, "the window still waits"
    clock.advance(2)
    await bot.run_due_tasks()
    await bot.run_due_tasks()  # claimed once: a second round passes nothing more
    after = newest(fake, channel)
    assert after.id != window.id and len(public_messages(fake, channel)) == 3
    assert "Blue takes the strike: Red scores 1. (no answer in time)" in text_of(after)
    record = await record_of(bot, mid)
    assert record.status == "active" and await bot.sessions.history.result_of(mid) is None, (
        "nothing is forfeited"
    )
    # Bob is on turn now (Duel's turn passes to the defender), with the normal turn clock.
    assert after.content.startswith(f"{bob.mention}, your turn (Blue).")
    assert record.window_at is None and record.timeout_at == clock.now() + 48 * HOUR
    assert record.reminder_at == clock.now() + 12 * HOUR
    assert not fake.message(window).all_components or all(
        c.disabled for c in fake.message(window).all_components
    )
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_defender_ends_the_window_at_once_with_the_panels_pass(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot, alice, bob, board, mid = await dealt_duel(fake, tmp_path / "db.sqlite3", clock)
    channel = board.channel_id
    await strike(fake, bot, alice, bob, channel, "Strike 2")
    private = await open_hand(fake, bob, newest(fake, channel))
    assert [b.label for b in private.buttons] == ["Block with a Guard", "Take the strike", ALWAYS]
    assert "the window passes by itself <t:" in private.content
    clock.advance(30)
    answered = await press(fake, bob, private, "Take the strike")
    assert "Blue takes the strike: Red scores 2." in answered.content
    assert "(no answer in time)" not in text_of(newest(fake, channel))
    record = await record_of(bot, mid)
    assert record.window_at is None and record.timeout_at == clock.now() + 48 * HOUR
    assert record.always_pass == (False, False), "answering once sets no standing answer"
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_window_wait_is_a_server_setting(fake: FakeDiscord, tmp_path: Path) -> None:
    clock = ManualClock()
    bot, alice, bob, board, mid = await dealt_duel(fake, tmp_path / "db.sqlite3", clock)
    role = fake.add_role("admins", discord.Permissions(manage_guild=True))
    ada = fake.add_user("ada", roles=[role])
    shown = await fake.slash(ada, "settings")
    assert shown.message is not None and "pass by themselves after 2 min" in str(shown.message.embeds)
    refused = await fake.slash(alice, "settings", {"window_wait": 30})
    assert refused.message is not None and "Manage Server" in refused.message.content
    saved = await fake.slash(ada, "settings", {"window_wait": 30})
    assert saved.message is not None and "pass by themselves after 30 s" in str(saved.message.embeds)
    assert (await bot.store.settings.get(fake.guild.id)).window_seconds == 30.0

    window = await strike(fake, bot, alice, bob, board.channel_id, "Strike 1")
    assert f"<t:{int(clock.now() + 30)}:R>" in window.content
    assert (await record_of(bot, mid)).window_at == clock.now() + 30
    clock.advance(31)
    await bot.run_due_tasks()
    assert "(no answer in time)" in text_of(newest(fake, board.channel_id))
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_downtime_moves_a_window_deadline_on(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot, alice, bob, board, mid = await dealt_duel(fake, db, clock)
    await strike(fake, bot, alice, bob, board.channel_id, "Strike 1")
    opened = clock.now()
    clock.advance(20)
    await bot.run_due_tasks()  # alive 20 s into the window: 100 s of it left
    await stop_bot(bot)
    clock.advance(HOUR)  # down far past the window's end
    bot = await start_bot(fake, db, clock, seed=3)
    await bot.run_due_tasks()
    record = await record_of(bot, mid)
    assert record.window_at == opened + 120 + HOUR and record.window_at == clock.now() + 100
    assert "(no answer in time)" not in text_of(newest(fake, board.channel_id))
    clock.advance(101)
    await bot.run_due_tasks()
    assert "(no answer in time)" in text_of(newest(fake, board.channel_id))
    fake.assert_clean()
    await stop_bot(bot)


# -- standing answers --------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_always_pass_passes_at_once_survives_a_restart_and_ask_me_turns_it_off(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    bot, alice, bob, board, mid = await dealt_duel(fake, db, clock)
    channel = board.channel_id
    await strike(fake, bot, alice, bob, channel, "Strike 1")
    private = await open_hand(fake, bob, newest(fake, channel))
    answered = await press(fake, bob, private, ALWAYS)
    # The window open now passes (Bob holds a Guard, yet the strike is taken) ...
    text = text_of(newest(fake, channel))
    assert "Blue takes the strike: Red scores 1. (standing answer: always pass)" in text
    assert "always pass" in answered.content and answered.buttons[-1].label == ASK
    assert (await record_of(bot, mid)).always_pass == (False, True)
    # Pressed in the window, it answered it: Bob was asked in this turn (not mentioned again in it).
    assert any(was_asked(step, 1) for step in steps_of((await record_of(bot, mid)).board_steps))
    await play(fake, bob, "Draw a card", channel)
    await stop_bot(bot)

    bot = await start_bot(fake, db, clock, seed=5)  # ... and the answer survives a restart:
    before = len(public_messages(fake, channel))
    await play(fake, alice, "Play Strike 1", channel)
    assert len(public_messages(fake, channel)) == before + 1
    passed = newest(fake, channel)
    assert "Red strikes with Strike 1." in text_of(passed)
    assert "Blue takes the strike: Red scores 1. (standing answer: always pass)" in text_of(passed)
    # The window closed at once: Bob is asked for his own turn, not for an answer.
    assert passed.content.startswith(f"{bob.mention}, your turn (Blue).")
    record = await record_of(bot, mid)
    assert record.window_at is None and record.timeout_at is not None

    # "Ask me in windows" in Bob's hand reply turns it off, and the next window waits for him.
    hand = await open_hand(fake, bob, passed)
    assert "always pass" in hand.content and ASK in [b.label for b in hand.buttons]
    asked = await press(fake, bob, hand, ASK)
    assert "asked in every response window" in asked.content and ASK not in [b.label for b in asked.buttons]
    assert (await record_of(bot, mid)).always_pass == (False, False)
    await play(fake, bob, "Draw a card", channel)
    # Alice's only card is her only answer, still asked: played at once, it would tell what she holds.
    window = await strike(fake, bot, alice, bob, channel, "Strike 2")
    assert window.content.startswith(f"{bob.mention}: open **My hand** to answer")
    assert (await record_of(bot, mid)).window_at == clock.now() + 120
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_stale_and_foreign_clicks_on_standing_answers_change_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot, alice, bob, board, mid = await dealt_duel(fake, tmp_path / "db.sqlite3", clock)
    carol = fake.add_user("carol")
    channel = board.channel_id
    # Not in a window: "Ask me" while Bob is already asked, from his hand reply's twin, is refused.
    await strike(fake, bot, alice, bob, channel, "Strike 1")
    hand = next(b.custom_id for b in newest(fake, channel).buttons if b.label == "My hand" and b.custom_id)
    opened = await fake.click(bob, newest(fake, channel), hand, idle=True)
    first = opened.message
    assert first is not None
    # Discord's 15 minutes ran out on the first reply: it cannot be edited, and keeps its controls.
    fake.expire_interaction(opened)
    second = await open_hand(fake, bob, newest(fake, channel))
    version = (await record_of(bot, mid)).version

    # Someone not playing: refused, nothing changes.
    always = next(b.custom_id for b in first.buttons if b.label == ALWAYS)
    assert always is not None
    # (A click Discord would not deliver: carol cannot see Bob's reply, so the id is put on the board.)
    window = newest(fake, channel)
    for row in window.components:
        for comp in row.get("components") or []:
            if comp.get("label") == "My hand":
                comp["custom_id"] = always
    stranger = await fake.click(carol, window, always, idle=True)
    assert stranger.ephemeral and stranger.message is not None
    assert "not playing in this match" in stranger.message.content
    # Alice, the striker, may not set Bob's answer either: it is not her window.
    striker = await fake.click(alice, window, always, idle=True)
    assert striker.ephemeral and striker.message is not None and "not yours" in striker.message.content
    record = await record_of(bot, mid)
    assert record.version == version and record.always_pass == (False, False)

    # Bob answers from one reply; the other reply's "Always pass" is stale now and passes nothing: that
    # reply becomes his panel as the match stands.
    await press(fake, bob, second, "Block with a Guard")
    after = await record_of(bot, mid)
    stale = await fake.click(bob, first, always, idle=True)
    assert stale.ephemeral and stale.message is not None and stale.message.id == first.id
    assert stale.message.content.startswith("That panel was out of date"), stale.message.content
    record = await record_of(bot, mid)
    assert record.version == after.version and record.always_pass == (False, False)

    # "Ask me" when Bob is already asked: said so, nothing changes.
    ask = f"sa:{mid}:{record.version}:ask"
    current = next(
        m
        for m in reversed(fake.messages_in(channel))
        if m.visible_to == bob.id and not m.deleted and m.buttons
    )
    for row in current.components:
        for comp in row.get("components") or []:
            if comp.get("type") == 2 and comp.get("custom_id"):
                comp["custom_id"] = ask
                break
    already = await fake.click(bob, current, ask, idle=True)
    assert already.ephemeral and already.message is not None
    assert "already asked" in already.message.content
    assert (await record_of(bot, mid)).always_pass == (False, False)
    fake.assert_clean()
    await stop_bot(bot)


# -- no leak ---------------------------------------------------------------------------------------------


def dealt(order: tuple[int, ...]) -> duel.DuelState:
    state = duel.VARIANT.new_game()
    return state.apply(state.chance_action(order))


def session_of(state: duel.DuelState, always_pass: tuple[bool, bool] = (False, False)) -> Session:
    record = MatchRecord(
        id=7, guild_id=1, channel_id=2, parent_id=None, game="duel", options={}, players=(11, 12),
        state=state.canonical(), version=3, status="active", message_id=None, rated=True,
        created_at=0.0, updated_at=0.0, always_pass=always_pass,
    )  # fmt: skip
    return Session(record=record, variant=duel.VARIANT, state=state)


def public_parts(session: Session, steps: tuple[Step, ...] = ()) -> tuple[str, str, bytes, str]:
    return board_parts(board_message(session, steps, window_at=1_790_000_120.0))


# Red S1 S1 S2 in both; Blue holds a Guard in one and none in the other (same sizes, same deck size).
WITH_GUARD = (0, 1, 2, 6, 4, 5, 3, 7)  # Blue G S3 S3, deck S2 G
WITHOUT_GUARD = (0, 1, 2, 3, 4, 5, 6, 7)  # Blue S2 S3 S3, deck G G


def struck(order: tuple[int, ...]) -> duel.DuelState:
    return dealt(order).apply(duel.Play("S1"))


def test_a_window_board_is_the_same_whatever_the_defender_holds() -> None:
    a, b = struck(WITH_GUARD), struck(WITHOUT_GUARD)
    assert "G" in a.hands[1] and "G" not in b.hands[1]
    assert a.legal_actions() != b.legal_actions() and a.window_pass() == b.window_pass() == duel.Play("take")
    assert public_parts(session_of(a)) == public_parts(session_of(b))
    assert (
        "open **My hand** to answer, or it passes by itself <t:1790000120:R>"
        in public_parts(session_of(a))[0]
    )


def playing_writer() -> MatchWriter:
    """A writer that only plays what plays by itself (``advance``): it reads and saves nothing, and
    nobody in these games is rolled for by a preference."""

    async def never(session: Session, state: object) -> bool:
        raise AssertionError("no roll is judged here")

    return MatchWriter(None, ManualClock(), random.SystemRandom(), set(), never)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_always_pass_closes_the_window_the_same_way_whatever_the_defender_holds() -> None:
    manager = playing_writer()
    results = []
    for order in (WITH_GUARD, WITHOUT_GUARD):
        session = session_of(dealt(order), always_pass=(False, True))
        state = dealt(order)
        steps: list[Step] = []
        opened = state.apply(duel.Play("S1"))
        steps.append(step_of(0, duel.Play("S1"), state, opened, automatic=False))
        closed = await manager.advance(session, opened, steps)
        assert closed.window_pass() is None and closed.to_move() == 1, "the window closed at once"
        session.state = closed
        results.append(public_parts(session, tuple(steps)))
    assert results[0] == results[1]
    assert "(standing answer: always pass)" in results[0][1]


@pytest.mark.asyncio
async def test_help_explains_response_windows_while_a_game_has_hands(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    shown = await fake.slash(fake.add_user("alice"), "help")
    assert shown.message is not None
    fields = {f["name"]: f["value"] for f in shown.message.embeds[0].get("fields", [])}
    text = fields["Secret hands and response windows"]
    assert ALWAYS in text and ASK in text and "My hand" in text
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_computer_answers_its_windows_at_once_and_opens_them_for_a_person(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock, seed=SEED)
    alice = fake.add_user("alice")
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "duel"}, idle=True)
    mid = (await bot.sessions.history.matches_of(alice.id))[0].id
    session = await bot.sessions.get(mid)
    channel = session.record.channel_id
    assert session.record.players[0] == alice.id  # Red: Strike 1, Strike 1, Strike 2
    await play(fake, alice, "Play Strike 1", channel)
    board = newest(fake, channel)
    # The computer (Blue: a Guard, two Strike 3) blocked at once and struck back in the same go; the
    # window it opened for alice waits for her.
    assert "Blue blocks the strike with a Guard." in text_of(board)
    assert "Blue strikes with Strike 3." in text_of(board)
    assert board.content.startswith(f"{alice.mention}: open **My hand** to answer")
    assert (await record_of(bot, mid)).window_at == clock.now() + 120
    fake.assert_clean()
    await stop_bot(bot)
