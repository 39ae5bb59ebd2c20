"""A played match as a Jellyfish ``.mat`` file: our action log replayed into ``matfile``'s record.

A turn played one checker at a time is one roll with its whole play in the file; an opening roll is
the first roll of the seat that starts; a won game ends with the points it scored (an accepted
resignation is written the same way: the format has no resignation lines). A match ended off the board (a resignation
of the match, a timeout) is written as far as it was played.

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
from engine.protocol import Variant


def mat_record(
    variant: Variant, options: Mapping[str, Any], log: Sequence[str], names: tuple[str, str]
) -> MatMatch:
    """The ``MatMatch`` of a match played from ``options`` through ``log`` (action notations)."""
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
            actions.append(MatAction(winner, "win", points=after.score[winner] - before.score[winner]))
            games.append(MatGame(score, tuple(actions)))
            actions, score = [], after.score
        state = after
    if actions:
        games.append(MatGame(score, tuple(actions)))
    return MatMatch(length=state.length, names=names, games=tuple(games), rules=state.rules)


def mat_file(
    variant: Variant, options: Mapping[str, Any], log: Sequence[str], names: tuple[str, str]
) -> str | None:
    """The ``.mat`` text of the match, or None under rules the format cannot hold (Old English)."""
    record = mat_record(variant, options, log, names)
    if record.rules is RuleSet.OLDENGLISH or _had_automatic_double(variant, options, log):
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
