"""Luck and the luck-adjusted result of a backgammon match, as GNU Backgammon counts them.

Pure arithmetic on what ``engine.ai.backgammon_analysis`` computes for each roll (the equity after
the best play of every roll, ``RollOutlook``); the analysis adds each roll with ``LuckTally.add``.

- A roll's luck (equity, the current cube's units, from the roller's view): the equity after the
  best play of the roll that came minus the average over the rolls that could have come. An opening
  roll (not a tie) is averaged over the 30 ways it could have gone, as GNU Backgammon's
  ``LuckFirst``: the 15 where this player moves first (their equity after each) and the 15 where the
  opponent does (minus the opponent's equity after each), so winning the opening roll is luck too.
- The luck in the result's units (``LuckTally.result_luck``): in a match, match winning chances
  (MWC, 0.01 = 1%): the roll's equity turned to MWC by the match equity table at the score and
  cube of the roll (GNU Backgammon's ``eq2mwc(luck) - eq2mwc(0)``, Kazaross-XG2's table, its
  default); in a money session, points (the equity times the cube).
- The result (``match_result``): in a match, the MWC gained over the match (+0.5 for the winner of a
  finished match, -0.5 for the loser: from 50% at the start to 100% or 0%); in a money session, the
  points won.
- The luck-adjusted result (``luck_adjusted``): the result minus the player's own luck plus the
  opponent's (GNU Backgammon's "Luck adjusted result"): what the result would have been with average
  dice. Positive: the player outplayed the opponent.

Units: MWC in a match, because a roll's equity is worth different amounts at different scores and
cubes; only MWC adds up over a match and compares with its result (GNU Backgammon does the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from bgbot_cpp import eq2mwc, get_met

from engine.ai.coaching import PlayerReport
from engine.backgammon.game import BackgammonState

Roll = tuple[int, int]


def opening_luck(mine: Mapping[Roll, float], theirs: Mapping[Roll, float], dice: Roll) -> float:
    """The luck of an opening roll ``dice`` (not a tie) won by the player whose equity after each roll
    is ``mine``; ``theirs``: the opponent's equity after each roll, had they won the opening roll."""
    if dice[0] == dice[1]:
        raise ValueError("an opening tie is rolled again: it has no luck")
    rolls = [roll for roll in mine if roll[0] != roll[1]]
    if len(rolls) != 15 or any(roll not in theirs for roll in rolls):
        raise ValueError("an opening roll's luck needs the equity after each of the 15 non-doubles")
    average = (sum(mine[roll] for roll in rolls) - sum(theirs[roll] for roll in rolls)) / 30
    return mine[(min(dice), max(dice))] - average


def match_winning_chances(length: int, score: tuple[int, int], seat: int, crawford: bool = False) -> float:
    """``seat``'s match winning chance at ``score`` in a match to ``length`` (1 once it has won)."""
    away, other = length - score[seat], length - score[1 - seat]
    if away <= 0:
        return 1.0
    if other <= 0:
        return 0.0
    return float(get_met(away, other, crawford))


MWC, POINTS = "mwc", "points"
"""The result's units: match winning chances (0.01 = 1%), points (a money session)."""


def result_unit(state: BackgammonState) -> str:
    """``POINTS`` in a money session, else ``MWC``."""
    return POINTS if state.is_money or state.length <= 0 else MWC


def luck_in_result_units(luck: float, state: BackgammonState, seat: int) -> float:
    """A roll's ``luck`` (equity of the current cube, ``seat`` rolling in ``state``) in the result's
    units: MWC in a match, points in a money session."""
    if result_unit(state) == POINTS:
        return luck * state.cube
    away, other = state.length - state.score[seat], state.length - state.score[1 - seat]
    if away <= 0 or other <= 0:
        return 0.0  # the match is decided: no roll changes it
    cube, crawford = state.cube, state.crawford
    return float(eq2mwc(luck, away, other, cube, crawford)) - float(eq2mwc(0.0, away, other, cube, crawford))


def match_result(first: BackgammonState, last: BackgammonState, seat: int) -> float:
    """``seat``'s result from ``first`` to ``last``: the MWC gained in a match, the points won in a
    money session."""
    if result_unit(first) == POINTS:
        return float((last.score[seat] - last.score[1 - seat]) - (first.score[seat] - first.score[1 - seat]))
    if last.result is not None and last.result.winner is not None:
        end = 1.0 if last.result.winner == seat else 0.0
    else:
        end = match_winning_chances(last.length, last.score, seat, last.crawford)
    return end - match_winning_chances(first.length, first.score, seat, first.crawford)


def luck_adjusted(result: float, own_luck: float, their_luck: float) -> float:
    """The luck-adjusted result: ``result`` minus the player's luck plus the opponent's (all in the
    result's units)."""
    return result - own_luck + their_luck


@dataclass(slots=True)
class LuckTally:
    """One player's luck over a match, roll by roll."""

    total: float = 0.0
    """GNU Backgammon's "Luck total EMG": each roll's luck in equity of the cube then, summed."""
    result_luck: float = 0.0
    """The same rolls' luck in the result's units (MWC in a match, points in money), summed."""

    def add(self, luck: float, state: BackgammonState, seat: int) -> None:
        """Count a roll of ``seat`` in ``state`` that had ``luck`` (equity)."""
        self.total += luck
        self.result_luck += luck_in_result_units(luck, state, seat)


def with_luck(
    reports: tuple[PlayerReport, PlayerReport],
    tallies: tuple[LuckTally, LuckTally],
    first: BackgammonState,
    last: BackgammonState,
) -> tuple[PlayerReport, PlayerReport]:
    """The players' ``reports`` with their luck fields (``luck_total``, ``luck_result``, ``result``,
    ``luck_adjusted``, ``luck_unit``) from ``tallies``, the match played from ``first`` to ``last``."""
    results = (match_result(first, last, 0), match_result(first, last, 1))
    unit = result_unit(first)

    def report(seat: int) -> PlayerReport:
        mine, theirs = tallies[seat], tallies[1 - seat]
        return replace(
            reports[seat],
            luck_total=mine.total,
            luck_result=mine.result_luck,
            result=results[seat],
            luck_adjusted=luck_adjusted(results[seat], mine.result_luck, theirs.result_luck),
            luck_unit=unit,
        )

    return report(0), report(1)
