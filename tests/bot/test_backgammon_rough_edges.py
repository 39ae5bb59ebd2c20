"""Backgammon's rough edges on Discord (issue 24): one numbering of turns, the resignation offer made
in private, the Resign button always reachable, `/move` with one checker, the take/pass board."""

from __future__ import annotations

from itertools import groupby
from pathlib import Path

import pytest

from app.client import RingsideBot
from cogs.panels.backgammon import MAX_PANEL_ROWS, PANEL, RESIGN
from cogs.panels.base import nav
from engine.backgammon.game import BackgammonState, MoveChecker, Phase
from engine.backgammon.notation import play_text
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import live_board, match_id_of, private_panel, user_on_turn
from render.backgammon import random_match
from tests.bot.test_backgammon_discord import buttons, play_turn_by_clicks, start
from tests.bot.test_endings import footer
from tests.support import start_bot, stop_bot

Users = dict[int, FakeUser]


async def started(
    fake: FakeDiscord, tmp_path: Path, length: int = 1
) -> tuple[RingsideBot, FakeMessage, Users]:
    """The bot, and a backgammon match between two new players: its first board and its players."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, length=length)
    return bot, board, users


@pytest.mark.asyncio
async def test_one_numbering_the_footer_says_game_and_move_and_keeps_it_at_the_roll(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot, board, users = await started(fake, tmp_path, 3)
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
    bot, board, users = await started(fake, tmp_path)
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


@pytest.mark.asyncio
async def test_resign_offers_are_chosen_privately_and_only_the_offer_made_is_public(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot, board, users = await started(fake, tmp_path, 5)
    first = user_on_turn(board, users)
    assert first is not None
    board = await play_turn_by_clicks(fake, board, first)
    second = user_on_turn(board, users)
    assert second is not None
    public_before = buttons(board)
    await fake.click(second, board, public_before["Resign game…"], idle=True)
    # The choice opens privately; the public board still shows Roll and Double, no offers.
    menu = private_panel(fake, board.channel_id, second, board)
    assert menu is not None and menu.visible_to == second.id
    offers = {label: cid for label, cid in buttons(menu).items() if label.startswith("Offer")}
    assert len(offers) == 3
    public = live_board(fake, board.channel_id)
    assert public.id == board.id and buttons(public) == public_before
    assert not any(label.startswith("Offer") for label in buttons(public))
    # Once chosen, the offer is made on the board for the opponent to answer.
    await fake.click(second, menu, offers["Offer a gammon (2 points)"], idle=True)
    answer = live_board(fake, board.channel_id)
    assert user_on_turn(answer, users) == first and "Accept (win 2 points)" in buttons(answer)
    fake.assert_clean()
    await stop_bot(bot)


def test_the_resign_button_is_never_crowded_out_by_moves() -> None:
    # A roll whose move buttons alone fill the four rows a panel has (seed 0 has one).
    crowded = None
    for state in random_match(0, 5):
        if state.phase is Phase.PLAY and not state.played and state.resign_offers():
            moves = sorted(
                (a for a in state.legal_actions() if isinstance(a, MoveChecker)), key=lambda m: -m.die
            )
            rows = sum(-(-len(list(same)) // 5) for _, same in groupby(moves, key=lambda m: m.die))
            if rows >= MAX_PANEL_ROWS:
                crowded = state
                break
    assert crowded is not None
    spec = PANEL.controls(crowded, "")
    values = [
        getattr(item, "value", None) for row in spec.rows for item in (row if isinstance(row, tuple) else ())
    ]
    assert nav(RESIGN) in values and len(spec.rows) <= MAX_PANEL_ROWS
    assert PANEL.controls(crowded, RESIGN).private  # the offers are chosen privately


@pytest.mark.asyncio
async def test_your_turn_so_far_shows_the_play_once(fake: FakeDiscord, tmp_path: Path) -> None:
    bot, board, users = await started(fake, tmp_path)
    user = user_on_turn(board, users)
    assert user is not None
    message = board
    for _ in range(2):
        moves = {label: cid for label, cid in buttons(message).items() if "/" in label}
        if not moves or "Confirm" in buttons(message):
            break
        await fake.click(user, message, next(iter(moves.values())), idle=True)
        panel = private_panel(fake, board.channel_id, user, board)
        assert panel is not None
        message = panel
    text = message.content
    assert "Your turn so far" in text
    so_far = text.split("Your turn so far", 1)[1].splitlines()[1:]
    rolled = [line for line in so_far if "rolled" in line]
    assert len(rolled) == 1 and rolled[0].startswith("1. "), text
    fake.assert_clean()
    await stop_bot(bot)
