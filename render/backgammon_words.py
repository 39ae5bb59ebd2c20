"""The words of the backgammon board: the header's sentence and whose it is, each player's score as
players say it. Pure text of a position (no drawing), so the picture and its tests share one wording."""

from __future__ import annotations

import re

from engine.backgammon.game import COLOURS, LEVELS, BackgammonState, BackgammonWin, Phase

WINS: dict[str, str] = {
    BackgammonWin.SINGLE: "a single game",
    BackgammonWin.GAMMON: "a gammon",
    BackgammonWin.BACKGAMMON: "a backgammon",
    BackgammonWin.PASSED: "the double was passed",
}
"""How a game was won, for the words of a match won by playing or passing."""


def row_score(state: BackgammonState, seat: int) -> str:
    """A player's score as players say it, "2 points · 3-away" (no n-away once won nor in a money
    game, which counts points only; "" in 1 point)."""
    points, away = state.score[seat], state.away(seat)
    text = f"{points} point{'s' if points != 1 else ''}" + (f" · {away}-away" if away > 0 else "")
    return text if state.length != 1 else ""


def header_text(state: BackgammonState) -> str:
    """The header's sentence: ``phase_text`` without the score (the rows show it), an answer asked
    for as "title: detail" so the question stays whole."""
    result = state.result
    if result is not None:
        if state.is_money and result.winner is not None:
            won, lost = state.score[result.winner], state.score[1 - result.winner]
            return f"{COLOURS[result.winner]} wins the session: +{result.points}, {won}-{lost} in points"
        if state.length > 1 and result.winner is not None and result.reason in WINS:
            # "White wins the 5-point match 5-3" is too long for the title line.
            won, lost = state.score[result.winner], state.score[1 - result.winner]
            return f"{COLOURS[result.winner]} wins the match: {won}-{lost} in a {state.length}-point match"
        if state.length == 1 and result.winner is not None and " with " in result.description:
            # "White wins the match with a gammon: Black resigned" is too long for the title line.
            how = result.description.split(" with ", 1)[1].replace(": ", ", ")
            return f"{COLOURS[result.winner]} wins the match: {how}"
        return result.description
    seat = state.turn_seat or 0
    if state.phase is Phase.TAKE:
        # "Black to take, beaver or pass" does not fit the title beside "game G, move M": the beaver
        # goes in the detail line (the middle of the board asks all three).
        beaver = f" · {COLOURS[1 - seat]} may beaver" if state.may_beaver() else ""
        return f"{COLOURS[1 - seat]} to take or pass: {COLOURS[seat]} doubles to {state.cube * 2}{beaver}"
    if state.phase is Phase.RESIGN:
        kind = LEVELS[state.offer - 1].value
        points = state.offer * state.cube
        return (
            f"{COLOURS[1 - seat]} to accept or decline: {COLOURS[seat]} offers to resign a {kind} "
            f"({points} point{'s' if points != 1 else ''})"
        )
    text = state.phase_text.split(" · ")[0]
    # The dice still to play are drawn (the used ones faded): the title need not list them.
    text = re.sub(r" \([^()]* left\)$", "", text)
    if state.phase is Phase.OPENING and state.length != 1:
        text = f"Game {state.game_number}: roll to see who starts"
    return text


def header_seat(state: BackgammonState) -> int | None:
    """The seat the header names: the winner, the seat answering, the seat on turn, none at the opening."""
    if state.result is not None:
        return state.result.winner
    if state.phase is Phase.OPENING:
        return None
    to_move = state.to_move()
    return to_move if to_move in (0, 1) else state.turn_seat
