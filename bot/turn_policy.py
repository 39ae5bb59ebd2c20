"""The rules of the turn every service reads: who decides, whether a response window is open, when
a turn is complete or in progress, and how the public board shows a change (``board_change``: a new
message or an edit, and whether a player already asked in this turn is mentioned again). Decided
from positions and the steps' fields, never from what their texts say."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.steps import NO_ANSWER, Step
from engine import GameState

if TYPE_CHECKING:
    from bot.session import Session


def deciding_seat(state: GameState) -> int | None:
    """The seat that acts next: the decider, or the seat whose roll the position waits for."""
    if state.is_terminal():
        return None
    spec = state.chance()
    if spec is not None:
        return spec.prompt_seat
    return state.to_move()


def turn_complete(state: GameState, seat: int | None) -> bool:
    """Whether ``seat``'s turn is over in ``state``: someone else (or chance) decides, or it is over."""
    return state.is_terminal() or state.chance() is not None or deciding_seat(state) != seat


def turn_in_progress(session: Session, seat: int) -> bool:
    """Whether ``seat`` is deciding with a turn in progress: steps drafted since the last committed
    change, even if every one was taken back (the match's version then differs from the board's)."""
    state = session.state
    return (
        session.record.status == "active"
        and state is not None
        and deciding_seat(state) == seat
        and (bool(session.draft) or session.version != session.record.board_version)
    )


def own_step(state: GameState, seat: int) -> bool:
    """Whether the next action in ``state`` is ``seat``'s own decision (not chance), which may be
    taken back before the opponent sees it."""
    return not state.is_terminal() and state.chance() is None and state.to_move() == seat


def in_window(state: GameState) -> bool:
    """Whether ``state`` asks its deciding seat to answer in a response window (``window_pass``)."""
    return not state.is_terminal() and state.chance() is None and state.window_pass() is not None


def asked(state: GameState) -> tuple[int | None, bool]:
    """Who is asked to decide in ``state`` and whether in a response window: when this changes, the
    board is a new message and the clock starts afresh (a window's wait, or the turn clock)."""
    return deciding_seat(state), in_window(state)


def same_turn_window(before: GameState, after: GameState) -> bool:
    """Whether going from ``before`` to ``after`` opens or closes a response window inside one turn of
    the game (the turn as its players count it, ``GameView.turn_label``), or, in a game told one
    board per turn (``GameState.one_board_per_turn``), passes a decision between the seats inside
    one turn (a fight's defender keeping units, and back)."""
    if after.is_terminal():
        return False
    if before.one_board_per_turn and (before.turn_number, before.turn) == (after.turn_number, after.turn):
        return True
    if not (in_window(before) or in_window(after)):
        return False
    return before.view(None).turn_label == after.view(None).turn_label


@dataclass(frozen=True, slots=True)
class BoardChange:
    """What the public board does after a change: ``new_message`` (a new board that mentions whoever
    is asked now, since Discord notifies nobody of an edited message) and ``story_ends`` (the next
    board tells a new story: the steps told so far are not told again)."""

    new_message: bool
    story_ends: bool


PANEL_LIFETIME = 14 * 60.0
"""Seconds a player's private panel is kept current after they last used it (Discord lets a reply be
edited for 15 minutes): after a longer wait, a player asked again is mentioned again."""


def board_change(
    before: GameState, after: GameState, turn: Sequence[Step], waited: float = 0.0
) -> BoardChange:
    """How the board shows the change from ``before`` to ``after``; ``turn``: the steps of the story
    so far, this change's among them. Someone else asked to decide, or asked in another way, gets a
    new board, except around a response window inside one turn: there the turn's story goes on on
    the same board (the board that hands the turn over tells the whole turn), and a player already
    asked in this turn (``was_asked``) is not mentioned again, unless the position ``before`` waited
    longer than ``PANEL_LIFETIME`` (``waited`` seconds): their panel may no longer show it. Whether a
    window opens never depends on a hand, nor how long it waits, so neither does this."""
    if after.is_terminal():
        return BoardChange(True, True)
    if asked(after) == asked(before):
        return BoardChange(False, False)
    if not same_turn_window(before, after):
        return BoardChange(True, True)
    seat = deciding_seat(after)
    told = any(was_asked(step, seat) for step in turn) and waited <= PANEL_LIFETIME
    return BoardChange(not told, False)


def was_asked(step: Step, seat: int | None) -> bool:
    """Whether ``step`` shows that ``seat`` was asked to decide: it chose it, or let a window's wait
    run out (``Step.note`` is ``NO_ANSWER``). A step the bot played for it (one answer, a standing
    answer) asked nobody."""
    return step.seat == seat and (not step.automatic or step.note == NO_ANSWER)
