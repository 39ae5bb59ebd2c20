"""The backgammon situations worth a picture, from seeded random 5-point matches."""

from __future__ import annotations

from collections.abc import Callable

from engine import find_variant
from engine.backgammon.board import BAR, CHECKERS, RuleSet
from engine.backgammon.game import BackgammonState, OfferResignation
from engine.backgammon.game import Phase as BgPhase
from engine.protocol import GameState
from render.backgammon import random_match
from render.samples import MAX_GAMES, SampleSet


def _borne_off(state: BackgammonState) -> int:
    return max(CHECKERS - sum(side) for side in state.sides)


BACKGAMMON_SITUATIONS: dict[str, Callable[[BackgammonState], bool]] = {
    "opening-roll": lambda s: s.phase is BgPhase.PLAY and s.turn_number == 1 and not s.played,
    "hits-and-bar": lambda s: (
        s.phase in (BgPhase.DECIDE, BgPhase.ROLL)
        and s.last_play is not None
        and sum(m.hit for m in s.last_play.moves) >= 2
        and s.sides[0][BAR] + s.sides[1][BAR] >= 2
    ),
    "six-six-in-progress": lambda s: s.phase is BgPhase.PLAY and s.dice == (6, 6) and len(s.played) == 2,
    "double-offered": lambda s: s.phase is BgPhase.TAKE and s.cube >= 2 and s.turn_number > 6,
    "crawford-game": lambda s: (
        s.crawford and s.phase is BgPhase.PLAY and s.turn_number > 8 and len(s.played) == 1
    ),
    "bear-off": lambda s: (
        s.result is None and s.phase is BgPhase.PLAY and 5 <= _borne_off(s) <= 12 and bool(s.played)
    ),
    "tall-stacks": lambda s: (
        s.result is None and max(max(side[:24]) for side in s.sides) >= 8 and s.phase is BgPhase.ROLL
    ),
    "old-english": lambda s: s.rules is RuleSet.OLDENGLISH and s.phase is BgPhase.PLAY and s.turn_number > 20,
    "resignation-offered": lambda s: (
        s.phase is BgPhase.DECIDE and s.turn_number > 30 and s.rules is RuleSet.STANDARD
    ),
    "match-won": lambda s: s.result is not None and s.length > 1,
}
"""Situations of seeded random 5-point matches (the rule set cycles standard, nackgammon, Old English
with the seed); "resignation-offered" is the found position with a gammon resignation offered."""


def backgammon_samples(seed: int, wanted: frozenset[str] = frozenset()) -> list[tuple[str, GameState]]:
    """The backgammon situations worth a picture, in a fixed order."""
    found: dict[str, GameState] = {
        "start": find_variant("backgammon").new_game({"length": 5}),
        "nackgammon-start": find_variant("backgammon").new_game({"length": 5, "rules": "nackgammon"}),
    }
    rule_sets = (RuleSet.STANDARD, RuleSet.NACKGAMMON, RuleSet.OLDENGLISH)
    for n in range(seed, seed + MAX_GAMES):
        for state in random_match(n, 5, rule_sets[n % 3]):
            for name, test in BACKGAMMON_SITUATIONS.items():
                if name not in found and test(state):
                    if name == "resignation-offered":
                        state = state.apply(OfferResignation(2))
                    found[name] = state
        if wanted and wanted <= set(found):
            break
        if len(found) == len(BACKGAMMON_SITUATIONS) + 2:
            break
    names = ("start", "nackgammon-start", *BACKGAMMON_SITUATIONS)
    return [(name, found[name]) for name in names if name in found]


SAMPLES = SampleSet(("start", "nackgammon-start", *BACKGAMMON_SITUATIONS), backgammon_samples)
