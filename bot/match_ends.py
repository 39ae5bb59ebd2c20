"""How a match ends without a move: a resignation, a backgammon money session stopped after its
game in progress, and the session of a match just ended (by resignation, by time, or because its
channel is gone) dropped from memory."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from bot.clock import Clock
from bot.session import Played, Session, result_record
from bot.session_checks import check_member, sentence
from bot.session_errors import MatchOver, NotInMatch, StaleControl, UserError
from bot.steps import Step, step_of
from bot.store import MatchRecord, ResultRecord
from engine import Forfeit, GameError, GameState


class EndingSessions(Protocol):
    """What the ends use of the matches in memory (``bot.match_writer.MatchWriter``)."""

    async def get(self, match_id: int) -> Session: ...

    async def reload(self, session: Session) -> None: ...

    async def commit(
        self,
        session: Session,
        before: GameState,
        after: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played: ...

    def forget(self, session: Session) -> None: ...

    def ended(self, session: Session, saved: MatchRecord | None) -> None: ...


class EndingRows(Protocol):
    """The one write that ends a match without an action (``bot.store.MatchStore.end``)."""

    async def end(
        self,
        match_id: int,
        *,
        status: str,
        result: ResultRecord | None,
        now: float,
        board_steps: Sequence[dict[str, Any]] = (),
        expected_version: int | None = None,
    ) -> MatchRecord | None: ...


class DraftKeeper(Protocol):
    """Where a turn in progress is saved again (``bot.turn_drafts.TurnDrafts.save``)."""

    async def save(self, session: Session, position: GameState, steps: list[Step]) -> Played: ...


class MatchEnds:
    def __init__(self, matches: EndingSessions, rows: EndingRows, drafts: DraftKeeper, clock: Clock) -> None:
        self.matches = matches
        self.rows = rows
        self.drafts = drafts
        self.clock = clock

    async def resign(self, match_id: int, user_id: int) -> Played:
        """End the match: a loss for ``user_id``; a damaged match is abandoned, unrated."""
        session = await self.matches.get(match_id)
        async with session.lock:
            await self.matches.reload(session)  # the result is computed from the saved match
            if session.record.status != "active":
                raise MatchOver("This match is already over.")
            seat = session.seat_of(user_id)
            if seat is None:
                raise NotInMatch("You are not playing in this match.")
            now = self.clock.now()
            if session.state is None:
                self.ended(session, await self.rows.end(match_id, status="abandoned", result=None, now=now))
                return Played(session, None, ())
            names = session.variant.seat_names
            outcome = session.variant.forfeit(
                session.state, seat, Forfeit.RESIGNATION, f"{names[1 - seat]} wins: {names[seat]} resigned."
            )
            step = Step(seat, "resign", outcome.description)
            saved = await self.rows.end(
                match_id,
                status="finished",
                result=result_record(match_id, outcome, now),
                now=now,
                board_steps=[step.to_json()],
                expected_version=session.version,
            )
            if saved is None:  # moved on between the read and the write: nothing was saved
                self.matches.forget(session)
                raise StaleControl("This match changed just now; look at the latest board and try again.")
            self.ended(session, saved)
            return Played(session, session.state, (step,))

    async def stop_after_game(self, match_id: int, user_id: int) -> Played:
        """End a session of games (a backgammon money session) when its game in progress ends, at the
        word of either player, on turn or not (``Variant.stop_after_game``). A turn in progress (its
        draft, not final yet) is kept: the stop changes no checker, so the draft's steps are played
        again on the position with the stop."""
        session = await self.matches.get(match_id)
        async with session.lock:
            seat, state = check_member(session, user_id, None)
            try:
                action = session.variant.stop_after_game(state, seat)
                after = state.apply(action)
            except GameError as exc:
                raise UserError(sentence(str(exc))) from exc
            draft = list(session.draft)
            played = await self.matches.commit(
                session, state, after, [step_of(seat, action, state, after, False)]
            )
            if draft and not after.is_terminal():
                position = after
                for step in draft:
                    position = position.apply(session.variant.parse_action(position, step.notation))
                await self.drafts.save(session, position, draft)
            return played

    def ended(self, session: Session, saved: MatchRecord | None) -> None:
        """The session of a match just ended without an action: ``saved`` is its record as
        ``MatchStore.end`` saved it (None: it had ended already)."""
        self.matches.ended(session, saved)
