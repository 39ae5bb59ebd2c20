"""One match against the computer per player and place: a rule of the service, kept by the database
(the unique index ``one_computer_match``, migration 015), so two starts at once cannot both win."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.session import UserError
from bot.sessions import SessionManager
from bot.store import Store
from bot.store.matches import ComputerMatchExists

COMPUTER, ALICE, BOB = 999, 101, 202


async def manager_on(path: Path) -> SessionManager:
    store = await Store.open(path)
    return SessionManager(store, ManualClock(), rng=random.Random(3), computer_ids=frozenset({COMPUTER}))


def start(manager: SessionManager, player: int, channel: int, parent: int | None = None):  # type: ignore[no-untyped-def]
    return manager.start_match(
        game="ring",
        options={},
        players=(player, COMPUTER),
        guild_id=1,
        channel_id=channel,
        parent_id=parent,
        rated=False,
    )


@pytest.mark.asyncio
async def test_two_starts_at_once_give_one_match_and_the_same_refusal(tmp_path: Path) -> None:
    manager = await manager_on(tmp_path / "db.sqlite3")
    results = await asyncio.gather(
        start(manager, ALICE, 10), start(manager, ALICE, 10), return_exceptions=True
    )
    refused = [r for r in results if isinstance(r, UserError)]
    assert len(refused) == 1 and "You already have a match against me here: match #" in str(refused[0])
    assert len(await manager.store.matches.active(user_id=ALICE)) == 1
    await manager.store.close()


@pytest.mark.asyncio
async def test_the_database_refuses_a_second_one_in_the_same_place(tmp_path: Path) -> None:
    manager = await manager_on(tmp_path / "db.sqlite3")
    first = await start(manager, ALICE, 10)
    assert first.session.record.human == ALICE
    # A thread of the same channel is the same place; so is the match's own thread once it is opened.
    await manager.boards.set_thread(first.session, 55, 10)
    with pytest.raises(ComputerMatchExists):
        await manager.store.matches.create(
            guild_id=1, channel_id=66, parent_id=10, game="ring", options={}, players=(ALICE, COMPUTER),
            state="{}", actions=[], rated=False, now=0.0, human=ALICE,
        )  # fmt: skip
    with pytest.raises(UserError, match=rf"match #{first.session.id} in <#55>"):
        await manager.computer.check_no_computer_match(ALICE, 10)
    # Elsewhere, someone else, or a match between people: allowed.
    await start(manager, ALICE, 20)
    await start(manager, BOB, 10)
    await manager.start_match(
        game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    await manager.store.close()


@pytest.mark.asyncio
async def test_once_it_has_ended_another_may_start_there(tmp_path: Path) -> None:
    manager = await manager_on(tmp_path / "db.sqlite3")
    first = await start(manager, ALICE, 10)
    await manager.ends.resign(first.session.id, ALICE)
    second = await start(manager, ALICE, 10)
    assert second.session.id != first.session.id
    await manager.store.close()
