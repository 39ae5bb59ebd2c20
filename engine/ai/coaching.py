"""What a game's coach returns: a hint for the decision on hand, and the analysis of a finished match.

The types are shared by every game that has a coach (the registry is ``engine.ai.coaches``); the
cogs format them without knowing the game. Equities are from the deciding player's view, in units
of the current cube (``Hint.scale`` says whether they are money or match equities).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from enum import Enum
from typing import Any


class Scale(Enum):
    """What an equity measures."""

    MONEY = "money"
    """Cubeless money play: +1 a single win, +2 a gammon (the engine's estimate without a cube)."""
    MATCH = "match"
    """The match as it stands (score, cube, Crawford): equity in points of the current cube."""
    CUBEFUL_MONEY = "cubeful money"
    """A money game with the cube (and the session's Jacoby and beaver rules): equity in points of the
    current cube; no score, no Crawford game."""
    POINTS = "points"
    """Points the play wins at once (a play that bears off the last checker)."""


class NoHintError(ValueError):
    """There is nothing to hint now (no decision, a forced play); the message says why, for a player."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One candidate: its text, its equity and the difference to the best (0 for the best, else < 0)."""

    text: str
    equity: float
    diff: float
    best: bool
    action: str = ""
    """The notation that plays it (``Variant.parse_action``: the hint's **Play this**), "" if none."""


@dataclass(frozen=True, slots=True)
class Hint:
    """The engine's opinion of the decision on hand, best choice first."""

    question: str
    """What is decided, in words ("Your play of 6-4", "Double or roll", "Take or pass")."""
    choices: tuple[Choice, ...]
    """The best few candidates, best first."""
    total: int
    """How many candidates there are in all (legal plays, or the cube's actions)."""
    scale: Scale
    level: str
    """The engine's depth, as players name it ("2-ply")."""
    approximate: str | None = None
    """Why the opinion is only approximate (the engine does not know a rule), or None."""
    advice: str = ""
    """The recommended action in words, when it is more than the best choice's text."""
    chances: tuple[float, float, float] | None = None
    """Before the decision: the decider's chances to win the game, win a gammon, lose a gammon."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One choice the engine judged at a decision of a match: a checker play as its notation
    (``13/7 8/7``) or a cube action (``No double``, ``Double, take``, ``Double, pass``, from the
    doubler's view), with its equity from the decider's view (the doubler's for the cube)."""

    text: str
    equity: float


@dataclass(frozen=True, slots=True)
class Decision:
    """One analysed decision of a match."""

    seat: int
    game: int
    turn: int
    kind: str
    """``play`` (checkers), ``cube`` (double or not) or ``take`` (take or pass)."""
    played: str
    best: str
    loss: float
    """Equity lost against the best choice (>= 0)."""
    unforced: bool
    """Counted in the error rate (a real choice, see the game's analysis module)."""
    roll: str | None = None
    """The dice of a checker play as ``6-4`` (``None`` for cube decisions, and in analyses saved
    before the roll was kept)."""
    played_equity: float | None = None
    """The equity of the choice made, from the decider's view (``None`` in analyses saved before
    equities were kept, as for the three fields below)."""
    best_equity: float | None = None
    """The equity of the engine's best choice."""
    rank: int | None = None
    """Where the choice made stands among the engine's choices, 1 for the best (tied choices share a
    rank)."""
    choices: int | None = None
    """How many choices there were (legal plays; 2 for a cube decision)."""
    action: int | None = None
    """The index in the match's action log of the action that made the decision: the position it was
    made in is the state before that action (``engine.ai.review.decision_state``)."""
    candidates: tuple[Candidate, ...] = ()
    """The choices judged, best first: a checker play's candidates (the played one always among them),
    a cube decision's three actions; empty in analyses saved before they were kept (the ``.sgf`` file
    of such a match then carries the moves only)."""


@dataclass(frozen=True, slots=True)
class PlayerReport:
    """One player's figures over the match."""

    seat: int
    unforced: int
    """Decisions counted (unforced plays and non-trivial cube decisions)."""
    equity_lost: float
    doubtful: int
    errors: int
    blunders: int
    luck: float
    """Sum of the player's dice luck, in equity (positive: luckier than average rolls)."""
    rolls: int
    luck_total: float | None = None
    """The luck as GNU Backgammon counts it ("Luck total EMG"), in equity: as ``luck`` but an opening
    roll is averaged over the 30 ways it could go, so winning it is luck too
    (``engine.ai.backgammon_luck``; None in analyses saved before it was kept, as the three below)."""
    luck_result: float | None = None
    """The same luck in the result's units: match winning chances in a match (0.05 = 5%), points in
    a money session."""
    result: float | None = None
    """The result in those units: the match winning chances gained (+0.5 a match won, -0.5 lost), or
    the points won."""
    luck_adjusted: float | None = None
    """The luck-adjusted result: ``result`` minus the player's ``luck_result`` plus the opponent's."""
    luck_unit: str | None = None
    """The units of the three above: ``mwc`` (match winning chances) or ``points`` (a money session)."""

    @property
    def pr(self) -> float | None:
        """Error rate: 500 times the mean equity lost per unforced decision (None: no decision)."""
        return 500.0 * self.equity_lost / self.unforced if self.unforced else None


THRESHOLDS = (0.02, 0.04, 0.08)
"""Equity lost from which a decision is doubtful, an error, a blunder (an analysis's default)."""
ERROR = THRESHOLDS[1]
"""Equity lost from which a decision is an error: what the tutor warns of before it is final."""


@dataclass(frozen=True, slots=True)
class TutorNote:
    """The tutor's warning before a decision is final: ``chosen`` loses ``loss`` (at least ``ERROR``)
    against ``better``, at the coach's depth ``level``; shown only to the player deciding."""

    what: str
    """The kind of decision, as a player says it: "play", "double", "take", "pass", "beaver", "roll"."""
    chosen: str
    """The choice made, in words ("13/7 13/11", "Double to 2")."""
    better: str
    """The better choice, in words."""
    loss: float
    """Equity lost against ``better`` (positive), in ``scale``'s units."""
    scale: Scale
    level: str

    def text(self) -> str:
        """``"Tutor: this play loses 0.083 against 13/7 8/7"``."""
        return f"Tutor: this {self.what} loses {self.loss:.3f} against {self.better}"


@dataclass(frozen=True, slots=True)
class Analysis:
    """A finished match analysed: each player's figures, each decision, and seat 0's winning chances
    before each turn, one tuple per game (``1.0``/``0.0`` closing a game that was played out)."""

    players: tuple[PlayerReport, PlayerReport]
    decisions: tuple[Decision, ...]
    chances: tuple[tuple[float, ...], ...]
    scale: Scale
    level: str
    approximate: str | None = None
    thresholds: tuple[float, float, float] = THRESHOLDS
    """Equity lost from which a decision is doubtful, an error, a blunder."""


class AnalysisStopped(Exception):
    """The analysis was asked to stop (the bot is closing); it is computed again later."""


StopCheck = Callable[[], bool]

ProgressReport = Callable[[int, int], None]
"""Told ``(done, total)`` as an analysis goes: the positions judged so far and in all (a running
analysis's message says "decision 80 of 154" from it)."""


def analysis_to_json(analysis: Analysis) -> dict[str, Any]:
    """``analysis`` as JSON data (saved until it is posted); ``analysis_from_json`` reads it back."""
    return {
        "players": [asdict(p) for p in analysis.players],
        "decisions": [
            {**asdict(d), "candidates": [asdict(c) for c in d.candidates]} for d in analysis.decisions
        ],
        "chances": [list(game) for game in analysis.chances],
        "scale": analysis.scale.value,
        "level": analysis.level,
        "approximate": analysis.approximate,
        "thresholds": list(analysis.thresholds),
    }


def analysis_from_json(data: Mapping[str, Any]) -> Analysis:
    """The analysis saved by ``analysis_to_json``; ``ValueError`` if ``data`` is not one."""
    try:
        players = tuple(PlayerReport(**p) for p in data["players"])
        low, mid, high = (float(t) for t in data["thresholds"])
        if len(players) != 2:
            raise ValueError("an analysis has two players")
        return Analysis(
            players=(players[0], players[1]),
            decisions=tuple(_decision(d) for d in data["decisions"]),
            chances=tuple(tuple(float(p) for p in game) for game in data["chances"]),
            scale=Scale(data["scale"]),
            level=str(data["level"]),
            approximate=data["approximate"],
            thresholds=(low, mid, high),
        )
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a saved analysis: {exc}") from exc


def _decision(data: Mapping[str, Any]) -> Decision:
    """A saved decision: its candidates (JSON lists) back to ``Candidate``; none in older saves."""
    fields = dict(data)
    fields["candidates"] = tuple(
        Candidate(text=str(c["text"]), equity=float(c["equity"])) for c in fields.get("candidates", ())
    )
    return Decision(**fields)
