"""Backgammon's rough edges on Discord (issue 24): one numbering of turns, the resignation offer made
in private, the Resign button always reachable, `/move` with one checker, the take/pass board."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakediscord import FakeDiscord, FakeMessage
from fakediscord.matches import live_board, match_id_of, user_on_turn
from tests.bot.test_backgammon_discord import buttons, play_turn_by_clicks, start
from tests.support import start_bot, stop_bot


def footer(message: FakeMessage) -> str:
    return str((message.embeds[0].get("footer") or {}).get("text"))


@pytest.mark.asyncio
async def test_one_numbering_the_footer_says_game_and_move_and_keeps_it_at_the_roll(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, length=3)
    assert footer(board) == "Game 1, move 1"
    first = user_on_turn(board, users)
    assert first is not None
    board = await play_turn_by_clicks(fake, board, first)
    second = user_on_turn(board, users)
    assert second is not None and {"Roll", "Double to 2"} <= set(buttons(board))
    session = await bot.sessions.get(match_id_of(board))
    # White's turn and Red's are on one line of the .mat file: the opener's reply has the same move
    # when White opened, the next one when Red did.
    on_line = 1 if session.state is not None and session.state.turn_seat == 1 else 2
    assert footer(board) == f"Game 1, move {on_line}"
    await fake.click(second, board, buttons(board)["Roll"], idle=True)
    rolled = live_board(fake, board.channel_id)
    assert footer(rolled) == f"Game 1, move {on_line}"  # the roll does not start another move
    fake.assert_clean()
    await stop_bot(bot)
