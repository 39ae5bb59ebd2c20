"""The ring panel lays out the engine's legal actions: a move step is one pick ("2 tokens 7 → 11 (4)")."""

from __future__ import annotations

from cogs.panels.base import ROLL, ButtonSpec, PanelSpec, SelectSpec
from cogs.panels.ring import PANEL
from engine.ring import Phase, RingState


def position(stacks: dict[int, int], phase: Phase, **kw: object) -> RingState:
    board = tuple(stacks.get(s, 0) for s in range(1, 13))
    red = sum(v for v in board if v > 0)
    blue = -sum(v for v in board if v < 0)
    return RingState(board=board, piles=(12 - red, 12 - blue), phase=phase, turn_seat=0, turn_number=3, **kw)  # type: ignore[arg-type]


def values(row: object) -> list[str]:
    if isinstance(row, SelectSpec):
        return [o.value for o in row.options]
    assert isinstance(row, tuple)
    return [b.value for b in row if isinstance(b, ButtonSpec)]


def test_roll_phase_shows_one_roll_button() -> None:
    spec = PANEL.controls(position({7: 1, 8: -1}, Phase.ROLL), "")
    assert [values(r) for r in spec.rows] == [[ROLL]]


def labels(row: object) -> list[str]:
    if isinstance(row, SelectSpec):
        return [o.label for o in row.options]
    assert isinstance(row, tuple)
    return [b.label for b in row if isinstance(b, ButtonSpec)]


def all_values(spec: PanelSpec) -> list[str]:
    return [v for row in spec.rows for v in values(row)]


def test_a_move_is_one_pick_of_a_whole_step_one_stack_a_row() -> None:
    state = position({7: 3, 2: 1, 1: -1}, Phase.MOVE, dice=(2, 4, 1), dice_left=(2, 4))
    spec = PANEL.controls(state, "")
    assert [labels(r) for r in spec.rows] == [
        ["1 token 2 → 4 (2)", "1 token 2 → 6 (4)"],
        ["1 token 7 → 9 (2)", "2 tokens 7 → 9 (2)", "3 tokens 7 → 9 (2)"],
        ["1 token 7 → 11 (4)", "2 tokens 7 → 11 (4)", "3 tokens 7 → 11 (4)"],
    ]
    assert values(spec.rows[0]) == ["a:move 1 from 2 by 2", "a:move 1 from 2 by 4"]
    assert all(isinstance(r, tuple) for r in spec.rows) and not spec.notes


def test_a_step_onto_an_enemy_stack_says_what_it_captures() -> None:
    state = position({7: 3, 9: -2}, Phase.MOVE, dice=(2, 6, 1), dice_left=(2, 6))
    spec = PANEL.controls(state, "")
    found = [label for row in spec.rows for label in labels(row)]
    assert "2 tokens 7 → 9 (2), captures 2" in found and "3 tokens 7 → 9 (2), captures 2" in found
    assert "1 token 7 → 9 (2)" not in " | ".join(found)  # too small to land there: not offered
    assert "1 token 7 → 1 (6)" in found  # an empty space: no capture


def test_more_steps_than_rows_of_buttons_become_one_select_in_order() -> None:
    # 5 + 4 tokens on two stacks, two dice: 18 steps fit 4 rows of 5 buttons only when mixed.
    state = position({1: 5, 3: 4, 12: -1}, Phase.MOVE, dice=(1, 2, 1), dice_left=(1, 2))
    spec = PANEL.controls(state, "")
    assert len(spec.rows) == 4 and all(isinstance(r, tuple) and len(r) <= 5 for r in spec.rows)
    assert len(all_values(spec)) == 18
    # 6 + 6 tokens: 24 steps, one select, by stack, then die, then count.
    state = position({1: 6, 3: 6, 12: -1}, Phase.MOVE, dice=(1, 2, 1), dice_left=(1, 2))
    spec = PANEL.controls(state, "")
    assert len(spec.rows) == 1 and isinstance(spec.rows[0], SelectSpec)
    assert labels(spec.rows[0])[:7] == [
        *(f"{n} token{'s' if n > 1 else ''} 1 → 2 (1)" for n in range(1, 7)),
        "1 token 1 → 3 (2)",
    ]
    assert len(spec.rows[0].options) == 24


def test_more_steps_than_a_select_holds_pick_the_stack_first() -> None:
    # Ring cannot get there (12 tokens, two dice: 24 steps at most), but the layout would still fit.
    state = position({1: 6, 3: 4, 5: 4, 12: -1}, Phase.MOVE, dice=(1, 2, 1), dice_left=(1, 2))
    first = PANEL.controls(state, "")
    assert values(first.rows[0]) == ["n:m1", "n:m3", "n:m5"]
    steps = PANEL.controls(state, "m1")
    assert all(" from 1 by " in v for v in all_values(steps) if v != "n:")
    assert len([v for v in all_values(steps) if v.startswith("a:")]) == 12
    assert values(PANEL.controls(state, "m3").rows[0])[0] == "a:move 1 from 3 by 1"
    assert values(steps.rows[-1]) == ["n:"]  # Back
    assert len(steps.rows) <= 4


def test_single_choices_leave_fewer_buttons() -> None:
    state = position({7: 1, 1: -1}, Phase.MOVE, dice=(2, 4, 1), dice_left=(2, 4))
    spec = PANEL.controls(state, "")
    assert [values(r) for r in spec.rows] == [["a:move 1 from 7 by 2", "a:move 1 from 7 by 4"]]


def test_swap_is_chosen_as_own_stack_then_enemy_stack() -> None:
    state = position({7: 2, 3: 1, 8: -3, 10: -1}, Phase.SWAP, dice=(1, 3, 5))
    first = PANEL.controls(state, "")
    assert values(first.rows[0]) == ["n:s3", "n:s7"]
    second = PANEL.controls(state, "s7")
    assert values(second.rows[0]) == ["a:swap 7 8", "a:swap 7 10"]


def test_knock_lists_every_enemy_stack() -> None:
    state = position({7: 2, 8: -3, 10: -1}, Phase.KNOCK, dice=(2, 4, 6))
    assert values(PANEL.controls(state, "").rows[0]) == ["a:knock 8", "a:knock 10"]


def test_a_selection_that_no_longer_fits_starts_over() -> None:
    state = position({7: 3, 2: 1, 1: -1}, Phase.MOVE, dice=(2, 4, 1), dice_left=(2, 4))
    whole = all_values(PANEL.controls(state, ""))
    assert all_values(PANEL.controls(state, "m11x9")) == whole
    assert all_values(PANEL.controls(state, "garbage")) == whole


def test_navigation_of_boards_posted_before_still_narrows() -> None:
    # A board of the stack, count, die layout (before a restart or a deploy) still answers.
    state = position({7: 3, 2: 1, 1: -1}, Phase.MOVE, dice=(2, 4, 1), dice_left=(2, 4))
    assert all_values(PANEL.controls(state, "m7x2")) == ["a:move 2 from 7 by 2", "a:move 2 from 7 by 4", "n:"]
    assert all_values(PANEL.controls(state, "m2")) == ["a:move 1 from 2 by 2", "a:move 1 from 2 by 4", "n:"]


def test_the_largest_menus_fit_discord_limits() -> None:
    # Twelve tokens in one stack and an enemy everywhere: labels with captures, the most options.
    for stacks, dice in (
        ({1: 12, 6: -1}, (2, 3)),
        ({12: 12, 11: -1, 10: -2}, (11 - 12 + 12, 10)),
        ({1: 6, 3: 3, 5: 3, 12: -1}, (1, 2)),
        ({1: 6, 3: 4, 5: 4, 12: -1}, (1, 2)),
    ):
        if max(dice) > 6:
            dice = (6, 5)
        state = position(stacks, Phase.MOVE, dice=(*dice, 1), dice_left=dice)
        for selection in ("", "m1", "m12", "m1x3"):
            spec = PANEL.controls(state, selection)
            assert 1 <= len(spec.rows) <= 4
            for row in spec.rows:
                if isinstance(row, SelectSpec):
                    assert 1 <= len(row.options) <= 25 and len(row.placeholder) <= 150
                    assert all(len(o.label) <= 100 and len(o.value) <= 90 for o in row.options)
                else:
                    assert 1 <= len(row) <= 5
                    assert all(len(b.label) <= 80 and len(b.value) <= 90 for b in row)
