"""pubeval: Tesauro's published weights and 122 inputs, checked against his reference ``pubeval.c``.

The reference scores and choices below were computed by the original C routine (the OpenBSD copy of
``pubeval.c``, compiled with its weights) on positions from random games; 128,344 such positions
agreed to within float rounding when this module was written.
"""

from __future__ import annotations

import random

import pytest

from engine.ai import pubeval
from engine.ai.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, inputs, is_race, score
from engine.backgammon.board import Board, side_from, starting_board
from engine.backgammon.formats import board_from_position_id, position_id
from engine.backgammon.game import BackgammonState, Checkers, Phase, RollOn, Take
from engine.backgammon.plays import legal_plays
from engine.backgammon.turn import roll_dice


def test_weights_are_the_published_vectors() -> None:
    assert len(CONTACT_WEIGHTS) == len(RACE_WEIGHTS) == 122
    assert CONTACT_WEIGHTS[:3] == (0.25696, -0.66937, -1.66135)
    assert CONTACT_WEIGHTS[-2:] == (5.62596, -2.75800)
    assert RACE_WEIGHTS[:3] == (0.0, -0.17160, 0.27010)
    assert RACE_WEIGHTS[-2:] == (0.0, 3.42040)
    assert min(RACE_WEIGHTS) == -12.32252


def test_inputs_encode_each_point_from_24_down_with_bar_and_off() -> None:
    me = side_from({24: 1, 13: 2, 8: 3, 6: 6, 1: 1})  # 13 checkers: 2 borne off
    opp = side_from({2: 1, 13: 5, 25: 2})  # its 2 is my 23 (a blot), its 13 my 12, two on the bar
    x = inputs((opp, me))
    assert len(x) == 122
    assert x[0:5] == [0, 1, 0, 0, 0]  # my 24: one checker of mine
    assert x[5:10] == [1, 0, 0, 0, 0]  # my 23: an opposing blot
    assert x[5 * 11 : 5 * 11 + 5] == [0, 0, 1, 0, 0]  # my 13: two
    assert x[5 * 12 : 5 * 12 + 5] == [0, 0, 0, 0, 0]  # my 12: five opposing checkers are no input
    assert x[5 * 16 : 5 * 16 + 5] == [0, 0, 1, 1, 0]  # my 8: three
    assert x[5 * 18 : 5 * 18 + 5] == [0, 0, 1, 0, 1.5]  # my 6: six -> (6 - 3) / 2
    assert x[5 * 23 : 5 * 23 + 5] == [0, 1, 0, 0, 0]  # my 1
    assert x[120] == 1.0  # two opposing checkers on the bar, halved
    assert x[121] == pytest.approx(2 / 15)


def test_race_means_no_contact_and_the_bar_is_contact() -> None:
    assert not is_race(starting_board())
    me = side_from({6: 5, 5: 5, 3: 5})
    opp = side_from({6: 5, 5: 5, 3: 5})  # its 6 is my 19: every checker has passed
    assert is_race((opp, me))
    assert not is_race((side_from({6: 5, 5: 5, 25: 1}), me))  # a checker on the bar still has to pass mine
    assert not is_race((opp, side_from({6: 14, 20: 1})))  # my 20 is behind its 6 (my 19)


REFERENCE_SCORES = [
    ("m6AxhgUGxjSmAw", False, 5.466320),
    ("PwMAPENbKGpGEA", False, 4.133200),
    ("7z8SAAADAAAAAA", True, -4.302783),
    ("R81ggEMrXgULEA", False, 1.966095),
    ("LK9IMFB4BwDEZw", False, 4.310731),  # both sides on the bar
    ("+xCiAkpH2wBCRQ", False, 5.996340),
    ("h20AoWL7EFIBFQ", False, -0.189720),  # two opposing checkers on the bar
]


@pytest.mark.parametrize(("position", "race", "expected"), REFERENCE_SCORES)
def test_scores_match_the_reference_implementation(position: str, race: bool, expected: float) -> None:
    assert score(board_from_position_id(position), race) == pytest.approx(expected, abs=1e-4)


def test_bearing_off_the_last_checker_scores_the_original_constant() -> None:
    empty = side_from({})
    assert score((starting_board()[0], empty), race=True) == pubeval.WIN_SCORE


REFERENCE_CHOICES = [
    ("4HPwATDgc/ABMA", (3, 1), "4HPwATCwZ/ABMA"),  # 8/5 6/5
    ("4HPwATDgc/ABMA", (6, 5), "4HPwATDgc/ADIA"),  # 24/13
    ("4HPwATDgc/ABMA", (4, 2), "4HPwATCYZ/ABMA"),  # 8/4 6/4
    ("4HPwATDgc/ABMA", (2, 1), "4HPwATDgc/ABIg"),  # 24/21
    ("fgcmAwjhDTGkMA", (4, 6), "fgeGAUTDDbFIMA"),
    ("fyMIgQO3ARRjBg", (2, 5), "fyMIwEG3AUpGBg"),
    ("PwAAgO8kIMMAAA", (5, 4), "PwAAgO8koA4AAA"),
    ("70BgmiD6SSCDQQ", (3, 5), "7wAwTVD6SSATAw"),
]


def _state(board: Board, dice: tuple[int, int]) -> BackgammonState:
    opp, me = board
    return BackgammonState(
        sides=(me, opp), phase=Phase.PLAY, turn_seat=0, dice=dice, start=(me, opp), dice_left=roll_dice(*dice)
    )


@pytest.mark.parametrize(("position", "dice", "chosen"), REFERENCE_CHOICES)
def test_the_player_chooses_the_reference_play(position: str, dice: tuple[int, int], chosen: str) -> None:
    state = _state(board_from_position_id(position), dice)
    action = pubeval.choose(state, random.Random(0))
    assert isinstance(action, Checkers)
    assert position_id(action.result) == chosen
    assert action.result in {p.result for p in legal_plays(state.board, *dice)}


def test_never_doubles_and_always_takes() -> None:
    deciding = BackgammonState.new(length=5)
    deciding = deciding.__class__(sides=deciding.sides, length=5, phase=Phase.DECIDE, turn_seat=0)
    assert pubeval.choose(deciding, random.Random(0)) == RollOn()
    taking = deciding.apply(deciding.parse("double"))
    assert pubeval.choose(taking, random.Random(0)) == Take()
