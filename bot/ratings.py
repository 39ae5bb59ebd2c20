"""The FIBS rating formula, by hand: pure functions, no I/O.

For a match of length ``n`` between players rated ``r1`` and ``r2``:

- ``D = |r1 - r2|`` and ``P_upset = 1 / (10 ** (D * sqrt(n) / 2000) + 1)``, the chance that the
  lower-rated player (the underdog) wins;
- the winner gains and the loser loses ``4 * K * sqrt(n) * P``, where ``P = P_upset`` if the
  favourite won and ``1 - P_upset`` if the underdog did (equal ratings: ``P = 0.5``);
- ``K = max(1, 5 - experience / 100)``, where experience is the sum of the lengths of the matches a
  player had played *before* this one. As on FIBS, each player's change uses their own ``K``: a
  newcomer (K = 5) who beats a veteran (K = 1) gains five times what the veteran loses, so a new
  player's rating finds its level fast without shaking the established ones.

Everyone starts at 1500. A rating is provisional until its player has 50 points of experience.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.protocol import EndReason

INITIAL_RATING = 1500.0
PROVISIONAL_EXPERIENCE = 50
"""A rating is provisional while its experience (match lengths played) is below this."""


@dataclass(frozen=True, slots=True)
class Player:
    """One player's standing before a match: their rating and experience (match lengths played)."""

    rating: float = INITIAL_RATING
    experience: int = 0


@dataclass(frozen=True, slots=True)
class MatchRating:
    """The rating change of one match: both players before and after it."""

    winner_before: Player
    winner_after: Player
    loser_before: Player
    loser_after: Player

    @property
    def winner_gain(self) -> float:
        return self.winner_after.rating - self.winner_before.rating

    @property
    def loser_loss(self) -> float:
        return self.loser_before.rating - self.loser_after.rating


def k_factor(experience: int) -> float:
    """``max(1, 5 - experience / 100)``: 5 for a newcomer, down to 1 from 400 points of experience."""
    return max(1.0, 5.0 - experience / 100.0)


def is_provisional(experience: int) -> bool:
    return experience < PROVISIONAL_EXPERIENCE


def upset_probability(rating_a: float, rating_b: float, length: int) -> float:
    """``P_upset``: the chance that the lower-rated of two players wins a match of ``length``."""
    _check_length(length)
    difference = abs(rating_a - rating_b)
    return 1.0 / (math.pow(10.0, difference * math.sqrt(length) / 2000.0) + 1.0)


def win_probability(rating: float, opponent: float, length: int) -> float:
    """The chance that a player rated ``rating`` beats one rated ``opponent`` in a match of ``length``."""
    upset = upset_probability(rating, opponent, length)
    return upset if rating < opponent else 1.0 - upset


def rate_match(winner: Player, loser: Player, length: int) -> MatchRating:
    """The new ratings and experience of the winner and the loser of a match of ``length``.

    ``P`` is the chance the loser had of winning (``P_upset`` if the favourite won, ``1 - P_upset``
    otherwise); the winner gains ``4 * K_winner * sqrt(n) * P`` and the loser loses
    ``4 * K_loser * sqrt(n) * P``. Both gain ``length`` points of experience.
    """
    p = win_probability(loser.rating, winner.rating, length)
    stake = 4.0 * math.sqrt(length) * p
    return MatchRating(
        winner_before=winner,
        winner_after=Player(winner.rating + k_factor(winner.experience) * stake, winner.experience + length),
        loser_before=loser,
        loser_after=Player(loser.rating - k_factor(loser.experience) * stake, loser.experience + length),
    )


def _check_length(length: int) -> None:
    if length < 1:
        raise ValueError(f"a match length is at least 1, not {length}")


def next_streak(streak: int, won: bool) -> int:
    """The streak after a win or a loss: positive counts wins in a row, negative losses in a row."""
    if won:
        return streak + 1 if streak > 0 else 1
    return streak - 1 if streak < 0 else -1


# -- records: what the store reads back --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating in one game on one server, with their record and current streak."""

    guild_id: int
    game: str
    user_id: int
    rating: float = INITIAL_RATING
    experience: int = 0
    wins: int = 0
    losses: int = 0
    streak: int = 0
    updated_at: float = 0.0

    @property
    def player(self) -> Player:
        return Player(self.rating, self.experience)

    @property
    def provisional(self) -> bool:
        return is_provisional(self.experience)


@dataclass(frozen=True, slots=True)
class RatedResult:
    """One rated match from one player's side: who they played, whether they won, their rating change."""

    match_id: int
    game: str
    opponent_id: int
    won: bool
    before: float
    after: float
    at: float

    @property
    def change(self) -> float:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """One match from one player's side, finished or not, for their match history."""

    match_id: int
    guild_id: int | None
    channel_id: int
    game: str
    opponent_id: int
    status: str
    rated: bool
    won: bool | None
    """True or False once finished with a winner; None while active, abandoned or drawn."""
    reason: EndReason | None
    rating_change: float | None
    created_at: float
    finished_at: float | None
