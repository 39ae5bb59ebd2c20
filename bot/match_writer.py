"""The active matches in memory and the one way a change is played and saved: ``MatchWriter`` owns
the cache of sessions (and the lock that loads them), advancing (what plays by itself after a
request) and committing (the steps and position saved in one conditional write, and what the public
board must show next). The services (``TurnClocks``, ``TurnDrafts``, ``MatchEnds``,
``BoardHandoff``) each get the part of it they use, named by a protocol of their own."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence, Set
from typing import Any, Protocol

from bot.clock import Clock
from bot.computer_seats import Thinker, think_in_thread
from bot.session import Played, Session, result_record, session_from
from bot.session_checks import check_in_time
from bot.session_errors import MatchCannotStart, MatchNotFound, StaleControl
from bot.steps import STANDING_PASS, Step, noted, step_of, steps_of
from bot.store import Deadlines, LoggedAction, MatchRecord, ResultRecord
from bot.turn_driver import (
    MAX_AUTOMATIC_ACTIONS,
    RunsForever,
    board_held,
    clock_after,
    next_automatic,
    others_acted,
)
from bot.turn_policy import board_change, deciding_seat
from engine import GameState

log = logging.getLogger(__name__)

RollsOn = Callable[[Session, GameState], Awaitable[bool]]
"""(session, state) -> whether the bot rolls on for the deciding player (``TurnChoices.rolls_itself``)."""


class MatchRows(Protocol):
    """The match rows the writer reads and writes (``bot.store.MatchStore``)."""

    async def get(self, match_id: int) -> MatchRecord | None: ...

    async def record_actions(
        self,
        match_id: int,
        *,
        expected_version: int,
        actions: Sequence[LoggedAction],
        state: str,
        now: float,
        result: ResultRecord | None = None,
        deadlines: Deadlines | None = None,
        board_steps: Sequence[dict[str, Any]] = (),
        turn_steps: Sequence[dict[str, Any]] = (),
        new_board: bool = False,
        always_pass: tuple[bool, bool] | None = None,
    ) -> MatchRecord | None: ...


class MatchWriter:
    """The sessions of the active matches and every change played on them.

    ``computer_ids``: who plays the computer (the bot adds itself once it knows its id);
    ``rolls_on``: whether the bot rolls on for a player (their ``auto_roll``, the coach's judge);
    ``think``: how the computer's move is computed (the bot sets its compute workers')."""

    def __init__(
        self,
        rows: MatchRows,
        clock: Clock,
        rng: random.Random,
        computer_ids: Set[int],
        rolls_on: RollsOn,
        think: Thinker = think_in_thread,
    ) -> None:
        self.rows = rows
        self.clock = clock
        self.rng = rng
        self.computer_ids = computer_ids
        self.rolls_on = rolls_on
        self.think = think
        self.sessions: dict[int, Session] = {}
        self.loading = asyncio.Lock()

    # -- the sessions in memory ------------------------------------------------------------------

    async def get(self, match_id: int) -> Session:
        """The match's session: the one in memory while it is active, else read from the store.

        A match that is over is not kept: each read of it (a Rematch, a late click on an old board)
        reads it again, and nothing can change it any more.
        """
        session = self.sessions.get(match_id)
        if session is not None:
            return session
        async with self.loading:
            session = self.sessions.get(match_id)
            if session is None:
                record = await self.rows.get(match_id)
                if record is None:
                    raise MatchNotFound("This match does not exist any more.")
                session = session_from(record)
                if record.status == "active":
                    self.sessions[match_id] = session
        return session

    async def current(self, match_id: int, seen: int | None, *, reread: bool = False) -> Session:
        """The match's session for a request made at version ``seen`` (the version in the control that
        was clicked). When our copy is at another version, the saved match is read again first:
        another process (or this one's scheduler) may have moved it on, and a control made by that
        move must not be refused as stale by an old copy. Every write is still conditional on the
        version it was computed from, so an old copy can never be saved over a newer match."""
        session = await self.get(match_id)
        if reread or (seen is not None and seen not in (session.version, session.record.board_version)):
            async with session.lock:
                await self.reload(session)
        return session

    async def reload(self, session: Session) -> None:
        """Bring ``session`` up to the saved match if that has moved on (call with its lock held)."""
        record = await self.rows.get(session.id)
        if record is None or (record.version == session.version and record.status == session.record.status):
            return
        fresh = session_from(record)
        session.record, session.variant, session.state = fresh.record, fresh.variant, fresh.state
        session.damage, session.draft, session.working = fresh.damage, fresh.draft, fresh.working
        if record.status != "active":
            self.forget(session)

    def in_memory(self, match_id: int) -> bool:
        """Whether the match's session is held in memory (only active matches are)."""
        return match_id in self.sessions

    def held(self, match_id: int) -> Session | None:
        """The match's session if it is held in memory (an active match), without reading the store."""
        return self.sessions.get(match_id)

    def keep(self, session: Session) -> None:
        """Hold the session of a match just started."""
        self.sessions[session.id] = session

    def forget(self, session: Session) -> None:
        """Drop a match that has just ended from memory; whoever holds ``session`` may still read it."""
        if self.sessions.get(session.id) is session:
            del self.sessions[session.id]

    def discard(self, match_id: int) -> None:
        """Drop the match's copy in memory, whichever it is: another process moved the match on, and
        the next request reads it again."""
        self.sessions.pop(match_id, None)

    def ended(self, session: Session, saved: MatchRecord | None) -> None:
        """The session of a match just ended without an action: ``saved`` is its record as
        ``MatchStore.end`` saved it (None: it had ended already)."""
        if saved is not None:
            session.record = saved
        session.draft, session.working = (), None
        self.forget(session)

    # -- playing and saving ------------------------------------------------------------------------

    async def advance(
        self,
        session: Session,
        state: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
        *,
        starting: bool = False,
    ) -> GameState:
        """Play what needs nobody's decision (``turn_driver.next_automatic``); ``always_pass``: the
        standing answers to response windows, when they change with this request. The computer
        thinks in a worker process (``think``), so neither the event loop nor other matches wait for
        it (the session's lock keeps this match's clicks out meanwhile). Where that never ends,
        ``RunsForever`` tells the player (``MatchCannotStart`` for the match being ``starting``)."""
        standing = always_pass or session.record.always_pass

        def is_computer(seat: int) -> bool:
            return session.user_of(seat) in self.computer_ids

        told_before = steps_of(session.record.turn_steps)
        for _ in range(MAX_AUTOMATIC_ACTIONS):
            held = board_held(state, [*told_before, *steps])
            found = next_automatic(state, is_computer, standing, self.rng, held)
            if found is None or (found.judged and not await self.rolls_on(session, state)):
                return state
            seat, action = found.seat, found.action
            if action is None:
                assert seat is not None
                # A seed crosses to the worker, not the random source: the move is a pure function
                # of (view, seed), and a seeded test's games are the same in a worker or a thread.
                seed = self.rng.getrandbits(64)
                level = session.record.computer_level
                action = await self.think(session.variant.key, level, state.view(seat), seed)
            after = state.apply(action)
            step = step_of(seat, action, state, after, automatic=True)
            if found.standing:
                assert seat is not None
                step = noted(step, STANDING_PASS, session.variant.seat_names[seat])
            steps.append(step)
            state = after
        log.warning(
            "match %s: more than %s automatic actions, nothing saved", session.id, MAX_AUTOMATIC_ACTIONS
        )
        raise MatchCannotStart(str(RunsForever(starting=True))) if starting else RunsForever()

    async def commit(
        self,
        session: Session,
        before: GameState,
        after: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played:
        """Save ``steps`` (the draft's among them) and the position after them; note what the public
        board must show next: the steps of the turn so far, as a new message when someone else is
        asked to decide now, or asked in another way (``board_change``: a response window inside a
        turn keeps its story on one board and mentions a player once): the whole turn that just
        ended, every step in order. ``always_pass``: the players' standing answers to
        response windows, saved with it when they change."""
        now = self.clock.now()
        check_in_time(session.record, deciding_seat(before), now)
        record = session.record
        outcome = after.outcome()
        result = result_record(session.id, outcome, now) if outcome is not None else None
        waiting = deciding_seat(after)
        human = waiting is not None and session.user_of(waiting) not in self.computer_ids
        deadlines = clock_after(before, after, human)
        if deadlines is None and session.record.clock_delay is not None and others_acted(before, steps):
            # The computer played in between: the live clock charges this decision and starts afresh
            # (a new delay) when the board asking for the next one is shown.
            deadlines = Deadlines(None, None)
        turn = [*record.turn_steps, *(s.to_json() for s in steps)]
        change = board_change(before, after, steps_of(turn), now - record.updated_at)
        new_board = change.new_message or (record.new_board and record.behind)
        saved = await self.rows.record_actions(
            session.id,
            expected_version=session.version,
            actions=[LoggedAction(s.seat, s.notation) for s in steps],
            state=after.canonical(),
            now=now,
            result=result,
            deadlines=deadlines,
            board_steps=turn,
            turn_steps=[] if change.story_ends else turn,
            new_board=new_board,
            always_pass=always_pass,
        )
        if saved is None:
            # Another process moved this match on: drop our copy and let the user retry.
            self.discard(session.id)
            raise StaleControl("This match changed in the meantime; use the latest board message.")
        # The record as saved, with whatever the publisher noted meanwhile (a board, its clock).
        session.record = saved
        session.state = after
        session.draft, session.working = (), None
        if result is not None:
            self.forget(session)
        return Played(session=session, before=before, steps=tuple(steps))
