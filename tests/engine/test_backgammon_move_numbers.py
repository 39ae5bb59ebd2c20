"""One numbering of a match's turns as players count them: game G, move M, where M is the line of the
``.mat`` file the turn is written on (``words.move_number``, issue 24)."""

from __future__ import annotations

import re

from engine.backgammon.actions import AcceptResignation, Checkers, Double, MoveChecker, Opening, Phase, Roll
from engine.backgammon.game import BackgammonState
from engine.backgammon.matexport import mat_file
from engine.backgammon.variant import VARIANT
from engine.backgammon.words import move_label, move_number
from tests.engine.test_backgammon_matexport import random_match

Entry = tuple[int, int, int, str]
"""(game, line, seat, "roll" or "double")."""


def file_entries(text: str) -> list[Entry]:
    """The rolls and doubles of a ``.mat`` text with the line each is on (seat 0 left, seat 1 right)."""
    out: list[Entry] = []
    game = 0
    for line in text.splitlines():
        if started := re.match(r"^ Game (\d+)$", line):
            game = int(started.group(1))
            continue
        numbered = re.match(r"^\s*(\d+)\) ", line)
        if not numbered:
            continue
        for seat, cell in enumerate((line[5:32], line[33:])):
            kind = "double" if "Doubles" in cell else "roll" if re.match(r"^\d\d:", cell) else None
            if kind:
                out.append((game, int(numbered.group(1)), seat, kind))
    return out


def numbered_entries(log: list[str], options: dict[str, object]) -> list[Entry]:
    """The same, numbered by ``move_number`` while the log is replayed; each roll is counted once its
    play is over, as the file writes it, and every step of the play must carry the roll's number."""
    state = VARIANT.new_game(options)
    out: list[Entry] = []
    rolled: Entry | None = None
    for text in log:
        action = VARIANT.parse_action(state, text)
        after = state.apply(action)
        assert isinstance(state, BackgammonState) and isinstance(after, BackgammonState)
        seat = state.turn_seat if state.turn_seat is not None else after.turn_seat
        if isinstance(action, Double):
            out.append((state.game_number, move_number(state), seat or 0, "double"))
        if isinstance(action, Roll | Opening) and after.turn_seat is not None:
            number = move_number(after) if isinstance(action, Opening) else move_number(state)
            rolled = (
                state.game_number,
                number,
                after.turn_seat if isinstance(action, Opening) else seat or 0,
                "roll",
            )
            if after.phase is not Phase.PLAY:  # no legal play: written at once
                out.append(rolled)
        if isinstance(action, AcceptResignation) and state.resume is Phase.PLAY and rolled is not None:
            out.append(rolled)  # resigned after the roll: the file writes the dice alone
        if isinstance(action, MoveChecker | Checkers):
            assert rolled is not None and move_number(state) == rolled[1], (text, state.to_json())
            if after.phase is not Phase.PLAY or after.game_number != state.game_number:
                out.append(rolled)
        state = after
    return out


def test_move_numbers_are_the_lines_of_the_match_file() -> None:
    kinds = set()
    for seed in range(12):
        options, log, _ = random_match(seed, 5)
        text = mat_file(VARIANT, options, log, ("Alice", "Bob"))
        assert text is not None
        ours = numbered_entries(log, options)
        assert ours == file_entries(text), seed
        kinds |= {(seat, kind) for _, _, seat, kind in ours}
    assert kinds == {(0, "roll"), (1, "roll"), (0, "double"), (1, "double")}


def test_move_numbers_do_not_change_at_the_roll_and_count_each_game_from_one() -> None:
    state = VARIANT.new_game({"length": 3})
    seen = []
    for text in ["opening 3-1", "8/5 6/5", "roll", "roll 4-4", "13/9(2) 6/2(2)", "double", "pass"]:
        assert isinstance(state, BackgammonState)
        seen.append(move_label(state))
        state = state.apply(VARIANT.parse_action(state, text))
    assert isinstance(state, BackgammonState)
    assert seen == [
        "game 1, move 1",  # before the opening roll
        "game 1, move 1",  # White plays 3-1
        "game 1, move 1",  # Red to roll (the right-hand half of line 1)
        "game 1, move 1",  # Red rolls 4-4
        "game 1, move 1",  # Red plays it
        "game 1, move 2",  # White doubles
        "game 1, move 2",  # Red passes
    ]
    assert move_label(state) == "game 2, move 1"


def test_a_one_game_match_says_only_the_move() -> None:
    state = VARIANT.new_game({"length": 1}).apply(
        VARIANT.parse_action(VARIANT.new_game({"length": 1}), "opening 2-1")
    )
    assert isinstance(state, BackgammonState)
    assert move_label(state) == "move 1"


def test_a_state_saved_before_move_numbers_still_loads() -> None:
    state = VARIANT.new_game({"length": 3})
    saved = dict(state.to_json())
    del saved["game_start_turn"]
    loaded = VARIANT.from_json(saved)
    assert isinstance(loaded, BackgammonState) and loaded.game_start_turn == 0
