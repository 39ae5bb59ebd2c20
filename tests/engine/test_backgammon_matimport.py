"""Reading ``.mat`` files played elsewhere (engine/backgammon/matimport.py).

``mat_files/gnubg-*.mat`` were exported by Debian's GNU Backgammon 1.07 (``gnubg -t``: ``new match N``
played by gnubg against itself, then ``export match mat``). ``xg-5-point.mat`` is a third such export
dressed as eXtreme Gammon writes its files (its documented header lines, CRLF line ends);
``jellyfish-3-point.mat`` as Jellyfish writes them (no comment lines, repeated moves as ``(n)``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.game import BackgammonState
from engine.backgammon.matexport import mat_file
from engine.backgammon.matimport import MAX_BYTES, MatImportError, read_mat
from engine.backgammon.variant import VARIANT
from engine.protocol import Forfeit, Outcome, replay_states
from tests import oracles

FILES = Path(__file__).parent / "mat_files"


def final(options: dict[str, object], log: tuple[str, ...]) -> BackgammonState:
    state = list(replay_states(VARIANT, options, log))[-1]
    assert isinstance(state, BackgammonState)
    return state


@pytest.mark.parametrize(
    ("name", "names", "length", "games", "result"),
    [
        ("gnubg-7-point.mat", ("gnubg", "root"), 7, 3, "White wins the 7-point match 7-0"),
        # gnubg resigns a gammon at 2-2 (double match point): the match ends 4-2.
        ("gnubg-3-point.mat", ("gnubg", "root"), 3, 4, "Black wins the 3-point match 4-2"),
        ("xg-5-point.mat", ("Xavier", "Roller"), 5, 3, "Black wins the 5-point match 5-2"),
        ("jellyfish-3-point.mat", ("JellyFish", "Fredrik"), 3, 4, "Black wins the 3-point match 4-2"),
    ],
)
def test_exports_of_other_programs_are_replayed_to_their_result(
    name: str, names: tuple[str, str], length: int, games: int, result: str
) -> None:
    imported = read_mat((FILES / name).read_bytes())
    assert imported.names == names and imported.games == games
    assert imported.options == {"length": length, "rules": "standard"}
    state = final(imported.options, imported.log)
    assert state.result is not None and state.result.description == result


def test_our_own_export_reads_back_to_the_same_log() -> None:
    imported = read_mat((FILES / "gnubg-7-point.mat").read_bytes())
    text = mat_file(VARIANT, imported.options, imported.log, imported.names)
    assert text is not None
    again = read_mat(text)
    assert again.log == imported.log and again.names == imported.names


def test_nackgammon_is_read_from_its_variation_line() -> None:
    text = (FILES / "gnubg-7-point.mat").read_text()
    with pytest.raises(MatImportError, match="Line 10: 8/2: point 2 is held by the opponent"):
        # The gnubg match was played from the standard start: a play of it is not legal in nackgammon.
        read_mat('; [Variation "NackGammon"]\n' + text)
    with pytest.raises(MatImportError, match="HyperGammon"):
        read_mat('; [Variation "HyperGammon"]\n' + text)


def _edited(name: str, old: str, new: str) -> str:
    text = (FILES / name).read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "hello\n",
            'Line 1: This is not a .mat file: it starts with "hello"; a .mat file starts with a line '
            'such as " 7 point match".',
        ),
        ("", 'This is not a .mat file: it has no " N point match" line.'),
        (" 0 point match\n", "Line 1: This is a money session; only matches are read."),
        (" 31 point match\n", "Line 1: A 31-point match is longer than ours (1 to 25)."),
        (" 3 point match\n\n", "The file holds no game."),
        # An illegal play: 13/11 6/5 becomes 13/11 6/4 with 2-1.
        (
            _edited("gnubg-3-point.mat", "21: 13/11 6/5", "21: 13/11 6/4"),
            "Line 7: 13/11 6/4 is not a legal play of 2-1 for root here.",
        ),
        (
            _edited("gnubg-3-point.mat", "21: 13/11 6/5", "21: 13/11 6/5 6/5"),
            "Line 7: 13/11 6/5 6/5 is not a legal play of 2-1 for root here.",
        ),
        (
            _edited("gnubg-3-point.mat", "21: 13/11 6/5", "21: 13/x 6/5"),
            "Line 7: '13/x' is not a checker move (from/to, such as 24/18 or 8/5*).",
        ),
        (_edited("gnubg-3-point.mat", "Takes", "Beavers"), "Line 17: A beaver: our rules have no beavers."),
        (
            _edited(
                "gnubg-3-point.mat", " gnubg : 0                      root : 2", " gnubg : 0    root : 1"
            ),
            "Line 36: The score 0-1 does not add up: the games before give 0-2.",
        ),
        (
            _edited(
                "gnubg-3-point.mat", "                                  Wins 2 points", "      Wins 1 point"
            ),
            "resigns here",
        ),
    ],
)
def test_refusals_name_the_line_and_the_reason(text: str, reason: str) -> None:
    with pytest.raises(MatImportError) as caught:
        read_mat(text)
    assert reason in str(caught.value)


def test_a_file_too_big_or_not_text_is_refused() -> None:
    with pytest.raises(MatImportError, match="at most 1,000,000"):
        read_mat(b" 3 point match\n" + b" " * MAX_BYTES)
    with pytest.raises(MatImportError, match="not text"):
        read_mat(b"\x89PNG\r\n\x1a\n\0\0")


PNG_START = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0\x1f\xf3\xffa"


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (PNG_START, "This is not a .mat file: it is a PNG picture, not text."),
        (PNG_START.replace(b"\0", b"\x01"), "This is not a .mat file: it is a PNG picture, not text."),
        (b"GIF89a\x10\0\x10\0", "This is not a .mat file: it is a GIF picture, not text."),
        (b"\xff\xd8\xff\xe0\0\x10JFIF", "This is not a .mat file: it is a JPEG picture, not text."),
        (b"PK\x03\x04\x14\0\x06\0", "This is not a .mat file: it is a ZIP archive, not text."),
        (b"\x01\x02garbage\x03\x04\n", "This is not a .mat file: it is binary, not text."),
        (
            b"; a comment\n\n  <html><head><title>My match</title></head><body>\n",
            'Line 3: This is not a .mat file: it starts with "<html><head><title>My match</title></hea\u2026"; '
            'a .mat file starts with a line such as " 7 point match".',
        ),
        (
            b" Spiel 1\n",
            'Line 1: This is not a .mat file: it starts with "Spiel 1"; a .mat file starts with a line '
            'such as " 7 point match".',
        ),
    ],
)
def test_a_file_that_is_not_a_mat_file_is_told_for_what_it_is(data: bytes, said: str) -> None:
    """A picture renamed .mat is named as a picture, other binary files as binary (never their bytes);
    a text file is quoted shortly at the line it starts with, beside what a .mat file starts with."""
    with pytest.raises(MatImportError) as caught:
        read_mat(data)
    assert str(caught.value) == said


@pytest.mark.parametrize("name", ["xg-5-point.mat", "jellyfish-3-point.mat"])
def test_gnu_backgammon_imports_the_dressed_files_as_the_same_match(name: str, tmp_path: Path) -> None:
    # GNU Backgammon (the Debian program) imports the file and exports it again: read back, the same
    # match (its own export orders the moves of a play its way and spaces the columns its way).
    out = tmp_path / "again.mat"
    commands = f"import mat {FILES / name}\nexport match mat {out}\n"
    oracles.run_gnubg([oracles.gnubg_program(), "-t", "-q"], commands, tmp_path, timeout=60)
    again, first = read_mat(out.read_bytes()), read_mat((FILES / name).read_bytes())
    assert (again.names, again.options, again.log) == (first.names, first.options, first.log)


def test_a_player_who_rolled_and_resigned_reads_back_as_our_export_writes_it() -> None:
    # White rolls 5-2 and resigns the 1-point match before playing: the export writes the roll with no
    # play, then White's win; read back, the roll stands unplayed and the match ends there.
    log = ("opening 4-5", "move 13/8", "move 6/2", "roll 5-2")
    ending = Outcome(winner=1, reason=Forfeit.RESIGNATION, description="Black wins: White resigned.")
    text = mat_file(VARIANT, {"length": 1}, log, ("Ann", "Bo"), ending)
    assert text is not None and "52:" in text and "Wins 1 point" in text
    again = read_mat(text)
    assert again.log[-1] == "roll 5-2" and again.games == 1
    assert mat_file(VARIANT, again.options, again.log, again.names, ending) == text
    # Anything but the other player's win after an unplayed roll is refused, with the line.
    with pytest.raises(
        MatImportError, match="Line 6: Ann rolled 5-2 and did not play; only the other player's win"
    ):
        read_mat(text.replace("Wins 1 point and the match", "43: 24/20 13/10"))


def test_gnu_backgammon_writes_a_roll_then_resignation_as_we_do_and_we_read_its_file(tmp_path: Path) -> None:
    log = ("opening 4-5", "move 13/8", "move 6/2", "roll 5-2")
    ending = Outcome(winner=1, reason=Forfeit.RESIGNATION, description="Black wins: White resigned.")
    text = mat_file(VARIANT, {"length": 1}, log, ("Ann", "Bo"), ending)
    assert text is not None
    ours, out = tmp_path / "ours.mat", tmp_path / "again.mat"
    ours.write_text(text)
    commands = f"import mat {ours}\nexport match mat {out}\n"
    oracles.run_gnubg([oracles.gnubg_program(), "-t", "-q"], commands, tmp_path, timeout=60)
    exported = out.read_text()
    assert "52:" in exported and "Wins 1 point" in exported
    assert read_mat(exported).log == read_mat(text).log
