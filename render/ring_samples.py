"""The ring situations worth a picture, and the sheets of the ring's rules pages."""

from __future__ import annotations

from collections.abc import Callable

from engine.protocol import GameState
from engine.ring import WIN_KEYS, MarkKind, Phase, RingState
from render.rules_pictures import Panel, Sheet
from render.samples import SampleSet, situation_samples


def _kinds(state: RingState) -> set[MarkKind]:
    return {m.kind for m in state.last.marks} if state.last is not None else set()


def _rolled(state: RingState) -> bool:
    return state.last is not None and state.last.notation.startswith("roll ")


RING_SITUATIONS: dict[str, Callable[[RingState], bool]] = {
    "opening-roll": lambda s: s.phase is Phase.ROLL and s.turn_number == 1 and s.dice is None,
    "tall-stacks": lambda s: (
        s.result is None and max(s.board) >= 4 and min(s.board) <= -4 and s.phase is Phase.ROLL
    ),
    "triples-placed": lambda s: (
        _rolled(s) and MarkKind.PLACE in _kinds(s) and s.dice is not None and len(set(s.dice)) == 1
    ),
    "odds-swap-pending": lambda s: s.phase is Phase.SWAP and len(s.stacks_of(0)) + len(s.stacks_of(1)) >= 6,
    "odds-swap-done": lambda s: MarkKind.SWAP in _kinds(s) and s.result is None,
    "evens-knock-pending": lambda s: (
        s.phase is Phase.KNOCK and len(s.stacks_of(0)) + len(s.stacks_of(1)) >= 6
    ),
    "evens-knock-done": lambda s: MarkKind.KNOCK in _kinds(s) and s.result is None,
    "doubles-placed": lambda s: (
        _rolled(s)
        and MarkKind.PLACE in _kinds(s)
        and s.dice is not None
        and s.dice[0] == s.dice[1] != s.dice[2]
    ),
    "move-one-die-left": lambda s: s.phase is Phase.MOVE and len(s.dice_left) == 1,
    "move-capture": lambda s: (
        MarkKind.FROM in _kinds(s)
        and MarkKind.CAPTURE in _kinds(s)
        and s.result is None
        and any(m.count >= 2 for m in (s.last.marks if s.last else ()) if m.kind is MarkKind.CAPTURE)
    ),
    "placement-blocked": lambda s: s.last is not None and "is blocked by" in s.last.text,
}


def ring_samples(seed: int, wanted: frozenset[str] = frozenset()) -> list[tuple[str, GameState]]:
    """The ring situations worth a picture, in a fixed order, and one finished game per way of
    winning (five of the seven are enough to stop searching: two are rare in random play)."""
    return situation_samples("ring", RING_SITUATIONS, 5, seed, wanted)


SAMPLES = SampleSet(("start", *RING_SITUATIONS, *(f"won-{key}" for key in WIN_KEYS)), ring_samples)


RULES_SHEETS: tuple[Sheet, ...] = (
    Sheet(
        "goal",
        (
            Panel("won-five-in-a-row", "5 spaces in a row"),
            Panel("won-spaces-12-1-2-3", "A quarter: 12, 1, 2, 3"),
            Panel("won-spaces-6-7-8-9", "A quarter: 6, 7, 8, 9"),
            Panel("won-all-captured", "No enemy token left"),
        ),
    ),
    Sheet(
        "turn",
        (
            Panel("triples-placed", "Triples: place 2"),
            Panel("odds-swap-done", "1-3-5: swap"),
            Panel("evens-knock-done", "2-4-6: knock out"),
            Panel("doubles-placed", "White double: place 1"),
            Panel("move-capture", "Else: move, capture"),
            Panel("placement-blocked", "Blocked: go on"),
        ),
        dice=True,
    ),
)
