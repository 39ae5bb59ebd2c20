"""``python -m engine move``: a computer level's play, one line exactly as ``plays`` prints it."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.__main__ import main
from engine.ai.backgammon_move import choose_play, level_player
from engine.ai.levels import find_player
from engine.ai.selfplay import random_states
from engine.ai.state_move import choose_action
from engine.backgammon.board import Board, RuleSet, borne_off, side_from, starting_board, swap
from engine.backgammon.cli import play_lines
from engine.backgammon.formats import position_id
from engine.backgammon.plays import legal_plays
from engine.protocol import Action, GameState, GameView
from engine.registry import find_variant

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


# -- ring and space: --state FILE (or - for stdin), the state's JSON as the bot saves it ------------------


def decision_states(game: str, count: int, seed: int) -> list[GameState]:
    """States from random games where a seat decides (no chance step, game not over)."""
    variant = find_variant(game)
    rng = random.Random(seed)
    found: list[GameState] = []
    while len(found) < count:
        for state in random_states(variant, rng):
            if state.outcome() is None and state.chance() is None:
                found.append(state)
    return found[:count]


def saved(tmp_path: Path, state: GameState, name: str = "state.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(state.to_json()), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("game", "levels"),
    [
        ("ring", ["random", "greedy", "easy", "medium", "hard"]),
        ("space", ["random", "easy", "medium", "hard"]),
    ],
)
def test_state_answer_is_a_legal_action_that_parses_back(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, levels: list[str]
) -> None:
    variant = find_variant(game)
    states = decision_states(game, 120, 5)[::8]
    for level in levels:
        for state in states:
            code, lines, err = run(
                capsys, "--game", game, "--level", level, "--state", saved(tmp_path, state)
            )
            assert code == 0 and err == "" and len(lines) == 1
            action = variant.parse_action(state, lines[0])
            assert action in state.legal_actions()
            assert action.notation == lines[0]


def test_state_answer_is_the_level_players_choice(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for state in decision_states("ring", 40, 6)[::5]:
        seat = state.to_move()
        expected = find_player("ring", "medium")(state.view(seat), random.Random(3))
        code, lines, _ = run(
            capsys, "--game", "ring", "--level", "medium", "--seed", "3", "--state", saved(tmp_path, state)
        )
        assert code == 0 and lines == [expected.notation]


def test_space_computer_sees_only_its_seats_view() -> None:
    seen: list[GameView] = []

    def spy(view: GameView, rng: random.Random) -> Action:
        seen.append(view)
        return view.legal_actions()[0]

    states = decision_states("space", 200, 7)
    for state in states[::10]:
        choose_action(state, spy, 1)
    assert len(seen) == len(states[::10]) and {v.viewer for v in seen} == {0, 1}
    for state, view in zip(states[::10], seen, strict=True):
        assert view.viewer == state.to_move()
        assert not isinstance(view, GameState)  # a view, never the state with the opponent's hand


def test_state_from_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    state = decision_states("ring", 10, 8)[5]
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(state.to_json())))
    code, lines, err = run(capsys, "--game", "ring", "--level", "hard", "--state", "-")
    assert code == 0 and err == "" and len(lines) == 1
    assert find_variant("ring").parse_action(state, lines[0]) in state.legal_actions()


def test_state_in_a_real_process() -> None:
    state = decision_states("space", 30, 9)[-1]
    done = subprocess.run(
        [sys.executable, "-m", "engine", "move", "--game", "space", "--level", "hard", "--state", "-"],
        input=json.dumps(state.to_json()),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 1
    assert find_variant("space").parse_action(state, lines[0]) in state.legal_actions()


def _ring_state_json() -> dict[str, Any]:
    return decision_states("ring", 3, 10)[-1].to_json()


def _waiting_for_chance(game: str) -> dict[str, Any]:
    for state in random_states(find_variant(game), random.Random(11)):
        if state.chance() is not None and state.turn_number > 0:
            return state.to_json()
    raise AssertionError("no chance step")


def _finished(game: str) -> dict[str, Any]:
    *_, last = random_states(find_variant(game), random.Random(12))
    assert last.outcome() is not None
    return last.to_json()


def _corrupt_ring() -> dict[str, Any]:
    data = _ring_state_json()
    data["board"] = [5, *data["board"][1:]]  # more tokens than a player owns
    return data


@pytest.mark.parametrize(
    ("game", "text", "argv", "said"),
    [
        ("ring", "{not json", [], "not valid JSON"),
        ("ring", "[1, 2]", [], "JSON object"),
        ("ring", json.dumps(_corrupt_ring()), [], "12 tokens"),
        ("ring", json.dumps(_finished("space")), [], "not a ring game"),
        ("space", json.dumps(_ring_state_json()), [], "space"),
        ("ring", json.dumps(_waiting_for_chance("ring")), [], "waits for chance"),
        ("space", json.dumps(_waiting_for_chance("space")), [], "waits for chance"),
        ("ring", json.dumps(_finished("ring")), [], "game is over"),
        ("space", json.dumps(_finished("space")), [], "game is over"),
        (
            "ring",
            json.dumps(_ring_state_json()),
            ["--level", "grandmaster"],
            "no player called 'grandmaster'",
        ),
        ("ring", json.dumps(_ring_state_json()), ["--dice", "3-1"], "--dice is for backgammon only"),
        (
            "space",
            json.dumps(_ring_state_json()),
            ["--rules", "nackgammon"],
            "--rules is for backgammon only",
        ),
        ("ring", json.dumps(_ring_state_json()), ["--stdin"], "--stdin is for backgammon only"),
        ("chess", json.dumps(_ring_state_json()), [], "chess"),
    ],
)
def test_state_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, game: str, text: str, argv: list[str], said: str
) -> None:
    path = tmp_path / "state.json"
    path.write_text(text, encoding="utf-8")
    code, lines, err = run(capsys, "--game", game, *argv, "--state", str(path))
    assert code == 2 and lines == []
    assert err.startswith("error: ") and said in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--game", "ring"], "give --state"),
        (["--game", "ring", "--state", "/no/such/file.json"], "cannot read the state file"),
        (["--game", "backgammon", "--state", "-"], "not --state"),
    ],
)
def test_state_missing_or_misplaced(capsys: pytest.CaptureFixture[str], argv: list[str], said: str) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and lines == []
    assert err.startswith("error: ") and said in err and len(err.splitlines()) == 1


def test_move_help_names_the_state_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["move", "--help"])
    out = capsys.readouterr().out
    assert "--state" in out and "ring and space" in out
