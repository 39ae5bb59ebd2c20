"""The codes of a finished match never hold a score at or above the match length (GNU Backgammon
aborts on such a match ID): the last game is coded as over, at the score before it (issue 24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.backgammon.formats import FormatError, MatchInfo, check_match_info, match_info_from_id
from engine.backgammon.variant import VARIANT
from engine.protocol import replay_states
from tests import oracles
from tests.engine.test_backgammon_formats import _ask_gnubg
from tests.engine.test_backgammon_matexport import random_match


def finished_codes() -> list[tuple[tuple[int, int], str, str]]:
    """(final score, GNUBG ID, XGID) of random finished 3-point matches."""
    out = []
    for seed in range(6):
        options, log, score = random_match(seed, 3)
        final = list(replay_states(VARIANT, options, log))[-1]
        codes = dict(VARIANT.position_codes(final))
        out.append((score, codes["GNUBG ID"], codes["XGID"]))
    return out


def test_finished_match_codes_keep_the_score_below_the_length() -> None:
    for score, gnubg_id, _ in finished_codes():
        assert max(score) >= 3
        coded = match_info_from_id(gnubg_id.split(":")[1])
        assert max(coded.score) < 3 and coded.match_length == 3


def test_a_score_that_has_won_the_match_cannot_be_written() -> None:
    with pytest.raises(FormatError, match="already won"):
        check_match_info(MatchInfo(match_length=3, score=(3, 1)))


def test_gnu_backgammon_reads_the_codes_of_finished_matches(tmp_path: Path) -> None:
    oracles.import_oracle("gnubg")
    codes = finished_codes()
    answers = _ask_gnubg([("gnubgid", gnubg_id) for _, gnubg_id, _ in codes], tmp_path)
    assert len(answers) == len(codes)
    # It read every one (it aborts on a score at or above the length) as a 3-point match under way.
    for shown in answers:
        assert match_info_from_id(shown.split(":")[1]).match_length == 3
