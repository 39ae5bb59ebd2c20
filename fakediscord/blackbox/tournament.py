"""The black box's tournament stages: an organiser's knockout with Join, Leave and Start tried in
every role, started before the bot is killed with SIGKILL and decided by the organiser's result after
the restart (so a running tournament survives a kill -9 of the real process)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from fakediscord.patience import patient
from fakediscord.world import FakeMessage

from .driver import SETTLE_TIMEOUT, Stuck

if TYPE_CHECKING:
    from .scenario import BlackBox


async def start_tournament(self: BlackBox) -> FakeMessage:
    """Olga (the organiser: "player") opens a knockout; Join, Leave and Start are tried by Carol (a
    stranger: Leave and Start refused), Alice and Bob (entrants: "opponent"; Start refused), and
    Olga starts it. Returns its announcement."""
    made = await self.clicker.command(
        self.olga, "tournament create", {"game": "ring", "format": "knockout", "name": "Black box cup"}
    )
    if made is None or made.message is None:
        self.ledger.fail("/tournament create posted no announcement")
        raise Stuck
    announcement = made.message
    join, leave, start = (self.op(announcement, f":{op}") for op in ("join", "leave", "start"))
    await self.clicker.press(self.carol, "stranger", announcement, leave)
    await self.clicker.press(self.carol, "stranger", announcement, start)
    await self.clicker.press(self.alice, "opponent", announcement, join)
    await self.clicker.press(self.alice, "opponent", announcement, join)  # twice: refused
    await self.clicker.press(self.bob, "opponent", announcement, join)
    await self.clicker.press(self.bob, "opponent", announcement, start)
    await self.clicker.press(self.olga, "player", announcement, start)
    if "Round 1" not in str(await settled_embeds(self, announcement)):
        self.ledger.fail(f"Start left the announcement saying {self.fake.message(announcement).embeds!r}")
        raise Stuck
    return announcement


async def finish_tournament(self: BlackBox, announcement: FakeMessage) -> None:
    """After the restart: the one match decided by Olga's /tournament result, the champion named on
    the announcement the first process posted."""
    await self.clicker.command(
        self.olga,
        "tournament result",
        {"round": 1, "table": 1, "winner": self.alice, "reason": "decided for the black box"},
    )
    if "Champion" not in str(await settled_embeds(self, announcement, "Champion")):
        self.ledger.fail("the result set by hand did not crown a champion on the announcement")


async def settled_embeds(self: BlackBox, message: FakeMessage, wanted: str = "Round 1") -> object:
    """The message's embeds once they say ``wanted`` (or as they are after a while)."""
    deadline = time.monotonic() + patient(SETTLE_TIMEOUT)
    while time.monotonic() < deadline and wanted not in str(self.fake.message(message).embeds):
        await asyncio.sleep(0.1)
    return self.fake.message(message).embeds
