"""``python -m engine move``: a computer level's play, one line exactly as ``plays`` prints it."""

from __future__ import annotations

import io
import random
import subprocess
import sys

import pytest

from engine.__main__ import main
from engine.ai.backgammon_move import choose_play, level_player
from engine.backgammon.board import Board, RuleSet, borne_off, side_from, starting_board, swap
from engine.backgammon.cli import play_lines
from engine.backgammon.formats import position_id
from engine.backgammon.plays import legal_plays

OPENING = "4HPwATDgc/ABMA"
CLOSED_OUT: Board = (side_from({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3}), side_from({25: 1, 6: 14}))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["move", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def game_positions(count: int, seed: int, rules: RuleSet = RuleSet.STANDARD) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    board = starting_board(rules)
    while len(out) < count:
        out.append(board)
        board = swap(rng.choice(legal_plays(board, rng.randint(1, 6), rng.randint(1, 6), rules)).result)
        if borne_off(board[0]) == 15:
            board = starting_board(rules)
    return out


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_opening_three_one_makes_the_five_point(capsys: pytest.CaptureFixture[str], level: str) -> None:
    code, lines, err = run(
        capsys, "--game", "backgammon", "--level", level, "--position", OPENING, "--dice", "3-1"
    )
    assert code == 0 and err == ""
    assert lines == ["8/5 6/5\t4HPwATCwZ/ABMA"]


@pytest.mark.parametrize("level", ["random", "greedy", "pubeval", "easy", "medium"])
@pytest.mark.parametrize("rules", ["standard", "nackgammon", "oldenglish"])
def test_the_answer_is_one_of_the_plays_lines(
    capsys: pytest.CaptureFixture[str], level: str, rules: str
) -> None:
    rng = random.Random(9)
    for board in game_positions(30, 7, RuleSet(rules))[::3]:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        code, lines, _ = run(
            capsys,
            "--level",
            level,
            "--rules",
            rules,
            "--position",
            position_id(board),
            "--dice",
            f"{d1}-{d2}",
        )
        assert code == 0 and len(lines) == 1
        assert lines[0] in play_lines(board, d1, d2, RuleSet(rules))


def test_no_play(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "--level", "hard", "--position", position_id(CLOSED_OUT), "--dice", "6-6")
    assert code == 0 and lines == [f"no play\t{position_id(CLOSED_OUT)}"]


def test_a_player_moving_one_checker_at_a_time_gives_a_whole_play() -> None:
    board = starting_board()
    play = choose_play(level_player("random"), board, 4, 4, RuleSet.STANDARD, random.Random(2))
    assert play in legal_plays(board, 4, 4) and len(play.moves) == 4


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--position", "4HPwATDgc/ABM", "--dice", "3-1"], "14 characters"),
        (["--position", OPENING, "--dice", "3-7"], "from 1 to 6"),
        (
            ["--level", "grandmaster", "--position", OPENING, "--dice", "3-1"],
            "no player called 'grandmaster'",
        ),
        (["--game", "ring", "--position", OPENING, "--dice", "3-1"], "backgammon"),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and lines == []
    assert err.startswith("error: ") and said in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("argv", [["--dice", "3-1"], ["--stdin", "--position", OPENING]])
def test_missing_or_clashing_options(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["move", *argv])
    assert exit_.value.code == 2


def test_stdin_answers_each_line_as_the_single_query_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(4)
    queries = [(b, rng.randint(1, 6), rng.randint(1, 6)) for b in game_positions(60, 8)[::4]]
    text = "".join(f"{position_id(b)} {d1}-{d2}\n" for b, d1, d2 in queries)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code, lines, _ = run(capsys, "--level", "medium", "--stdin")
    assert code == 0 and len(lines) == len(queries)
    for (b, d1, d2), line in zip(queries, lines, strict=True):
        assert run(capsys, "--level", "medium", "--position", position_id(b), "--dice", f"{d1}-{d2}")[1] == [
            line
        ]


def test_stdin_in_a_real_process() -> None:
    queries = (
        f"{OPENING} 3-1\n\n{position_id(CLOSED_OUT)} 4-4\nnot-an-id 3-1\n{OPENING} 6-5 extra\n{OPENING} 6-5\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "engine", "move", "--game", "backgammon", "--level", "hard", "--stdin"],
        input=queries,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert lines[0] == "8/5 6/5\t4HPwATCwZ/ABMA"
    assert lines[1] == f"no play\t{position_id(CLOSED_OUT)}"
    assert lines[2].startswith("error: ") and lines[3].startswith("error: ")
    assert lines[4].startswith("24/13\t") and len(lines) == 5
