"""How a match ends without a move: a resignation, a backgammon money session stopped after its
game in progress, and the session of a match just ended (by resignation, by time, or because its
channel is gone) dropped from memory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.session import (
    MatchOver,
    NotInMatch,
    Played,
    Session,
    StaleControl,
    Step,
    UserError,
    check_member,
    result_record,
    sentence,
    step_of,
)
from bot.store import MatchRecord
from engine import (
    Forfeit,
    GameError,
)

if TYPE_CHECKING:
    from bot.sessions import SessionManager


class MatchEnds:
    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager

    async def resign(self, match_id: int, user_id: int) -> Played:
        """End the match: a loss for ``user_id``; a damaged match is abandoned, unrated."""
        session = await self.manager.get(match_id)
        async with session.lock:
            await self.manager.reload(session)  # the result is computed from the saved match
            if session.record.status != "active":
                raise MatchOver("This match is already over.")
            seat = session.seat_of(user_id)
            if seat is None:
                raise NotInMatch("You are not playing in this match.")
            now = self.manager.clock.now()
            if session.state is None:
                self.ended(
                    session,
                    await self.manager.store.matches.end(match_id, status="abandoned", result=None, now=now),
                )
                return Played(session, None, ())
            names = session.variant.seat_names
            outcome = session.variant.forfeit(
                session.state, seat, Forfeit.RESIGNATION, f"{names[1 - seat]} wins: {names[seat]} resigned."
            )
            step = Step(seat, "resign", outcome.description)
            saved = await self.manager.store.matches.end(
                match_id,
                status="finished",
                result=result_record(match_id, outcome, now),
                now=now,
                board_steps=[step.to_json()],
                expected_version=session.version,
            )
            if saved is None:  # moved on between the read and the write: nothing was saved
                self.manager._forget(session)
                raise StaleControl("This match changed just now; look at the latest board and try again.")
            self.ended(session, saved)
            return Played(session, session.state, (step,))

    async def stop_after_game(self, match_id: int, user_id: int) -> Played:
        """End a session of games (a backgammon money session) when its game in progress ends, at the
        word of either player, on turn or not (``Variant.stop_after_game``). A turn in progress (its draft, not final yet) is kept: the stop changes no
        checker, so the draft's steps are played again on the position with the stop."""
        session = await self.manager.get(match_id)
        async with session.lock:
            seat, state = check_member(session, user_id, None)
            try:
                action = session.variant.stop_after_game(state, seat)
                after = state.apply(action)
            except GameError as exc:
                raise UserError(sentence(str(exc))) from exc
            draft = list(session.draft)
            played = await self.manager._commit(
                session, state, after, [step_of(seat, action, state, after, False)]
            )
            if draft and not after.is_terminal():
                position = after
                for step in draft:
                    position = position.apply(session.variant.parse_action(position, step.notation))
                await self.manager.drafts.save(session, position, draft)
            return played

    def ended(self, session: Session, saved: MatchRecord | None) -> None:
        """The session of a match just ended without an action: ``saved`` is its record as
        ``MatchStore.end`` saved it (None: it had ended already)."""
        if saved is not None:
            session.record = saved
        session.draft, session.working = (), None
        self.manager._forget(session)
