"""A match as the bot holds it (``Session``), what an action did (``Played``, ``Step``), the errors a
player is told, and the rules of the turn every service reads (who decides, whether a window is
open, when a turn is complete)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.store import MatchRecord, ResultRecord
from engine import (
    CHANCE,
    Action,
    GameError,
    GameState,
    GameView,
    Outcome,
    Variant,
    find_variant,
)
from engine.ai.levels import seeded_move

log = logging.getLogger(__name__)

REMATCH_SECONDS = 600.0
"""How long a finished match's Rematch button may be used; the scheduler then greys it out."""
NO_ANSWER = "no answer in time"
"""Said after a response window's pass that the bot played because the window's time ran out."""
STANDING_PASS = "standing answer: always pass"
"""Said after a response window's pass played at once by the player's standing answer."""


class UserError(Exception):
    """Something a user did that cannot be done; the message is shown to them privately."""


class MatchNotFound(UserError):
    pass


class NotInMatch(UserError):
    pass


class StaleControl(UserError):
    pass


class NotYourTurn(UserError):
    pass


class MatchDamaged(UserError):
    pass


class MatchOver(UserError):
    pass


class MatchCannotStart(UserError):
    """The match of a challenge can never be started as asked (its options or position are refused
    now, it would never reach a decision, it has had its rematch): whoever answers the challenge
    closes it, and the message says why."""


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action: who (a seat, or None for chance), its notation, what it did in words.

    ``text`` is what everyone may read; ``private`` holds, per seat, a fuller text that only that
    seat may read ("You drew a Guard" where the board says that a card was drawn), when there is one.
    """

    seat: int | None
    notation: str
    text: str
    automatic: bool = False
    private: tuple[str | None, str | None] = (None, None)
    continues: bool = False
    """The text continues the step before and replaces it where a turn is told (``last_continues``)."""
    secret: bool = False
    """Decided privately: the step answered a decision that depends on its seat's hand
    (``GameState.secret_decision``), on the player's own panel rather than on the public board."""

    def text_for(self, viewer: int | None) -> str:
        """The text of this step for seat ``viewer`` (``None``: everyone)."""
        own = self.private[viewer] if viewer is not None else None
        return own or self.text

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "notation": self.notation, "text": self.text}
        if self.automatic:
            data["automatic"] = True
        if self.private != (None, None):
            data["private"] = list(self.private)
        if self.continues:
            data["continues"] = True
        if self.secret:
            data["secret"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> Step | None:
        """A saved step; None if it is not one (a damaged note of what happened is only left out)."""
        try:
            seat, notation, text = data["seat"], str(data["notation"]), str(data["text"])
            private = tuple(data.get("private", (None, None)))
            if seat not in (None, 0, 1) or len(private) != 2:
                return None
            return cls(
                seat,
                notation,
                text,
                bool(data.get("automatic", False)),
                (private[0], private[1]),
                bool(data.get("continues", False)),
                bool(data.get("secret", False)),
            )
        except (KeyError, TypeError, AttributeError):
            return None


def told(steps: Sequence[Step], viewer: int | None) -> list[str]:
    """The texts of ``steps`` for ``viewer``, each run of continuing texts told by its latest."""
    lines: list[str] = []
    for step in steps:
        text = step.text_for(viewer)
        if not text:
            continue
        if step.continues and lines:
            lines[-1] = text
        else:
            lines.append(text)
    return lines


def steps_of(saved: Sequence[Any]) -> tuple[Step, ...]:
    """Saved steps (``Step.to_json``) read back, leaving out any that cannot be read."""
    return tuple(step for data in saved if (step := Step.from_json(data)) is not None)


def step_of(seat: int | None, action: Action, before: GameState, after: GameState, automatic: bool) -> Step:
    """The step for ``action``, with its public text and each seat's own text where that differs."""
    public = after.view(None).last_text
    if not public:
        # ``describe`` speaks for the deciding seat: never for a secret decision.
        public = "" if seat is None or before.secret_decision() else before.describe(action)
    own = tuple(after.view(s).last_text for s in (0, 1))
    private = (own[0] if own[0] != public else None, own[1] if own[1] != public else None)
    continues = bool(public) and after.view(None).last_continues
    return Step(
        seat,
        action.notation,
        public,
        automatic=automatic,
        private=private,
        continues=continues,
        secret=seat is not None and before.secret_decision(),
    )


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


Thinker = Callable[[str, str | None, GameView, int], Awaitable[Action]]
"""(game, level, view, seed) -> the computer's move (``engine.ai.levels.seeded_move``)."""


async def think_in_thread(game: str, level: str | None, view: GameView, seed: int) -> Action:
    """The computer's move in a thread of this process (the bot without worker processes)."""
    return await asyncio.to_thread(seeded_move, game, level, view, seed)


AUTOMATIC = "auto:"
"""Marks a saved draft step that was forced (played by itself): Undo takes it back with the step before."""


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
    run out. A step the bot played for it (one answer, a standing answer) asked nobody."""
    return step.seat == seat and (not step.automatic or step.text.endswith(f"({NO_ANSWER})"))


def noted(step: Step, note: str, name: str) -> Step:
    """``step`` with ``note`` said after it, in every seat's text ("... (no answer in time)"); a step
    the game tells nothing of says that ``name`` (the seat's name) let the window pass."""

    def with_note(text: str | None) -> str | None:
        return None if text is None else f"{text} ({note})"

    return replace(
        step,
        text=with_note(step.text or f"{name} let the window pass") or "",
        private=(with_note(step.private[0]), with_note(step.private[1])),
    )


def with_seat(standing: tuple[bool, bool], seat: int, value: bool) -> tuple[bool, bool]:
    return (value, standing[1]) if seat == 0 else (standing[0], value)


def deciding_seat(state: GameState) -> int | None:
    """The seat that acts next: the decider, or the seat whose roll the position waits for."""
    if state.is_terminal():
        return None
    spec = state.chance()
    if spec is not None:
        return spec.prompt_seat
    return state.to_move()


def parsed(
    variant: Variant, position: GameState, notation: str, refused: str = ""
) -> tuple[Action, GameState]:
    """The action ``notation`` names in ``position`` and the position after it; ``UserError`` (the
    game's reason, then ``refused``) when it cannot be read or is not legal."""
    try:
        action = variant.parse_action(position, notation)
        return action, position.apply(action)
    except GameError as exc:
        raise UserError(f"{sentence(str(exc))}{refused}") from exc


def played_next(
    session: Session, seat: int, position: GameState, notation: str, steps: list[Step]
) -> GameState:
    """``position`` after ``seat`` plays ``notation`` next in the same click (several actions chosen
    at once), its step added to ``steps``; ``UserError`` when it is no longer theirs, or not legal."""
    if deciding_seat(position) != seat:
        raise UserError(
            f"Not all of that could be played: the match moved on before {notation!r}. {UNCHANGED}"
        )
    action, after = parsed(session.variant, position, notation, f" {UNCHANGED}")
    steps.append(step_of(seat, action, position, after, automatic=False))
    return after


UNCHANGED = "Nothing was changed."


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "That cannot be done now."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


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


def check_readable(session: Session) -> GameState:
    """The match's position; ``MatchDamaged`` if it could not be read."""
    if session.state is None:
        raise MatchDamaged(
            "This match's saved position is damaged and cannot be played on "
            f"({session.damage}). Either player can end it with /resign; it will not be rated."
        )
    return session.state


def check_turn(session: Session, user_id: int, version: int | None, *, committed: bool = False) -> int:
    """The user's seat if they may act on this match at ``version`` now; else a ``UserError``.

    ``committed``: ``version`` is that of a public board's control, drawn for the committed
    position (``board_version``), which says nothing of a turn in progress: it is checked against
    that, and whether a turn is in progress is for the caller to see (``turn_in_progress``)."""
    seat, state = check_member(session, user_id, version, committed=committed)
    if deciding_seat(state) != seat:
        raise NotYourTurn(whose_turn(state, session.variant.seat_names, session.user_of))
    return seat


def check_own_action(variant: Variant, position: GameState, seat: int, action: Action) -> None:
    """Refuse a legal action that is not ``seat``'s to choose: one the other player speaks for, or a
    chance outcome (written as notation, "roll 6-6-6" would let a player choose the dice: outcomes
    come only from the bot's random source)."""
    named = variant.speaks_for(action)
    if named is not None and named != seat:
        raise UserError("That is for the other player to decide, not you.")
    spec = position.chance()
    if spec is not None:
        raise UserError(f"That is for chance to decide, not a player: use {spec.label}.")


def check_member(
    session: Session, user_id: int, version: int | None, *, committed: bool = False
) -> tuple[int, GameState]:
    """The user's seat and the position, if the match is active, theirs, and at ``version``."""
    check_readable(session)
    if session.record.status != "active":
        raise MatchOver("This match is over.")
    seat = session.seat_of(user_id)
    if seat is None:
        raise NotInMatch("You are not playing in this match.")
    current = session.record.board_version if committed else session.version
    if version is not None and version != current:
        raise StaleControl("That control is from an earlier position; use the latest board message.")
    assert session.state is not None
    return seat, session.state


def whose_turn(state: GameState, seat_names: tuple[str, str], user_of: Callable[[int], int]) -> str:
    """Why a player may not act now, in words: whose turn it is (or that it is over)."""
    if state.is_terminal():
        return "This match is over."
    seat = state.turn if state.to_move() == CHANCE else state.to_move()
    if seat is None:
        return "It is nobody's turn yet."
    return f"It is {seat_names[seat]}'s turn (<@{user_of(seat)}>), not yours."
