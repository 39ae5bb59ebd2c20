"""Every persistent control keeps working after a restart, and every kind of control is registered."""

from __future__ import annotations

import importlib
import pkgutil
import random
import sys
from pathlib import Path

import discord
import pytest

import bot as bot_package
import cogs as cogs_package
from fakediscord import FakeDiscord
from fakediscord.matches import challenge_and_accept, play_until_over, user_on_turn
from tests.support import start_bot, stop_bot


def _dynamic_item_classes() -> set[type[discord.ui.DynamicItem[discord.ui.Item[discord.ui.View]]]]:
    """Every ``DynamicItem`` class defined in the product's own modules."""
    for package in (bot_package, cogs_package):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if module.name.endswith("__main__"):
                continue
            importlib.import_module(module.name)
    found = set()
    pending = list(discord.ui.DynamicItem.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        module = sys.modules.get(cls.__module__)
        # A module reloaded by a test leaves its old classes behind: only the current one counts.
        if cls.__module__.split(".")[0] in ("bot", "cogs") and getattr(module, cls.__qualname__, None) is cls:
            found.add(cls)
    return found


@pytest.mark.asyncio
async def test_every_dynamic_item_class_is_registered_at_start_up(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    registered = set(bot._connection._view_store._dynamic_items.values())
    classes = _dynamic_item_classes()
    assert len(classes) >= 6, "the product's persistent controls were not found"
    missing = sorted(c.__qualname__ for c in classes - registered)
    assert missing == [], f"persistent controls not registered at start-up: {missing}"
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_every_kind_of_control_answers_after_a_restart(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    users = {alice.id: alice, bob.id: bob}
    # A finished match (Rematch), a live board (Roll), a pending challenge (Accept, Cancel),
    # a resign prompt (Keep playing, Resign) and a rules page (Next), all from before the restart.
    finished = await challenge_and_accept(fake, alice, bob)
    result = await play_until_over(fake, finished.channel_id, users, random.Random(3))
    live = await challenge_and_accept(fake, carol, dave)
    pending = await fake.slash(alice, "challenge", {"opponent": carol, "game": "ring"})
    cancelled = await fake.slash(bob, "challenge", {"opponent": dave, "game": "ring"})
    prompt = await fake.slash(carol, "resign", channel=live.channel_id)
    prompt2 = await fake.slash(carol, "resign", channel=live.channel_id)
    rules = await fake.slash(alice, "rules", {"game": "ring"})
    assert pending.message and cancelled.message and prompt.message and prompt2.message and rules.message
    await stop_bot(bot)

    bot = await start_bot(fake, db, seed=7)  # a new process: nothing in memory

    def control(message_id: int, label: str) -> str:
        message = fake.message(message_id)
        return next(b.custom_id for b in message.buttons if b.label == label and b.custom_id)

    rematch = await fake.click(bob, result, control(result.id, "Rematch"), idle=True)
    assert rematch.answered and not rematch.ephemeral
    assert "rematch" in fake.messages_in(result.channel_id)[-1].content.lower()

    board = fake.message(live)
    on_turn = user_on_turn(board, {carol.id: carol, dave.id: dave})
    assert on_turn is not None
    ask = await fake.click(on_turn, board, control(board.id, "Resign"), idle=True)
    assert ask.answered and ask.ephemeral, "the board's own Resign asks privately for confirmation"
    rolled = await fake.click(on_turn, board, control(board.id, "Roll"), idle=True)
    assert rolled.answered and not rolled.ephemeral, (
        rolled.message.content if rolled.message else rolled.replies
    )

    keep = await fake.click(carol, prompt.message, control(prompt.message.id, "Keep playing"), idle=True)
    assert keep.answered and "match goes on" in fake.message(prompt.message).content

    accepted = await fake.click(carol, pending.message, control(pending.message.id, "Accept"), idle=True)
    assert accepted.answered and "accepted" in fake.message(pending.message).content

    cancel = await fake.click(bob, cancelled.message, control(cancelled.message.id, "Cancel"), idle=True)
    assert cancel.answered and "withdrew" in fake.message(cancelled.message).content

    page = await fake.click(alice, rules.message, control(rules.message.id, "Next ▶"), idle=True)
    prev = next(b for b in fake.message(rules.message).buttons if b.label == "◀ Prev")
    assert page.answered and not prev.disabled, "the rules turned to page 2"

    resigned = await fake.click(carol, prompt2.message, control(prompt2.message.id, "Resign"), idle=True)
    assert resigned.answered
    assert fake.messages_in(live.channel_id)[-1].content.startswith("🏆")
    fake.assert_clean()
    await stop_bot(bot)
