"""Our matches as GNU Backgammon ``.sgf`` files with our analysis in them (``engine.backgammon.sgfexport``):
the writer's text for cube decisions, resignations, the Crawford game, money sessions and nackgammon,
old analyses without candidates; and GNU Backgammon opening what we write: the same games as it reads
from our ``.mat`` file, and our analysis in its own (skipped where the ``gnubg`` program is not
installed; CI installs it and fails instead of skipping)."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.ai.backgammon_analysis import analyse
from engine.ai.coaching import Analysis, Candidate, Decision, PlayerReport, Scale
from engine.backgammon.sgfexport import gnubg_plies, moves_text, sgf_games, sgf_text
from engine.backgammon.variant import VARIANT
from engine.protocol import CHANCE, Forfeit, Outcome
from tests import oracles
from tests.engine.test_backgammon_matexport import random_match
from tests.engine.test_backgammon_money import random_session

NAMES = ("Alice", "Bob")
needs_gnubg = pytest.mark.usefixtures("gnubg_program")


def _analysis(decisions: tuple[Decision, ...]) -> Analysis:
    player = PlayerReport(0, 0, 0.0, 0, 0, 0, 0.0, 0)
    return Analysis((player, replace(player, seat=1)), decisions, (), Scale.MATCH, "3-ply")


def _play(
    action: int, played: str, best: str, loss: float, candidates: tuple[Candidate, ...] = ()
) -> Decision:
    return Decision(
        seat=1,
        game=1,
        turn=1,
        kind="play",
        played=played,
        best=best,
        loss=loss,
        unforced=True,
        played_equity=0.1,
        best_equity=0.1 + loss,
        action=action,
        candidates=candidates,
    )


# The writer.


def test_moves_are_letters_from_the_movers_side_bar_y_and_off_z() -> None:
    from engine.backgammon.plays import Move

    assert moves_text([Move(8, 5), Move(6, 5)], 1) == "qtst"  # Black's 8/5 6/5, as GNU Backgammon writes
    assert moves_text([Move(24, 18), Move(18, 14)], 0) == "xrrn"  # White's 24/18 18/14
    assert moves_text([Move(25, 22), Move(3, 0)], 0) == "yvcz"  # bar/22 3/off


def test_plies_are_counted_from_zero_as_gnu_backgammon_counts_them() -> None:
    assert gnubg_plies("3-ply") == 2 and gnubg_plies("1-ply") == 0 and gnubg_plies("expert") == 0


def test_a_match_without_analysis_has_the_moves_only() -> None:
    log = ["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "move 24/18", "move 18/14"]
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES)
    assert text is not None
    root, first, second = text.strip().split("\n")
    assert (
        root
        == "(;FF[4]GM[6]CA[UTF-8]AP[Ringside]MI[length:3][game:0][ws:0][bs:0]PW[Alice]PB[Bob]RU[Crawford]"
    )
    assert first == ";W[31hefe]"  # White (seat 0) opened with 3-1: 8/5 6/5 from its side
    assert second == ";B[64aggk])"  # one node for the turn played a checker at a time (Black's 24 is a)


def test_a_checker_play_carries_its_candidates_the_played_one_marked() -> None:
    log = ["opening 3-1", "8/5 6/5"]
    candidates = (Candidate("8/5 6/5", 0.2), Candidate("24/23 13/10", 0.1), Candidate("nonsense", 0.0))
    decision = replace(_play(1, "24/23 13/10", "8/5 6/5", 0.05, candidates), seat=0)
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES, _analysis((decision,)))
    assert text is not None
    node = text.strip().split("\n")[1]
    assert node.startswith(
        ";W[31hefe]A[1][hefe E ver 3 0.000000 0.000000 0.000000 0.000000 0.000000 0.200000 2C 0 1"
    )
    assert "[mjxw E ver 3" in node or "[xwmj E ver 3" in node  # 13/10 24/23
    assert node.count("E ver 3") == 2  # a candidate that is no play of the roll is left out
    assert node.endswith("MR[]BM[1])")  # an error: 0.05 lost (our errors from 0.04, blunders from 0.08)


def test_an_old_analysis_without_candidates_gives_the_played_and_the_best_play() -> None:
    log = ["opening 3-1", "8/5 6/5"]
    decision = replace(_play(1, "24/23 13/10", "8/5 6/5", 0.03), seat=0)
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES, _analysis((decision,)))
    assert text is not None
    node = text.strip().split("\n")[1]
    assert node.count("E ver 3") == 2 and node.startswith(";W[31hefe]A[1][hefe E ver") and "DO[]" in node
    # Older still, without the action it was made at: the moves only.
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES, _analysis((replace(decision, action=None),)))
    assert text is not None and text.endswith(";W[31hefe])\n")


def test_cube_decisions_carry_no_double_and_double_take() -> None:
    log = ["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "double", "take", "roll 5-2", "13/8 13/11"]
    cube = Decision(0, 1, 2, "cube", "Double", "No double", 0.05, True, action=5)
    three = (Candidate("No double", 0.45), Candidate("Double, take", 0.4), Candidate("Double, pass", 1.0))
    rolled_on = replace(
        cube, seat=1, played="No double", best="No double", loss=0.0, action=2, candidates=three
    )
    take = Decision(1, 1, 2, "take", "Take", "Take", 0.0, True, action=6, candidates=three)
    analysis = _analysis((rolled_on, replace(cube, candidates=three), take))
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES, analysis)
    assert text is not None
    nodes = text.strip().split("\n")[1:]
    da = "DA[E ver 3 2C 1 0.000000 1 " + " ".join(["0.000000"] * 6) + " 0.450000 "
    da += " ".join(["0.000000"] * 6) + " 0.400000]"
    assert nodes[1] == ";B[64aggk]" + da  # the roll on before Black's move: on the move's node
    assert nodes[2] == ";W[double]" + da + "BM[1]"  # a double that lost 0.05: an error
    assert nodes[3] == ";B[take]" + da
    assert nodes[4].startswith(";W[52")


def test_a_roll_on_before_a_resignation_is_on_no_node() -> None:
    log = [
        "opening 3-1",
        "8/5 6/5",
        "roll",
        "roll 6-4",
        "resign single",
        "accept",
        "opening 5-2",
        "13/8 13/11",
    ]
    three = (Candidate("No double", 0.45), Candidate("Double, take", 0.4), Candidate("Double, pass", 1.0))
    rolled_on = Decision(1, 1, 1, "cube", "No double", "No double", 0.0, True, action=2, candidates=three)
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES, _analysis((rolled_on,)))
    assert text is not None and "DA[" not in text
    assert text.rstrip().endswith(
        ";PL[B]DI[64])\n(;FF[4]GM[6]CA[UTF-8]AP[Ringside]MI[length:3][game:1][ws:1][bs:0]PW[Alice]PB[Bob]RU[Crawford]\n;W[52mhmk])"
    )


def test_a_beaver_is_a_double_back_then_the_doublers_take() -> None:
    given, log, _ = random_session(8, beavers=True)
    text = sgf_text(VARIANT, given, log, NAMES)
    assert text is not None and text.startswith("(;FF[4]GM[6]")
    assert "MI[length:0][game:0]" in text and "RU[Jacoby]" in text
    assert ";B[double]\n;W[double]\n;B[take]" in text


def test_resignations_and_the_crawford_game_are_in_the_game_roots() -> None:
    log = ["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "resign gammon", "accept"]
    log += ["opening 5-2", "13/8 13/11", "roll 6-6", "resign single", "accept"]
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES)
    assert text is not None
    first, second = text.strip().split("\n)")[0], text.split("\n(")[1]
    assert "RE[B+2R]" in first and "RU[Crawford]" in first
    assert "MI[length:3][game:1][ws:0][bs:2]" in second and "RU[Crawford:CrawfordGame]" in second
    # Black rolled 6-6 and resigned before playing it: the dice alone, as GNU Backgammon writes them.
    assert "RE[W+1R]" in second and second.rstrip().endswith(";PL[B]DI[66])")


def test_a_match_ended_off_the_board_is_resigned_in_its_game() -> None:
    log = ["opening 3-1", "8/5 6/5", "roll", "roll 6-4", "24/14", "double"]
    ending = Outcome(winner=0, reason=Forfeit.RESIGNATION, description="resigned", points=1, length=0)
    text = sgf_text(VARIANT, {"length": 3}, log, NAMES, ending=ending)
    assert text is not None and text.rstrip().endswith(";W[double]\n;B[drop])") and "RE[W+1]" in text
    assert "RE[" not in (sgf_text(VARIANT, {"length": 3}, log, NAMES) or "")


def test_nackgammon_a_money_game_and_the_matches_without_a_file() -> None:
    options, log, _ = random_match(4, 1, "nackgammon")
    text = sgf_text(VARIANT, options, log, NAMES)
    assert text is not None and "RU[Nackgammon]" in text and "Crawford" not in text
    options, log, _ = random_match(1, 1, "oldenglish")
    assert sgf_text(VARIANT, options, log, NAMES) is None  # GNU Backgammon does not know the rule
    assert sgf_text(VARIANT, {"length": 3}, [], NAMES) is None  # no roll: nothing to open
    # A match started from a set position: each game of the file starts from the opening.
    started = VARIANT.resolve_options({"position": "4HPwATDgc/ABMA:MAHuAAAAAAAE"})
    assert sgf_text(VARIANT, started, ["13/9 24/21"], NAMES) is None
    assert VARIANT.export_analysis(started, ["13/9 24/21"], NAMES, _analysis(())) is None
    no_jacoby = sgf_text(VARIANT, {"length": 0, "jacoby": False}, ["opening 3-1", "8/5 6/5"], NAMES)
    assert no_jacoby is not None and "MI[length:0]" in no_jacoby and "RU[" not in no_jacoby


def test_the_variant_names_the_file_after_the_players() -> None:
    exported = VARIANT.export_analysis(
        {"length": 3}, ["opening 3-1", "8/5 6/5"], ("Ann Lee", "Bo!"), _analysis(())
    )
    assert exported is not None and exported.filename == "AnnLee-vs-Bo.sgf"
    assert exported.data.startswith(b"(;FF[4]GM[6]") and "GNU Backgammon" in exported.description


def test_names_are_escaped() -> None:
    text = sgf_text(VARIANT, {"length": 1}, ["opening 3-1", "8/5 6/5"], ("a]b", "c\\d"))
    assert text is not None and "PW[a\\]b]PB[c\\\\d]" in text


def test_each_game_is_a_tree_of_its_own() -> None:
    options, log, _ = random_match(3, 5)
    games = sgf_games(VARIANT, options, log)
    text = sgf_text(VARIANT, options, log, NAMES)
    assert text is not None and text.count("(;FF[4]") == len(games) > 1
    assert all(game.winner is not None for game in games)


# GNU Backgammon opening what we write.

_DUMP = """
import gnubg, json, sys
for command in {commands!r}:
    gnubg.command(command)
    m = gnubg.match(analysis=1, boards=0, statistics=0)
    games = []
    for g in m["games"]:
        actions = []
        for a in g["game"]:
            an = a.get("analysis", {{}})
            actions.append({{
                "action": a["action"], "player": a.get("player"), "dice": a.get("dice"),
                "move": sorted(a.get("move", [])),
                "scores": [x["score"] for x in an.get("moves", [])], "imove": an.get("imove"),
                "nd": an.get("nd-cubeful-eq"), "dt": an.get("dt-cubeful-eq"),
            }})
        games.append({{"info": g["info"], "actions": actions}})
    print("MATCH " + json.dumps(games), flush=True)
"""


def gnubg_reads(tmp_path: Path, commands: list[str]) -> list[list[dict[str, Any]]]:
    """The games GNU Backgammon reads after each command (``load match x.sgf``, ``import mat x.mat``):
    each game's info and actions (moves sorted: its order of a roll's moves is its own)."""
    script = tmp_path / "dump.py"
    script.write_text(_DUMP.format(commands=commands))
    done = oracles.run_gnubg([oracles.gnubg_program(), "-t", "-q", "-p", str(script)], "", tmp_path, 120)
    output = done.stdout + done.stderr
    found = [json.loads(line[6:]) for line in done.stdout.splitlines() if line.startswith("MATCH ")]
    assert len(found) == len(commands), output
    assert "warning" not in output.lower() and "error" not in output.lower(), output
    return found


def _net(move: list[list[int]]) -> tuple[list[int], list[int]]:
    """A play's points left and reached: 13/11 11/6 and 13/8 8/6 are the same play."""
    left, reached = Counter(a for a, _ in move), Counter(b for _, b in move)
    return sorted((left - reached).elements()), sorted((reached - left).elements())


def _without_analysis(games: list[dict[str, Any]]) -> list[Any]:
    return [
        (game["info"], [(a["action"], a["player"], a["dice"], _net(a["move"])) for a in game["actions"]])
        for game in games
    ]


@needs_gnubg
def test_gnu_backgammon_reads_our_matches_as_from_our_mat_files(tmp_path: Path) -> None:
    """Matches of random actions (cube actions, beavers, resignations), a nackgammon match and a money
    session: GNU Backgammon reads the same games, moves and results from our .sgf and our .mat."""
    matches = [
        random_match(200 + seed, 5, "nackgammon" if seed == 2 else "standard")[:2] for seed in range(4)
    ]
    matches.append(random_session(8, beavers=True)[:2])
    matches.append(random_match(7, 1)[:2])
    commands = []
    for n, (options, log) in enumerate(matches):
        sgf, mat = sgf_text(VARIANT, options, log, NAMES), VARIANT.export_match(options, log, NAMES)
        assert sgf is not None and mat is not None
        (tmp_path / f"m{n}.sgf").write_text(sgf)
        (tmp_path / f"m{n}.mat").write_bytes(mat.data)
        commands += [f"load match {tmp_path / f'm{n}.sgf'}", f"import mat {tmp_path / f'm{n}.mat'}"]
    read = gnubg_reads(tmp_path, commands)
    for n in range(len(matches)):
        from_sgf, from_mat = read[2 * n], read[2 * n + 1]
        assert _without_analysis(from_sgf) == _without_analysis(from_mat), n
        assert len(from_sgf) == sum(1 for _ in sgf_games(VARIANT, *matches[n]))


def _rolled_match(seed: int, length: int) -> tuple[dict[str, object], list[str]]:
    """A match played by the random legal actions of ``random_match`` but never resigned, so that it has
    checker plays and cube decisions to analyse."""
    rng = random.Random(seed)
    options: dict[str, object] = {"length": length}
    state = VARIANT.new_game(options)
    log = []
    while not state.is_terminal():
        if state.to_move() == CHANCE:
            action = state.chance_action((rng.randint(1, 6), rng.randint(1, 6)))
        else:
            action = rng.choice(state.legal_actions())
        log.append(action.notation)
        state = state.apply(action)
    return options, log


@needs_gnubg
def test_gnu_backgammon_sees_our_analysis(tmp_path: Path) -> None:
    """Each analysed checker play's candidates are GNU Backgammon's list of moves with our equities and
    the played one marked; each cube decision's no double and double/take equities are its own."""
    options, log = _rolled_match(5, 3)
    analysis = analyse(options, log, level="1ply")
    text = sgf_text(VARIANT, options, log, NAMES, analysis)
    assert text is not None
    (tmp_path / "a.sgf").write_text(text)
    (games,) = gnubg_reads(tmp_path, [f"load match {tmp_path / 'a.sgf'}"])
    moves = [a for game in games for a in game["actions"] if a["action"] == "move"]
    nodes = [node for game in sgf_games(VARIANT, options, log, analysis) for node in game.nodes]
    assert len(moves) == sum(1 for node in nodes if not node.text.startswith("PL[")) - sum(
        1 for node in nodes if node.text[2:-1] in ("double", "take", "drop")
    )
    plays = [node for node in nodes if node.text[2:-1] not in ("double", "take", "drop")]
    checked = cubes = 0
    for node, read in zip(plays, moves, strict=True):
        if node.play is not None and node.play.candidates:
            ours = [c.equity for c in node.play.candidates]
            assert read["scores"] == pytest.approx(ours, abs=1e-5)
            assert ours[read["imove"]] == pytest.approx(node.play.played_equity, abs=1e-9)
            checked += 1
        if node.cube is not None:
            assert read["nd"] == pytest.approx(node.cube.candidates[0].equity, abs=1e-5)
            assert read["dt"] == pytest.approx(node.cube.candidates[1].equity, abs=1e-5)
            cubes += 1
    assert checked >= 10 and cubes >= 1


@needs_gnubg
def test_an_automatic_double_starts_the_games_cube_in_gnu_backgammon(tmp_path: Path) -> None:
    """A money session with automatic doubles (which a .mat file cannot hold): the game's root says its
    cube (``CV[2]``), and GNU Backgammon reads each game's result as ours."""
    given, log, _ = random_session(0, automatic=1)
    games = sgf_games(VARIANT, given, log)
    assert games[0].cube == 2 and VARIANT.export_match(given, log, NAMES) is None
    text = sgf_text(VARIANT, given, log, NAMES)
    assert text is not None and "CV[2]" in text.split("\n")[0]
    (tmp_path / "auto.sgf").write_text(text)
    (read,) = gnubg_reads(tmp_path, [f"load match {tmp_path / 'auto.sgf'}"])
    assert read[0]["info"]["initial-cube"] == 2
    assert [(g["info"]["winner"], g["info"]["points-won"]) for g in read] == [
        ("XO"[game.winner or 0], game.points) for game in games
    ]
