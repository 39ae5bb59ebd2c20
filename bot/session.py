"""A match as the bot holds it (``Session``: its record, its position, its turn in progress) and what
one request did (``Played``, a due ``Reminder``); a saved match read back (``session_from``).

The errors are in ``bot.session_errors``, a step in ``bot.steps``, the checks of a request in
``bot.session_checks`` and the rules of the turn in ``bot.turn_policy``. The few of their names
imported from here too (``__all__``) are those the cogs read of a match along with ``Session``."""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass, field

from bot.session_checks import check_readable, check_turn
from bot.session_errors import MatchCannotStart, MatchDamaged, StaleControl, UserError
from bot.steps import AUTOMATIC, Step, step_of, told
from bot.store import MatchRecord, ResultRecord
from bot.turn_policy import asked, deciding_seat, in_window, turn_complete, turn_in_progress
from engine import GameError, GameState, Outcome, Variant, find_variant
from engine.ai.coaching import TutorNote

__all__ = [
    "REMATCH_SECONDS",
    "MatchCannotStart",
    "Played",
    "Reminder",
    "Session",
    "StaleControl",
    "Step",
    "UserError",
    "check_readable",
    "check_turn",
    "deciding_seat",
    "in_window",
    "read_draft",
    "result_record",
    "session_from",
    "told",
    "turn_in_progress",
    "with_seat",
]

log = logging.getLogger(__name__)

REMATCH_SECONDS = 600.0
"""How long a finished match's Rematch button may be used; the scheduler then greys it out."""


@dataclass(slots=True)
class Session:
    """A match in memory. ``state`` is None when the saved state could not be read (``damage`` says why)."""

    record: MatchRecord
    variant: Variant
    state: GameState | None
    damage: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    draft: tuple[Step, ...] = ()
    """The steps of the turn in progress that are not final yet (only their player sees them)."""
    working: GameState | None = None
    """The position after ``draft`` (None: there is no draft; ``state`` is the position)."""

    @property
    def position(self) -> GameState | None:
        """The position as the player on turn sees it: ``state`` with the draft's steps played."""
        return self.working if self.working is not None else self.state

    @property
    def awaiting_confirmation(self) -> bool:
        """Whether the draft is a complete turn that waits for its player's Confirm."""
        if not self.draft or self.state is None or self.working is None:
            return False
        return turn_complete(self.working, deciding_seat(self.state))

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def version(self) -> int:
        return self.record.version

    def seat_of(self, user_id: int) -> int | None:
        players = self.record.players
        if user_id == players[0]:
            return 0
        if user_id == players[1]:
            return 1
        return None

    def user_of(self, seat: int) -> int:
        return self.record.players[seat]


@dataclass(frozen=True, slots=True)
class Reminder:
    """A due turn reminder, claimed: ``seat`` of ``session`` must act within ``seconds_left``."""

    session: Session
    seat: int
    seconds_left: float


@dataclass(frozen=True, slots=True)
class Played:
    """The result of one request: the session after it and the steps applied, in order."""

    session: Session
    before: GameState | None
    steps: tuple[Step, ...]
    draft: bool = False
    """The change is to the turn's draft (a step taken or taken back): the public board stays as it is."""
    tutor: TutorNote | None = None
    """The tutor held the decision back (``bot.tutor``): what it loses, for the player's private panel
    only; nothing is final (``draft`` is True)."""

    @property
    def decider_changed(self) -> bool:
        """Whether someone else is asked to decide now (or nobody, at the end): then the board is a new
        message that mentions them, since Discord notifies nobody of an edited message."""
        state = self.session.state
        if state is None or self.before is None:
            return True
        return state.is_terminal() or asked(state) != asked(self.before)

    @property
    def finished(self) -> bool:
        return self.session.record.status != "active"


def result_record(match_id: int, outcome: Outcome, now: float) -> ResultRecord:
    return ResultRecord(
        match_id=match_id,
        winner_seat=outcome.winner,
        reason=outcome.reason,
        description=outcome.description,
        points=outcome.points,
        length=outcome.length,
        finished_at=now,
    )


def with_seat(standing: tuple[bool, bool], seat: int, value: bool) -> tuple[bool, bool]:
    return (value, standing[1]) if seat == 0 else (standing[0], value)


def session_from(record: MatchRecord) -> Session:
    """The session of a saved match; its position ``None`` (and why, ``damage``) if unreadable."""
    try:
        variant = find_variant(record.game)
    except GameError as exc:
        raise MatchDamaged(f"This match is of a game this bot no longer has ({exc}).") from exc
    try:
        state = variant.from_json(json.loads(record.state))
    except (GameError, ValueError) as exc:
        log.warning("match %s: saved state cannot be read: %s", record.id, exc)
        return Session(record=record, variant=variant, state=None, damage=str(exc))
    session = Session(record=record, variant=variant, state=state)
    if record.draft:
        read_draft(session, state)
    return session


def read_draft(session: Session, state: GameState) -> None:
    """Play the saved draft's steps again on ``state``. A draft that no longer applies is dropped
    (it was never final: the player plays those steps again)."""
    working = state
    steps: list[Step] = []
    seat = deciding_seat(state)
    try:
        for saved in session.record.draft:
            automatic = saved.startswith(AUTOMATIC)
            action = session.variant.parse_action(working, saved.removeprefix(AUTOMATIC))
            after = working.apply(action)
            steps.append(step_of(seat, action, working, after, automatic=automatic))
            working = after
    except GameError as exc:
        log.warning("match %s: the saved draft %s is dropped: %s", session.id, session.record.draft, exc)
        return
    session.draft, session.working = tuple(steps), working
