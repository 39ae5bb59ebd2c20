"""``python -m engine plays``: legal plays with the position IDs they reach, one query or a stream of them."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from engine.__main__ import main
from engine.backgammon.board import Board, RuleSet, borne_off, side_from, starting_board, swap
from engine.backgammon.formats import board_from_position_id, position_id
from engine.backgammon.notation import play_text
from engine.backgammon.plays import legal_plays
from tests import oracles

OPENING = "4HPwATDgc/ABMA"
# On roll: one checker on the bar (and 14 on its six point) against a closed board.
CLOSED_OUT: Board = (side_from({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3}), side_from({25: 1, 6: 14}))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(["plays", *argv])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def game_positions(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    board = starting_board()
    while len(out) < count:
        out.append(board)
        board = swap(rng.choice(legal_plays(board, rng.randint(1, 6), rng.randint(1, 6))).result)
        if borne_off(board[0]) == 15:
            board = starting_board()
    return out


def test_opening_three_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "--game", "backgammon", "--position", OPENING, "--dice", "3-1")
    assert code == 0 and err == ""
    assert len(lines) == 16
    plays = dict(line.split("\t") for line in lines)
    assert board_from_position_id(plays["8/5 6/5"]) == (
        starting_board()[0],
        side_from({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}),
    )


@pytest.mark.parametrize("dice", ["6-4", "5-5", "2-1", "1-2"])
def test_lines_are_our_legal_plays(capsys: pytest.CaptureFixture[str], dice: str) -> None:
    board = game_positions(40, seed=3)[-1]
    code, lines, _ = run(capsys, "--position", position_id(board), "--dice", dice)
    d1, d2 = int(dice[0]), int(dice[2])
    assert code == 0
    assert lines == [f"{play_text(p)}\t{position_id(p.result)}" for p in legal_plays(board, d1, d2)]


def test_rules_option(capsys: pytest.CaptureFixture[str]) -> None:
    board = starting_board(RuleSet.NACKGAMMON)
    code, lines, _ = run(capsys, "--rules", "nackgammon", "--position", position_id(board), "--dice", "6-6")
    assert code == 0 and len(lines) == len(legal_plays(board, 6, 6, RuleSet.NACKGAMMON))


def test_no_play(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "--position", position_id(CLOSED_OUT), "--dice", "6-6")
    assert code == 0
    assert lines == [f"no play\t{position_id(CLOSED_OUT)}"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--position", "4HPwATDgc/ABM", "--dice", "3-1"], "14 characters"),
        (["--position", "4HPwATDgc/ABMX", "--dice", "3-1"], "not a GNU Backgammon position ID"),
        (["--position", OPENING, "--dice", "3-7"], "from 1 to 6"),
        (["--position", OPENING, "--dice", "31"], "like 6-4"),
        (["--game", "ring", "--position", OPENING, "--dice", "3-1"], "backgammon"),
    ],
)
def test_bad_arguments(capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and lines == []
    assert err.startswith("error: ") and said in err


@pytest.mark.parametrize(
    "argv", [["--dice", "3-1"], ["--stdin", "--dice", "3-1"], ["--rules", "x", "--stdin"]]
)
def test_missing_or_clashing_options(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["plays", *argv])
    assert exit_.value.code == 2
    assert capsys.readouterr().err


def test_stdin_in_a_real_process() -> None:
    queries = f"{OPENING} 3-1\n\n{position_id(CLOSED_OUT)} 4-4\nnot-an-id 3-1\n{OPENING} 6-6\n"
    done = subprocess.run(
        [sys.executable, "-m", "engine", "plays", "--game", "backgammon", "--stdin"],
        input=queries,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and done.stderr == ""
    answers = done.stdout.split("\n\n")
    assert answers[-1] == "" and len(answers) == 5
    assert len(answers[0].splitlines()) == 16
    assert answers[1] == f"no play\t{position_id(CLOSED_OUT)}"
    assert answers[2].startswith("error: ") and "\n" not in answers[2]
    assert len(answers[3].splitlines()) == len(legal_plays(starting_board(), 6, 6))


def test_stdin_all_good_exits_zero(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(f"{OPENING} 2-1\n"))
    code, lines, _ = run(capsys, "--stdin")
    assert code == 0 and lines[-1] == "" and len(lines) == len(legal_plays(starting_board(), 2, 1)) + 1


def test_positions_match_gnubg_nn(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The IDs printed are exactly the positions gnubg-nn's move generator reaches (its IDs, its encoder)."""
    import io

    gnubg_nn = oracles.import_oracle("gnubg_nn")
    rng = random.Random(5)
    queries = [(b, rng.randint(1, 6), rng.randint(1, 6)) for b in game_positions(300, seed=4)[::3]]
    monkeypatch.setattr(
        sys, "stdin", io.StringIO("".join(f"{position_id(b)} {d1}-{d2}\n" for b, d1, d2 in queries))
    )
    code, lines, _ = run(capsys, "--stdin")
    assert code == 0
    answers = "\n".join(lines).split("\n\n")
    assert len(answers) == len(queries)
    for (board, d1, d2), answer in zip(queries, answers, strict=True):
        ours = {line.split("\t")[1] for line in answer.strip("\n").splitlines()}
        lists = [list(board[0]), list(board[1])]
        entries = gnubg_nn.moves(lists, d1, d2, 1)
        theirs = {
            gnubg_nn.position_id(list(map(list, gnubg_nn.board_from_position_key(k)))) for k, _ in entries
        }
        assert ours == (theirs or {gnubg_nn.position_id(lists)}), (position_id(board), d1, d2)
