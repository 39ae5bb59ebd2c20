"""Per-player preferences on Discord (the real bot on the fake Discord): ``/preferences`` shows and
changes a player's own preferences privately; **auto-roll** rolls for a player when a double is not
sensible, **confirm automatically** makes a complete play final without Confirm; both off by default,
and nothing changes for the opponent but the speed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.settings import AUTO_CONFIRM, AUTO_ROLL
from bot.turn_drafts import RollJudge
from engine import GameView
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import live_board, private_panel, user_on_turn
from tests.bot.test_backgammon_discord import buttons, move_buttons, play_turn_by_clicks, start, text_of
from tests.support import start_bot, stop_bot


def other(users: dict[int, FakeUser], user: FakeUser) -> FakeUser:
    return next(u for u in users.values() if u.id != user.id)


async def prefer(fake: FakeDiscord, user: FakeUser, **options: bool) -> FakeMessage:
    result = await fake.slash(user, "preferences", options, idle=True)
    answer = result.private
    assert answer is not None and answer.visible_to == user.id, "preferences are answered privately"
    return answer


@pytest.mark.asyncio
async def test_preferences_are_shown_and_changed_privately_and_start_off(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    shown = text_of(await prefer(fake, alice))
    assert f"**{AUTO_ROLL.title}**: off" in shown and f"**{AUTO_CONFIRM.title}**: off" in shown
    saved = text_of(await prefer(fake, alice, auto_confirm=True))
    assert "saved" in saved and f"**{AUTO_CONFIRM.title}**: on" in saved
    assert f"**{AUTO_ROLL.title}**: off" in saved
    # Kept in the store (for every server), per player.
    assert (await bot.sessions.preferences.get(alice.id))[AUTO_CONFIRM]
    assert not (await bot.sessions.preferences.get(bob.id))[AUTO_CONFIRM]
    both = text_of(await prefer(fake, alice, auto_roll=True, auto_confirm=False))
    assert f"**{AUTO_ROLL.title}**: on" in both and f"**{AUTO_CONFIRM.title}**: off" in both
    assert await bot.store.preferences.of(alice.id) == {"auto_roll": "on", "auto_confirm": "off"}
    fake.assert_clean()
    await stop_bot(bot)


async def finish_turn(fake: FakeDiscord, board: FakeMessage, user: FakeUser) -> FakeMessage:
    """Click the first move button until the turn is over or waits for Confirm: the last message
    clicked on (the private panel, or the public board when the play was one click)."""
    message = board
    for _ in range(6):
        moves = move_buttons(message)
        if "Confirm" in buttons(message) or not moves:
            return message
        await fake.click(user, message, next(iter(moves.values())), idle=True)
        if live_board(fake, board.channel_id).id != board.id:
            return live_board(fake, board.channel_id)
        panel = private_panel(fake, board.channel_id, user, board)
        assert panel is not None
        message = panel
    raise AssertionError("a turn took more than five clicks")


@pytest.mark.asyncio
@pytest.mark.parametrize("auto_confirm", [False, True])
async def test_confirm_automatically_makes_a_complete_play_final_at_once(
    fake: FakeDiscord, tmp_path: Path, auto_confirm: bool
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)
    user = user_on_turn(board, users)
    assert user is not None
    if auto_confirm:
        await prefer(fake, user, auto_confirm=True)
    last = await finish_turn(fake, board, user)
    after = live_board(fake, board.channel_id)
    if auto_confirm:
        # No Confirm step: the opponent has the board at once, with the whole play said.
        assert after.id != board.id and user_on_turn(after, users) == other(users, user)
        assert any("rolled" in line and "/" in line for line in text_of(after).splitlines())
    else:
        assert "Confirm" in buttons(last) and "Undo" in buttons(last)
        assert after.id == board.id, "the opponent sees nothing before Confirm"
    fake.assert_clean()
    await stop_bot(bot)


async def hand_over_with(
    fake: FakeDiscord, tmp_path: Path, auto_roll: bool, judge: RollJudge | None
) -> tuple[Any, FakeMessage, dict[int, FakeUser], FakeUser]:
    """A 3-point match whose first play is made by clicks, the second player with ``auto_roll`` as
    given (``judge``: the bot's judge, None for the engine's own): the bot, the board that hands the
    turn over, the players, and the player it is handed to."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    if judge is not None:
        bot.sessions.judge = judge
    board, users = await start(fake, length=3)
    first = user_on_turn(board, users)
    assert first is not None
    second = other(users, first)
    if auto_roll:
        await prefer(fake, second, auto_roll=True)
    handed = await play_turn_by_clicks(fake, board, first)
    assert user_on_turn(handed, users) == second
    return bot, handed, users, second


def rolled_for_them(handed: FakeMessage) -> bool:
    """The board asks its player to play a roll made for them (no Roll or Double), said as any roll."""
    asked = set(buttons(handed))
    return (
        "Roll" not in asked and not any(b.startswith("Double") for b in asked) and bool(move_buttons(handed))
    )


@pytest.mark.asyncio
@pytest.mark.parametrize(("auto_roll", "not_sensible"), [(False, True), (True, True), (True, False)])
async def test_auto_roll_rolls_when_the_engine_finds_a_double_not_sensible(
    fake: FakeDiscord, tmp_path: Path, auto_roll: bool, not_sensible: bool
) -> None:
    asked: list[GameView] = []

    async def judge(game: str, view: GameView) -> bool:
        asked.append(view)
        return not_sensible

    bot, handed, _, _ = await hand_over_with(fake, tmp_path, auto_roll, judge)
    if auto_roll and not_sensible:
        assert rolled_for_them(handed) and " rolled " in text_of(handed)
    else:
        assert {"Roll", "Double to 2"} <= set(buttons(handed))
    # The judge is asked only for a player who wants it, once at the roll-or-double question.
    assert len(asked) == (1 if auto_roll else 0)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_auto_roll_with_the_real_judge_rolls_early_in_the_game(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """After the first play of a match nobody should double: the engine's own judge rolls."""
    bot, handed, _, _ = await hand_over_with(fake, tmp_path, True, None)
    assert rolled_for_them(handed)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_unknown_preference_is_refused_and_a_damaged_value_reads_as_off(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    with pytest.raises(ValueError, match="no preference called 'auto_resign'"):
        await bot.sessions.preferences.save(alice.id, {"auto_resign": True})
    assert await bot.store.preferences.of(alice.id) == {}
    await bot.store.preferences.save(alice.id, {"auto_roll": "yes please", "auto_confirm": "on"}, 0.0)
    prefs = await bot.sessions.preferences.get(alice.id)
    assert not prefs[AUTO_ROLL] and prefs[AUTO_CONFIRM]
    shown = text_of(await prefer(fake, alice))
    assert f"**{AUTO_ROLL.title}**: off" in shown
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_judge_that_fails_leaves_the_roll_to_the_player(
    fake: FakeDiscord, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(game: str, view: GameView) -> bool:
        raise TimeoutError("the compute worker took too long")

    bot, handed, _, _ = await hand_over_with(fake, tmp_path, True, broken)
    # The opponent's play went through; the player is asked, as without the preference.
    assert {"Roll", "Double to 2"} <= set(buttons(handed))
    assert any("auto-roll judge failed" in r.getMessage() for r in caplog.records)
    caplog.clear()
    await stop_bot(bot)
