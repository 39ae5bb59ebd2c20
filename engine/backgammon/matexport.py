"""A played match as a Jellyfish ``.mat`` file: our action log replayed into ``matfile``'s record.

A turn played one checker at a time is one roll with its whole play in the file; an opening roll is
the first roll of the seat that starts; a won game ends with the points it scored (an accepted
resignation is written the same way: the format has no resignation lines; dice rolled and not played
before it are written alone, "52:", as GNU Backgammon writes them). A match ended off the board (a
resignation of the match, a timeout: ``ending``) is written as far as it was played, then the game
under way is resigned as GNU Backgammon would write it: a double waiting for an answer is passed by
the loser or taken by the winner, an offer waiting is declined, dice not played are written alone, and
the loser resigns the least that gives the winner the match (a backgammon at most: a resignation
cannot give more). A match with no roll at all has no file (GNU Backgammon reads no game without one).

A money session is written as GNU Backgammon writes one: a ``0 point match`` whose games carry the points
they scored (the Jacoby rule may make a gammon a single game), a beaver as ``Beavers => N``; a player's
Stop is no move of a game and is not written. The format has no automatic doubles (the cube of a game
would start above 1), so a session that had one is not exported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.backgammon.board import RuleSet
from engine.backgammon.game import (
    AcceptResignation,
    BackgammonState,
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
    Take,
)
from engine.backgammon.matfile import MatAction, MatGame, MatMatch, mat_text
from engine.backgammon.notation import play_text
from engine.backgammon.plays import Move, Play
from engine.protocol import Outcome, Variant


def mat_record(
    variant: Variant,
    options: Mapping[str, Any],
    log: Sequence[str],
    names: tuple[str, str],
    ending: Outcome | None = None,
) -> MatMatch:
    """The ``MatMatch`` of a match played from ``options`` through ``log`` (action notations), ended
    off the board by ``ending`` when its log does not end it."""
    state = variant.new_game(options)
    assert isinstance(state, BackgammonState)
    games: list[MatGame] = []
    actions: list[MatAction] = []
    score = state.score
    moves: list[Move] = []
    for text in log:
        action = variant.parse_action(state, text)
        before = state
        after = before.apply(action)
        assert isinstance(after, BackgammonState)
        seat = before.turn_seat if before.turn_seat is not None else after.turn_seat or 0
        if isinstance(action, Opening | Roll):
            moves = []
        if isinstance(action, MoveChecker):
            moves.append(action.move)
        elif isinstance(action, Checkers):
            moves.extend(action.moves)
        elif isinstance(action, Double):
            actions.append(MatAction(seat, "double"))
        elif isinstance(action, Take | Pass):
            actions.append(MatAction(1 - seat, "take" if isinstance(action, Take) else "pass"))
        elif isinstance(action, Beaver):
            actions.append(MatAction(1 - seat, "beaver"))
        elif isinstance(action, OfferResignation):
            actions.append(MatAction(seat, "resign", points=action.level * before.cube))
        elif isinstance(action, AcceptResignation | DeclineResignation):
            kind = "accept" if isinstance(action, AcceptResignation) else "decline"
            actions.append(MatAction(1 - seat, kind))
        rolled = isinstance(action, Opening | Roll) and (
            before.phase is not Phase.OPENING or after.turn_seat is not None
        )
        played = isinstance(action, MoveChecker | Checkers) and (
            after.phase is not Phase.PLAY or after.game_number != before.game_number
        )
        if rolled and after.phase is not Phase.PLAY and after.last_play is not None:
            # A roll that could not be played: the turn passed at once.
            actions.append(MatAction(seat, "roll", dice=after.last_play.dice, play=""))
        elif played:
            assert before.dice is not None
            dice = before.dice
            actions.append(
                MatAction(seat, "roll", dice=dice, play=play_text(Play(tuple(moves), before.board)))
            )
            moves = []
        if after.game_number != before.game_number or (after.is_terminal() and after.score != before.score):
            winner = max((0, 1), key=lambda s: after.score[s] - before.score[s])
            if isinstance(action, AcceptResignation) and before.resume is Phase.PLAY and before.dice:
                actions.append(MatAction(before.turn_seat or 0, "rolled", dice=before.dice))
            actions.append(MatAction(winner, "win", points=after.score[winner] - before.score[winner]))
            games.append(MatGame(score, tuple(actions)))
            actions, score = [], after.score
        state = after
    if ending is not None and ending.winner is not None and not state.is_terminal():
        actions += resigned_ending(state, ending.winner)
    if actions:
        games.append(MatGame(score, tuple(actions)))
    return MatMatch(length=state.length, names=names, games=tuple(games), rules=state.rules)


def resigned_ending(state: BackgammonState, winner: int) -> list[MatAction]:
    """The end of the game under way in ``state`` when the match ended off the board with ``winner``
    winning, as GNU Backgammon would record it (``decline``, ``pass``/``take``, ``rolled``, then
    ``resign``, ``accept`` and ``win``): nothing before the game's first roll, GNU Backgammon has no
    game to resign then. The ``.sgf`` export (``sgfexport``) ends such a game the same way."""
    loser = 1 - winner
    if state.phase is Phase.OPENING:
        return []
    out: list[MatAction] = []
    cube = state.cube
    phase = state.resume if state.phase is Phase.RESIGN else state.phase
    if state.phase is Phase.RESIGN:
        offerer = state.turn_seat if state.turn_seat is not None else 0
        out.append(MatAction(1 - offerer, "decline"))
    if phase is Phase.TAKE:
        doubler = state.turn_seat or 0
        if doubler == winner:
            # The loser's answer: a pass, and the game is the winner's at the cube's value.
            return [*out, MatAction(loser, "pass"), MatAction(winner, "win", points=cube)]
        out.append(MatAction(winner, "take"))
        cube *= 2
    elif phase is Phase.PLAY and state.dice:
        out.append(MatAction(state.turn_seat or 0, "rolled", dice=state.dice))
    needed = max(1, state.length - state.score[winner])
    points = next((cube * level for level in (1, 2, 3) if cube * level >= needed), 3 * cube)
    return [
        *out,
        MatAction(loser, "resign", points=points),
        MatAction(winner, "accept"),
        MatAction(winner, "win", points=points),
    ]


def mat_file(
    variant: Variant,
    options: Mapping[str, Any],
    log: Sequence[str],
    names: tuple[str, str],
    ending: Outcome | None = None,
) -> str | None:
    """The ``.mat`` text of the match, or None under rules the format cannot hold (Old English), for a
    money session that had an automatic double, and for a match ended before its first roll (nothing a
    program could read)."""
    record = mat_record(variant, options, log, names, ending)
    if record.rules is RuleSet.OLDENGLISH or not record.games or _had_automatic_double(variant, options, log):
        return None
    return mat_text(record)


def _had_automatic_double(variant: Variant, options: Mapping[str, Any], log: Sequence[str]) -> bool:
    """Whether a game of the money session had an automatic double, which ``.mat`` cannot hold."""
    state = variant.new_game(options)
    assert isinstance(state, BackgammonState)
    if state.money is None or state.money.automatic == 0:
        return False
    for text in log:
        after = state.apply(variant.parse_action(state, text))
        assert isinstance(after, BackgammonState)
        if after.automatic_doubles > 0:
            return True
        state = after
    return False
