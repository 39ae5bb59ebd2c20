"""The file the analysis message carries for other programs (``cogs.analysis_posts.analysed_match_file``:
GNU Backgammon's ``.sgf`` with the analysis in it): named after the match, left out when the game has no
such format or it cannot be built (the analysis is posted without it). The posts themselves:
tests/bot/test_coach_discord.py and tests/bot/test_analyse_file.py; the file's content:
tests/engine/test_backgammon_sgfexport.py."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from cogs.analysis_posts import analysed_match_file
from engine.ai.coaching import Analysis, PlayerReport, Scale
from engine.backgammon.variant import VARIANT

PLAYER = PlayerReport(0, 0, 0.0, 0, 0, 0, 0.0, 0)
ANALYSIS = Analysis((PLAYER, PLAYER), (), (), Scale.MATCH, "3-ply")
LOG = ["opening 3-1", "8/5 6/5"]


def test_the_file_is_named_after_the_match() -> None:
    made = analysed_match_file(VARIANT, ({"length": 3}, LOG, None), ("Ann", "Bob"), ANALYSIS, "match-12")
    assert made is not None and made.filename == "match-12.sgf"
    assert made.description is not None and "GNU Backgammon" in made.description


def test_no_file_where_the_game_has_none() -> None:
    options = {"length": 1, "rules": "oldenglish"}
    assert analysed_match_file(VARIANT, (options, LOG, None), ("Ann", "Bob"), ANALYSIS, "match-12") is None


def test_a_file_that_cannot_be_built_is_left_out_and_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("no")

    monkeypatch.setattr(type(VARIANT), "export_analysis", broken)
    with caplog.at_level(logging.ERROR):
        assert (
            analysed_match_file(VARIANT, ({"length": 3}, LOG, None), ("A", "B"), ANALYSIS, "match-1") is None
        )
    assert "could not be built" in caplog.text
