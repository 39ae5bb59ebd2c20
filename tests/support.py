"""Helpers shared by the tests: the real bot on the in-process fake Discord."""

from __future__ import annotations

import random
from pathlib import Path

from bot.client import RingsideBot
from bot.clock import ManualClock
from bot.store import Store
from fakediscord import FakeDiscord


async def start_bot(
    fake: FakeDiscord, db: Path, clock: ManualClock | None = None, seed: int = 1
) -> RingsideBot:
    """A RingsideBot on ``fake`` with its store at ``db``, a manual clock and seeded dice; no scheduler."""
    store = await Store.open(db)
    bot = RingsideBot(store, clock=clock or ManualClock(), rng=random.Random(seed), run_scheduler=False)
    await fake.connect(bot)
    return bot


async def stop_bot(bot: RingsideBot) -> None:
    """Close the bot and its store (a restart in the middle of a test is ``stop_bot`` then ``start_bot``)."""
    await bot.close()
    await bot.store.close()
