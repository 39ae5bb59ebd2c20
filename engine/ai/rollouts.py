"""Rollouts, for the games that have them (issue 36): the result's shape, the errors, and the table of
each game's rollout functions (``ROLLOUTS``, from the kits' ``Coach.rollout``), through which the bot
and the cogs roll a position out without naming a game (the backgammon one:
``engine.ai.backgammon_rollout``).

A rollout compares the candidates of one decision (``PLAY``: checker plays or moves; ``CUBE``: the
doubling cube's choices, labelled ``NO_DOUBLE`` ...): each one's equity with its standard error, and
the chances of each side (``Chances``), best first; ``Rollout.to_json`` is what a heavy job keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import GameError
from engine.protocol import GameState
from kits import KITS, KitTable

BATCH = 36
"""Games per batch (one per first roll, stratified): trials are a multiple of it."""
MIN_TRIALS = BATCH
MAX_TRIALS = 5184
"""Trials per candidate: at least one batch; the most any server may allow."""

PLAY, CUBE = "play", "cube"
NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = "No double", "Double, take", "Double, pass"
TAKE, PASS = "Take", "Pass"

ProgressReport = Callable[[int, int], None]
StopCheck = Callable[[], bool]


class RolloutRefused(GameError):
    """A position that is not rolled out; the message says why, for the player."""


class RolloutStopped(Exception):
    """The rollout was stopped by its ``should_stop``."""


@dataclass(frozen=True, slots=True)
class Chances:
    """The chances (0 to 1) of the side whose equity it is: winning, winning a gammon or more, a
    backgammon; losing a gammon or more, a backgammon."""

    win: float
    win_gammon: float
    win_bg: float
    lose_gammon: float
    lose_bg: float

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    def turned(self) -> Chances:
        """The same chances from the other side."""
        return Chances(self.lose, self.lose_gammon, self.lose_bg, self.win_gammon, self.win_bg)


@dataclass(frozen=True, slots=True)
class Candidate:
    """One candidate rolled out: ``label`` (a play as GNU Backgammon writes it, or a cube action),
    its cubeful ``equity`` and standard error ``se`` for the side deciding, its ``chances`` (None for a
    pass: the game ends), ``notation`` (the action's, to match the one played) and ``played``."""

    label: str
    equity: float
    se: float
    chances: Chances | None
    notation: str = ""
    played: bool = False


@dataclass(frozen=True, slots=True)
class Rollout:
    """A rollout's result: ``kind`` (``PLAY`` or ``CUBE``), the candidates best first, the trials
    per candidate and the seed, and ``seat``, the side whose equities they are."""

    kind: str
    candidates: tuple[Candidate, ...]
    trials: int
    seed: int
    seat: int

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "trials": self.trials,
            "seed": self.seed,
            "seat": self.seat,
            "candidates": [_candidate_json(c) for c in self.candidates],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rollout:
        return cls(
            kind=str(data["kind"]),
            candidates=tuple(_candidate_from(c) for c in data["candidates"]),
            trials=int(data["trials"]),
            seed=int(data["seed"]),
            seat=int(data["seat"]),
        )


def _candidate_json(c: Candidate) -> dict[str, Any]:
    chances = None
    if c.chances is not None:
        k = c.chances
        chances = [k.win, k.win_gammon, k.win_bg, k.lose_gammon, k.lose_bg]
    return {
        "label": c.label,
        "equity": c.equity,
        "se": c.se,
        "chances": chances,
        "notation": c.notation,
        "played": c.played,
    }


def _candidate_from(data: Mapping[str, Any]) -> Candidate:
    raw = data.get("chances")
    chances = None if raw is None else Chances(*(float(x) for x in raw))
    return Candidate(
        label=str(data["label"]),
        equity=float(data["equity"]),
        se=float(data["se"]),
        chances=chances,
        notation=str(data.get("notation", "")),
        played=bool(data.get("played", False)),
    )


@dataclass(frozen=True)
class RolloutKit:
    """A game's rollouts: ``check(state)`` the kind of decision there (``PLAY`` or ``CUBE``;
    ``RolloutRefused`` with the reason when there is nothing to roll out); ``from_code(text)`` the
    position of a position code (``RolloutRefused`` when it reads none); ``roll_out(state_json, keep,
    trials, seed, progress, should_stop)`` the result as JSON (``RolloutStopped`` once stopped);
    ``candidates(state, keep)`` how many candidates it will have at most (for the estimate)."""

    check: Callable[[GameState], str]
    from_code: Callable[[str], GameState]
    roll_out: Callable[..., dict[str, Any]]
    candidates: Callable[[GameState, str | None], int]


ROLLOUTS: Mapping[str, RolloutKit] = KitTable(
    KITS, lambda kit: kit.coach.rollout if kit.coach and kit.coach.rollout else None
)
"""Per game that has them: its rollout functions."""
