"""The tournament service on a real store (SQLite, and PostgreSQL when given): two services (two
processes' worth) recording results at once pair the next round exactly once; a round's deadline
ends its matches by the usual timeout or, where neither player moved, as a both-forfeit; a restart
takes up what finished while the bot was down."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.challenges import Challenges
from bot.clock import ManualClock
from bot.session import deciding_seat
from bot.sessions import SessionManager
from bot.settings import ServerSettings
from bot.store import Store
from bot.tournaments import Organiser, TournamentProblem, Tournaments

GUILD, CHANNEL = 10, 20
ADA = Organiser(1, manage_server=True)
HOUR = 3600.0


class Process:
    """One bot process's services on the shared database."""

    def __init__(self, store: Store, clock: ManualClock) -> None:
        self.store = store
        settings = ServerSettings(store)
        self.sessions = SessionManager(store, clock, rng=random.Random(1), settings=settings)
        self.service = Tournaments(store, clock, settings, self.sessions, Challenges(store, clock, settings))

    @classmethod
    async def open(cls, db: Path, clock: ManualClock) -> Process:
        return cls(await Store.open(db), clock)


async def signed_up(service: Tournaments, players: int, format: str = "knockout") -> int:
    record = await service.create(
        guild_id=GUILD, channel_id=CHANNEL, who=ADA, game="ring", format=format, name="Cup",
        options={}, rounds=None, signup_hours=None, round_hours=24.0,
    )  # fmt: skip
    for user in range(100, 100 + players):
        await service.join(record.id, user, f"player {user}")
    return record.id


async def current_matches(service: Tournaments, tournament_id: int) -> list[int]:
    record = await service.get(tournament_id)
    state = service.state_of(record)
    assert state is not None
    return [m for m in (await service.tables(tournament_id, state.current_round)).values() if m is not None]


@pytest.mark.asyncio
async def test_two_results_at_once_pair_the_next_round_exactly_once(tmp_path: Path) -> None:
    clock = ManualClock()
    one, two = (
        await Process.open(tmp_path / "db.sqlite3", clock),
        await Process.open(tmp_path / "db.sqlite3", clock),
    )
    tid = await signed_up(one.service, 4)
    await one.service.start(tid, ADA)
    first, second = await current_matches(one.service, tid)
    for match_id, process in ((first, one), (second, two)):
        record = await process.store.matches.get(match_id)
        assert record is not None
        await process.sessions.ends.resign(match_id, record.players[0])
    # Each process takes one of the two results at the same moment: one pairs the final.
    updates = await asyncio.gather(
        one.service.rounds.match_ended(first), two.service.rounds.match_ended(second)
    )
    assert sum(len(u.started) for u in updates if u is not None) == 1
    record = await one.service.get(tid)
    state = one.service.state_of(record)
    assert state is not None and state.current_round == 2 and len(state.results) == 2
    assert len(await one.service.tables(tid, 2)) == 1
    assert len(await one.store.matches.active()) == 1
    # Taking the same results again changes nothing.
    assert await two.service.rounds.match_ended(first) is None
    assert (await one.service.get(tid)).version == record.version
    for process in (one, two):
        await process.store.close()


@pytest.mark.asyncio
async def test_round_deadline_ends_by_timeout_or_both_forfeit(tmp_path: Path) -> None:
    clock = ManualClock()
    process = await Process.open(tmp_path / "db.sqlite3", clock)
    service = process.service
    tid = await signed_up(service, 4, "swiss")
    await service.start(tid, ADA)
    moved, idle = await current_matches(service, tid)
    session = await process.sessions.get(moved)
    assert session.state is not None
    seat = deciding_seat(session.state)
    assert seat is not None
    if session.state.chance() is not None:
        await process.sessions.roll(moved, session.user_of(seat), session.version)
    else:
        first = session.state.legal_actions()[0]
        await process.sessions.act(moved, session.user_of(seat), session.version, first.notation)
    clock.advance(24 * HOUR + 1)
    updates = await service.due()
    assert updates
    for match_id in (moved, idle):
        ended = await process.store.matches.get(match_id)
        assert ended is not None and ended.status != "active"
    state = service.state_of(await service.get(tid))
    assert state is not None
    hows = {r.table: r.how for r in state.results if r.round == 1}
    assert sorted(hows.values()) == ["both forfeit", "timeout"]
    # The second round is paired once the first is decided.
    assert state.current_round == 2
    await process.store.close()


@pytest.mark.asyncio
async def test_a_match_that_ended_while_down_is_taken_up_at_the_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    process = await Process.open(tmp_path / "db.sqlite3", clock)
    tid = await signed_up(process.service, 2)
    await process.service.start(tid, ADA)
    (match_id,) = await current_matches(process.service, tid)
    record = await process.store.matches.get(match_id)
    assert record is not None
    # The match ends, and the process dies before its result reaches the tournament.
    await process.sessions.ends.resign(match_id, record.players[1])
    await process.store.close()
    restarted = await Process.open(tmp_path / "db.sqlite3", clock)
    updates = await restarted.service.due()
    assert any(u.finished for u in updates)
    final = await restarted.service.get(tid)
    state = restarted.service.state_of(final)
    assert final.status == "finished" and state is not None and state.champion == record.players[0]
    await restarted.store.close()


@pytest.mark.asyncio
async def test_organiser_actions_and_refusals(tmp_path: Path) -> None:
    clock = ManualClock()
    process = await Process.open(tmp_path / "db.sqlite3", clock)
    service = process.service
    tid = await signed_up(service, 3)
    stranger = Organiser(7, manage_server=False)
    with pytest.raises(TournamentProblem, match="Manage Server"):
        await service.start(tid, stranger)
    before = await service.get(tid)
    with pytest.raises(TournamentProblem, match="Only a running"):
        await service.pause(tid, ADA)
    assert (await service.get(tid)).version == before.version
    await service.start(tid, ADA)
    with pytest.raises(TournamentProblem, match="closed"):
        await service.join(tid, 999, "late")
    paused = await service.pause(tid, ADA)
    assert paused.record.status == "paused" and paused.record.round_until is None
    clock.advance(10 * HOUR)
    resumed = await service.resume(tid, ADA)
    assert resumed.record.round_until == pytest.approx(clock.now() + 24 * HOUR)
    (match_id,) = await current_matches(service, tid)
    match = await process.store.matches.get(match_id)
    assert match is not None
    with pytest.raises(TournamentProblem, match="reason"):
        await service.set_result(tid, ADA, 1, 2, match.players[0], "  ")
    state = service.state_of(resumed.record)
    assert state is not None
    table = next(p.table for p in state.open_pairings())
    update = await service.set_result(tid, ADA, 1, table, match.players[0], "no-show agreed by both")
    assert [p.session.record.status for p in update.ended] == ["abandoned"]
    result = next(r for r in service.state_of(update.record).results if r.table == table)  # type: ignore[union-attr]
    assert result.how == "organiser" and result.reason == "no-show agreed by both"
    cancelled = await service.cancel(tid, ADA)
    assert cancelled.record.status == "cancelled"
    await process.store.close()
