"""A turn in progress, in games whose turns can be taken back: the steps drafted (saved, shown only to
their player, not final), Undo, and Confirm, which makes the turn final for the opponent to see; and
what a player's preferences (``bot.settings.PREFERENCES``) skip of it (``TurnChoices``): the Confirm
step (``auto_confirm``), the roll-or-double question when a double is clearly wrong (``auto_roll``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from bot.clock import Clock
from bot.session import Played, Session
from bot.session_checks import check_member, whose_turn
from bot.session_errors import NotYourTurn, StaleControl, UserError
from bot.settings import AUTO_CONFIRM, AUTO_ROLL, PlayerPrefs
from bot.steps import AUTOMATIC, Step
from bot.store import MatchRecord
from bot.turn_policy import deciding_seat
from bot.tutor import Tutor
from engine import GameState, GameView
from engine.ai.coaches import double_not_sensible

log = logging.getLogger(__name__)

RollJudge = Callable[[str, GameView], Awaitable[bool]]
"""(game, view) -> whether the coach finds a double clearly wrong (``engine.ai.coaches``)."""


async def judge_in_thread(game: str, view: GameView) -> bool:
    """The auto-roll judge in a thread of this process (the bot without worker processes)."""
    return await asyncio.to_thread(double_not_sensible, game, view)


class Preferences(Protocol):
    """Each player's preferences (``bot.settings.PlayerPreferences``)."""

    async def get(self, user_id: int) -> PlayerPrefs: ...


class TurnChoices:
    """What a player's preferences play for them: Confirm (``auto_confirm``) and the roll when the
    coach finds a double clearly wrong (``auto_roll``; ``judge``, which the bot sets to its compute
    workers')."""

    def __init__(self, preferences: Preferences, judge: RollJudge = judge_in_thread) -> None:
        self.preferences = preferences
        self.judge = judge

    async def confirms_itself(self, user_id: int) -> bool:
        """Whether the user's complete turns are final without their Confirm (``auto_confirm``)."""
        return (await self.preferences.get(user_id))[AUTO_CONFIRM]

    async def rolls_itself(self, session: Session, state: GameState) -> bool:
        """Whether the bot rolls on for the deciding player of ``state`` (``GameState.roll_on``): they
        asked it to (``auto_roll``) and the coach finds a double clearly wrong. The coach thinks in a
        compute worker, a cheap depth (``judge``); the match's lock keeps its clicks out meanwhile."""
        seat = deciding_seat(state)
        if seat is None:
            return False
        if not (await self.preferences.get(session.user_of(seat)))[AUTO_ROLL]:
            return False
        try:
            return await self.judge(session.variant.key, state.view(seat))
        except Exception as exc:
            # A judge that fails (a worker's timeout, an engine error) must not fail the opponent's
            # move that handed the turn over: the player is asked, as without the preference.
            log.warning("match %s: the auto-roll judge failed (%r); the player decides", session.id, exc)
            return False


class DraftSessions(Protocol):
    """What the drafts use of the matches in memory (``bot.match_writer.MatchWriter``)."""

    async def current(self, match_id: int, seen: int | None, *, reread: bool = False) -> Session: ...

    async def advance(
        self,
        session: Session,
        state: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
        *,
        starting: bool = False,
    ) -> GameState: ...

    async def commit(
        self,
        session: Session,
        before: GameState,
        after: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played: ...

    def discard(self, match_id: int) -> None: ...


class DraftRows(Protocol):
    """The one write of a draft (``bot.store.MatchStore.save_draft``)."""

    async def save_draft(
        self, match_id: int, *, expected_version: int, draft: Sequence[str], now: float
    ) -> MatchRecord | None: ...


class TurnDrafts:
    def __init__(
        self, matches: DraftSessions, rows: DraftRows, clock: Clock, tutor: Tutor | None = None
    ) -> None:
        self.matches = matches
        self.rows = rows
        self.clock = clock
        #: holds back an error of a player with the tutor on, before Confirm makes it final
        self.tutor = tutor

    async def undo(self, match_id: int, user_id: int, version: int | None) -> Played:
        """Take back the latest step of the user's turn in progress (with the forced steps after it)."""
        session = await self.matches.current(match_id, version)
        async with session.lock:
            seat, state = check_member(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(whose_turn(state, session.variant.seat_names, session.user_of))
            if not session.draft:
                raise UserError("There is no step of this turn to take back.")
            steps = list(session.draft)
            while steps and steps[-1].automatic:
                steps.pop()
            if steps:
                steps.pop()
            position = state
            for step in steps:
                position = position.apply(session.variant.parse_action(position, step.notation))
            return await self.save(session, position, steps)

    async def confirm(
        self, match_id: int, user_id: int, version: int | None, *, anyway: bool = False
    ) -> Played:
        """Make the user's complete turn final: the opponent sees it now. With the tutor on and an
        error in it, nothing changes yet: the result carries the tutor's note (``anyway``: the player
        confirmed after the note)."""
        session = await self.matches.current(match_id, version)
        async with session.lock:
            seat, state = check_member(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(whose_turn(state, session.variant.seat_names, session.user_of))
            if not session.awaiting_confirmation or session.working is None:
                raise UserError("Your turn is not complete yet: play its remaining steps first.")
            steps = list(session.draft)
            if not anyway and self.tutor is not None:
                note = await self.tutor.review(session, seat, state, [s.notation for s in steps])
                if note is not None:
                    return Played(session, state, tuple(steps), draft=True, tutor=note)
            after = await self.matches.advance(session, session.working, steps)
            return await self.matches.commit(session, state, after, steps)

    async def save(self, session: Session, position: GameState, steps: list[Step]) -> Played:
        saved = [(AUTOMATIC if s.automatic else "") + s.notation for s in steps]
        now = self.clock.now()
        record = await self.rows.save_draft(
            session.id, expected_version=session.version, draft=saved, now=now
        )
        if record is None:
            self.matches.discard(session.id)
            raise StaleControl("This match changed in the meantime; use the latest board message.")
        session.record = record
        session.draft = tuple(steps)
        session.working = position if steps else None
        return Played(session, session.state, tuple(steps), draft=True)
