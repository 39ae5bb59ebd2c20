"""Backgammon's rough edges on Discord (issue 24): one numbering of turns, the resignation offer made
in private, the Resign button always reachable, `/move` with one checker, the take/pass board."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.game import BackgammonState
from engine.backgammon.notation import play_text
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


@pytest.mark.asyncio
async def test_move_with_one_checker_moves_it_as_a_click_does(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)
    user = user_on_turn(board, users)
    assert user is not None
    session = await bot.sessions.get(match_id_of(board))
    state = session.state
    assert isinstance(state, BackgammonState)
    # A step that is not a whole play by itself (the roll is not a double: two dice to play).
    step = next(s.move for s, _ in state.steps() if s.move.src - s.move.dst == max(state.dice or (0,)))
    text = f"{step.src}/{step.dst}" + ("*" if step.hit else "")
    assert text not in {play_text(p) for p in state.plays()}
    typed = await fake.slash(user, "move", {"notation": text}, channel=board.channel_id, idle=True)
    said = [m for m in [typed.message, *typed.messages, *typed.followups] if m is not None]
    assert typed.ephemeral and not any("legal play" in m.content for m in said), [m.content for m in said]
    after = await bot.sessions.get(session.id)
    working = after.position
    assert after.draft and isinstance(working, BackgammonState)
    assert working.played and working.played[0].move == step
    fake.assert_clean()
    await stop_bot(bot)
