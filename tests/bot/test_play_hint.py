"""**Play this** on a hint (the real bot on the fake Discord): it plays the hint's best choice for the
player who asked, at the version the hint was given for; a stale hint, someone else's click or a
rated match plays nothing and says why, privately."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.backgammon.game import BackgammonState, Phase
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, live_board, match_id_of, user_on_turn
from tests.bot.test_backgammon_discord import buttons, move_buttons, text_of
from tests.support import start_bot, stop_bot

PLAY_THIS = "Play this"


def other(users: dict[int, FakeUser], user: FakeUser) -> FakeUser:
    return next(u for u in users.values() if u.id != user.id)


async def hint(fake: FakeDiscord, user: FakeUser, channel_id: int) -> FakeMessage:
    result = await fake.slash(user, "hint", {}, channel=channel_id, idle=True)
    answer = result.private
    assert answer is not None and answer.visible_to == user.id
    return answer


async def unrated_match(
    fake: FakeDiscord, tmp_path: Path
) -> tuple[Any, FakeMessage, dict[int, FakeUser], FakeUser, int]:
    """An unrated 3-point match (hints allowed): the bot, the board, the players, the one on turn
    and the match id."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob, "backgammon", rated=False, length=3)
    user = user_on_turn(board, users)
    assert user is not None
    return bot, board, users, user, match_id_of(board)


async def version_of(bot: Any, match_id: int) -> int:
    record = await bot.store.matches.get(match_id)
    assert record is not None
    return int(record.version)


async def nothing_played(fake: FakeDiscord, bot: Any, match_id: int, version: int) -> None:
    """The match is still at ``version``, nothing went wrong; the bot is stopped."""
    assert await version_of(bot, match_id) == version
    fake.assert_clean()
    await stop_bot(bot)


def best_row(hint_text: str) -> str:
    """The best choice's text in a hint ("▶ 1. 13/11 6/5  +0.123  best")."""
    row = next(line for line in hint_text.split("```")[1].splitlines() if line.lstrip().startswith("▶"))
    return row.split("1.", 1)[1].rsplit("  ", 2)[0].strip()


@pytest.mark.asyncio
async def test_play_this_plays_the_hinted_best_play(fake: FakeDiscord, tmp_path: Path) -> None:
    bot, board, users, user, match_id = await unrated_match(fake, tmp_path)
    shown = await hint(fake, user, board.channel_id)
    best = best_row(shown.content)
    assert PLAY_THIS in buttons(shown)
    await fake.click(user, shown, buttons(shown)[PLAY_THIS], idle=True)
    after = live_board(fake, board.channel_id)
    # Played whole and final (a whole play needs no Confirm): the opponent has the board now.
    assert after.id != board.id and user_on_turn(after, users) == other(users, user)
    assert f": {best}" in text_of(after), (best, text_of(after))
    session = await bot.sessions.get(match_id)
    assert isinstance(session.state, BackgammonState) and session.state.last_play is not None
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_play_this_after_the_position_changed_plays_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    bot, board, _, user, match_id = await unrated_match(fake, tmp_path)
    shown = await hint(fake, user, board.channel_id)
    # One checker moved by hand after the hint: the hint is stale.
    await fake.click(user, board, next(iter(move_buttons(board).values())), idle=True)
    version = await version_of(bot, match_id)
    answer = await fake.click(user, shown, buttons(shown)[PLAY_THIS], idle=True)
    said = " ".join(m.content for m in answer.messages)
    assert "The position has changed since this hint: nothing was played" in said
    await nothing_played(fake, bot, match_id, version)


@pytest.mark.asyncio
async def test_play_this_is_for_the_player_who_asked(fake: FakeDiscord, tmp_path: Path) -> None:
    bot, board, users, user, match_id = await unrated_match(fake, tmp_path)
    carol = fake.add_user("carol")
    shown = await hint(fake, user, board.channel_id)
    control = next(b for b in shown.buttons if b.label == PLAY_THIS)
    version = await version_of(bot, match_id)
    # A copy of the player's private button, clicked by the opponent and by someone not playing.
    for clicker, refusal in ((other(users, user), "not your turn"), (carol, "not playing in this match")):
        answer = await fake.forge(
            clicker, board, {"type": 2, "style": 3, "label": PLAY_THIS, "custom_id": control.custom_id}
        )
        said = " ".join(m.content for m in answer.messages)
        assert refusal in said, said
    await nothing_played(fake, bot, match_id, version)


@pytest.mark.asyncio
async def test_play_this_plays_the_hinted_cube_action(fake: FakeDiscord, tmp_path: Path) -> None:
    bot, board, users, first, match_id = await unrated_match(fake, tmp_path)
    session = await bot.sessions.get(match_id)
    play = session.state.plays()[0]
    from engine.backgammon.notation import play_text

    await bot.sessions.act(match_id, first.id, None, play_text(play))
    await bot.publishers.matches.show(match_id)
    second = other(users, first)
    handed = live_board(fake, board.channel_id)
    assert {"Roll", "Double to 2"} <= set(buttons(handed))
    shown = await hint(fake, second, board.channel_id)
    assert "Double or roll" in shown.content and "No double (roll)" in best_row(shown.content)
    await fake.click(second, shown, buttons(shown)[PLAY_THIS], idle=True)
    state = (await bot.sessions.get(match_id)).state
    assert isinstance(state, BackgammonState) and state.phase is Phase.PLAY and state.turn_seat is not None
    assert state.cube == 1, "rolled on, no double"
    fake.assert_clean()
    await stop_bot(bot)
