"""The turn driver: what happens next in a match that needs nobody's decision. Pure: a position in,
the next automatic action (or the request to let the computer think) out; no store, no clock, no
asyncio. The session manager loops over it, applies what it says and saves the result.

Played by itself: chance steps nobody is asked to trigger (the computer's rolls too), a forced
action that tells nothing of a secret hand (``tells_nothing``), the computer's decisions, the
response window of a player whose standing answer is "always pass", and, for a
player whose ``auto_roll`` preference is on, the roll instead of a double that the coach finds
clearly wrong (``judged``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.session import Session
from bot.session_errors import UserError
from bot.steps import Step, step_of, steps_of
from bot.store import Deadlines
from bot.turn_policy import asked, deciding_seat, in_window, own_step, turn_complete
from engine import Action, GameState
from engine.ai.random_player import sample_outcome

MAX_AUTOMATIC_ACTIONS = 500
"""How many actions are played by themselves in one go (forced moves, computer turns, opening rolls)
before handing back: a guard against a position, or a rules bug, looping forever, far above real games."""


class RunsForever(UserError):
    """More than ``MAX_AUTOMATIC_ACTIONS`` actions would play by themselves in a row: nobody ever gets
    to decide anything (a position where nobody can move, or a rules bug). Nothing is saved; the
    player is told so (``starting``: the match was being started, and is not)."""

    def __init__(self, starting: bool = False) -> None:
        what, kept = (
            ("This match cannot be played", "started") if starting else ("This cannot be played", "saved")
        )
        super().__init__(
            f"{what}: nobody ever decides anything from here (more than {MAX_AUTOMATIC_ACTIONS} moves in "
            f"a row would play by themselves, as when nobody can move). Nothing was {kept}."
        )


@dataclass(frozen=True, slots=True)
class Next:
    """The next automatic action of ``seat`` (None: chance), or, when ``action`` is None, the
    computer must choose one for ``seat``. ``standing``: the window's pass of a player who always
    passes (said so on the board). ``judged``: played only if the player asked for it (``auto_roll``)
    and the coach finds the other choice, raising the stakes, clearly wrong; else the player decides."""

    seat: int | None
    action: Action | None
    standing: bool = False
    judged: bool = False


def next_automatic(
    state: GameState,
    is_computer: Callable[[int], bool],
    always_pass: tuple[bool, bool],
    rng: random.Random,
    held: bool = False,
) -> Next | None:
    """What plays by itself in ``state``, or None when a person must decide (or it is over).
    ``is_computer(seat)``: whether the computer sits there; ``rng`` draws the chance outcomes;
    ``held``: whether the public board is held in ``state`` (``board_held``)."""
    if state.is_terminal():
        return None
    spec = state.chance()
    if spec is not None:
        prompt = spec.prompt_seat
        if prompt is not None and not is_computer(prompt):
            return None
        return Next(None, state.chance_action(sample_outcome(spec, rng)))
    seat = state.to_move()
    if is_computer(seat):
        return Next(seat, None)
    window = state.window_pass()
    if window is not None and always_pass[seat]:
        # The standing answer, whatever the hand holds: the window closes at once.
        return Next(seat, window, standing=True)
    legal = state.legal_actions()
    if len(legal) == 1 and tells_nothing(state, held):
        return Next(seat, legal[0])
    roll_on = state.roll_on()
    if roll_on is not None:
        return Next(seat, roll_on, judged=True)
    return None


def tells_nothing(state: GameState, held: bool = False) -> bool:
    """Whether playing the deciding seat's only legal answer at once tells nobody anything of a
    secret hand. A step whose one answer comes from the hand ("Keep the roll" without a card that
    changes it, "End the move phase" without a card to play) is played by itself only while the
    public board is ``held`` (``board_held``): nobody sees the moment it is answered, so answering
    at once shows the same as a player's private click. Elsewhere (a response window, the first
    step after the board changed hands) the board would move on sooner than for a player who holds
    such a card, and the opponent would learn that the hand holds none; only an empty hand, whose
    size everyone sees, lets it play by itself there, and never in a window."""
    if not state.secret_decision():
        return True
    return state.window_pass() is None and (held or state.holds_nothing())


def board_held(state: GameState, story: Sequence[Step]) -> bool:
    """Whether the public board waits (is neither edited nor posted) in ``state``: its deciding seat
    decides a step of its own turn that depends on its hand, and that seat's last click, since anyone
    else last acted in the turn's ``story`` (the steps since the board last changed hands), was a
    private one (``Step.secret``: on its own panel, not on the board, which must then be redrawn).
    What it does meanwhile is private; it all reaches the board together when it leaves such steps
    (a window for the opponent, a fight, the hand-over), so the public sees the same writes at the
    same moments whether a step was asked or played by itself. What follows someone else's action
    (the hand-over, a window answered or run out, and the steps the bot then plays for the mover) is
    shown at once: that moment is public."""
    seat = deciding_seat(state)
    if seat is None or not own_step(state, seat) or in_window(state) or not state.secret_decision():
        return False
    for step in reversed(story):
        if step.seat is None:
            continue
        if step.seat != seat:
            return False
        if not step.automatic:
            # A click on the public board (a fight's keep) left that board to be redrawn.
            return step.secret
    return False


def board_waits(session: Session) -> bool:
    """Whether the match's public board waits while its mover takes private steps of their own turn
    (``board_held``), a repost (``/board``) too: drawn now, it would show how far the mover got. The
    first board of a match never waits. Meanwhile the other player's private panel does not follow
    the mover either (``LivePanels.refresh``'s ``only``; ``cogs.board.private_reply`` never says which
    private step of their own turn the mover is at)."""
    record = session.record
    if session.state is None or record.status != "active" or record.shown_version is None:
        return False
    return board_held(session.state, steps_of(record.turn_steps))


def forced_steps(state: GameState, seat: int, steps: list[Step]) -> GameState:
    """Play ``seat``'s forced steps that follow in the same turn (appended to ``steps`` as automatic):
    they belong to the turn's draft, which the player may still take back."""
    for _ in range(MAX_AUTOMATIC_ACTIONS):
        if turn_complete(state, seat) or not own_step(state, seat):
            return state
        legal = state.legal_actions()
        if len(legal) != 1 or not tells_nothing(state):
            return state
        after = state.apply(legal[0])
        steps.append(step_of(seat, legal[0], state, after, automatic=True))
        state = after
    raise RunsForever()


def clock_after(before: GameState, after: GameState, human_decides: bool) -> Deadlines | None:
    """The clock after a change: unchanged (None) while the same human player decides in the same
    way (on turn, or in a response window); otherwise none until the board that asks the next
    player is shown (``BoardHandoff.mark_shown`` starts it). ``human_decides``: whether the seat
    deciding in ``after`` is a person."""
    if human_decides and asked(before) == asked(after):
        return None
    return Deadlines(None, None)


def others_acted(before: GameState, steps: list[Step]) -> bool:
    """Whether a seat other than the one deciding in ``before`` acted among ``steps`` (the computer
    answered in between, and the same person decides again)."""
    seat = deciding_seat(before)
    return any(step.seat is not None and step.seat != seat for step in steps)
