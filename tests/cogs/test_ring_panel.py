"""The ring panel lays out the engine's legal actions; single choices are made and announced."""

from __future__ import annotations

from cogs.panels.base import ROLL, ButtonSpec, SelectSpec
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


def test_move_is_chosen_as_stack_then_count_then_die() -> None:
    state = position({7: 3, 2: 1, 1: -1}, Phase.MOVE, dice=(2, 4, 1), dice_left=(2, 4))
    first = PANEL.controls(state, "")
    assert values(first.rows[0]) == ["n:m2", "n:m7"]
    counts = PANEL.controls(state, "m7")
    assert values(counts.rows[0]) == ["n:m7x1", "n:m7x2", "n:m7x3"]
    dice = PANEL.controls(state, "m7x2")
    assert values(dice.rows[0])[:2] == ["a:move 2 from 7 by 2", "a:move 2 from 7 by 4"]
    assert any(b.label == "Back" for b in dice.rows[0] if isinstance(b, ButtonSpec))


def test_single_choices_are_taken_and_said() -> None:
    state = position({7: 1, 1: -1}, Phase.MOVE, dice=(2, 4, 1), dice_left=(2, 4))
    spec = PANEL.controls(state, "")
    assert "Only your stack on 7 can move." in spec.notes
    assert "From 7 you can only move 1 token." in spec.notes
    assert values(spec.rows[0]) == ["a:move 1 from 7 by 2", "a:move 1 from 7 by 4"]


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
    assert values(PANEL.controls(state, "m11x9").rows[0]) == ["n:m2", "n:m7"]
    assert values(PANEL.controls(state, "garbage").rows[0]) == ["n:m2", "n:m7"]


def test_the_largest_menus_fit_discord_limits() -> None:
    # Twelve tokens in one stack: the count select has 12 options, under the 25 limit.
    state = position({1: 12, 6: -1}, Phase.MOVE, dice=(2, 3, 1), dice_left=(2, 3))
    spec = PANEL.controls(state, "m1")
    for row in spec.rows:
        if isinstance(row, SelectSpec):
            assert 1 <= len(row.options) <= 25
        else:
            assert len(row) <= 5
