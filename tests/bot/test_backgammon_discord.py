"""Backgammon on Discord (the real bot on the fake Discord): moving checker by checker with Undo and
Confirm, the cube's buttons, a typed play, /position, resignation offers, the .mat file on the result,
and whole matches played by clicks, against a person and against the computer."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import (
    challenge_and_accept,
    live_board,
    match_id_of,
    play_until_over,
    private_panel,
    user_on_turn,
)
from tests.support import start_bot, stop_bot


def buttons(message: FakeMessage) -> dict[str, str]:
    """Enabled buttons by label: their custom ids."""
    return {b.label or "": b.custom_id or "" for b in message.buttons if not b.disabled}


def text_of(message: FakeMessage) -> str:
    """What a message says: its content and its embeds' titles and descriptions."""
    parts = [message.content]
    for embed in message.embeds:
        parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
    return "\n".join(parts)


def move_buttons(message: FakeMessage) -> dict[str, str]:
    return {label: cid for label, cid in buttons(message).items() if "/" in label}


async def start(fake: FakeDiscord, length: int = 1) -> tuple[FakeMessage, dict[int, FakeUser]]:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    options = {"length": length} if length > 1 else {}
    board = await challenge_and_accept(fake, alice, bob, "backgammon", **options)
    return board, {alice.id: alice, bob.id: bob}


async def play_turn_by_clicks(fake: FakeDiscord, board: FakeMessage, user: FakeUser) -> FakeMessage:
    """The player on ``board`` moves checker by checker (first button each time) and confirms; the
    private panel carries the turn. Returns the new public board."""
    message = board
    for _ in range(6):
        if "Confirm" in buttons(message):
            await fake.click(user, message, buttons(message)["Confirm"], idle=True)
            return live_board(fake, board.channel_id)
        moves = move_buttons(message)
        assert moves, f"no move buttons on {message.content!r}"
        await fake.click(user, message, next(iter(moves.values())), idle=True)
        panel = private_panel(fake, board.channel_id, user, board)
        assert panel is not None and panel.visible_to == user.id
        message = panel
    raise AssertionError("a turn took more than five clicks")


@pytest.mark.asyncio
async def test_a_play_is_made_checker_by_checker_in_private_and_shown_whole_after_confirm(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)
    user = user_on_turn(board, users)
    assert user is not None
    # The opening roll was made by itself: the player on turn has one button per checker move.
    assert "starts with" in text_of(board)
    moves = move_buttons(board)
    assert moves and all("/" in label for label in moves)
    first_label, first = next(iter(moves.items()))
    await fake.click(user, board, first, idle=True)
    panel = private_panel(fake, board.channel_id, user, board)
    assert panel is not None and "Undo" in buttons(panel) and panel.attachments
    assert live_board(fake, board.channel_id).id == board.id  # the opponent sees nothing yet
    # Undo puts the checker back; then the whole play, and Confirm.
    await fake.click(user, panel, buttons(panel)["Undo"], idle=True)
    again = private_panel(fake, board.channel_id, user, board) or board
    assert first_label in move_buttons(again)
    after = await play_turn_by_clicks(fake, board, user)
    assert after.id != board.id
    lines = text_of(after).splitlines()
    rolled = [line for line in lines if "rolled" in line and ":" in line]
    assert rolled and "/" in rolled[0]  # "White rolled 6-4: 24/14": the whole play on one line
    assert user_on_turn(after, users) not in (None, user)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_in_a_match_the_player_on_turn_rolls_or_doubles_and_the_opponent_takes_or_passes(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, length=3)
    first = user_on_turn(board, users)
    assert first is not None and "White 0 (3-away) · Black 0 (3-away) · 3-point match" in text_of(board)
    board = await play_turn_by_clicks(fake, board, first)
    second = user_on_turn(board, users)
    assert second is not None and second != first
    assert {"Roll", "Double to 2"} <= set(buttons(board))
    await fake.click(second, board, buttons(board)["Double to 2"], idle=True)
    offer = live_board(fake, board.channel_id)
    assert user_on_turn(offer, users) == first
    assert {"Take (cube at 2)", "Pass (lose 1 point)"} <= set(buttons(offer))
    await fake.click(first, offer, buttons(offer)["Pass (lose 1 point)"], idle=True)
    game_two = live_board(fake, board.channel_id)
    assert "passes" in text_of(game_two) and "Game 2" in text_of(game_two)
    assert "Score: White" in text_of(game_two)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_typed_play_and_position_codes(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)
    user = user_on_turn(board, users)
    assert user is not None
    wrong = await fake.slash(user, "move", {"notation": "24/2"}, channel=board.channel_id, idle=True)
    assert wrong.ephemeral and wrong.message is not None and "legal plays" in wrong.message.content
    codes = await fake.slash(user, "position", channel=board.channel_id, idle=True)
    assert (
        codes.message is not None and "GNUBG ID" in codes.message.content and "XGID=" in codes.message.content
    )
    assert "Old English" not in codes.message.content  # a standard match needs no warning
    session = await bot.sessions.get(match_id_of(board))
    state = session.state
    play = state.plays()[0]  # type: ignore[union-attr]
    from engine.backgammon.notation import play_text

    typed = await fake.slash(user, "move", {"notation": play_text(play)}, channel=board.channel_id, idle=True)
    said = [m.content for m in [typed.message, *typed.messages, *typed.followups] if m is not None]
    assert typed.ephemeral and any(text.startswith("Played `") for text in said), said
    after = live_board(fake, board.channel_id)
    assert after.id != board.id and user_on_turn(after, users) != user
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_game_resigned_by_an_accepted_offer_scores_its_level(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, length=5)
    first = user_on_turn(board, users)
    assert first is not None
    assert "Resign game…" not in buttons(board)  # not before the game's first play
    board = await play_turn_by_clicks(fake, board, first)
    second = user_on_turn(board, users)
    assert second is not None
    await fake.click(second, board, buttons(board)["Resign game…"], idle=True)
    menu = private_panel(fake, board.channel_id, second, board) or live_board(fake, board.channel_id)
    offers = {label: cid for label, cid in buttons(menu).items() if label.startswith("Offer")}
    assert set(offers) == {
        "Offer a single game (1 point)",
        "Offer a gammon (2 points)",
        "Offer a backgammon (3 points)",
    }
    await fake.click(second, menu, offers["Offer a gammon (2 points)"], idle=True)
    answer = live_board(fake, board.channel_id)
    assert user_on_turn(answer, users) == first
    await fake.click(first, answer, buttons(answer)["Accept (win 2 points)"], idle=True)
    game_two = live_board(fake, board.channel_id)
    assert "accepts" in text_of(game_two) and "Game 2" in text_of(game_two)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_whole_match_by_clicks_ends_with_the_match_file_and_a_rating_by_length(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, length=3)
    mid = match_id_of(board)
    result = await play_until_over(fake, board.channel_id, users, random.Random(4), max_clicks=3000)
    names = [a.filename for a in result.attachments]
    assert names[0] == "board.png" and names[1].endswith(".mat")
    text = result.attachment_bytes(names[1]).decode()
    assert text.startswith(" 3 point match") and "Wins" in text
    outcome = await bot.sessions.history.result_of(mid)
    assert outcome is not None and outcome.length == 3
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_computer_plays_backgammon(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon"}, idle=True)
    (thread,) = fake.threads(fake.channel)
    result = await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(2), max_clicks=1500)
    assert result.content.startswith("🏆")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_old_english_position_codes_warn_that_other_programs_do_not_know_its_limit(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Issue 24, rough edges: /position in Old English gave codes without saying that GNU Backgammon and
    eXtreme Gammon do not know the five-checker limit."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "backgammon", length=3, rules="oldenglish")
    codes = await fake.slash(alice, "position", channel=board.channel_id, idle=True)
    text = codes.message.content if codes.message is not None else ""
    assert "GNUBG ID" in text and "XGID=" in text
    assert "Old English rules (at most five checkers on a point)" in text and "do not know that rule" in text
    fake.assert_clean()
    await stop_bot(bot)
