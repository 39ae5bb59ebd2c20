"""Hidden information end to end, with the test-only game Duel (a secret hand, answers by the player
not on turn): views per seat, private controls behind "My hand", secret forced answers, publishing
by who decides next."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.session import Session
from bot.store import MatchRecord
from cogs.board import board_message, build_view
from cogs.panels.base import ROLL, ButtonSpec, PanelSpec, act
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.games import duel
from tests.support import board_parts, register_kit, start_bot, stop_bot

TURN = re.compile(r"^<@(\d+)>(?:, your turn|: open \*\*My hand\*\* to answer)")
SECRET_WORDS = ("Your hand:", "You drew", "Guard,", "Strike 1,", "Strike 2,", "Strike 3,")


@pytest.fixture(autouse=True)
def duel_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Duel in every registry, for this module's tests only."""
    register_kit(monkeypatch, duel.KIT)
    yield


def dealt(order: tuple[int, ...]) -> duel.DuelState:
    state = duel.VARIANT.new_game()
    return state.apply(state.chance_action(order))


def session_of(state: duel.DuelState) -> Session:
    record = MatchRecord(
        id=7, guild_id=1, channel_id=2, parent_id=None, game="duel", options={}, players=(11, 12),
        state=state.canonical(), version=3, status="active", message_id=None, rated=True,
        created_at=0.0, updated_at=0.0,
    )  # fmt: skip
    return Session(record=record, variant=duel.VARIANT, state=state)


def public_parts(state: duel.DuelState) -> tuple[str, str, bytes, str]:
    return board_parts(board_message(session_of(state)))


def test_the_public_board_is_identical_for_states_that_differ_only_in_hidden_cards() -> None:
    # Same hand sizes and deck size, different cards in the hands and a different deck order.
    a = dealt((0, 2, 6, 1, 3, 7, 4, 5))  # Red S1 S2 G, Blue S1 S2 G, deck S3 S3
    b = dealt((4, 5, 0, 6, 7, 1, 2, 3))  # Red S3 S3 S1, Blue G G S1, deck S2 S2
    assert a.hands != b.hands and a.deck != b.deck
    assert a.view(None) == b.view(None)
    assert public_parts(a) == public_parts(b)
    # What each seat sees differs, and only in that seat's own hand.
    assert a.view(0).hand != b.view(0).hand
    assert replace(a.view(0), hand=None, actions=()) == replace(b.view(0), hand=None, actions=())


def test_a_draw_is_told_to_the_drawer_only() -> None:
    state = dealt((0, 1, 2, 3, 4, 5, 6, 7))
    after = state.apply(duel.Play("draw"))
    assert after.view(None).last_text == "Red drew a card."
    assert after.view(1).last_text == "Red drew a card."
    assert after.view(0).last_text == "You drew Guard."
    assert "Guard" not in duel.render(after.view(None)).decode("latin-1")


def test_the_engine_says_an_answer_from_the_hand_is_secret() -> None:
    state = dealt((4, 1, 2, 0, 3, 5, 6, 7))  # Red S3 S1 S2, Blue S1 S2 S3: Blue holds no Guard
    struck = state.apply(duel.Play("S3"))
    assert struck.to_move() == 1 and struck.legal_actions() == (duel.Play("take"),)
    assert struck.secret_decision()


# -- through the fake Discord ------------------------------------------------------------------------


def whose_turn(message: FakeMessage) -> str | None:
    """The mention a board message asks to decide ("<@id>, your turn ...", or in a response window
    "<@id>: open **My hand** to answer ...")."""
    found = TURN.match(message.content.split(" — ")[-1])
    return f"<@{found[1]}>" if found else None


def public_messages(fake: FakeDiscord, channel_id: int) -> list[FakeMessage]:
    return [m for m in fake.messages_in(channel_id) if not m.ephemeral]


def live_public_board(fake: FakeDiscord, channel_id: int) -> FakeMessage:
    for message in reversed(public_messages(fake, channel_id)):
        if any(not c.disabled for c in message.all_components) or message.content.startswith("🏆"):
            return message
    raise AssertionError("no live board")


async def open_hand(fake: FakeDiscord, user: FakeUser, board: FakeMessage) -> FakeMessage:
    hand = next(b.custom_id for b in board.buttons if b.label == "My hand" and b.custom_id)
    result = await fake.click(user, board, hand, idle=True)
    assert result.ephemeral and result.message is not None
    return result.message


async def start_duel(fake: FakeDiscord, alice: FakeUser, bob: FakeUser) -> FakeMessage:
    challenge = await fake.slash(alice, "challenge", {"opponent": bob, "game": "duel"})
    assert challenge.message is not None
    accept = next(c for c in challenge.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, challenge.message, accept, idle=True)
    thread = fake.thread_of(challenge.message)
    assert thread is not None
    return public_messages(fake, thread.id)[-1]


@pytest.mark.asyncio
async def test_a_duel_played_through_private_hands(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, seed=4)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {alice.id: alice, bob.id: bob}
    board = await start_duel(fake, alice, bob)
    channel = board.channel_id
    # The public board names whose decision it is and offers only "My hand": no card on it.
    assert whose_turn(board) == alice.mention and "My hand" in board.content
    assert [b.label for b in board.buttons] == ["My hand", "Resign", "Rules"]
    stranger = await fake.click(carol, board, board.buttons[0].custom_id or "")
    assert stranger.ephemeral and "not playing in this match" in (
        stranger.message.content if stranger.message else ""
    )
    # The player not on turn may look at the hand too, but gets no controls.
    bobs = await open_hand(fake, bob, board)
    assert "Your hand:" in bobs.content and not bobs.buttons

    rng = random.Random(2)
    restarted = False
    secret_takes = 0
    strikes = 0
    for _ in range(200):
        board = live_public_board(fake, channel)
        if board.content.startswith("🏆"):
            break
        mention = whose_turn(board)
        assert mention, board.content
        user = users[int(mention[2:-1])]
        private = await open_hand(fake, user, board)
        # The game's own choices (the standing answer of a response window aside).
        choices = [b for b in private.buttons if b.label != "Always pass in this match"]
        labels = [b.label for b in choices]
        assert labels, private.content
        if labels == ["Take the strike"]:
            # Forced, yet not played by itself: answering at once would tell that no Guard is held.
            secret_takes += 1
        before = len(public_messages(fake, channel))
        button = rng.choice(choices)
        await fake.click(user, private, button.custom_id or "", idle=True)
        answered = fake.message(private)
        assert answered.ephemeral and "only you see this" in answered.content
        decider_changed = len(public_messages(fake, channel)) > before
        if (button.label or "").startswith("Play Strike"):
            # The turn stays with the striker, but the opponent must answer: they are mentioned anew.
            other = bob if user is alice else alice
            assert decider_changed and whose_turn(public_messages(fake, channel)[-1]) == other.mention
            strikes += 1
        if decider_changed:
            newest = public_messages(fake, channel)[-1]
            # A new message that mentions whoever decides now (or the result).
            assert newest.content.startswith("🏆") or whose_turn(newest)
        if not restarted and len(public_messages(fake, channel)) > 4:
            await stop_bot(bot)
            bot = await start_bot(fake, db, seed=9)
            restarted = True
    else:
        raise AssertionError("the duel did not end")
    assert restarted and secret_takes >= 1 and strikes >= 2
    assert board.content.startswith("🏆")
    for message in public_messages(fake, channel):
        text = message.content + json.dumps(message.embeds)
        assert not any(word in text for word in SECRET_WORDS), text
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_hand_reply_works_after_a_restart_and_the_board_is_edited_by_its_id(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, seed=4)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await start_duel(fake, alice, bob)
    await stop_bot(bot)
    bot = await start_bot(fake, db, seed=5)
    private = await open_hand(fake, alice, board)
    draw = next(b for b in private.buttons if b.label == "Draw a card")
    await fake.click(alice, private, draw.custom_id or "", idle=True)
    answered = fake.message(private)
    assert re.search(r"You drew (Guard|Strike \d)\.", answered.content)
    # Alice's turn is over, so Bob is asked in a new public message; the old board lost its controls.
    newest = public_messages(fake, board.channel_id)[-1]
    assert whose_turn(newest) == bob.mention
    assert "Red drew a card." in json.dumps(newest.embeds)
    assert (
        all(c.disabled for c in fake.message(board).all_components) or not fake.message(board).all_components
    )
    fake.assert_clean()
    await stop_bot(bot)


def label(item: object) -> str | None:
    return getattr(getattr(item, "item", item), "label", None)


def test_public_controls_of_a_game_with_hands_come_with_your_hand_on_the_next_row() -> None:
    session = session_of(dealt((0, 1, 2, 3, 4, 5, 6, 7)))
    public = build_view(session, PanelSpec(rows=((ButtonSpec("Roll", ROLL),),)), public=True)
    assert public is not None
    assert [(label(i), i.row) for i in public.children] == [
        ("Roll", 0),
        ("My hand", 1),
        ("Resign", 1),
        ("Rules", 1),
    ]
    secret = PanelSpec(rows=((ButtonSpec("Play Strike 1", act("S1")),),), private=True)
    board = build_view(session, secret, public=True)
    assert board is not None and [label(i) for i in board.children] == ["My hand", "Resign", "Rules"]
    private = build_view(session, secret)
    assert private is not None and [label(i) for i in private.children] == ["Play Strike 1"]


@pytest.mark.asyncio
async def test_a_private_reply_refuses_a_control_of_another_match(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=4)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    board_a = await start_duel(fake, alice, bob)
    board_b = await start_duel(fake, alice, carol)
    private_a = await open_hand(fake, alice, board_a)
    private_b = await open_hand(fake, alice, board_b)
    ours, theirs = private_a.buttons[0].custom_id, private_b.buttons[0].custom_id
    assert ours and theirs and ours.split(":")[1] != theirs.split(":")[1]
    b = int(theirs.split(":")[1])
    version = (await bot.sessions.get(b)).version
    for row in private_a.components:  # alice's control of B delivered on her private reply of A
        for comp in row.get("components") or []:
            if comp.get("custom_id") == ours:
                comp["custom_id"] = theirs
    answer = await fake.click(alice, private_a, theirs, idle=True)
    assert answer.ephemeral and "does not belong" in (answer.message.content if answer.message else "")
    assert (await bot.sessions.get(b)).version == version
    fake.assert_clean()
    await stop_bot(bot)
