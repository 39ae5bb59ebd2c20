"""A running tournament's rounds: each pairing's match made once, each match's result taken once, the
next round paired exactly once, and the round's deadline.

The result that closes a round and the pairing of the next are one compare-and-set write of the
tournament's row: two results arriving at once (two tasks, two processes) both compute from the row
they read, one write wins, the other reads the row again and records its result on top, finding the
round already paired. Matches are made after that write, each claimed first by its (tournament,
round, table) row, so a pairing never gets two matches; whatever a crash leaves half done (a claim
without its match, a match ended while the bot was down) is taken up by ``due``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bot.session import Played, Step, UserError
from bot.store.records import MatchRecord
from bot.store.tournaments import TournamentRecord
from engine.tournament import Result, Tournament, TournamentError

if TYPE_CHECKING:
    from bot.sessions import SessionManager
    from bot.tournaments import Tournaments

log = logging.getLogger(__name__)

STALE_CLAIM = 120.0
"""Seconds after which a pairing claimed but without its match is taken to be a crash's leftover."""
DEADLINE_RETRY = 3600.0
"""When a round's deadline could not end every match (a damaged one), it is tried again this later."""
HOW_BY_REASON = {"timeout": "timeout", "resignation": "resigned"}
BOTH_FORFEIT = "Neither player moved by the round's deadline: both forfeit."


class TournamentProblem(Exception):
    """A tournament request that cannot be carried out; the message is for the user."""


@dataclass(frozen=True, slots=True)
class Update:
    """What a change did, for the cog to show: the tournament as saved, the matches it started (to
    show in their threads), the matches the round's deadline ended (their final boards), whether the
    tournament has just finished (the champion to announce), a note in words."""

    record: TournamentRecord
    started: tuple[int, ...] = ()
    ended: tuple[Played, ...] = ()
    finished: bool = False
    note: str = ""


class Rounds:
    def __init__(self, service: Tournaments, sessions: SessionManager) -> None:
        self.service = service
        self.sessions = sessions
        self.store = service.store

    # -- changing the state ---------------------------------------------------------------------------

    async def apply(
        self, record: TournamentRecord, change: Callable[[Tournament], Tournament], note: str = ""
    ) -> Update:
        """``change`` applied to the tournament's state, and the next round paired when it closes the
        round (not while paused), in one compare-and-set write; then the new round's matches made."""
        was_finished = record.status == "finished"
        paired: list[Tournament] = []

        async def compute(fresh: TournamentRecord) -> dict[str, Any] | None:
            paired.clear()
            state = self.service.state_of(fresh)
            if state is None:
                raise TournamentError("This tournament has not started yet.")
            after = change(state)
            changes: dict[str, Any] = {}
            if fresh.status == "running" and after.round_over and not after.finished:
                after = after.advance()
                changes["round_until"] = self.service.clock.now() + fresh.round_seconds
                paired.append(after)
            if after.finished and fresh.status in ("running", "paused"):
                changes.update(status="finished", round_until=None, paused_left=None)
            changes["state"] = after.to_json()
            return changes

        try:
            saved = await self.service.save(record, compute)
        except TournamentError as exc:
            raise TournamentProblem(str(exc)) from exc
        finished = saved.status == "finished" and not was_finished
        if paired:
            made = await self.make_matches(saved, paired[0])
            return Update(saved, made.started, finished=finished, note=note)
        return Update(saved, finished=finished, note=note)

    async def advance_if_over(self, record: TournamentRecord) -> Update:
        """Pair the next round if the current one is over (after a resume)."""
        return await self.apply(record, lambda state: state)

    async def set_result(
        self, record: TournamentRecord, round: int, table: int, winner: int | None, reason: str
    ) -> Update:
        if record.status not in ("running", "paused"):
            raise TournamentProblem(f"{record.name} is not running: its results cannot change.")
        update = await self.apply(
            record,
            lambda state: state.set_result(round, table, winner, reason),
            note=f"Round {round}, table {table} set by the organiser: {reason}",
        )
        # The pairing's match, if still being played, is over: the organiser decided it.
        for link in await self.store.tournaments.tables(record.id, round):
            if link.table_no == table and link.match_id is not None:
                await self.store.tournaments.mark_recorded(link.match_id)
                ended = await self._abandon(link.match_id, f"The organiser set this result: {reason}")
                return Update(update.record, update.started, ended, update.finished, update.note)
        return update

    async def withdraw(self, record: TournamentRecord, user_id: int) -> Update:
        state = self.service.state_of(record)
        if state is None or user_id not in {e.player for e in state.entrants}:
            raise TournamentProblem(f"You are not playing in {record.name}.")
        open_table = next((p for p in state.open_pairings() if user_id in (p.first, p.second)), None)
        update = await self.apply(
            record, lambda fresh: fresh.withdraw(user_id), note=f"<@{user_id}> withdrew."
        )
        if open_table is None:
            return update
        for link in await self.store.tournaments.tables(record.id, open_table.round):
            if link.table_no == open_table.table and link.match_id is not None:
                await self.store.tournaments.mark_recorded(link.match_id)
                ended = await self._abandon(link.match_id, f"<@{user_id}> withdrew from the tournament.")
                return Update(update.record, update.started, ended, update.finished, update.note)
        return update

    # -- matches ----------------------------------------------------------------------------------------

    async def make_matches(self, record: TournamentRecord, state: Tournament) -> Update:
        """A match for each open pairing of the current round that has none yet (claimed first)."""
        started: list[int] = []
        settings = await self.service.settings.get(record.guild_id)
        now = self.service.clock.now()
        for pairing in state.open_pairings():
            if pairing.second is None:
                continue
            if not await self.store.tournaments.claim_table(record.id, pairing.round, pairing.table, now):
                continue
            played = await self.sessions.start_match(
                game=record.game,
                options=dict(record.options),
                players=(pairing.first, pairing.second),
                guild_id=record.guild_id,
                channel_id=record.channel_id,
                parent_id=None,
                rated=settings.tournament_rated,
                thread_name=(
                    f"{record.name[:60]} · round {pairing.round}, table {pairing.table}"
                    if settings.use_threads
                    else None
                ),
            )
            await self.store.tournaments.link(
                record.id, pairing.round, pairing.table, played.session.id, played.session.version
            )
            started.append(played.session.id)
        return Update(record, tuple(started))

    async def match_ended(self, match_id: int) -> Update | None:
        """Take a finished match's result into its tournament (once); None if it is no tournament's
        match, or its result was taken already."""
        link = await self.store.tournaments.of_match(match_id)
        match = await self.store.matches.get(match_id)
        if link is None or link.recorded or match is None or match.status == "active":
            return None
        record = await self.service.get(link.tournament_id)
        result = await self._result_of(match, link.round, link.table_no)
        try:
            update = await self.apply(record, lambda state: _record_once(state, result))
        except TournamentProblem as exc:
            log.info("tournament %s: match %s not recorded: %s", record.id, match_id, exc)
            update = None
        await self.store.tournaments.mark_recorded(match_id)
        return update

    async def _result_of(self, match: MatchRecord, round: int, table: int) -> Result:
        result = await self.store.matches.result(match.id)
        if result is None or result.winner_seat is None:
            return Result(round, table, None, "both forfeit")
        how = HOW_BY_REASON.get(str(result.reason), "played")
        return Result(round, table, match.players[result.winner_seat], how)

    async def _abandon(self, match_id: int, why: str) -> tuple[Played, ...]:
        """End a match still being played without a result (its result is the tournament's)."""
        try:
            session = await self.sessions.get(match_id)
        except UserError:
            return ()
        async with session.lock:
            await self.sessions.reload(session)
            if session.record.status != "active":
                return ()
            step = Step(None, "tournament", why)
            saved = await self.store.matches.end(
                match_id,
                status="abandoned",
                result=None,
                now=self.service.clock.now(),
                board_steps=[step.to_json()],
            )
            if saved is None:
                return ()
            self.sessions.ends.ended(session, saved)
            return (Played(session, session.state, (step,)),)

    # -- due work -----------------------------------------------------------------------------------------

    async def due(self, now: float) -> list[Update]:
        updates: list[Update] = []
        for record in await self.store.tournaments.due_rounds(now):
            updates.extend(await self._deadline(record))
        for link in await self.store.tournaments.unrecorded_finished():
            found = await self.match_ended(link.match_id) if link.match_id is not None else None
            if found is not None:
                updates.append(found)
        for record in await self.store.tournaments.with_status("running"):
            await self.store.tournaments.unclaim_stale(record.id, now - STALE_CLAIM)
            state = self.service.state_of(record)
            if state is not None:
                made = await self.make_matches(record, state)
                if made.started:
                    updates.append(made)
        return updates

    async def _deadline(self, record: TournamentRecord) -> list[Update]:
        """The round's deadline passed: each match still being played ends by the usual timeout (the
        player on turn loses), or as a both-forfeit where neither player has moved."""
        state = self.service.state_of(record)
        if state is None:
            return []
        ended: list[Played] = []
        for link in await self.store.tournaments.tables(record.id, state.current_round):
            if link.match_id is None or link.recorded:
                continue
            match = await self.store.matches.get(link.match_id)
            if match is None or match.status != "active":
                continue
            moved = link.opened_at is None or match.version > link.opened_at
            played = (
                await self.sessions.clocks.timeout(link.match_id, deadline_passed=True) if moved else None
            )
            ended.extend(
                (played,) if played is not None else await self._abandon(link.match_id, BOTH_FORFEIT)
            )
        updates: list[Update] = []
        for played in ended:
            found = await self.match_ended(played.session.id)
            if found is not None:
                updates.append(found)
        fresh = await self.service.get(record.id)
        if (
            fresh.status == "running"
            and fresh.round_until is not None
            and fresh.round_until <= self.service.clock.now()
        ):
            # Something could not be ended (a damaged match): try again later, not at every round.
            await self.store.tournaments.save(
                fresh, self.service.clock.now(), round_until=fresh.round_until + DEADLINE_RETRY
            )
        latest = await self.service.get(record.id)
        return [
            Update(
                latest,
                tuple(s for u in updates for s in u.started),
                tuple(ended),
                any(u.finished for u in updates),
            )
        ]


def _record_once(state: Tournament, result: Result) -> Tournament:
    """``result`` recorded, or the state unchanged when its table was decided meanwhile (the organiser
    set it, or the player withdrew)."""
    try:
        return state.record(result)
    except TournamentError:
        return state
