"""The score of a backgammon match as players say it, "3-away / 2-away": in each player's row of the
picture and in the board's text."""

from __future__ import annotations

from dataclasses import replace

from engine.backgammon.game import BackgammonState
from engine.backgammon.variant import VARIANT
from render import backgammon


def at_score(length: int, score: tuple[int, int]) -> BackgammonState:
    state = VARIANT.new_game({"length": length})
    assert isinstance(state, BackgammonState)
    return replace(state, score=score)


def test_each_row_of_the_picture_says_how_far_its_player_is_from_the_match() -> None:
    state = at_score(5, (2, 3))
    assert backgammon.row_score(state, 0) == "2 points · 3-away"
    assert backgammon.row_score(state, 1) == "3 points · 2-away"
    assert backgammon.row_score(at_score(5, (1, 0)), 0) == "1 point · 4-away"
    assert backgammon.row_score(at_score(1, (0, 0)), 0) == ""  # a 1-point match has no score


def test_the_board_text_reads_the_score_as_players_say_it() -> None:
    text = at_score(5, (2, 3)).score_text
    assert text.startswith("White 2 (3-away) · Black 3 (2-away) · 5-point match"), text
    assert at_score(1, (0, 0)).score_text == ""
