"""Reading ``.mat`` files (``engine.backgammon.matimport``) and ``python -m engine analyse --game backgammon
--mat FILE`` (``engine.ai.backgammon_mat_report``), run as a real process on a GNU Backgammon export."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from itertools import islice
from pathlib import Path

import pytest

from engine.ai.backgammon_bgsage import EASY, MEDIUM
from engine.ai.backgammon_mat_report import mat_moves
from engine.ai.selfplay import notations_played
from engine.backgammon.formats import board_from_position_id, match_info_from_id
from engine.backgammon.matexport import mat_file
from engine.backgammon.matimport import MatImportError, read_mat
from engine.backgammon.variant import VARIANT
from engine.protocol import replay_states

ROOT = Path(__file__).resolve().parents[2]
GNUBG_EXPORT = Path(__file__).parent / "data" / "gnubg_3_point.mat"
"""A 3-point match (medium against easy, with a double and a take) as GNU Backgammon 1.07 exported it
(``import mat``, then ``export match mat``): its own layout, trailing blanks and comment line."""


def _dice_in_order(text: str) -> str:
    """``roll 1-4`` -> ``roll 4-1``: a .mat file writes the higher die first."""
    found = re.fullmatch(r"roll (\d)-(\d)", text)
    return f"roll {max(found.groups())}-{min(found.groups())}" if found else text


def test_a_gnubg_export_reads_back_as_the_match_played() -> None:
    played = list(notations_played(VARIANT, {"length": 3}, (MEDIUM, EASY), random.Random(1)))
    match = read_mat(GNUBG_EXPORT.read_text())
    assert match.names == ("Ann Lee", "Bob") and match.options == {"length": 3, "rules": "standard"}
    assert [_dice_in_order(t) for t in match.log] == [_dice_in_order(t) for t in played]


def test_our_own_export_with_a_resignation_reads_back() -> None:
    options = {"length": 3, "rules": "nackgammon"}
    log = list(islice(notations_played(VARIANT, options, (MEDIUM, EASY), random.Random(5)), 15))
    state = list(replay_states(VARIANT, options, log))[-1]
    while state.to_move() not in (0, 1) or state.phase.value not in ("decide", "roll", "play"):
        log.pop()
        state = list(replay_states(VARIANT, options, log))[-1]
    log += ["resign gammon", "accept"]
    text = mat_file(VARIANT, options, log, ("Ann", "Bob"))
    assert text is not None and "Wins 2 points" in text
    match = read_mat(text)
    assert match.options == options
    # A turn played step by step is one play in the file: compare the positions reached.
    ours = list(replay_states(VARIANT, options, log))[-1]
    theirs = list(replay_states(VARIANT, options, match.log))[-1]
    assert theirs.score == ours.score == (0, 2) or theirs.score == ours.score == (2, 0)
    assert match.log[-2:] == ("resign gammon", "accept")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", 'it has no " N point match" line'),
        ("hello\n", 'Line 1: This is not a .mat file: it starts with "hello"'),
        (" 3 point match\n\n Game 1\n A : 0      B : 0\n  1) 52: 13/2\n", "Line 5: 13/2 is not a legal play"),
        (" 3 point match\n\n Game 1\n A : 0      B : 1\n", "Line 4: The score 0-1 does not add up"),
        (" 3 point match\n\n Game 1\n A : 0      B : 0\n  1) hello there\n", "Line 5: "),
        (" 0 point match\n", "money"),
    ],
)
def test_a_file_that_cannot_be_replayed_is_refused_with_its_line(text: str, reason: str) -> None:
    with pytest.raises(MatImportError, match=re.escape(reason)):
        read_mat(text)


def test_move_numbers_are_the_mat_lines() -> None:
    """Each roll and each double is on the numbered line of the file that ``mat_moves`` gives it."""
    text = GNUBG_EXPORT.read_text()
    match = read_mat(text)
    states = list(replay_states(VARIANT, match.options, match.log))
    moves = mat_moves(states, match.log)
    games: list[dict[int, str]] = []
    for raw in text.splitlines():
        if raw.strip().startswith("Game"):
            games.append({})
        found = re.match(r"^\s*(\d+)\)(.*)$", raw)
        if found:
            games[-1][int(found.group(1))] = found.group(2)
    checked = 0
    for state, notation, move in zip(states, match.log, moves, strict=False):
        roll = re.fullmatch(r"(?:roll|opening) (\d)-(\d)", notation)
        if roll is not None and roll.group(1) != roll.group(2):
            want = f"{max(roll.groups())}{min(roll.groups())}:"
        elif notation == "double":
            want = "Doubles"
        else:
            continue
        assert want in games[state.game_number - 1][move], (notation, move)
        checked += 1
    assert checked > 50


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", "analyse", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_analyse_command_prints_one_json_object_for_a_gnubg_export() -> None:
    done = _run("--game", "backgammon", "--mat", str(GNUBG_EXPORT))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) == {"depth", "players", "decisions"} and result["depth"] == "3-ply"
    assert [p["name"] for p in result["players"]] == ["Ann Lee", "Bob"]
    for player in result["players"]:
        assert set(player) == {"name", "pr", "doubtful", "errors", "blunders", "luck"}
    decisions = result["decisions"]
    keys = {"game", "move", "player", "position_id", "dice", "played", "best", "loss"}
    assert decisions and all(set(d) == keys for d in decisions)
    assert {d["dice"] is None for d in decisions} == {True, False}  # cube decisions and plays
    text = GNUBG_EXPORT.read_text()
    for d in decisions:
        position, match_id = d["position_id"].split(":")
        board_from_position_id(position)
        info = match_info_from_id(match_id)
        assert info.match_length == 3 and d["loss"] >= 0
        if d["dice"] is not None:
            assert tuple(sorted(info.dice, reverse=True)) == tuple(d["dice"])
            # The play is on its .mat line, the dice written there.
            assert re.search(rf"^\s*{d['move']}\).*{d['dice'][0]}{d['dice'][1]}:", text, re.M)
        elif d["played"] == "Take":
            assert info.doubled and d["player"] == "Bob"
    # The PR is 500 x the equity lost per counted decision.
    bob = [d for d in decisions if d["player"] == "Bob"]
    assert result["players"][1]["pr"] == pytest.approx(500 * sum(d["loss"] for d in bob) / len(bob), abs=0.02)


@pytest.mark.parametrize("content", ["not a match\n", None])
def test_an_unreadable_file_exits_2_with_one_line(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "broken.mat"
    if content is not None:
        path.write_text(content)
    done = _run("--game", "backgammon", "--mat", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")
