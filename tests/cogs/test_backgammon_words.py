"""Backgammon's words on the controls and the board: one pip is "1 pip", not "1 pips" (issue 24,
rough edges: "Move a checker 1 pips")."""

from __future__ import annotations

from cogs.panels.backgammon import die_select_label
from render.backgammon import pip_count_text


def test_a_one_is_one_pip_and_more_are_pips() -> None:
    assert die_select_label(1) == "Move a checker 1 pip…"
    assert die_select_label(5) == "Move a checker 5 pips…"
    assert [pip_count_text(n) for n in (0, 1, 2, 167)] == ["0 pips", "1 pip", "2 pips", "167 pips"]
