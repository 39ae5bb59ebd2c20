"""The computer in money play: bgsage is told it is cubeful money play (0-away each) with the
session's Jacoby and beaver rules, and its cube decisions (double, take, pass, beaver) are played."""

from __future__ import annotations

import random

import pytest

from engine.ai.backgammon_analysis import analyse
from engine.ai.backgammon_bgsage import EASY, HARD, MEDIUM, context
from engine.ai.backgammon_hints import hint
from engine.ai.coaching import Scale
from engine.backgammon.board import side_from
from engine.backgammon.game import BackgammonState, Beaver, Double, Pass, Phase, Take
from engine.backgammon.variant import VARIANT
from tests.engine.test_backgammon_money import act, money


def test_context_of_a_money_session_is_cubeful_money_play_with_its_rules() -> None:
    ctx = context(act(money(beavers=True), "double", "take"), 0, money=False)
    assert (ctx.away1, ctx.away2, ctx.crawford, ctx.cubeful) == (0, 0, False, True)
    assert (ctx.cube_value, ctx.cube_owner, ctx.jacoby, ctx.beaver) == (2, "player", True, True)
    plain = context(money(jacoby=False), 1, money=False)
    assert (plain.jacoby, plain.beaver) == (False, False)
    match = context(VARIANT.new_game({"length": 5}), 0, money=False)
    assert (match.away1, match.jacoby, match.beaver) == (5, False, False)


def test_computer_beavers_an_early_double_in_money_play_with_beavers() -> None:
    # Black doubles at once after White's good opening 3-1: a beaver for White.
    s = act(money(beavers=True), "double")
    for player in (MEDIUM, HARD):
        assert player(s.view(0), random.Random(1)) == Beaver()


def test_computer_takes_the_same_double_without_beavers() -> None:
    s = act(money(), "double")
    assert MEDIUM(s.view(0), random.Random(1)) == Take()


def racing(**options: object) -> BackgammonState:
    """White to roll or double in money play, far ahead in a race with no gammon left (all 15 of
    White's checkers on its 1- to 3-points, Black's 15 on its 4- to 6-points)."""
    sides = (side_from({1: 5, 2: 5, 3: 5}), side_from({4: 5, 5: 5, 6: 5}))
    return VARIANT.new_game({"length": 0, **options}).but(sides=sides, phase=Phase.DECIDE, turn_seat=0)


def test_computer_doubles_and_passes_a_hopeless_money_position() -> None:
    s = racing()
    for player in (EASY, MEDIUM, HARD):
        assert player(s.view(0), random.Random(2)) == Double()
    doubled = act(s, "double")
    for player in (MEDIUM, HARD):
        assert player(doubled.view(1), random.Random(2)) == Pass()


def test_hint_in_a_money_session_gives_money_equities_whatever_the_score() -> None:
    """Money equities do not depend on the points won so far (a match's would: it reads the score)."""
    fresh = act(money(beavers=True), "double")
    ahead = fresh.but(score=(40, 3))
    first, later = hint(fresh.view(0)), hint(ahead.view(0))
    assert [c.text for c in first.choices] == [c.text for c in later.choices]
    assert [c.equity for c in first.choices] == pytest.approx([c.equity for c in later.choices])
    # The beaver is named, at twice the take's equity: best when the take is worth more than 0.
    beaver, take = (next(c for c in first.choices if c.text.startswith(word)) for word in ("Beaver", "Take"))
    assert first.question == "Take, beaver or pass" and beaver.best
    assert beaver.equity == pytest.approx(2 * take.equity) and take.equity > 0


def test_the_analysis_counts_a_beaver_as_the_answer_to_a_double() -> None:
    """A beaver is one of three answers to a double in a session with beavers (take, beaver, pass):
    the analysis judges it against the other two, a beaver worth twice the take (the hint's rule)."""
    options = VARIANT.resolve_options({"length": 0, "beavers": True})
    log = ["opening 2-5", "move 8/6", "move 13/8", "double", "beaver", "roll 4-6", "move 13/9", "move 24/18"]
    answers = [d for d in analyse(options, log, level="2ply").decisions if d.kind == "take"]
    assert [(d.played, d.choices) for d in answers] == [("Beaver", 3)]
    took = [
        d for d in analyse(options, [*log[:4], "take", *log[5:]], level="2ply").decisions if d.kind == "take"
    ]
    assert [(d.played, d.best, d.choices) for d in took] == [("Take", "Beaver", 3)]
    assert took[0].loss == pytest.approx(answers[0].best_equity - took[0].played_equity)


def test_hints_and_analyses_of_a_money_session_are_in_cubeful_money_equity() -> None:
    """Issue 33: they were labelled match equity (the score, the Crawford game), which a money session
    has not; a match keeps its scale, Old English its cubeless money one."""
    doubled = act(money(beavers=True), "double")
    assert hint(doubled.view(0)).scale is Scale.CUBEFUL_MONEY
    assert hint(act(money(), "roll", "roll 5-2").view(1)).scale is Scale.CUBEFUL_MONEY
    options = VARIANT.resolve_options({"length": 0})
    assert (
        analyse(options, ["opening 2-5", "move 8/6", "move 13/8"], level="2ply").scale is Scale.CUBEFUL_MONEY
    )
    assert analyse({"length": 3}, ["opening 2-5", "move 8/6", "move 13/8"], level="2ply").scale is Scale.MATCH


def cash_with_no_gammon() -> BackgammonState:
    """White to roll or double in money play with two checkers on its 1-point (any roll bears both
    off), Black with a checker off already: no double and double/pass are both worth the game."""
    sides = (side_from({1: 2}), side_from({4: 4, 5: 5, 6: 5}))
    return VARIANT.new_game({"length": 0}).but(sides=sides, phase=Phase.DECIDE, turn_seat=0)


def test_a_cash_with_no_gammon_chances_is_double_pass_as_gnu_backgammon_says() -> None:
    """Issue 33: No double and Double/pass worth the same (+1.000 each): GNU Backgammon's 2-ply says
    "Proper cube action: Double, pass" for this position (eN8HAIABAAAAAA, X on roll, Jacoby off or
    on); the hint said "No double" and the computer rolled on. The tie is broken towards cashing."""
    s = cash_with_no_gammon()
    given = hint(s.view(0))
    assert given.advice.startswith("Double:"), given.advice
    assert given.choices[0].equity == pytest.approx(given.choices[1].equity)
    assert given.choices[0].best and given.choices[0].action == "double", given.choices
    for player in (EASY, MEDIUM, HARD):
        assert player(s.view(0), random.Random(1)) == Double()
