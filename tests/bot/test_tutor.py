"""Tutor mode on Discord (the real bot on the fake Discord; ``bot.tutor``, ``cogs.tutor``): before a
checker play or a cube decision of a player with the tutor on is final, an error is held back with a
warning on the player's private panel, offering Undo and Confirm anyway; a good decision goes
through as before; a player without the tutor is never evaluated; the opponent and the public board
are told nothing; a match with the tutor is unrated and says so; a warning's button once it is no
longer current changes nothing and says so.

The tutor's check is replaced by a scripted one (its equities are the engine's, tested in
``tests/engine/test_backgammon_tutor.py``), so each test decides which decisions are errors."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from cogs.tutor import STALE
from engine import GameView
from engine.ai.coaching import Scale, TutorNote
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import (
    challenge_and_accept,
    live_board,
    match_id_of,
    play_until_over,
    private_panel,
    user_on_turn,
)
from tests.bot.test_backgammon_discord import buttons, move_buttons, text_of
from tests.support import start_bot, stop_bot

NOTE = TutorNote("play", "24/21 13/8", "13/7 8/7", 0.083, Scale.MATCH, "2-ply")


class ScriptedCheck:
    """The tutor's check, scripted: a warning for every decision while ``errors`` is on."""

    def __init__(self, errors: bool = True) -> None:
        self.errors = errors
        self.asked: list[tuple[GameView, tuple[str, ...]]] = []

    async def __call__(self, game: str, view: GameView, chosen: Sequence[str]) -> TutorNote | None:
        self.asked.append((view, tuple(chosen)))
        if not self.errors:
            return None
        what = "play" if chosen[0].startswith("move") else chosen[0]
        return TutorNote(what, NOTE.chosen, NOTE.better, NOTE.loss, NOTE.scale, NOTE.level)


async def tutored_match(
    fake: FakeDiscord, tmp_path: Path, check: ScriptedCheck, **options: Any
) -> tuple[Any, FakeMessage, dict[int, FakeUser]]:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    bot.sessions.tutor.check = check
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "backgammon", **options)
    return bot, board, {alice.id: alice, bob.id: bob}


async def complete_play(fake: FakeDiscord, board: FakeMessage, user: FakeUser) -> FakeMessage:
    """Move checker by checker until the panel asks for Confirm; returns that panel."""
    message = board
    for _ in range(6):
        if "Confirm" in buttons(message):
            return message
        moves = move_buttons(message)
        assert moves, f"no move buttons on {message.content!r}"
        await fake.click(user, message, next(iter(moves.values())), idle=True)
        panel = private_panel(fake, board.channel_id, user, board)
        assert panel is not None
        message = panel
    raise AssertionError("a turn took more than five clicks")


def other(users: dict[int, FakeUser], user: FakeUser) -> FakeUser:
    return next(u for u in users.values() if u.id != user.id)


def nothing_of_the_tutor_for(fake: FakeDiscord, channel_id: int, opponent: FakeUser) -> None:
    """Every message the opponent can see (the public board and their own replies) says nothing of
    the tutor's warning, and carries none of its buttons."""
    for message in fake.messages_in(channel_id):
        if message.is_visible_to(opponent):
            assert "Tutor:" not in text_of(message) and "loses" not in text_of(message)
            assert not any(c.startswith("tu:") for c in message.custom_ids)


@pytest.mark.asyncio
async def test_the_tutor_warns_of_an_error_privately_before_confirm(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    check = ScriptedCheck()
    bot, board, users = await tutored_match(fake, tmp_path, check, tutor=True)
    user = user_on_turn(board, users)
    assert user is not None
    panel = await complete_play(fake, board, user)
    assert not check.asked, "nothing is judged before the play is to be final"
    await fake.click(user, panel, buttons(panel)["Confirm"], idle=True)
    warned = private_panel(fake, board.channel_id, user, board)
    assert warned is not None and warned.visible_to == user.id
    assert "Tutor: this play loses 0.083 against 13/7 8/7" in text_of(warned)
    assert {"Undo", "Confirm anyway"} <= set(buttons(warned)) and "Confirm" not in buttons(warned)
    assert len(check.asked) == 1 and all(step.startswith("move ") for step in check.asked[0][1])
    # Nothing else changed: the opponent still waits, on the same board.
    assert live_board(fake, board.channel_id).id == board.id
    nothing_of_the_tutor_for(fake, board.channel_id, other(users, user))
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_confirm_anyway_commits_and_its_stale_button_changes_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    check = ScriptedCheck()
    bot, board, users = await tutored_match(fake, tmp_path, check, tutor=True)
    mid = match_id_of(board)
    user = user_on_turn(board, users)
    assert user is not None
    panel = await complete_play(fake, board, user)
    await fake.click(user, panel, buttons(panel)["Confirm"], idle=True)
    warned = private_panel(fake, board.channel_id, user, board)
    assert warned is not None
    anyway = buttons(warned)["Confirm anyway"]
    await fake.click(user, warned, anyway, idle=True)
    after = live_board(fake, board.channel_id)
    assert after.id != board.id and user_on_turn(after, users) == other(users, user)
    assert len(check.asked) == 1, "Confirm anyway is not judged again"
    nothing_of_the_tutor_for(fake, board.channel_id, other(users, user))
    # The warning's button, clicked again (a client that has not shown the edit): nothing changes.
    session = await bot.sessions.get(mid)
    version = session.version
    stale = await fake.click_earlier(user, warned, anyway, idle=True)
    assert stale.private is not None and STALE in stale.private.content
    assert (await bot.sessions.get(mid)).version == version
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_undo_on_the_warning_returns_to_the_turn(fake: FakeDiscord, tmp_path: Path) -> None:
    check = ScriptedCheck()
    bot, board, users = await tutored_match(fake, tmp_path, check, tutor=True)
    mid = match_id_of(board)
    user = user_on_turn(board, users)
    assert user is not None
    panel = await complete_play(fake, board, user)
    await fake.click(user, panel, buttons(panel)["Confirm"], idle=True)
    warned = private_panel(fake, board.channel_id, user, board)
    assert warned is not None
    session = await bot.sessions.get(mid)
    steps = len(session.draft)
    await fake.click(user, warned, buttons(warned)["Undo"], idle=True)
    back = private_panel(fake, board.channel_id, user, board)
    assert back is not None and move_buttons(back), "the turn goes on: a checker to move again"
    assert len((await bot.sessions.get(mid)).draft) == steps - 1
    assert live_board(fake, board.channel_id).id == board.id
    # Played again, a good play this time: no warning, the usual Confirm makes it final.
    check.errors = False
    panel = await complete_play(fake, board, user)
    await fake.click(user, panel, buttons(panel)["Confirm"], idle=True)
    assert user_on_turn(live_board(fake, board.channel_id), users) == other(users, user)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_good_play_is_not_held_back(fake: FakeDiscord, tmp_path: Path) -> None:
    check = ScriptedCheck(errors=False)
    bot, board, users = await tutored_match(fake, tmp_path, check, tutor=True)
    user = user_on_turn(board, users)
    assert user is not None
    panel = await complete_play(fake, board, user)
    await fake.click(user, panel, buttons(panel)["Confirm"], idle=True)
    assert len(check.asked) == 1
    after = live_board(fake, board.channel_id)
    assert after.id != board.id and user_on_turn(after, users) == other(users, user)
    assert not any("Tutor:" in text_of(m) for m in fake.messages_in(board.channel_id))
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_with_auto_confirm_an_error_waits_for_confirm_anyway(fake: FakeDiscord, tmp_path: Path) -> None:
    check = ScriptedCheck()
    bot, board, users = await tutored_match(fake, tmp_path, check, tutor=True)
    user = user_on_turn(board, users)
    assert user is not None
    await fake.slash(user, "preferences", {"auto_confirm": True}, idle=True)
    message = board
    for _ in range(6):
        if "Confirm anyway" in buttons(message):
            break
        await fake.click(user, message, next(iter(move_buttons(message).values())), idle=True)
        found = private_panel(fake, board.channel_id, user, board)
        assert found is not None
        message = found
    assert "Tutor: this play loses" in text_of(message)
    assert live_board(fake, board.channel_id).id == board.id
    await fake.click(user, message, buttons(message)["Confirm anyway"], idle=True)
    assert user_on_turn(live_board(fake, board.channel_id), users) == other(users, user)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_tutor_holds_back_a_cube_decision_privately(fake: FakeDiscord, tmp_path: Path) -> None:
    check = ScriptedCheck(errors=False)
    bot, board, users = await tutored_match(fake, tmp_path, check, tutor=True, length=3)
    first = user_on_turn(board, users)
    assert first is not None
    panel = await complete_play(fake, board, first)
    await fake.click(first, panel, buttons(panel)["Confirm"], idle=True)
    board = live_board(fake, board.channel_id)
    second = other(users, first)
    assert user_on_turn(board, users) == second and "Double to 2" in buttons(board)
    check.errors = True
    result = await fake.click(second, board, buttons(board)["Double to 2"], idle=True)
    warned = result.private
    assert warned is not None and warned.visible_to == second.id
    assert "Tutor: this double loses 0.083 against 13/7 8/7" in text_of(warned)
    assert check.asked[-1][1] == ("double",)
    assert live_board(fake, board.channel_id).id == board.id, "the double is not made"
    nothing_of_the_tutor_for(fake, board.channel_id, first)
    # Undo: nothing was played; the player decides again.
    await fake.click(second, warned, buttons(warned)["Undo"], idle=True)
    assert live_board(fake, board.channel_id).id == board.id
    result = await fake.click(second, board, buttons(board)["Double to 2"], idle=True)
    warned = result.private
    assert warned is not None
    await fake.click(second, warned, buttons(warned)["Confirm anyway"], idle=True)
    offer = live_board(fake, board.channel_id)
    assert (
        offer.id != board.id and user_on_turn(offer, users) == first and "Take (cube at 2)" in buttons(offer)
    )
    nothing_of_the_tutor_for(fake, board.channel_id, first)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_player_without_the_tutor_is_never_evaluated(fake: FakeDiscord, tmp_path: Path) -> None:
    check = ScriptedCheck()
    bot, board, users = await tutored_match(fake, tmp_path, check, length=3)
    first = user_on_turn(board, users)
    assert first is not None
    panel = await complete_play(fake, board, first)
    await fake.click(first, panel, buttons(panel)["Confirm"], idle=True)
    board = live_board(fake, board.channel_id)
    second = user_on_turn(board, users)
    assert second is not None
    await fake.click(second, board, buttons(board)["Double to 2"], idle=True)
    assert user_on_turn(live_board(fake, board.channel_id), users) == first
    assert check.asked == [] and bot.sessions.tutor.checks == 0
    # A rated match ignores the tutor preference too.
    await fake.slash(first, "preferences", {"tutor": True}, idle=True)
    offer = live_board(fake, board.channel_id)
    await fake.click(first, offer, buttons(offer)["Take (cube at 2)"], idle=True)
    assert check.asked == []
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_tutored_match_is_unrated_said_so_and_leaves_the_leaderboard(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    check = ScriptedCheck(errors=False)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    bot.sessions.tutor.check = check
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    asked = await fake.slash(alice, "challenge", {"opponent": bob, "game": "backgammon", "tutor": True})
    assert asked.message is not None and "tutor on: unrated" in asked.message.content
    accept = next(c for c in asked.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, asked.message, accept, idle=True)
    (thread,) = fake.threads(fake.channel)
    board = live_board(fake, thread.id)
    mid = match_id_of(board)
    users = {alice.id: alice, bob.id: bob}
    result = await play_until_over(fake, thread.id, users, random.Random(3), max_clicks=1500)
    assert "tutor on: unrated" in result.content
    record = await bot.sessions.history.match(mid)
    assert record is not None and not record.rated
    history = bot.sessions.history
    assert await history.rating_changes(mid) == []
    assert await history.leaderboard(record.guild_id or 0, "backgammon") == []
    assert check.asked, "the tutor judged the players' decisions"
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_tutor_option_is_refused_for_other_games(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    refused = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring", "tutor": True})
    assert refused.private is not None and "The tutor is for backgammon only" in refused.private.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_tutor_preference_warns_against_the_computer(fake: FakeDiscord, tmp_path: Path) -> None:
    check = ScriptedCheck()
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    bot.sessions.tutor.check = check
    alice = fake.add_user("alice")
    await fake.slash(alice, "preferences", {"tutor": True}, idle=True)
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon"}, idle=True)
    (thread,) = fake.threads(fake.channel)
    board = live_board(fake, thread.id)
    if user_on_turn(board, {alice.id: alice}) is None:
        pytest.skip("the computer moved first and the board shows no turn of alice's")  # seeded: not expected
    panel = await complete_play(fake, board, alice)
    await fake.click(alice, panel, buttons(panel)["Confirm"], idle=True)
    warned = private_panel(fake, thread.id, alice, board)
    assert warned is not None and "Tutor: this play loses" in text_of(warned)
    # The computer's own moves are never judged: every check was of alice's seat.
    assert all(view.to_move() == check.asked[0][0].to_move() for view, _ in check.asked)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_failed_check_lets_the_decision_through(fake: FakeDiscord, tmp_path: Path) -> None:
    async def failing(game: str, view: GameView, chosen: Sequence[str]) -> TutorNote | None:
        raise TimeoutError("the compute worker did not answer")

    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    bot.sessions.tutor.check = failing
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "backgammon", tutor=True)
    users = {alice.id: alice, bob.id: bob}
    user = user_on_turn(board, users)
    assert user is not None
    panel = await complete_play(fake, board, user)
    await fake.click(user, panel, buttons(panel)["Confirm"], idle=True)
    assert user_on_turn(live_board(fake, board.channel_id), users) == other(users, user)
    fake.assert_clean()
    await stop_bot(bot)
