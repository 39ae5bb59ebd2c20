"""The space panel: in every position of random games it offers only legal actions, reaches every
distinct legal action (directly or through its navigation), and stays within Discord's limits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cogs.panels.base import AND_THEN, COPY, ButtonSpec, PanelSpec, SelectSpec, acts_chosen
from cogs.panels.space import PANEL, PRIVATE_ROWS, PUBLIC_ROWS, Choice, Group, die_emoji, hand_lines, layout
from engine.protocol import CHANCE
from engine.space import cards as C
from engine.space.actions import Build, Keep, Move, Pass, Play, parse
from engine.space.board import FORCE, SCRAP
from engine.space.game import Phase, SpaceState, SpaceView
from tests.engine.space_helpers import random_playout

LONGEST_ID_PREFIX = len("g:9223372036854775807:9223372036854775807:")


def values(spec: PanelSpec) -> Iterator[str]:
    for row in spec.rows:
        if isinstance(row, SelectSpec):
            yield from (o.value for o in row.options)
        else:
            yield from (b.value for b in row)


def reachable(view: SpaceView, selection: str = "", depth: int = 0) -> set[str]:
    """Every action notation the panel offers, following its navigation."""
    spec = PANEL.controls(view, selection)
    found: set[str] = set()
    for value in values(spec):
        if value.startswith("a:"):
            found.add(value[2:].split(COPY)[0])
        elif value.startswith("n:") and value != "n:" and depth < 4:
            found |= reachable(view, value[2:], depth + 1)
    return found


def check_limits(spec: PanelSpec) -> None:
    budget = PRIVATE_ROWS if spec.private else PUBLIC_ROWS
    assert len(spec.rows) <= budget
    for row in spec.rows:
        if isinstance(row, SelectSpec):
            assert 1 <= len(row.options) <= 25
            assert len({o.value for o in row.options}) == len(row.options), "option values differ"
            for option in row.options:
                assert len(option.label) <= 100 and len(option.value) <= 100
                assert option.description is None or len(option.description) <= 100
        else:
            assert 1 <= len(row) <= 5
            for button in row:
                assert isinstance(button, ButtonSpec) and len(button.label) <= 80
                assert len(LONGEST_ID_PREFIX * "x") + len(button.value) <= 100, button.value


def equivalent(view: SpaceView, action: object) -> object:
    """What two actions the panel may show as one have in common (see the panel's docstring)."""
    if isinstance(action, Move) and (len(view.dice_left) in (1, len(view.dice))):
        return ("move", FORCE[action.unit], view.positions[action.unit], action.die)
    if isinstance(action, Build):
        return ("build", FORCE[action.unit])
    return action


def positions(games: int) -> Iterator[SpaceState]:
    for seed in range(1, games + 1):
        found: list[SpaceState] = []
        random_playout(seed, check=found.append)
        yield from found


def test_every_position_offers_exactly_the_legal_actions_within_discord_limits() -> None:
    phases: set[Phase] = set()
    for state in positions(3):
        if state.outcome() is not None or state.to_move() == CHANCE:
            continue
        view = state.view(state.to_move())
        spec = PANEL.controls(view, "")
        check_limits(spec)
        assert spec.private == state.secret_decision(), state.phase
        offered = reachable(view)
        legal = {a.notation: a for a in state.legal_actions()}
        assert offered <= set(legal), offered - set(legal)
        # Every legal action is offered, or one that cannot differ from it.
        offered_kinds = {equivalent(view, parse(n)) for n in offered}
        for notation, action in legal.items():
            if notation in offered:
                continue
            if isinstance(action, Keep):
                raise AssertionError(f"keep {notation} not offered")
            if isinstance(action, Play) and action.unit is not None:
                continue  # a card on a unit equal to one offered
            assert equivalent(view, action) in offered_kinds, (state.phase, notation)
        phases.add(state.phase)
    assert {Phase.DISCARD, Phase.ROLL, Phase.MOVE, Phase.ATTACK, Phase.DEFEND, Phase.KEEP} <= phases


def test_several_cards_chosen_at_once_are_each_legal_in_turn() -> None:
    """A select of several (the cards to discard down to the hand limit, the attack or defense cards
    of a fight) offers each copy of each card in the hand, asks for exactly as many discards as are
    due, and any choice it lets a player make plays through, card after card, by the same player."""
    import random

    from engine.ai.random_player import sample_outcome

    rng = random.Random(4)
    seen: set[Phase] = set()
    for state in positions(4):
        if state.outcome() is not None or state.to_move() == CHANCE:
            continue
        view = state.view(state.to_move())
        for row in PANEL.controls(view, "").rows:
            if not isinstance(row, SelectSpec) or row.max_values == 1:
                continue
            seen.add(state.phase)
            assert state.phase in (Phase.DISCARD, Phase.ATTACK, Phase.DEFEND)
            if state.phase is Phase.DISCARD:
                assert row.min_values == row.max_values == view.discards_due > 1
                assert len(row.options) == len(view.hand)
            else:
                assert row.min_values == 1 and row.max_values == len(row.options) > 1
            chosen = rng.sample([o.value for o in row.options], rng.randint(row.min_values, row.max_values))
            value = acts_chosen(chosen)
            assert value.startswith("a:") and value.count(AND_THEN) == len(chosen) - 1
            seat, position = state.to_move(), state
            for notation in value[2:].split(AND_THEN):
                while position.to_move() == CHANCE:
                    spec = position.chance()
                    assert spec is not None
                    position = position.apply(position.chance_action(sample_outcome(spec, rng)))
                assert position.to_move() == seat, notation
                position = position.apply(parse(notation))
    assert {Phase.DISCARD, Phase.ATTACK} <= seen


def test_pass_is_labelled_by_what_it_does() -> None:
    labels: dict[Phase, set[str]] = {}
    for state in positions(2):
        if state.outcome() is None and state.to_move() != CHANCE and Pass() in state.legal_actions():
            spec = PANEL.controls(state.view(state.to_move()), "")
            for row in spec.rows:
                if not isinstance(row, SelectSpec):
                    labels.setdefault(state.phase, set()).update(b.label for b in row if b.value == "a:pass")
    assert labels[Phase.ROLL_CARDS] == {"Keep the roll"}
    assert labels[Phase.JAM] == {"Let it pass"} and labels[Phase.ESPIONAGE] == {"Let it pass"}
    assert labels[Phase.MOVE] == {"End the move phase"}
    assert labels[Phase.ATTACK] <= {"No attack card", "No more attack cards"}
    assert labels[Phase.DEFEND] <= {"Let it pass", "No more defense cards"}


def test_the_opening_move_is_a_button_per_kind_of_unit_and_die() -> None:
    for state in positions(3):
        if (
            state.phase is Phase.MOVE
            and state.turn_number == 1
            and len(state.dice_left) == len(state.dice) == 2
            and state.dice[0] != state.dice[1]
            and not state.jammed
        ):
            break
    else:
        pytest.fail("the seeded games have no opening move with two different dice")
    spec = PANEL.controls(state.view(0), "")
    moves = [
        b for row in spec.rows if not isinstance(row, SelectSpec) for b in row if b.value.startswith("a:move")
    ]
    # Five kinds of unit on Planet X, two dice: ten buttons, not thirty, each showing its die.
    assert len(moves) == 10
    assert {b.emoji for b in moves} == {die_emoji(d) for d in state.view(0).dice}
    assert all(b.label.startswith("E") and " force " in b.label for b in moves)


def test_hand_text_lists_each_card_with_its_text_and_the_spied_hand() -> None:
    state = next(s for s in positions(5) if s.spy is not None)
    spy = state.spy
    assert spy is not None
    text = PANEL.hand_text(state.view(spy[0]))
    for line in hand_lines(state.view(spy[0]).hand):
        assert line in text
    assert "Espionage:" in text
    other = PANEL.hand_text(state.view(1 - spy[0]))
    assert "Espionage:" not in other
    assert all(C.CARDS[k].text in hand_lines([C.CARDS[k].key])[0] for k in range(25))


def test_a_long_list_opens_by_group_and_by_page() -> None:
    many = Group(
        "Keep which units…", tuple(Choice(f"Keep {i}", f"a:keep {i}") for i in range(90)), buttons=False
    )
    other = Group("Play Nova Bomb…", (Choice("Play Nova Bomb (+5)", "a:play nova-bomb"),))
    rows = layout([], [many], 4)
    assert len(rows) == 4 and all(isinstance(r, SelectSpec) for r in rows)  # 90 options in four selects
    rows = layout([], [many, other], 4)
    assert len(rows) == 1 and isinstance(rows[0], SelectSpec)
    # A group of one choice is that choice itself: one tap, not a page of one with Back.
    assert [o.value for o in rows[0].options] == ["n:g0", "a:play nova-bomb"]
    assert rows[0].options[1].label == "Play Nova Bomb (+5)"
    opened = layout([], [many, other], 4, "g0")
    assert [b.label for b in opened[0]] == ["Back", "More (1/2)"]  # type: ignore[union-attr]
    assert sum(len(r.options) for r in opened[1:] if isinstance(r, SelectSpec)) == 75
    page2 = layout([], [many, other], 4, "g0p1")
    assert isinstance(page2[1], SelectSpec) and page2[1].options[0].label == "Keep 75"
    assert [b.label for b in layout([], [many, other], 4, "g1")[1]] == ["Play Nova Bomb (+5)"]  # type: ignore[union-attr]


def test_a_scrapped_unit_is_built_once_per_force() -> None:
    for state in positions(5):
        if state.phase is Phase.BUILD and state.builds and len(state.scrapped(state.turn_seat)) >= 3:
            break
    else:
        pytest.fail("the seeded games have no build with three destroyed units")
    spec = PANEL.controls(state.view(state.turn_seat), "")
    builds = [v for v in values(spec) if v.startswith("a:build")]
    forces = {FORCE[u] for u in state.scrapped(state.turn_seat)}
    assert len(builds) == len(forces) and all(
        state.positions[u] == SCRAP for u in state.scrapped(state.turn_seat)
    )
