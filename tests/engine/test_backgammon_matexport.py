"""Our matches as .mat files: the action log replayed into the Jellyfish record GNU Backgammon imports."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine.backgammon.matexport import mat_file, mat_record
from engine.backgammon.variant import VARIANT
from engine.protocol import CHANCE, Forfeit, Outcome
from tests.engine.test_backgammon_matfile import gnubg_import, needs_gnubg


def random_match(
    seed: int, length: int, rules: str = "standard"
) -> tuple[dict[str, object], list[str], tuple[int, int]]:
    """A match of random legal actions (cube actions and resignation offers included) to its end."""
    rng = random.Random(seed)
    options: dict[str, object] = {"length": length, "rules": rules}
    state = VARIANT.new_game(options)
    log = []
    while not state.is_terminal():
        if state.to_move() == CHANCE:
            action = state.chance_action((rng.randint(1, 6), rng.randint(1, 6)))
        else:
            action = rng.choice([*state.legal_actions(), *state.resign_offers()])
        log.append(action.notation)
        state = state.apply(action)
    return options, log, state.score


def test_a_turn_played_one_checker_at_a_time_is_one_roll_with_its_whole_play() -> None:
    log = ["opening 6-4", "move 24/18", "move 18/14", "roll 3-1", "8/5 6/5"]
    record = mat_record(VARIANT, {"length": 1}, log, ("Alice", "Bob"))
    (game,) = record.games
    assert [(a.seat, a.kind, a.dice, a.play) for a in game.actions] == [
        (0, "roll", (6, 4), "24/14"),
        (1, "roll", (3, 1), "8/5 6/5"),
    ]


def test_cube_actions_and_a_won_game_are_recorded_with_the_score_before_each_game() -> None:
    log = ["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "double", "pass", "opening 5-2"]
    record = mat_record(VARIANT, {"length": 3}, log, ("Alice", "Bob"))
    (first,) = record.games  # the second game has no play yet: nothing of it to write
    assert [a.kind for a in first.actions] == ["roll", "roll", "double", "pass", "win"]
    assert first.actions[-1].seat == 0 and first.actions[-1].points == 1
    more = mat_record(VARIANT, {"length": 3}, [*log, "8/6 8/3"], ("Alice", "Bob"))
    assert more.games[1].score == (1, 0) and more.games[1].actions[0].play == "8/6 8/3"


def test_old_english_has_no_match_file() -> None:
    options, log, _ = random_match(1, 1, "oldenglish")
    assert mat_file(VARIANT, options, log, ("A", "B")) is None


@pytest.mark.parametrize("seed", range(6))
def test_random_matches_make_valid_files(seed: int) -> None:
    options, log, _ = random_match(seed, 3 if seed % 2 else 1, "nackgammon" if seed == 4 else "standard")
    text = mat_file(VARIANT, options, log, ("Alice", "Bob"))
    assert text is not None and " point match" in text


@needs_gnubg
@pytest.mark.parametrize("seed", range(4))
def test_gnu_backgammon_imports_our_matches_with_the_same_final_score(tmp_path: Path, seed: int) -> None:
    options, log, score = random_match(100 + seed, 5, "nackgammon" if seed == 3 else "standard")
    text = mat_file(VARIANT, options, log, ("Alice", "Bob"))
    assert text is not None
    output, _ = gnubg_import(tmp_path, text, f"ours{seed}")
    found = re.search(r"Alice (\d+), Bob (\d+)", output)
    assert found is not None, output
    assert (int(found.group(1)), int(found.group(2))) == score


def _forfeit(winner: int) -> Outcome:
    return Outcome(winner=winner, reason=Forfeit.RESIGNATION, description="resigned", points=1, length=0)


def _gnubg_score(tmp_path: Path, text: str, name: str) -> tuple[int, int]:
    output, _ = gnubg_import(tmp_path, text, name)
    assert "No game in progress" not in output, output
    found = re.search(r"Alice (\d+), Bob (\d+)", output)
    assert found is not None, output
    return int(found.group(1)), int(found.group(2))


@needs_gnubg
def test_mat_of_a_match_resigned_before_its_first_play_is_one_game_gnubg_reads(tmp_path: Path) -> None:
    # The opening roll is made by itself; White resigns the match before moving.
    text = mat_file(VARIANT, {"length": 3}, ["opening 5-2"], ("Alice", "Bob"), _forfeit(1))
    assert text is not None
    assert "  1) 52:" in text and "Wins 3 points and the match" in text  # the dice alone, as GNUBG writes
    assert _gnubg_score(tmp_path, text, "early") == (0, 3)
    # Before any roll there is nothing a program could read: no file rather than an empty one.
    assert mat_file(VARIANT, {"length": 3}, [], ("Alice", "Bob"), _forfeit(1)) is None


@needs_gnubg
def test_mat_of_a_match_ended_off_the_board_mid_game_ends_with_the_resignation_gnubg_writes(
    tmp_path: Path,
) -> None:
    cases = {
        # a timeout of the player to move, with the dice unplayed: the game is resigned after them
        "mid-play": (["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "move 24/18"], 0),
        # a double waiting: the loser passes it
        "double": (["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "double"], 0),
        # a double waiting, the doubler gives up: the winner takes, then the loser resigns
        "doubler": (["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "double"], 1),
        # an offer waiting: declined, then the whole resignation
        "offer": (["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "resign single"], 1),
    }
    for name, (log, winner) in cases.items():
        text = mat_file(VARIANT, {"length": 3}, log, ("Alice", "Bob"), _forfeit(winner))
        assert text is not None and "Wins" in text, name
        won = _gnubg_score(tmp_path, text, name)
        assert won[winner] >= 1 and won[1 - winner] == 0, (name, text)
    # Without the ending the file stops where play stopped, as before.
    assert "Wins" not in (mat_file(VARIANT, {"length": 3}, cases["double"][0], ("Alice", "Bob")) or "")


@needs_gnubg
def test_mat_of_a_resignation_accepted_after_the_roll_writes_the_dice_alone(tmp_path: Path) -> None:
    log = [
        "opening 3-1",
        "8/5 6/5",
        "roll",
        "roll 6-4",
        "24/14",
        "roll",
        "roll 5-2",
        "resign gammon",
        "accept",
    ]
    text = mat_file(VARIANT, {"length": 3}, log, ("Alice", "Bob"))
    assert text is not None and "52:" in text
    assert _gnubg_score(tmp_path, text, "accepted") == (0, 2)
