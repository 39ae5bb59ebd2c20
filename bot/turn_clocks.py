"""Turn clocks and response windows of the active matches: the clock of the player asked, reminders,
timeouts (the player on turn loses), windows that pass by themselves, the players' standing answers,
and the Rematch buttons that run out. The scheduler asks for what is due; each piece of due work is
claimed in the store so it is done once."""

from __future__ import annotations

import logging
from collections.abc import Set
from typing import Protocol

from bot.clock import Clock
from bot.match_ends import EndingRows
from bot.session import Played, Reminder, Session, result_record, with_seat
from bot.session_checks import check_in_time, check_member
from bot.session_errors import MatchOver, NotInMatch, UserError
from bot.steps import NO_ANSWER, STANDING_PASS, Step, noted, step_of
from bot.store import Deadlines, GuildSettings, MatchRecord
from bot.turn_policy import deciding_seat, in_window
from engine import (
    Forfeit,
    GameState,
)
from engine.live_clock import runs_out_at

log = logging.getLogger(__name__)


class ClockSessions(Protocol):
    """What the clocks use of the matches in memory (``bot.match_writer.MatchWriter``)."""

    async def get(self, match_id: int) -> Session: ...

    async def current(self, match_id: int, seen: int | None, *, reread: bool = False) -> Session: ...

    async def reload(self, session: Session) -> None: ...

    def in_memory(self, match_id: int) -> bool: ...

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

    def ended(self, session: Session, saved: MatchRecord | None) -> None: ...


class ClockRows(EndingRows, Protocol):
    """The match rows the clocks read and write (``bot.store.MatchStore``): a match read, ended on
    time (``end``), its standing answers saved."""

    async def get(self, match_id: int) -> MatchRecord | None: ...

    async def set_always_pass(self, match_id: int, always_pass: tuple[bool, bool]) -> MatchRecord | None: ...


class DueWork(Protocol):
    """What the scheduler finds due, and its claims (``bot.store.DeadlineStore``)."""

    async def due_reminders(self, now: float) -> list[MatchRecord]: ...

    async def claim_reminder(self, match_id: int, reminder_at: float) -> MatchRecord | None: ...

    async def due_timeouts(self, now: float) -> list[MatchRecord]: ...

    async def due_windows(self, now: float) -> list[MatchRecord]: ...

    async def due_rematches(self, now: float) -> list[MatchRecord]: ...

    async def claim_rematch_expiry(self, match_id: int, rematch_until: float) -> bool: ...


class ServerTimes(Protocol):
    """Each server's waits (``bot.settings.ServerSettings``)."""

    async def get(self, guild_id: int | None) -> GuildSettings: ...


class TurnClocks:
    """``computer_ids``: who plays the computer (nobody's clock runs for it)."""

    def __init__(
        self,
        matches: ClockSessions,
        rows: ClockRows,
        due: DueWork,
        settings: ServerTimes,
        computer_ids: Set[int],
        clock: Clock,
    ) -> None:
        self.matches = matches
        self.rows = rows
        self.due = due
        self.settings = settings
        self.computer_ids = computer_ids
        self.clock = clock

    async def turn_clock(self, session: Session, now: float) -> Deadlines | None:
        """The clock of the player asked to decide from ``now`` on (None: nobody human is asked): the
        turn clock, or in a response window the server's window wait (the window then passes by
        itself; nobody loses on time)."""
        if session.record.status != "active" or session.state is None:
            return None
        waiting = deciding_seat(session.state)
        if waiting is None or session.user_of(waiting) in self.computer_ids:
            return None
        settings = await self.settings.get(session.record.guild_id)
        if in_window(session.state):
            return Deadlines(None, None, now + settings.window_seconds)
        record = session.record
        if record.clock_delay is not None and record.clock_left is not None:
            # A live clock replaces the turn's deadline: its reserve running out loses the match.
            ends = runs_out_at(now, record.clock_left[waiting], record.clock_delay)
            return Deadlines(None, ends, clock_seat=waiting, clock_since=now)
        return Deadlines(now + settings.reminder_seconds, now + settings.timeout_seconds)

    def check_in_time(self, session: Session, seat: int | None) -> None:
        """Refuse a decision of ``seat`` made after its live clock ran out: it does not count, and
        the scheduler's next round ends the match as lost on time (``check_in_time``)."""
        check_in_time(session.record, seat, self.clock.now())

    async def timeout(self, match_id: int, *, deadline_passed: bool = False) -> Played | None:
        """End the match as a loss for the player whose time ran out; None if it is not (or no longer) due.
        ``deadline_passed``: a deadline other than the turn's has passed (a tournament round's), so
        the player on turn loses whatever their own clock says."""
        session = await self.matches.get(match_id)
        async with session.lock:
            await self.matches.reload(session)  # decide on the saved match, not an older copy
            record = session.record
            now = self.clock.now()
            if record.status != "active":
                return None
            if not deadline_passed and (record.timeout_at is None or record.timeout_at > now):
                return None
            if session.state is None:
                return None  # a damaged match waits for its players to abandon it
            seat = deciding_seat(session.state)
            if seat is None:
                return None
            names = session.variant.seat_names
            how = "lost on time" if record.clock_delay is not None else "ran out of time"
            outcome = session.variant.forfeit(
                session.state, seat, Forfeit.TIMEOUT, f"{names[1 - seat]} wins: {names[seat]} {how}."
            )
            step = Step(seat, "timeout", outcome.description)
            saved = await self.rows.end(
                match_id,
                status="finished",
                result=result_record(match_id, outcome, now),
                now=now,
                board_steps=[step.to_json()],
                expected_version=session.version,
            )
            if saved is None:
                return None
            self.matches.ended(session, saved)
            return Played(session, session.state, (step,))

    async def window_ran_out(self, match_id: int) -> Played | None:
        """Let the match's response window go by for its player, whose time ran out: the window's
        pass (``GameState.window_pass``) is played, saved and shown like any action, saying that no
        answer came in time; the turn then goes on with its normal clock. None if it is not (or no
        longer) due."""
        session = await self.matches.get(match_id)
        async with session.lock:
            await self.matches.reload(session)
            record, state = session.record, session.state
            if record.status != "active" or state is None:
                return None
            if record.window_at is None or record.window_at > self.clock.now():
                return None
            seat = deciding_seat(state)
            if seat is None or not in_window(state):
                log.warning("match %s: a window clock runs with no window open", match_id)
                return None
            return await self._pass_window(session, state, seat, NO_ANSWER)

    async def windows_due(self) -> list[Played]:
        """Pass every response window whose time has run out; the matches so moved on."""
        passed: list[Played] = []
        for record in await self.due.due_windows(self.clock.now()):
            try:
                played = await self.window_ran_out(record.id)
            except UserError as exc:
                log.info("match %s: its run-out window was not passed: %s", record.id, exc)
                continue
            if played is not None:
                passed.append(played)
        return passed

    async def always_pass(self, match_id: int, user_id: int, version: int | None) -> Played:
        """The user's standing answer becomes "always pass" for this match: the response window open
        for them now passes at once, and every later one passes as it opens, whatever the hand."""
        session = await self.matches.current(match_id, version)
        async with session.lock:
            seat, state = check_member(session, user_id, version)
            if deciding_seat(state) != seat or not in_window(state):
                raise UserError("No response window of yours is open now; nothing was changed.")
            standing = with_seat(session.record.always_pass, seat, True)
            return await self._pass_window(session, state, seat, STANDING_PASS, standing)

    async def ask_in_windows(self, match_id: int, user_id: int) -> Session:
        """The user's standing answer goes back to "ask me": their response windows wait for them."""
        session = await self.matches.get(match_id)
        async with session.lock:
            if session.record.status != "active":
                raise MatchOver("This match is over.")
            seat = session.seat_of(user_id)
            if seat is None:
                raise NotInMatch("You are not playing in this match.")
            if not session.record.always_pass[seat]:
                raise UserError(
                    "You are already asked in every response window of this match; nothing was changed."
                )
            standing = with_seat(session.record.always_pass, seat, False)
            saved = await self.rows.set_always_pass(match_id, standing)
            if saved is None:
                raise MatchOver("This match is over.")
            session.record = saved
            return session

    async def _pass_window(
        self,
        session: Session,
        state: GameState,
        seat: int,
        note: str,
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played:
        """Play the window's pass for ``seat`` (the steps of a turn in progress made final before
        it), saying ``note`` after it."""
        steps = list(session.draft)
        position = session.position
        assert position is not None
        action = position.window_pass()
        if action is not None and deciding_seat(position) == seat:
            after = position.apply(action)
            # "Always pass", pressed in this window, answers it: its player was asked (``was_asked``).
            step = step_of(seat, action, position, after, automatic=note != STANDING_PASS)
            steps.append(noted(step, note, session.variant.seat_names[seat]))
        else:
            after = position
        after = await self.matches.advance(session, after, steps, always_pass)
        return await self.matches.commit(session, state, after, steps, always_pass)

    async def due_reminders(self) -> list[Reminder]:
        """Claim every reminder that has come due (each is given out once, even across restarts)."""
        now = self.clock.now()
        due: list[Reminder] = []
        for record in await self.due.due_reminders(now):
            session = await self.claim_reminder(record)
            if session is None or session.state is None:
                continue
            if record.timeout_at is not None and record.timeout_at <= now:
                continue  # too late to remind: the timeout follows in the same round
            seat = deciding_seat(session.state)
            if seat is None:
                continue
            due.append(Reminder(session, seat, max(0.0, (record.timeout_at or now) - now)))
        return due

    async def timeout_due(self) -> list[Played]:
        """End every match whose player on turn has run out of time; the matches so ended."""
        ended: list[Played] = []
        for record in await self.due.due_timeouts(self.clock.now()):
            played = await self.timeout(record.id)
            if played is not None:
                ended.append(played)
        return ended

    async def rematches_due(self) -> list[MatchRecord]:
        """Claim every finished match whose Rematch button has run out (each once, across restarts)."""
        due = []
        for record in await self.due.due_rematches(self.clock.now()):
            if record.rematch_until is not None and await self.due.claim_rematch_expiry(
                record.id, record.rematch_until
            ):
                due.append(record)
        return due

    async def claim_rematch(self, match_id: int) -> MatchRecord | None:
        """Claim the greying out of the finished match's Rematch button now (it was rematched): the
        record to grey out, or None if it is already greyed out (or being)."""
        record = await self.rows.get(match_id)
        if record is None or record.rematch_until is None:
            return None
        if not await self.due.claim_rematch_expiry(record.id, record.rematch_until):
            return None
        return record

    async def claim_reminder(self, record: MatchRecord) -> Session | None:
        """Take a due reminder so it is sent once; the session to remind about, or None."""
        if record.reminder_at is None:
            return None
        held = self.matches.in_memory(record.id)
        saved = await self.due.claim_reminder(record.id, record.reminder_at)
        if saved is None:
            return None
        session = await self.matches.get(record.id)
        if held:
            # A session read anew just now holds the claim already; one held in memory takes it.
            session.record = saved
        return session
