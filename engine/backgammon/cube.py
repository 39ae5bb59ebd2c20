"""The doubling cube and the Crawford rule of match play (RULINGS, backgammon 5 and 6).

A match to one point has no cube, nor does Old English. Otherwise a player may double before rolling
when the cube is centred or their own, except in the Crawford game (the game right after a player
first reaches one point short of the match) and once the cube can no longer change anything: when
a win at its present value already gives either player the match, doubling is not offered.

A money session (length 0) has the cube without the Crawford rule; its ``MoneyRules`` say how
gammons count (Jacoby), whether a doubled player may beaver, and how many automatic doubles a game
may have.
"""

from __future__ import annotations

from engine.backgammon.board import RuleSet

MAX_LENGTH = 25
"""The longest match played (points)."""
MAX_CUBE = 1 << 15
"""The highest cube value a GNUBG match ID can hold."""
MONEY = 0
"""The length of a money session: single games, each scored on its own, until a player stops."""
MAX_AUTOMATIC = 3
"""The most automatic doubles a money game may have (equal opening dice)."""
MAX_LIMIT = 1000
"""The largest session limit in points."""


def cube_in_play(rules: RuleSet, length: int) -> bool:
    """Whether a match of ``length`` under ``rules`` has a doubling cube."""
    return rules.uses_cube and length != 1


def game_points(level: int, value: int, *, owner: int | None, jacoby: bool) -> int:
    """What a game won at ``level`` (1 single, 2 gammon, 3 backgammon) scores with the cube at
    ``value``: under the Jacoby rule a gammon or backgammon counts as a single game while the cube
    is still in the middle (never turned: an automatic double leaves it there)."""
    if jacoby and owner is None:
        return value
    return level * value


def session_over(score: tuple[int, int], *, limit: int, stopping: int | None) -> bool:
    """Whether a money session ends once its game in progress is scored: a player asked to stop,
    or one is ``limit`` points ahead."""
    return stopping is not None or (limit > 0 and abs(score[0] - score[1]) >= limit)


def why_not_double(
    seat: int,
    *,
    rules: RuleSet,
    length: int,
    score: tuple[int, int],
    value: int,
    owner: int | None,
    crawford: bool,
) -> str:
    """Why ``seat`` may not double now, or "" when it may."""
    if not rules.uses_cube:
        return "Old English is played without the doubling cube"
    if length == 1:
        return "a 1-point match is played without the doubling cube"
    if crawford:
        return "this is the Crawford game: nobody may double"
    if owner is not None and owner != seat:
        return "your opponent owns the cube: only they may double"
    if value >= MAX_CUBE:
        return f"the cube is at its highest ({value})"
    away = (length - score[0], length - score[1])
    if length != MONEY and value >= max(away):
        return f"at {value} the cube already decides the match: a double changes nothing"
    return ""


def may_double(
    seat: int,
    *,
    rules: RuleSet,
    length: int,
    score: tuple[int, int],
    value: int,
    owner: int | None,
    crawford: bool,
) -> bool:
    """Whether ``seat``, on turn and before rolling, may offer a double."""
    return not why_not_double(
        seat, rules=rules, length=length, score=score, value=value, owner=owner, crawford=crawford
    )


def after_game(
    score: tuple[int, int], winner: int, *, length: int, crawford: bool, crawford_done: bool
) -> tuple[bool, bool]:
    """Whether the next game is the Crawford game, and whether that game has come already, after
    ``winner`` took a game that left the match at ``score`` (not yet won)."""
    if crawford:
        return False, True
    if not crawford_done and score[winner] == length - 1:
        return True, True
    return False, crawford_done
