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
from tests.support import register_kit, start_bot, stop_bot


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
    # The bases of the declared controls match nothing themselves (``(?!)``): they are not kinds.
    found.discard(sys.modules["cogs.control_framework"].Control)
    found.discard(sys.modules["cogs.control_framework"].RefusedControl)
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


@pytest.mark.asyncio
async def test_the_standing_answer_buttons_answer_after_a_restart(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Always pass in this match" and "Ask me in windows" (``sa:<match>:<version>:<op>``), clicked on
    private replies sent before a restart."""
    from fakediscord import FakeMessage, FakeUser
    from tests.games import duel

    register_kit(monkeypatch, duel.KIT)
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db, seed=12)  # Red holds Strike 1, Strike 1, Strike 2
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    challenge = await fake.slash(alice, "challenge", {"opponent": bob, "game": "duel"})
    assert challenge.message is not None
    accept = next(c for c in challenge.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, challenge.message, accept, idle=True)
    thread = fake.thread_of(challenge.message)
    assert thread is not None

    def board() -> FakeMessage:
        return [m for m in fake.messages_in(thread.id) if not m.ephemeral][-1]

    async def reply(user: FakeUser) -> FakeMessage:
        hand = next(b.custom_id for b in board().buttons if b.label == "My hand")
        result = await fake.click(user, board(), hand or "", idle=True)
        assert result.message is not None
        return result.message

    def button(message: FakeMessage, label: str) -> str:
        found = next(b.custom_id for b in fake.message(message).buttons if b.label == label)
        assert found is not None
        return found

    strike = await reply(alice)
    await fake.click(alice, strike, button(strike, "Play Strike 1"), idle=True)
    window = await reply(bob)
    await stop_bot(bot)

    bot = await start_bot(fake, db, seed=7)
    always = await fake.click(bob, window, button(window, "Always pass in this match"), idle=True)
    assert always.answered and "(standing answer: always pass)" in fake.message(window).content
    hand = await reply(bob)
    await stop_bot(bot)

    bot = await start_bot(fake, db, seed=8)
    mid = (await bot.sessions.history.matches_of(bob.id))[0].id
    ask = await fake.click(bob, hand, button(hand, "Ask me in windows"), idle=True)
    assert ask.answered and "asked in every response window" in fake.message(hand).content
    record = await bot.store.matches.get(mid)
    assert record is not None and record.always_pass == (False, False)
    fake.assert_clean()
    await stop_bot(bot)


# -- the declarations: one base makes every kind's template, custom id and dispatch ------------------

LITERAL_IDS = {
    "GameButton": ("g:12:3:roll", "g:12:3:a:move 2 from 7", "g:9223372036854775807:0:n:"),
    "GameSelect": ("g:12:3:s0", "g:12:3:s4"),
    "ChallengeButton": ("ch:7:accept", "ch:7:decline", "ch:7:cancel"),
    "ResignButton": ("rs:5:yes", "rs:5:no"),
    "HandButton": ("hand:5",),
    "StandingAnswerButton": ("sa:5:9:pass", "sa:5:9:ask"),
    "RematchButton": ("rm:5",),
    "ResignAskButton": ("rsk:5",),
    "StopAfterGameButton": ("stop:5",),
    "MatchPicker": ("pick:board", "pick:move:8/5 6/5", "pick:hint"),
    "RulesButton": ("rules:ring:2",),
    "OpenRulesButton": ("rules:backgammon",),
    "OpenReviewButton": ("rvo:5",),
    "ReviewButton": ("rv:5:9:2:next", "rv:5:9:1:first"),
    "PlayHintButton": ("hp:12:3:8/5 6/5", "hp:12:3:roll", "hp:12:3:bar/22* 13/7*(2)"),
    "TournamentButton": ("tn:5:join", "tn:5:leave", "tn:5:start"),
    "TutorButton": ("tu:12:3:confirm", "tu:12:3:back", "tu:12:3:a:double", "tu:12:3:a:bar/22* 13/7*(2)"),
}
"""Custom ids exactly as boards posted before this base was written carry them."""


def test_every_kind_of_control_is_declared_on_the_one_base() -> None:
    from cogs.control_framework import Answer, Control
    from cogs.control_kinds import DYNAMIC_ITEMS, KINDS, MalformedControl

    kinds = [kind for kind in DYNAMIC_ITEMS if kind is not MalformedControl]
    assert kinds == list(KINDS)
    assert all(issubclass(kind, Control) for kind in kinds)
    assert {kind.__name__ for kind in kinds} == set(LITERAL_IDS)
    for kind in kinds:
        assert isinstance(kind.answer, Answer), f"{kind.__name__} declares no answer"


@pytest.mark.parametrize("name", sorted(LITERAL_IDS))
def test_custom_ids_are_the_same_as_before_and_read_back(name: str) -> None:
    from cogs.control_kinds import DYNAMIC_ITEMS, MalformedControl

    kind = next(k for k in DYNAMIC_ITEMS if k.__name__ == name)
    others = [k for k in DYNAMIC_ITEMS if k is not kind]
    for custom_id in LITERAL_IDS[name]:
        match = kind.__discord_ui_compiled_template__.fullmatch(custom_id)
        assert match is not None, f"{name} no longer matches {custom_id!r}"
        assert not any(k.__discord_ui_compiled_template__.fullmatch(custom_id) for k in others), custom_id
        assert (
            MalformedControl not in others
            or not MalformedControl.__discord_ui_compiled_template__.fullmatch(custom_id)
        )
        values = {n: f.read(match[n]) if match[n] is not None else "" for n, f in kind.fields.items()}  # type: ignore[attr-defined]
        assert kind.id_for(**values) == custom_id  # type: ignore[attr-defined]


def test_a_looked_up_control_is_built_with_the_id_it_declares() -> None:
    from cogs.control_kinds import ChallengeButton, HandButton, MatchPicker, RulesButton, StandingAnswerButton

    assert ChallengeButton.build(7, "accept").item.custom_id == "ch:7:accept"
    assert HandButton.build(5).item.custom_id == "hand:5"
    assert StandingAnswerButton.build(5, 9, "pass").item.custom_id == "sa:5:9:pass"
    assert RulesButton.build("ring", 2, "Next ▶").item.custom_id == "rules:ring:2"
    assert MatchPicker.build("move", [(1, "a")], "8/5 6/5").item.custom_id == "pick:move:8/5 6/5"
    assert MatchPicker.build("board", [(1, "a")]).item.custom_id == "pick:board"
    with pytest.raises(ValueError, match="at most"):
        MatchPicker.build("move", [(1, "a")], "x" * 200)
