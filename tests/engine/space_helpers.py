"""Positions built by hand for the space tests: units placed, hands dealt by card kind."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.ai.selfplay import random_states
from engine.protocol import Action
from engine.space.board import HOMEWORLD, SCRAP, owner, parse_unit
from engine.space.cards import COPIES, DECK_SIZE, Card
from engine.space.game import Phase, SpaceState
from engine.space.variant import VARIANT


def units(*labels: str) -> list[int]:
    found = [parse_unit(label) for label in labels]
    assert None not in found
    return [u for u in found if u is not None]


def make_state(
    where: Mapping[str, int] | None = None,
    *,
    home: Iterable[str] = (),
    hands: tuple[Sequence[Card], Sequence[Card]] = ((), ()),
    phase: Phase = Phase.MOVE,
    turn: int = 0,
    dice: Sequence[int] = (),
    **extra: Any,
) -> SpaceState:
    """Every unit in the scrap heap except those in ``where`` (label -> sector) and ``home`` (on
    their homeworld); the given hands (a card kind may appear at most twice), the rest of the deck in
    order; the move phase of ``turn`` with ``dice`` unless told otherwise."""
    positions = [SCRAP] * 30
    for label in home:
        u = units(label)[0]
        positions[u] = HOMEWORLD[owner(u)]
    for label, sector in (where or {}).items():
        positions[units(label)[0]] = sector
    taken: list[int] = []
    dealt: list[tuple[int, ...]] = []
    for hand in hands:
        ids = []
        for card in hand:
            cid = next(card.kind * COPIES + i for i in range(COPIES) if card.kind * COPIES + i not in taken)
            taken.append(cid)
            ids.append(cid)
        dealt.append(tuple(sorted(ids)))
    deck = tuple(c for c in range(DECK_SIZE) if c not in taken)
    fields: dict[str, Any] = {
        "dice": tuple(dice),
        "bonus": (0,) * len(dice),
        "dice_left": tuple(range(len(dice))) if phase is Phase.MOVE else (),
    }
    fields.update(extra)
    return SpaceState(
        positions=tuple(positions),
        deck=deck,
        hands=(dealt[0], dealt[1]),
        vortex=(),
        phase=phase,
        turn_seat=turn,
        turn_number=5,
        **fields,
    )


def play(state: SpaceState, *texts: str) -> SpaceState:
    for text in texts:
        result = state.apply(VARIANT.parse_action(state, text))
        assert isinstance(result, SpaceState)
        state = result
    return state


def notations(actions: Iterable[Action]) -> set[str]:
    return {a.notation for a in actions}


def with_fields(state: SpaceState, **changes: Any) -> SpaceState:
    return replace(state, **changes)


MAX_ACTIONS = 20000
"""A bound no random game has come near; a game still going after it is a bug."""


def random_playout(
    seed: int, check: Callable[[SpaceState], None] | None = None, max_actions: int = MAX_ACTIONS
) -> tuple[SpaceState, int]:
    """One game between random players (``engine.ai.selfplay.random_states`` seeded with ``seed``),
    ``check`` called on every state; the final state and the number of actions taken."""
    actions = -1
    state: SpaceState | None = None
    for found in random_states(VARIANT, random.Random(seed), max_actions):
        assert isinstance(found, SpaceState)
        state = found
        actions += 1
        if check is not None:
            check(state)
    assert state is not None
    return state, actions
