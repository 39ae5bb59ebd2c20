"""Jellyfish ``.mat`` match files: exact text for a hand-made match, the record checks, and GNU Backgammon
importing what we write (skipped where the ``gnubg`` program is not installed; CI installs it and fails
instead of skipping)."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest

from engine.backgammon.board import Board, RuleSet, Side, borne_off, starting_board
from engine.backgammon.formats import position_id
from engine.backgammon.matfile import MatAction, MatGame, MatMatch, MatRecordError, mat_name, mat_text
from engine.backgammon.notation import NO_PLAY, parse_play, play_text
from engine.backgammon.plays import legal_plays
from tests import oracles

A = MatAction

HAND_MADE = MatMatch(
    3,
    ("Alice", "Bob"),
    (
        MatGame(
            (0, 0),
            (
                A(1, "roll", (3, 1), "8/5 6/5"),
                A(0, "roll", (6, 4), "24/14"),
                A(1, "roll", (5, 2), "13/8 13/11*"),
                A(0, "roll", (4, 3), "bar/21 24/21"),
                A(1, "double"),
                A(0, "take"),
                A(1, "roll", (6, 6), "24/18(2) 13/7(2)"),
                A(0, "double"),
                A(1, "pass"),
                A(0, "win", points=2),
            ),
        ),
        MatGame(  # the Crawford game
            (2, 0),
            (
                A(0, "roll", (5, 2), "13/8 13/11"),
                A(1, "roll", (6, 6), "24/18(2) 13/7(2)"),
                A(0, "resign", points=1),
                A(1, "accept"),
                A(1, "win", points=1),
            ),
        ),
        MatGame(
            (2, 1),
            (
                A(1, "roll", (2, 4), "8/4 6/4"),
                A(0, "roll", (6, 5), "24/13"),
                A(1, "double"),
                A(0, "take"),
                A(1, "roll", (3, 3), "8/5(2) 6/3(2)"),
                A(1, "resign", points=2),
                A(0, "decline"),
                A(0, "resign", points=4),
                A(1, "accept"),
                A(1, "win", points=4),
            ),
        ),
    ),
)

HAND_MADE_TEXT = """\
 3 point match

 Game 1
 Alice : 0                      Bob : 0
  1)                             31: 8/5 6/5
  2) 64: 24/18 18/14             52: 13/8 13/11*
  3) 43: 25/21 24/21              Doubles => 2
  4)  Takes                      66: 24/18 24/18 13/7 13/7
  5)  Doubles => 4                Drops
      Wins 2 points

 Game 2
 Alice : 2                      Bob : 0
  1) 52: 13/8 13/11              66: 24/18 24/18 13/7 13/7
                                  Wins 1 point

 Game 3
 Alice : 2                      Bob : 1
  1)                             42: 8/4 6/4
  2) 65: 24/18 18/13              Doubles => 2
  3)  Takes                      33: 8/5 8/5 6/3 6/3
                                  Wins 4 points and the match

"""


def test_hand_made_match_text() -> None:
    assert mat_text(HAND_MADE) == HAND_MADE_TEXT


def test_layout_of_left_only_lines_and_a_pass_by_seat_zero() -> None:
    game = MatGame(
        (0, 0),
        (A(0, "roll", (6, 1), "13/7 8/7"), A(1, "roll", (2, 1), "13/11 6/5"), A(0, "double"), A(1, "pass")),
    )
    text = mat_text(
        MatMatch(
            0,
            ("Ann Lee", "Bo: 7, x"),
            (dataclasses.replace(game, actions=(*game.actions, A(0, "win", points=1))),),
        )
    )
    lines = text.splitlines()
    assert lines[:4] == [" 0 point match", "", " Game 1", " Ann Lee : 0                    Bo. 7. x : 0"]
    assert lines[4] == "  1) 61: 13/7 8/7                21: 13/11 6/5"
    assert lines[5] == "  2)  Doubles => 2                Drops"
    assert lines[6] == "      Wins 1 point"
    # A line with the left column only keeps its padding (GNU Backgammon's importer finds the right column by
    # a double space after column 15, and misreads short lines).
    text = mat_text(MatMatch(1, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (6, 1), "13/7 8/7"),)),)))
    assert text.splitlines()[-2] == "  1) 61: 13/7 8/7                "
    pass_by_left = MatGame((0, 0), (*game.actions[:2], A(1, "roll", (1, 2), "24/23 24/22")))
    # seat 1 rolls twice in a row: out of turn
    with pytest.raises(MatRecordError, match="turn"):
        mat_text(MatMatch(1, ("A", "B"), (pass_by_left,)))


def test_long_names_keep_a_space_between_columns() -> None:
    long = "x" * 40
    line = mat_text(MatMatch(1, (long, "y"), (MatGame((0, 0), ()),))).splitlines()[3]
    assert line == f" {long} : 0 y : 0"


def test_names() -> None:
    assert mat_name("  Ann\n Lee ") == "Ann Lee"
    with pytest.raises(MatRecordError):
        mat_name(" \n")


@pytest.mark.parametrize(
    ("match", "said"),
    [
        (dataclasses.replace(HAND_MADE, length=26), "1 to 25"),
        (dataclasses.replace(HAND_MADE, rules=RuleSet.OLDENGLISH), "Old English"),
        (
            MatMatch(3, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (6, 4), "24/14 13/9"),)),)),
            "not a legal play",
        ),
        (MatMatch(3, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (4, 4), "24/20(2)"),)),)), "opening roll"),
        (MatMatch(3, ("A", "B"), (MatGame((0, 0), (A(0, "double"),)),)), "before the opening roll"),
        (
            MatMatch(
                3,
                ("A", "B"),
                (MatGame((0, 0), (A(0, "roll", (6, 4), "24/14"), A(0, "roll", (6, 4), "24/14"))),),
            ),
            "turn",
        ),
        (
            MatMatch(3, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (6, 4), "24/14"), A(1, "take"))),)),
            "nothing offered",
        ),
        (
            MatMatch(
                3, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (6, 4), "24/14"), A(1, "win", points=1))),)
            ),
            "over",
        ),
        (
            MatMatch(
                3, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (6, 4), "24/14"), A(1, "resign", points=5))),)
            ),
            "1, 2 or 3",
        ),
        (
            MatMatch(3, ("A", "B"), (MatGame((0, 0), (A(0, "roll", (6, 4), "24/14"), A(1, "dance"))),)),
            "unknown action",
        ),
        (MatMatch(3, ("A", "B"), (MatGame((0, 1), ()),)), "not 0-0"),
        (dataclasses.replace(HAND_MADE, games=HAND_MADE.games[:1] + HAND_MADE.games[2:]), "not 2-0"),
        (
            dataclasses.replace(
                HAND_MADE,
                games=(
                    HAND_MADE.games[0],
                    dataclasses.replace(HAND_MADE.games[1], actions=HAND_MADE.games[1].actions[:2]),
                    HAND_MADE.games[2],
                ),
            ),
            "no winner",
        ),
    ],
)
def test_bad_records(match: MatMatch, said: str) -> None:
    with pytest.raises(MatRecordError, match=re.escape(said)):
        mat_text(match)


def test_no_double_in_the_crawford_game_and_win_points_checked() -> None:
    crawford = MatGame((2, 0), (A(0, "roll", (5, 2), "13/8 13/11"), A(1, "double")))
    with pytest.raises(MatRecordError, match="Crawford"):
        mat_text(dataclasses.replace(HAND_MADE, games=(HAND_MADE.games[0], crawford)))
    # Without the Crawford rule the same double is fine (importers assume the rule, though).
    mat_text(dataclasses.replace(HAND_MADE, crawford=False, games=(HAND_MADE.games[0], crawford)))
    wrong = dataclasses.replace(
        HAND_MADE.games[0], actions=(*HAND_MADE.games[0].actions[:-1], A(0, "win", points=4))
    )
    with pytest.raises(MatRecordError, match="worth 2"):
        mat_text(dataclasses.replace(HAND_MADE, games=(wrong,)))


# Random matches: random legal plays, random cube actions and resignations, to the end of the match.


def _game_value(loser: Side) -> int:
    if borne_off(loser):
        return 1
    return 3 if sum(loser[18:25]) else 2


def random_match(seed: int, length: int, rules: RuleSet = RuleSet.STANDARD, games: int = 0) -> MatMatch:
    """A random match record (``games`` games of money play when ``length`` is 0)."""
    rng = random.Random(seed)
    score = [0, 0]
    record: list[MatGame] = []
    crawford_done = False
    while (max(score) < length) if length else len(record) < games:
        crawford = bool(length) and not crawford_done and length - 1 in score
        crawford_done = crawford_done or crawford
        actions: list[MatAction] = []
        sides = list(starting_board(rules))
        d1 = d2 = 0
        while d1 == d2:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        seat, cube, owner, first = (0 if d1 > d2 else 1), 1, -1, True
        while True:
            if not first and not crawford and owner in (-1, seat) and rng.random() < 0.04:
                actions.append(A(seat, "double"))
                if rng.random() < 0.4:
                    actions += [A(1 - seat, "pass"), A(seat, "win", points=cube)]
                    winner, points = seat, cube
                    break
                actions.append(A(1 - seat, "take"))
                cube, owner = cube * 2, 1 - seat
            if not first and rng.random() < 0.01:
                offer = cube * rng.choice((1, 2, 3))
                actions.append(A(seat, "resign", points=offer))
                if rng.random() < 0.5:
                    actions.append(A(1 - seat, "decline"))
                else:
                    actions += [A(1 - seat, "accept"), A(1 - seat, "win", points=offer)]
                    winner, points = 1 - seat, offer
                    break
            if not first:
                d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            first = False
            play = rng.choice(legal_plays((sides[1 - seat], sides[seat]), d1, d2, rules))
            text = play_text(play)
            actions.append(A(seat, "roll", (d1, d2), "" if text == NO_PLAY else text))
            sides[seat], sides[1 - seat] = play.result[1], play.result[0]
            if borne_off(sides[seat]) == 15:
                winner, points = seat, cube * _game_value(sides[1 - seat])
                actions.append(A(seat, "win", points=points))
                break
            seat = 1 - seat
        record.append(MatGame((score[0], score[1]), tuple(actions)))
        score[winner] += points
    return MatMatch(length, ("Alice Smith", "Bob"), tuple(record), rules=rules)


def test_random_matches_write() -> None:
    for seed in range(5):
        text = mat_text(random_match(seed, 7))
        assert text.startswith(" 7 point match\n\n Game 1\n") and text.endswith(" and the match\n\n")


# GNU Backgammon reading our files back.

needs_gnubg = pytest.mark.usefixtures("gnubg_program")
"""Skipped without the gnubg program, failed under CI (tests/oracles.py)."""
_ENTRY = re.compile(r"(\d\d:(?: \d+/\d+\*?)*|Doubles => \d+|Takes|Drops|Wins \d+ points?)")


def entries(text: str) -> list[object]:
    """A .mat file as comparable entries: header lines, then (column, entry) with each roll's steps sorted
    (GNU Backgammon writes a roll's steps in its own order); comments and blank lines left out."""
    out: list[object] = []
    for line in text.splitlines():
        if line.startswith(";") or not line.strip():
            continue
        if line.startswith(" Game ") or " : " in line or line.endswith("point match"):
            out.append(line.strip())
            continue
        for match in _ENTRY.finditer(line):
            head, *steps = match.group(1).split(" ") if ":" in match.group(1) else (match.group(1),)
            out.append((int(match.start() >= 33), " ".join([head, *sorted(steps)])))
    return out


def gnubg_import(tmp_path: Path, text: str, name: str) -> tuple[str, str]:
    """Import ``text`` into gnubg, then export the match again: (gnubg's output, its exported file)."""
    source, again = tmp_path / f"{name}.mat", tmp_path / f"{name}.again.mat"
    source.write_text(text)
    commands = f"import mat {source}\nshow score\nshow board\nexport match mat {again}\n"
    done = oracles.run_gnubg([oracles.gnubg_program(), "-t", "-q"], commands, tmp_path, timeout=30)
    output = done.stdout + done.stderr
    assert not re.search(r"warning|unrecognised|invalid|illegal|error", output, re.IGNORECASE), output
    return output, again.read_text()


def final_score(match: MatMatch) -> tuple[int, int]:
    last = match.games[-1]
    wins = [a for a in last.actions if a.kind == "win"]
    score = list(last.score)
    for win in wins:
        score[win.seat] += win.points
    return score[0], score[1]


@needs_gnubg
def test_gnubg_imports_the_hand_made_match(tmp_path: Path) -> None:
    output, again = gnubg_import(tmp_path, HAND_MADE_TEXT, "hand")
    assert "Alice 2, Bob 5 (match to 3 points" in output
    assert entries(again) == entries(HAND_MADE_TEXT)


@needs_gnubg
@pytest.mark.parametrize(
    ("match", "name"),
    [
        (random_match(3, 7), "seed3"),
        (random_match(11, 7), "seed11"),
        (random_match(12, 5), "seed12"),
        (random_match(21, 3, RuleSet.NACKGAMMON), "nackgammon"),
        (random_match(22, 0, games=3), "money"),
    ],
)
def test_gnubg_reads_random_matches_as_we_wrote_them(tmp_path: Path, match: MatMatch, name: str) -> None:
    """GNU Backgammon replays every play (it warns on one it finds illegal), every cube action and
    resignation, and writes the same match back, with the same points for each game it scored itself."""
    text = mat_text(match)
    output, again = gnubg_import(tmp_path, text, name)
    assert entries(again) == entries(text)
    score = final_score(match)
    if match.length:
        assert f"Alice Smith {score[0]}, Bob {score[1]} (match to {match.length} points" in output
    else:
        assert f"Alice Smith {score[0]}, Bob {score[1]} (money session" in output


def test_random_matches_cover_the_cases() -> None:
    """The matches given to gnubg above hold every case the format has."""
    matches = [random_match(3, 7), random_match(11, 7), random_match(12, 5)]
    actions = [a for m in matches for g in m.games for a in g.actions]
    texts = "".join(mat_text(m) for m in matches)
    assert {a.kind for a in actions} == {
        "roll",
        "double",
        "take",
        "pass",
        "resign",
        "accept",
        "decline",
        "win",
    }
    assert any(a.kind == "roll" and not a.play for a in actions)  # cannot move
    assert "/0" in texts and " 25/" in texts and "*" in texts  # bear-off, bar entry, hit
    gammons = [
        g.actions[-1].points // 2 ** sum(a.kind == "take" for a in g.actions)
        for m in matches
        for g in m.games
        if g.actions[-1].kind == "win" and g.actions[-2].kind == "roll"
    ]
    assert 2 in gammons or 3 in gammons, gammons
    crawford = [g for m in matches for g in m.games if m.length - 1 in g.score]
    assert crawford


@needs_gnubg
def test_gnubg_position_after_an_unfinished_game(tmp_path: Path) -> None:
    """A match still being played: gnubg's position after our last roll is the one our engine reached."""
    match = random_match(22, 3)
    last = match.games[-1]
    cut = dataclasses.replace(match, games=(*match.games[:-1], MatGame(last.score, last.actions[:9])))
    sides = list(starting_board())
    seat = 0
    for action in cut.games[-1].actions:
        assert action.kind == "roll" and action.dice is not None
        seat = action.seat
        board: Board = (sides[1 - seat], sides[seat])
        play = parse_play(action.play or NO_PLAY, board, *action.dice)
        sides[seat], sides[1 - seat] = play.result[1], play.result[0]
    on_roll = 1 - seat
    output, _ = gnubg_import(tmp_path, mat_text(cut), "unfinished")
    assert f"Position ID: {position_id((sides[1 - on_roll], sides[on_roll]))}" in output
