"""Backgammon in words: what a player types read back as an action, and where a turn stands in the
match as players count it (game G, move M)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.backgammon.actions import (
    COLOURS,
    LEVELS,
    AcceptResignation,
    Beaver,
    Checkers,
    DeclineResignation,
    Double,
    MoveChecker,
    OfferResignation,
    Opening,
    Pass,
    Phase,
    Roll,
    RollOn,
    StopAfterGame,
    Take,
)
from engine.backgammon.board import (
    BAR_POINT,
    OFF_POINT,
)
from engine.backgammon.notation import NO_PLAY, move_text, parse_among, play_text
from engine.backgammon.plays import Play
from engine.errors import IllegalActionError, NotationError, NotYourTurnError
from engine.protocol import Action

if TYPE_CHECKING:
    from engine.backgammon.game import BackgammonState


def _parse_step(state: BackgammonState, text: str) -> MoveChecker:
    body, _, die_text = text.partition(" with ")
    hit = body.endswith("*")
    src_text, _, dst_text = body.rstrip("*").partition("/")
    points = {"bar": BAR_POINT, "b": BAR_POINT, "off": OFF_POINT, "o": OFF_POINT}
    try:
        src = points.get(src_text) or int(src_text)
        dst = points[dst_text] if dst_text in points else int(dst_text)
        die = int(die_text) if die_text else None
    except ValueError:
        raise NotationError(f"{text!r} is not one checker's move like 24/18, bar/22* or 6/off") from None
    candidates = [s for s, _ in state.steps() if (s.move.src, s.move.dst) == (src, dst)]
    if die is not None:
        candidates = [s for s in candidates if s.die == die]
    if not candidates:
        options = ", ".join(sorted({move_text(s.move) for s, _ in state.steps()}))
        raise IllegalActionError(
            f"{body} is not a move that leads to a legal play of {state.dice_text}; moves now: {options}"
        )
    chosen = min(candidates, key=lambda s: s.die)
    del hit  # a move hits or not by the position; the mark is not needed to tell moves apart
    return MoveChecker(chosen.move.src, chosen.move.dst, chosen.die, chosen.move.hit)


def parse_action(state: BackgammonState, text: str) -> Action:
    """The action ``text`` describes here: a keyword, ``move 24/18`` for one checker, or the rest
    of the play in standard notation (errors list the legal plays)."""
    words = " ".join(text.strip().lower().split())
    simple: dict[str, Action] = {
        "roll": RollOn(),
        "double": Double(),
        "take": Take(),
        "pass": Pass(),
        "drop": Pass(),
        "beaver": Beaver(),
        "accept": AcceptResignation(),
        "decline": DeclineResignation(),
    }
    if words in simple and not (words == "pass" and state.phase is Phase.PLAY):
        return simple[words]
    if words.startswith("stop "):
        seats = {colour.lower(): seat for seat, colour in enumerate(COLOURS)}
        who = words.removeprefix("stop ")
        if who not in seats:
            raise NotationError("stop a money session after this game: stop white|black")
        return StopAfterGame(seats[who])
    if words.startswith("resign"):
        level = words.removeprefix("resign").strip() or "single"
        names = {k.value: i + 1 for i, k in enumerate(LEVELS)} | {"game": 1, "1": 1, "2": 2, "3": 3}
        if level not in names:
            raise NotationError(
                "offer to resign a single game, a gammon or a backgammon: resign single|gammon|backgammon"
            )
        return OfferResignation(names[level])
    for prefix, kind in (("opening ", Opening), ("roll ", Roll)):
        if words.startswith(prefix):
            dice = words.removeprefix(prefix).split("-")
            if len(dice) != 2 or not all(d.isdigit() for d in dice):
                raise NotationError(f"{text.strip()!r}: dice are written like 6-4")
            return kind(int(dice[0]), int(dice[1]))
    if state.phase is not Phase.PLAY or state.dice is None:
        if state.phase is Phase.DECIDE:
            raise NotYourTurnError("roll first (or double): the dice are not rolled yet")
        raise NotYourTurnError("no checker is to be moved now")
    if words.startswith("move "):
        return _parse_step(state, words.removeprefix("move "))
    if words in (NO_PLAY, "-", ""):
        raise IllegalActionError(f"{state.dice_text} can be played, so you must play it")
    done = play_text(Play(tuple(s.move for s in state.played), state.board)) if state.played else ""
    try:
        play = parse_among(words, state.board, state.plays(), state.dice_text, already=done)
    except (NotationError, IllegalActionError):
        # One checker moved by one die ("13/8") is what a click on the board does: that checker
        # moves, and the rest of the play is chosen as after the click.
        if _ONE_STEP.match(words):
            try:
                return _parse_step(state, words)
            except (NotationError, IllegalActionError):
                pass
        raise
    return Checkers(play.moves, play.result)


_ONE_STEP = re.compile(r"^(bar|b|\d{1,2})/(off|o|\d{1,2})\*?$")
"""One checker's move by one die, as a click makes it: ``13/8``, ``bar/22*``, ``6/off``."""


def post_crawford(state: BackgammonState) -> bool:
    """Whether this game comes after the Crawford game (the cube is back, the trailer doubles at once)."""
    return state.length > 1 and state.uses_cube and state.crawford_done and not state.crawford


def match_won_with(words: str) -> str:
    """A one-point match's result: "White wins a backgammon" says "White wins the match with a
    backgammon" (its points do not count: one game wins the match)."""
    return words.replace(" wins ", " wins the match with ", 1)


def move_number(state: BackgammonState) -> int:
    """The move the turn under way is, as players count it: the number of the ``.mat`` line it is
    written on (``matexport``), each line holding one turn of each player, the first player's on the
    left. A double and its answer take a line of their own, so the double's line is the move of a
    cube decision and the roll after a take is on the next. At the end of a game: its last line."""
    phase = state.resume if state.phase is Phase.RESIGN and state.resume is not None else state.phase
    seat = state.turn_seat
    if seat is None or phase is Phase.OPENING:
        return 1
    done = state.turn_number - state.game_start_turn
    if phase is Phase.PLAY or (phase is Phase.OVER and state.last_play is not None):
        done -= 1  # the roll being played (or the one that ended the game) is the turn itself
        seat = state.last_play.seat if phase is Phase.OVER and state.last_play is not None else seat
    starter = seat if done % 2 == 0 else 1 - seat
    # Each taken double fills a line (the double and the take); the cube starts each game at 1.
    cells = max(done, 0) + (starter == 1) + 2 * (state.cube.bit_length() - 1)
    cell = cells if cells % 2 == seat else cells + 1
    return cell // 2 + 1


def move_label(state: BackgammonState) -> str:
    """ "game G, move M" (just "move M" in a one-game match), for the footer, the analysis and the replay."""
    move = f"move {move_number(state)}"
    return move if state.length == 1 else f"game {state.game_number}, {move}"
