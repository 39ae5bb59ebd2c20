"""The value types of a tournament: who entered, who plays whom, how each table ended, the table of
standings. Players are the caller's ids (Discord user ids in the bot); the engine only compares them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from engine.errors import GameError

Format = Literal["knockout", "swiss"]
FORMATS: Final[tuple[Format, ...]] = ("knockout", "swiss")

HOWS: Final[tuple[str, ...]] = (
    "played",
    "resigned",
    "timeout",
    "forfeit",
    "both forfeit",
    "organiser",
    "bye",
    "withdrew",
)
"""How a table can end; ``Result.how`` is one of these."""

REASON_LIMIT: Final = 200
"""The longest organiser's reason kept: it is shown under the result, so it must stay short."""


class TournamentError(GameError):
    """Something a player or organiser asked of a tournament that its rules do not allow; the
    message is one line meant to be shown to them as it is."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player who signed up: ``rating`` seeds them, ``joined`` (sign-up order) breaks rating ties."""

    player: int
    rating: float
    joined: int


@dataclass(frozen=True, slots=True)
class Pairing:
    """Who plays whom at one table of one round; ``second`` is None for a bye."""

    round: int
    table: int
    first: int
    second: int | None

    @property
    def is_bye(self) -> bool:
        return self.second is None

    @property
    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)


@dataclass(frozen=True, slots=True)
class Result:
    """How one table ended; ``winner`` None means both lost (neither moved by the deadline, or the
    organiser said so)."""

    round: int
    table: int
    winner: int | None
    how: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings; ``out`` is true for a player knocked out or withdrawn."""

    rank: int
    player: int
    points: float
    buchholz: float
    sonneborn_berger: float
    wins: int
    losses: int
    byes: int
    out: bool
