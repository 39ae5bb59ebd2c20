"""``MatchEnds`` driven against small hand-written fakes of the interfaces it is given
(``EndingSessions``, ``EndingRows``, ``DraftKeeper`` and a clock): no database, no Discord, no
``SessionManager``. And a step's note (``was_asked``) decided from its field, its saved form as it was."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from bot.clock import ManualClock
from bot.match_ends import DraftKeeper, EndingRows, EndingSessions, MatchEnds
from bot.session import Played, Session
from bot.session_errors import MatchOver, NotInMatch, StaleControl
from bot.steps import NO_ANSWER, STANDING_PASS, Step, noted, steps_of
from bot.store import MatchRecord, ResultRecord
from bot.turn_policy import was_asked
from engine import GameState, find_variant

ALICE, BOB, STRANGER = 101, 202, 303
NOW = 1_790_000_000.0


def active_session(match_id: int = 7, version: int = 4) -> Session:
    variant = find_variant("ring")
    state = variant.new_game({})
    record = MatchRecord(
        id=match_id, guild_id=1, channel_id=2, parent_id=None, game="ring", options={},
        players=(ALICE, BOB), state=state.canonical(), version=version, status="active",
        message_id=None, rated=True, created_at=NOW - 60, updated_at=NOW - 10,
    )  # fmt: skip
    return Session(record=record, variant=variant, state=state)


class FakeSessions:
    """The matches in memory: one session, and what was done to it."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.reloaded = 0
        self.forgotten: list[Session] = []
        self.ended_with: list[MatchRecord | None] = []

    async def get(self, match_id: int) -> Session:
        assert match_id == self.session.id
        return self.session

    async def reload(self, session: Session) -> None:
        self.reloaded += 1

    async def commit(
        self,
        session: Session,
        before: GameState,
        after: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played:
        raise AssertionError("a resignation commits no action")

    def forget(self, session: Session) -> None:
        self.forgotten.append(session)

    def ended(self, session: Session, saved: MatchRecord | None) -> None:
        self.ended_with.append(saved)
        if saved is not None:
            session.record = saved


class FakeRows:
    """The store's ``end``: each call noted; the match is ended unless it is set to have moved on."""

    def __init__(self, moved_on: bool = False) -> None:
        self.moved_on = moved_on
        self.calls: list[dict[str, Any]] = []

    async def end(
        self,
        match_id: int,
        *,
        status: str,
        result: ResultRecord | None,
        now: float,
        board_steps: Sequence[dict[str, Any]] = (),
        expected_version: int | None = None,
    ) -> MatchRecord | None:
        self.calls.append(
            {"match_id": match_id, "status": status, "result": result, "now": now,
             "board_steps": list(board_steps), "expected_version": expected_version}
        )  # fmt: skip
        if self.moved_on:
            return None
        return MatchRecord(
            id=match_id, guild_id=1, channel_id=2, parent_id=None, game="ring", options={},
            players=(ALICE, BOB), state="{}", version=(expected_version or 0) + 1, status=status,
            message_id=None, rated=True, created_at=NOW - 60, updated_at=now,
        )  # fmt: skip


class NoDrafts:
    async def save(self, session: Session, position: GameState, steps: list[Step]) -> Played:
        raise AssertionError("no draft is kept by a resignation")


def ends_with(sessions: FakeSessions, rows: FakeRows) -> MatchEnds:
    # The fakes are all MatchEnds is given: typed as its protocols, mypy checks that they fit them.
    matches: EndingSessions = sessions
    ending: EndingRows = rows
    drafts: DraftKeeper = NoDrafts()
    return MatchEnds(matches, ending, drafts, ManualClock(NOW))


@pytest.mark.asyncio
async def test_a_resignation_ends_the_match_as_a_loss_for_its_player_in_one_conditional_write() -> None:
    sessions, rows = FakeSessions(active_session()), FakeRows()
    played = await ends_with(sessions, rows).resign(7, ALICE)

    assert sessions.reloaded == 1, "the result is computed from the saved match"
    [call] = rows.calls
    assert call["status"] == "finished" and call["now"] == NOW and call["expected_version"] == 4
    result = call["result"]
    assert result.winner_seat == 1 and result.description == "Blue wins: Red resigned."
    assert played.steps == (Step(0, "resign", "Blue wins: Red resigned."),)
    assert call["board_steps"] == [played.steps[0].to_json()]
    assert [saved.status for saved in sessions.ended_with if saved] == ["finished"]
    assert played.finished and sessions.forgotten == []


@pytest.mark.asyncio
async def test_a_resignation_the_match_moved_on_from_saves_nothing_and_drops_the_copy() -> None:
    sessions, rows = FakeSessions(active_session()), FakeRows(moved_on=True)
    with pytest.raises(StaleControl):
        await ends_with(sessions, rows).resign(7, BOB)
    assert sessions.forgotten == [sessions.session] and sessions.ended_with == []


@pytest.mark.asyncio
async def test_only_a_player_of_an_active_match_resigns() -> None:
    sessions, rows = FakeSessions(active_session()), FakeRows()
    with pytest.raises(NotInMatch):
        await ends_with(sessions, rows).resign(7, STRANGER)
    sessions.session.record = replace(sessions.session.record, status="finished")
    with pytest.raises(MatchOver):
        await ends_with(sessions, rows).resign(7, ALICE)
    assert rows.calls == []


def test_a_window_let_run_out_asked_its_player_and_its_saved_form_is_unchanged() -> None:
    """``was_asked`` reads ``Step.note``; the saved form has no key for it (the note is at the end of
    the texts, as saved before), and saved steps, old or new, read back with their note."""
    ran_out = noted(Step(1, "take", "", automatic=True), NO_ANSWER, "Blue")
    standing = noted(Step(1, "take", "Blue takes it.", automatic=True), STANDING_PASS, "Blue")
    assert ran_out.note == NO_ANSWER and was_asked(ran_out, 1) and not was_asked(ran_out, 0)
    assert standing.note == STANDING_PASS and not was_asked(standing, 1)
    assert not was_asked(Step(1, "take", "Blue takes it.", automatic=True), 1)
    assert was_asked(Step(1, "take", "Blue takes it."), 1)
    saved = json.dumps([ran_out.to_json(), standing.to_json()])
    assert saved == (
        '[{"seat": 1, "notation": "take", "text": "Blue let the window pass (no answer in time)",'
        ' "automatic": true}, {"seat": 1, "notation": "take",'
        ' "text": "Blue takes it. (standing answer: always pass)", "automatic": true}]'
    )
    assert steps_of(json.loads(saved)) == (ran_out, standing)
