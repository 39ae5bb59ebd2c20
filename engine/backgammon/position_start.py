"""A match started from a pasted position: a GNU Backgammon position ID, "position ID:match ID", or an
eXtreme Gammon XGID, read (``read_code``) and turned into the first state of the match
(``start_from``), checked so that the match can be played on under our rules.

GNU Backgammon's players 0 and 1 (XG's top and bottom players) are seats 0 and 1, so the codes of the
starting state (``variant.match_info``) read back as the code that was pasted. A bare position ID says
nothing of the match: its player on roll is seat 0, with the cube centred at 1, the score 0-0 and
the dice not rolled yet. An XGID's money game keeps its Jacoby rule and beavers, and a double it says
was beavered is answered so (``B``; a raccoon, ``R``, is refused: our money games have none).

What the code cannot hold, or a position our rules cannot play, is a ``PositionCodeError`` whose
message is one sentence for the player: a side with more than 15 checkers or none left, both sides on
one point, a score at or above the length, a cube where the match has none, a Crawford flag at a score
that has no Crawford game, a game already over, a resignation waiting, more than five checkers on a
point in Old English, a position where nobody can ever move (``check_someone_can_move``: both sides
on the bar against closed boards, where the dice would be rolled and passed for ever).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.backgammon import cube
from engine.backgammon.actions import Beaver, Phase, Roll
from engine.backgammon.board import BAR, POINTS, Board, RuleSet, Side, swap
from engine.backgammon.formats import (
    MATCH_ID_LENGTH,
    POSITION_ID_LENGTH,
    FormatError,
    GameState,
    MatchInfo,
    Resignation,
    board_from_position_id,
    match_info_from_id,
    read_xgid,
)
from engine.backgammon.game import BackgammonState
from engine.backgammon.layers import MoneyRules
from engine.backgammon.plays import can_move
from engine.errors import IllegalActionError, NotationError

MAX_CODE_LENGTH = 120
"""The longest code read (an XGID is at most about 70 characters)."""


class PositionCodeError(NotationError):
    """A position code that cannot be read, or a position our rules cannot start a match from."""


@dataclass(frozen=True, slots=True)
class PastedPosition:
    """What a code says: the GNUBG board (``board[1]`` on roll) and, unless it was a bare position
    ID, the match information (``info``); an XGID also says whether its money game has beavers
    (``beavers``) and whether the double waiting has been beavered (``beavered``)."""

    board: Board
    info: MatchInfo | None
    kind: str
    beavers: bool = False
    beavered: bool = False

    @property
    def length(self) -> int | None:
        """The match length the code gives (0: a money game), None for a bare position ID."""
        return None if self.info is None else self.info.match_length


def read_code(text: str) -> PastedPosition:
    """The position of a GNUBG position ID, "position ID:match ID" or XGID; ``PositionCodeError``
    with the reason when ``text`` is none of them."""
    if not isinstance(text, str):
        raise PositionCodeError("A position is given as text: a GNU Backgammon ID or an XGID.")
    code = text.strip()
    if len(code) > MAX_CODE_LENGTH:
        raise PositionCodeError(
            f"That code is {len(code)} characters long; a GNU Backgammon ID or an XGID is much shorter."
        )
    try:
        if code[:5].upper() == "XGID=" or code.count(":") == 9:
            read = read_xgid(code)
            return PastedPosition(read.board, read.info, "XGID", read.beavers, read.beavered)
        if code.upper().startswith("GNUBGID"):
            code = code[7:].strip(" =:")
        if ":" in code:
            position, _, match = code.partition(":")
            board = board_from_position_id(position.strip())
            return PastedPosition(board, match_info_from_id(match.strip()), "GNUBG ID")
        return PastedPosition(board_from_position_id(code), None, "position ID")
    except FormatError as error:
        raise PositionCodeError(_first_sentence(error, text)) from error


def _first_sentence(error: FormatError, text: str) -> str:
    message = str(error)
    if len(text.strip()) not in (POSITION_ID_LENGTH, POSITION_ID_LENGTH + 1 + MATCH_ID_LENGTH) and (
        "characters" in message and "XGID" not in message
    ):
        return (
            "That is not a position code: give a GNU Backgammon position ID (14 characters), "
            '"position ID:match ID", or an XGID (XGID=...).'
        )
    return message


def start_from(
    pasted: PastedPosition, rules: RuleSet, length: int, money: MoneyRules | None = None
) -> BackgammonState:
    """The first state of a match to ``length`` points under ``rules`` from ``pasted``: its sides,
    whose turn, the dice (then the player on roll plays them), the cube, the score, the Crawford game.
    ``length`` must be the code's own when it has one (the caller settles that); a money game
    (``length`` 0) is played under ``money`` (default: the Jacoby rule and beavers as the code has
    them). A double beavered (an XGID's ``B``) stands as made, our beavers having no raccoons and no
    refusal: the doubler rolls with the cube at four times, the beaverer's."""
    info = pasted.info or MatchInfo(match_length=length)
    check_match(info)
    if info.match_length != length:
        raise PositionCodeError(
            f"The code is of a {_length_words(info.match_length)}, not a {length}-point match."
        )
    board = pasted.board
    seat = info.on_roll
    # board[1] is the player on roll: GNUBG's player ``seat``, our seat ``seat``.
    sides: tuple[Side, Side] = (board[1], board[0]) if seat == 0 else (board[0], board[1])
    _check_sides(sides, rules)
    check_someone_can_move(board, rules)
    value = info.cube_value
    _check_cube(info, rules, length, value)
    crawford, crawford_done = _crawford(info, length)
    fields: dict[str, Any] = {
        "sides": sides,
        "rules": rules,
        "length": length,
        "score": info.score,
        "cube": value,
        "cube_owner": info.cube_owner,
        "crawford": crawford,
        "crawford_done": crawford_done,
    }
    if length == cube.MONEY:
        if not rules.uses_cube:
            raise PositionCodeError("A money game is played with the cube, which Old English does not have.")
        fields["money"] = money or MoneyRules(jacoby=info.jacoby, beavers=pasted.beavers or pasted.beavered)
    if info.game_state is GameState.NONE and not info.doubled and info.dice == (0, 0):
        # No game started: the opening roll decides who plays first, from this position.
        return BackgammonState(**fields)
    state = BackgammonState(**fields, turn_seat=seat, phase=Phase.ROLL)
    if info.doubled:
        if not state.may_double(seat):
            raise PositionCodeError(
                f"The code has a double waiting for an answer, but {state.why_not_double(seat)}."
            )
        doubled = state.but(phase=Phase.TAKE)
        return _beavered(doubled) if pasted.beavered else doubled
    if info.dice != (0, 0):
        rolled = state.apply(Roll(*info.dice))
        assert isinstance(rolled, BackgammonState)
        return rolled
    return state.but(phase=Phase.DECIDE) if state.may_double(seat) else state


def _beavered(doubled: BackgammonState) -> BackgammonState:
    """The double of ``doubled`` answered with a beaver, if the session allows it."""
    try:
        after = doubled.apply(Beaver())
    except IllegalActionError as error:
        raise PositionCodeError(f"The code has a double beavered, but {error}.") from error
    assert isinstance(after, BackgammonState)
    return after


def _length_words(length: int) -> str:
    return "money game" if length == 0 else f"{length}-point match"


def check_match(info: MatchInfo) -> None:
    """``PositionCodeError`` unless the match of ``info`` is one played here, with a game to play."""
    if info.game_state in (GameState.OVER, GameState.RESIGNED, GameState.DROPPED):
        raise PositionCodeError("The game in that code is already over: give a position still to be played.")
    if info.resigned is not Resignation.NONE:
        raise PositionCodeError(
            "The code has a resignation waiting for an answer: give the position before it."
        )
    if info.match_length == cube.MONEY:
        return  # a money game: points won so far, no score to reach
    if not 1 <= info.match_length <= cube.MAX_LENGTH:
        raise PositionCodeError(
            f"The code is of a {info.match_length}-point match; matches here are 1 to {cube.MAX_LENGTH} "
            "points (0: a money game)."
        )
    for points in info.score:
        if points >= info.match_length:
            raise PositionCodeError(
                f"A score of {points} in a {info.match_length}-point match has already won it: "
                "each score must be below the length."
            )


def _check_sides(sides: tuple[Side, Side], rules: RuleSet) -> None:
    for seat, side in enumerate(sides):
        if sum(side) == 0:
            raise PositionCodeError(f"Player {seat + 1} has no checker left on the board: that game is over.")
    cap = rules.point_cap
    for side in sides:
        # The bar is not limited (RULINGS, backgammon 6: entering is, and that is checked in play).
        crowded = [i + 1 for i in range(POINTS) if side[i] > cap]
        if crowded:
            raise PositionCodeError(
                f"Old English allows at most {cap} checkers on a point; the code has "
                f"{side[crowded[0] - 1]} on one point."
            )


def check_someone_can_move(board: Board, rules: RuleSet) -> None:
    """``PositionCodeError`` when neither side has a legal move with any die: then no roll can ever be
    played by either (nothing changes the position), and the game could never end."""
    if can_move(board, rules) or can_move(swap(board), rules):
        return
    why = (
        "both sides on the bar against a closed board"
        if board[0][BAR] and board[1][BAR]
        else "every move of each side is blocked"
    )
    raise PositionCodeError(
        f"In that position nobody can ever move ({why}): no roll could be played, so the game would "
        "never end. Give a position where someone can move."
    )


def _check_cube(info: MatchInfo, rules: RuleSet, length: int, value: int) -> None:
    if cube.cube_in_play(rules, length):
        if value > cube.MAX_CUBE:
            raise PositionCodeError(f"A cube of {value} is higher than the cube goes ({cube.MAX_CUBE}).")
        return
    if value > 1 or info.cube_owner is not None or info.doubled:
        where = "Old English" if not rules.uses_cube else "a 1-point match"
        raise PositionCodeError(f"The code has the cube in play, but {where} is played without the cube.")


def _crawford(info: MatchInfo, length: int) -> tuple[bool, bool]:
    """Whether this game is the Crawford game, and whether the Crawford game has come already."""
    at_match_point = [points == length - 1 for points in info.score]
    if info.crawford:
        if length == 1 or not any(at_match_point):
            raise PositionCodeError(
                "The code says this is the Crawford game, but nobody is one point from winning the match."
            )
        if info.cube_log2 or info.cube_owner is not None or info.doubled:
            raise PositionCodeError(
                "The code has the cube turned in the Crawford game, where nobody may double."
            )
        return True, True
    # A player at match point outside the Crawford game: the Crawford game is over (post-Crawford).
    return False, length > 1 and any(at_match_point)
