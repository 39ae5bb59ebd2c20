"""How a ring turn moves on: what each action does to a state, the end of a turn and the win check.

``apply_action`` is the whole interface: ``RingState.apply`` checks an action is legal, then hands it here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from engine.errors import IllegalActionError
from engine.protocol import (
    Action,
    Outcome,
)
from engine.ring.rules import (
    COLOURS,
    NUMBER_WORDS,
    Knock,
    LastEvent,
    Mark,
    MarkKind,
    Move,
    Opening,
    Phase,
    Roll,
    Swap,
    counted,
    winning_condition,
)

if TYPE_CHECKING:
    from engine.ring.state import RingState


def apply_action(state: RingState, action: Action) -> RingState:
    """The state after ``action``, already checked legal in ``state``: what it does to the board,
    its words, and the turn's events (an opening roll or a roll starts them afresh)."""
    if isinstance(action, Opening):
        return _recorded(state, _apply_opening(state, action), starts_turn=True)
    if isinstance(action, Roll):
        return _recorded(state, _apply_roll(state, action), starts_turn=True)
    if isinstance(action, Swap):
        return _recorded(state, _apply_swap(state, action))
    if isinstance(action, Knock):
        return _recorded(state, _apply_knock(state, action))
    if isinstance(action, Move):
        return _recorded(state, _apply_move(state, action))
    raise IllegalActionError(f"{action} is not an action of this game")


def _recorded(state: RingState, after: RingState, starts_turn: bool = False) -> RingState:
    """``after`` with its final event (``last``) added to the turn's events, or starting them."""
    assert after.last is not None
    events = (after.last,) if starts_turn else (*state.turn_events, after.last)
    return replace(after, turn_events=events)


def _end_turn(state: RingState, following: RingState) -> RingState:
    """Hand the turn to the opponent (or finish, if someone has won)."""
    if following.result is not None:
        return replace(following, phase=Phase.OVER, dice_left=())
    assert following.turn_seat is not None
    return replace(
        following,
        phase=Phase.ROLL,
        turn_seat=1 - following.turn_seat,
        dice_left=(),
        turn_number=following.turn_number + 1,
    )


def _checked(state: RingState, following: RingState) -> RingState:
    """Check the win conditions after a change of the board: player on turn first (ruling 10)."""
    assert following.turn_seat is not None
    for seat in (following.turn_seat, 1 - following.turn_seat):
        found = winning_condition(following.board, seat)
        if found is not None:
            condition, sentence = found
            outcome = Outcome(
                winner=seat,
                reason=condition.key,
                description=f"{COLOURS[seat]} wins: {COLOURS[seat]} {sentence}",
            )
            return replace(following, result=outcome, phase=Phase.OVER, dice_left=())
    return following


def _event(state: RingState, action: Action, text: str, marks: Sequence[Mark] = ()) -> LastEvent:
    return LastEvent(seat=state.turn_seat, notation=action.notation, text=text, marks=tuple(marks))


def _turn_ends_after(state: RingState, after: RingState) -> RingState:
    """A board change that ends the turn: check the win conditions, then pass the turn or finish."""
    return _with_win_text(state, _end_turn(state, _checked(state, after)))


def _with_win_text(state: RingState, following: RingState) -> RingState:
    if following.result is None or following.last is None:
        return following
    return replace(
        following, last=replace(following.last, text=f"{following.last.text} {following.result.description}.")
    )


def _apply_opening(state: RingState, action: Opening) -> RingState:
    if action.red == action.blue:
        text = f"Both rolled {action.red} for the start: roll again."
        return replace(state, opening=(action.red, action.blue), last=_event(state, action, text))
    starter = 0 if action.red > action.blue else 1
    text = f"Red rolled {action.red}, Blue rolled {action.blue}: {COLOURS[starter]} starts."
    return replace(
        state,
        phase=Phase.ROLL,
        turn_seat=starter,
        turn_number=1,
        opening=(action.red, action.blue),
        last=LastEvent(seat=None, notation=action.notation, text=text),
    )


def _apply_roll(state: RingState, action: Roll) -> RingState:
    assert state.turn_seat is not None
    seat = state.turn_seat
    name = state.player_name()
    w1, w2, black = action.values
    rolled = replace(state, dice=action.values, dice_left=())
    head = f"{name} rolled {w1}-{w2}-{black}"
    ordered = sorted(action.values)
    notes: list[str] = []
    marks: list[Mark] = []
    if w1 == w2 == black:
        placed = _place(rolled, seat, w1, wanted=2, blocked_by=3)
        if placed is not None:
            board, piles, n, captured = placed
            placed_words = f"{NUMBER_WORDS.get(n, str(n))} {'token' if n == 1 else 'tokens'}"
            text = f"{head} (triples): {placed_words} placed on {w1}"
            if captured:
                text += f", capturing {captured}"
            marks = [Mark(MarkKind.PLACE, w1, n)]
            if captured:
                marks.append(Mark(MarkKind.CAPTURE, w1, captured))
            after = replace(rolled, board=board, piles=piles, last=_event(state, action, text + ".", marks))
            return _turn_ends_after(state, after)
        notes.append(_blocked_note(rolled, seat, w1, "triples"))
    elif ordered == [1, 3, 5] or ordered == [2, 4, 6]:
        odds = ordered == [1, 3, 5]
        enemy_stacks = rolled.stacks_of(1 - seat)
        if odds and rolled.stacks_of(seat) and enemy_stacks:
            text = f"{head} (odds): {name} swaps one of its stacks with one of {state.enemy_name()}'s."
            return replace(rolled, phase=Phase.SWAP, last=_event(state, action, text))
        if not odds and enemy_stacks:
            text = f"{head} (evens): {name} knocks one of {state.enemy_name()}'s stacks out of play."
            return replace(rolled, phase=Phase.KNOCK, last=_event(state, action, text))
        kind = "odds" if odds else "evens"
        reason = (
            "both players need a stack on the board to swap"
            if odds
            else (f"{state.enemy_name()} has no stack to knock out")
        )
        text = f"{head} ({kind}), but {reason}: the turn ends."
        return _end_turn(state, replace(rolled, last=_event(state, action, text)))
    # Place phase: the black die is ignored from here on (ruling 7).
    if w1 == w2:
        placed = _place(rolled, seat, w1, wanted=1, blocked_by=2)
        if placed is not None:
            board, piles, n, captured = placed
            text = f"{head} (doubles): a token placed on {w1}"
            if captured:
                text += f", capturing {captured}"
            marks = [Mark(MarkKind.PLACE, w1, n)]
            if captured:
                marks.append(Mark(MarkKind.CAPTURE, w1, captured))
            after = replace(rolled, board=board, piles=piles, last=_event(state, action, text + ".", marks))
            return _turn_ends_after(state, after)
        notes.append(_blocked_note(rolled, seat, w1, "doubles"))
    moving = replace(rolled, phase=Phase.MOVE, dice_left=(w1, w2))
    text = head + (": " + "; ".join(notes) if notes else "") + f". {name} moves {w1} and {w2}."
    if not moving.legal_actions():
        text = head + (": " + "; ".join(notes) if notes else "") + f". {name} has no legal move."
        return _end_turn(state, replace(moving, last=_event(state, action, text)))
    return replace(moving, last=_event(state, action, text))


def _place(
    state: RingState, seat: int, space: int, wanted: int, blocked_by: int
) -> tuple[tuple[int, ...], tuple[int, int], int, int] | None:
    """Put up to ``wanted`` tokens from the pile on ``space``; ``None`` if blocked or no pile."""
    owner, n = state.stack(space)
    enemy_here = n if owner == 1 - seat else 0
    if enemy_here >= blocked_by or state.piles[seat] == 0:
        return None
    placing = min(wanted, state.piles[seat])
    sign = state.sign_of(seat)
    board = list(state.board)
    piles = list(state.piles)
    if enemy_here:
        board[space - 1] = 0
        piles[1 - seat] += enemy_here
    board[space - 1] += placing * sign
    piles[seat] -= placing
    return tuple(board), (piles[0], piles[1]), placing, enemy_here


def _blocked_note(state: RingState, seat: int, space: int, kind: str) -> str:
    if state.piles[seat] == 0:
        return f"no token left in the pile to place for the {kind}"
    _, n = state.stack(space)
    return f"the {kind} placement on {space} is blocked by {COLOURS[1 - seat]}'s {n} tokens there"


def _apply_swap(state: RingState, action: Swap) -> RingState:
    board = list(state.board)
    board[action.own - 1], board[action.enemy - 1] = board[action.enemy - 1], board[action.own - 1]
    text = (
        f"{state.player_name()} swapped its stack on {action.own} with {state.enemy_name()}'s stack on "
        f"{action.enemy}."
    )
    marks = (
        Mark(MarkKind.SWAP, action.own, abs(board[action.own - 1])),
        Mark(MarkKind.SWAP, action.enemy, abs(board[action.enemy - 1])),
    )
    after = replace(state, board=tuple(board), last=_event(state, action, text, marks))
    return _turn_ends_after(state, after)


def _apply_knock(state: RingState, action: Knock) -> RingState:
    assert state.turn_seat is not None
    enemy = 1 - state.turn_seat
    _, n = state.stack(action.space)
    board = list(state.board)
    board[action.space - 1] = 0
    piles = list(state.piles)
    piles[enemy] += n
    text = f"{state.player_name()} knocked {state.enemy_name()}'s {counted(n)} on {action.space} out of play."
    after = replace(
        state,
        board=tuple(board),
        piles=(piles[0], piles[1]),
        last=_event(state, action, text, (Mark(MarkKind.KNOCK, action.space, n),)),
    )
    return _turn_ends_after(state, after)


def _apply_move(state: RingState, action: Move) -> RingState:
    assert state.turn_seat is not None
    board, captured = state.board_after_step(action)
    piles = list(state.piles)
    piles[1 - state.turn_seat] += captured
    text = f"{state.player_name()} moved {counted(action.count)} from {action.source} to {action.target}"
    marks = [
        Mark(MarkKind.FROM, action.source, action.count),
        Mark(MarkKind.TO, action.target, action.count),
    ]
    if captured:
        text += f", capturing {captured}"
        marks.append(Mark(MarkKind.CAPTURE, action.target, captured))
    left = list(state.dice_left)
    left.remove(action.die)
    after = replace(
        state,
        board=board,
        piles=(piles[0], piles[1]),
        dice_left=tuple(left),
        last=_event(state, action, text + ".", marks),
    )
    after = _checked(after, after)
    if after.result is not None:
        return _with_win_text(state, _end_turn(state, after))
    if after.dice_left and after.legal_actions():
        return after
    if after.dice_left:
        assert after.last is not None
        note = f"{after.last.text} No legal move for the {after.dice_left[0]}."
        after = replace(after, last=replace(after.last, text=note))
    return _end_turn(state, after)
