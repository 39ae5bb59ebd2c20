"""Space without the tapping: what the bot plays by itself in a player's own turn (a step with one
answer), what it still asks (a response window, whatever the hand holds), and how a turn is shown."""

from __future__ import annotations

import random

from bot.session import BoardChange, Step, asked, board_change
from bot.turn_driver import next_automatic
from engine.space import cards as C
from engine.space.actions import Pass
from engine.space.game import Phase
from tests.engine.space_helpers import make_state, play, with_fields


def people(seat: int) -> bool:
    return False


def automatic(state: object) -> object:
    found = next_automatic(state, people, (False, False), random.Random(1))  # type: ignore[arg-type]
    return None if found is None else (found.seat, found.action)


def test_the_end_of_the_move_phase_with_nothing_left_to_play_is_not_asked() -> None:
    moved = make_state({"T1": 3, "E1": 20}, phase=Phase.MOVE, dice=(2, 5), dice_left=())
    assert moved.legal_actions() == (Pass(),) and moved.secret_decision()
    assert automatic(moved) == (0, Pass())
    # A card that could still be played keeps the question.
    holding = make_state(
        {"T1": 3, "E1": 20},
        phase=Phase.MOVE,
        dice=(2, 5),
        dice_left=(),
        hands=((C.DEFEND_THE_HOMEWORLD,), ()),
    )
    assert len(holding.legal_actions()) > 1 and automatic(holding) is None


def test_keep_the_roll_is_not_asked_without_a_card_that_changes_it() -> None:
    rolled = make_state({"T1": 3, "E1": 20}, phase=Phase.ROLL_CARDS, dice=(2, 5))
    assert rolled.legal_actions() == (Pass(),)
    assert automatic(rolled) == (0, Pass())
    holding = make_state(
        {"T1": 3, "E1": 20}, phase=Phase.ROLL_CARDS, dice=(2, 5), hands=((C.BATTLE_COMPUTERS,), ())
    )
    assert len(holding.legal_actions()) > 1 and automatic(holding) is None


def test_a_window_with_one_answer_is_still_asked() -> None:
    jam = make_state({"T1": 3, "E1": 20}, phase=Phase.JAM, dice=(2, 5))
    assert jam.to_move() == 1 and jam.legal_actions() == (Pass(),) and jam.secret_decision()
    assert automatic(jam) is None, "answering at once would tell that the hand holds no Jam"


def step(seat: int | None, notation: str = "pass") -> Step:
    return Step(seat, notation, "")


def test_a_window_inside_a_turn_keeps_one_story_and_mentions_a_player_once() -> None:
    build = make_state({"T1": 3, "E1": 20}, phase=Phase.BUILD, dice=(2, 5), dice_left=())
    jam = play(build, "pass")
    moving = play(jam, "pass")
    assert asked(jam) == (1, True) and asked(moving) == (0, False)
    # The Jam window opens: the responder has not been asked in this turn yet, so a new board
    # mentions them; the turn's story goes on.
    assert board_change(build, jam, [step(0, "roll"), step(0)]) == BoardChange(True, False)
    # Asked before in this turn (Espionage): the same board, no second mention.
    assert board_change(build, jam, [step(1), step(0), step(0)]) == BoardChange(False, False)
    # The window closes: the player on turn, who took a step in it, carries on on that board.
    assert board_change(jam, moving, [step(1), step(0), step(1)]) == BoardChange(False, False)
    # Another turn: a new board that tells the whole turn that ended.
    assert board_change(jam, with_fields(moving, turn_number=6), [step(0), step(1)]) == BoardChange(
        True, True
    )
    # The same decider in the same way: the board is edited.
    assert board_change(moving, moving, [step(0)]) == BoardChange(False, False)
