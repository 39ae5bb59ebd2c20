"""A step of the mover's own turn that is played by itself only because of what their hand holds must
not show through: the same turn played twice through the fake Discord, once by a player whose card
makes the step asked (and who answers what the bot would have played), once by a player without such
a card (a card of no use then: the hand's size is public), posts and edits the same public messages
in the same order, and the other player's own My hand shows the same. The other player sees only
those: the mover's clicks while the board is held
(their own hand-dependent steps, ``turn_driver.board_held``) are private, so the records are compared
as a succession of public changes, not click by click."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.clock import ManualClock
from engine.space import cards as C
from engine.space.cards import Card
from engine.space.game import Phase, SpaceState
from engine.space.variant import VARIANT
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import WINDOW, challenge_and_accept, live_board, user_on_turn
from tests.engine.space_helpers import make_state
from tests.support import start_bot, stop_bot

REAL_ACTIONS = 4
"""The mover's real actions (the same in both plays) after which the record stops."""

SNOWFLAKE = re.compile(r"\d{15,}")

USELESS = C.ESPIONAGE
"""A card the mover can never play in their own turn."""


@dataclass(frozen=True)
class Case:
    phase: Phase
    card: Card
    answer: str
    where: tuple[tuple[str, int], ...] = (("T1", 3), ("T2", 5), ("E1", 20))
    dice: tuple[int, ...] = (2, 5)
    extra: tuple[tuple[str, object], ...] = ()
    played_by_itself: bool = False
    """Whether, without the card, the step comes while the board is held (after a real action of
    the mover) and is played by itself: never asked."""

    def state(self, card: Card) -> SpaceState:
        return make_state(
            dict(self.where),
            phase=self.phase,
            dice=self.dice,
            hands=((card,), (C.PLASTEEL_ARMOR,)),
            **dict(self.extra),
        )


CASES = {
    "roll": Case(Phase.ROLL, C.HYPER_JUMP, "Roll", dice=()),
    "keep the roll": Case(Phase.ROLL_CARDS, C.BATTLE_COMPUTERS, "Keep the roll"),
    "end of the move phase": Case(
        Phase.MOVE, C.DEFEND_THE_HOMEWORLD, "End the move phase", extra=(("dice_left", ()),)
    ),
    "no attack card": Case(
        Phase.ATTACK,
        C.SURPRISE_ATTACK,
        "No attack card",
        where=(("T1", 3), ("T2", 5), ("E1", 3), ("E2", 20)),
        extra=(("dice_left", ()), ("fight_sector", 3)),
    ),
    "keep the roll after rolling": Case(
        Phase.ROLL, C.BATTLE_COMPUTERS, "Keep the roll", dice=(), played_by_itself=True
    ),
    "end of the move phase after moving": Case(
        Phase.MOVE, C.DEFEND_THE_HOMEWORLD, "End the move phase", dice=(1, 1), played_by_itself=True
    ),
}


def same_ids(text: str) -> str:
    """Discord's ids (users, messages) differ from one fake Discord to the other: named by order."""
    seen: dict[str, str] = {}
    return SNOWFLAKE.sub(lambda m: seen.setdefault(m[0], f"#{len(seen)}"), text)


def public_record(fake: FakeDiscord, channel: int) -> tuple[object, ...]:
    """What everyone sees: each public message's text, embeds, mentions and picture bytes, and how
    many writes to public messages were made so far (an edit that changes nothing still shows)."""
    messages = [m for m in fake.messages_in(channel) if not m.ephemeral]
    ids = {m.id for m in messages}
    writes = sum(
        1
        for r in fake.requests
        if r.method in ("POST", "PATCH") and r.message_id in ids and 200 <= r.status < 300
    )
    return (
        writes,
        tuple(
            (
                same_ids(m.content),
                same_ids(json.dumps(m.embeds, sort_keys=True)),
                tuple(a.data for a in m.attachments),
                tuple(c.label for c in m.all_components if not c.disabled),
            )
            for m in messages
        ),
    )


def pick(panel: FakeMessage, skip: str) -> tuple[str, str, str | None] | None:
    """The mover's real action: the first option of the first select, else the first button that is
    neither a card, nor Back, nor the hand-dependent answer ``skip``."""
    for c in panel.all_components:
        if c.disabled or not (c.custom_id or "").startswith("g:"):
            continue
        if c.options:
            return ("select", c.custom_id or "", c.options[0]["value"])
    for b in panel.buttons:
        label = b.label or ""
        if b.disabled or not (b.custom_id or "").startswith("g:"):
            continue
        if label.startswith("Play") or label in ("Back", skip):
            continue
        return ("button", b.custom_id or "", None)
    return None


async def play_turn(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: Case, card: Card
) -> tuple[list[tuple[object, ...]], int]:
    """The public records one after the other, as the other player sees them (each taken after each
    of the mover's clicks and each window that ran out, until the turn is handed over; one that did
    not change is the same moment to them), and how many times the mover answered the
    hand-dependent step."""
    monkeypatch.setattr(VARIANT, "new_game", lambda options=None: case.state(card))
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / f"{card.key}.sqlite3", clock, seed=5)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users: dict[int, FakeUser] = {alice.id: alice, bob.id: bob}
    first = await challenge_and_accept(fake, alice, bob, "space")
    channel = first.channel_id
    match_id = (await bot.sessions.history.matches_of(alice.id))[0].id
    mover = (await bot.sessions.get(match_id)).user_of(0)
    other = users[(await bot.sessions.get(match_id)).user_of(1)]

    async def seen() -> tuple[object, ...]:
        """What the other player can see: the public messages, and their own My hand."""
        board = live_board(fake, channel)
        hand = next(b.custom_id or "" for b in board.buttons if b.label == "My hand")
        opened = await fake.click(other, board, hand, idle=True)
        assert opened.message is not None
        return (public_record(fake, channel), same_ids(opened.message.content))

    record = [await seen()]
    answered = real = 0
    for _ in range(100):
        if real >= REAL_ACTIONS or (await bot.sessions.get(match_id)).record.status != "active":
            break
        board = live_board(fake, channel)
        user = user_on_turn(board, users)
        if user is None:
            break
        if WINDOW.search(board.content):
            clock.advance(121)  # the other player lets every window pass by itself
            await bot.run_due_tasks()
            record.append(await seen())
            continue
        if user.id != mover:
            break  # the turn was handed over
        hand = next(b.custom_id or "" for b in board.buttons if b.label == "My hand")
        opened = await fake.click(user, board, hand, idle=True)
        assert opened.message is not None
        panel = opened.message
        asked = next((b for b in panel.buttons if b.label == case.answer and not b.disabled), None)
        if asked is not None:
            # Asked with one answer (whatever the hand) or with a card the mover keeps: the answer
            # the bot would play by itself.
            await fake.click(user, panel, asked.custom_id or "", idle=True)
            answered += 1
            record.append(await seen())
            continue
        chosen = pick(panel, case.answer)
        if chosen is None:
            break
        kind, custom_id, value = chosen
        if kind == "select":
            assert value is not None
            await fake.select(user, panel, custom_id, [value], idle=True)
        else:
            await fake.click(user, panel, custom_id, idle=True)
        real += 1
        record.append(await seen())
    fake.assert_clean()
    await stop_bot(bot)
    return [r for i, r in enumerate(record) if i == 0 or r != record[i - 1]], answered


@pytest.mark.asyncio
@pytest.mark.parametrize("name", list(CASES))
async def test_a_step_played_by_itself_shows_nothing_of_the_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    case = CASES[name]
    async with FakeDiscord() as fake:
        asked, answered = await play_turn(fake, tmp_path, monkeypatch, case, case.card)
    assert answered >= 1, f"holding {case.card.name}, the mover is asked {case.answer!r}"
    async with FakeDiscord() as fake:
        without, unasked = await play_turn(fake, tmp_path, monkeypatch, case, USELESS)
    assert len(asked) >= 2, "the turn goes on after the step"
    if case.played_by_itself:
        assert unasked == 0, f"without a card of use, {case.answer!r} is played by itself"
    assert asked == without


@pytest.mark.asyncio
async def test_board_asked_for_while_the_mover_takes_private_steps_comes_when_they_leave_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = CASES["keep the roll after rolling"]
    monkeypatch.setattr(VARIANT, "new_game", lambda options=None: case.state(case.card))
    async with FakeDiscord() as fake:
        bot = await start_bot(fake, tmp_path / "board.sqlite3", ManualClock(), seed=5)
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        first = await challenge_and_accept(fake, alice, bob, "space")
        channel = first.channel_id
        match_id = (await bot.sessions.history.matches_of(alice.id))[0].id
        session = await bot.sessions.get(match_id)
        mover, other = (alice, bob) if session.user_of(0) == alice.id else (bob, alice)
        board = live_board(fake, channel)
        hand = next(b.custom_id or "" for b in board.buttons if b.label == "My hand")
        panel = (await fake.click(mover, board, hand, idle=True)).message
        assert panel is not None
        roll = next(b.custom_id or "" for b in panel.buttons if b.label == "Roll")
        await fake.click(mover, panel, roll, idle=True)
        before = public_record(fake, channel)
        asked = await fake.slash(other, "board", channel=channel, idle=True)
        reply = next(m for m in asked.messages if m.ephemeral)
        assert "as soon as the player on turn finishes" in reply.content
        assert public_record(fake, channel) == before, "nothing of the mover's private steps is shown"
        fake.assert_clean()
        await stop_bot(bot)
