"""Driving Ringside matches through the fake Discord, shared by the tests and the benchmark."""

from __future__ import annotations

import random
import re

from .fake import FakeDiscord
from .results import InteractionResult
from .world import FakeMessage, FakeUser

TURN = re.compile(r"^<@(\d+)>, your turn")
WINDOW = re.compile(r"<@(\d+)>: open \*\*My hand\*\* to answer")


async def challenge_and_accept(
    fake: FakeDiscord, alice: FakeUser, bob: FakeUser, game: str = "ring", **options: object
) -> FakeMessage:
    """Alice challenges Bob to ``game`` (ring unless said, with ``options`` such as ``length=5``),
    Bob accepts; returns the first board message (in the thread)."""
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": game, **options})
    assert result.message is not None and "challenges you to **" in result.message.content
    accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, result.message, accept, idle=True)
    thread = fake.thread_of(result.message)
    assert thread is not None, "the match opens a thread on the challenge message"
    board = fake.messages_in(thread)[-1]
    assert alice.mention in board.content and bob.mention in board.content
    return board


def user_on_turn(message: FakeMessage, users: dict[int, FakeUser]) -> FakeUser | None:
    """The player a board message asks to decide ("<@id>, your turn ...", or a response window's
    "<@id>: open **My hand** to answer ..."), if any."""
    text = message.content.split(" — ")[-1]
    found = TURN.search(text) or WINDOW.search(text)
    return users[int(found[1])] if found else None


def match_id_of(message: FakeMessage) -> int:
    """The match id carried by a board message's controls."""
    return int(next(c for c in message.custom_ids if not c.startswith("rules:")).split(":")[1])


def live_board(fake: FakeDiscord, channel_id: int) -> FakeMessage:
    """The newest public message of the channel that carries enabled controls (or the newest one)."""
    messages = [m for m in fake.messages_in(channel_id) if m.visible_to is None]
    for message in reversed(messages):
        if any(not c.disabled for c in message.all_components):
            return message
    return messages[-1]


def private_panel(
    fake: FakeDiscord, channel_id: int, user: FakeUser, after: FakeMessage
) -> FakeMessage | None:
    """The newest private reply to ``user`` since the board ``after`` whose game controls are live:
    a turn in progress continues there (its steps are not shown to the opponent yet)."""
    for message in reversed(fake.messages_in(channel_id)):
        if message.id < after.id:
            return None
        if message.visible_to == user.id and any(
            not c.disabled and (c.custom_id or "").startswith("g:") for c in message.all_components
        ):
            return message
    return None


def controls_of(
    fake: FakeDiscord, channel_id: int, users: dict[int, FakeUser]
) -> tuple[FakeMessage, FakeUser | None]:
    """Where the player on turn acts now: their private panel of a turn in progress, else the board."""
    board = live_board(fake, channel_id)
    user = user_on_turn(board, users)
    if user is not None:
        panel = private_panel(fake, channel_id, user, board)
        if panel is not None:
            return panel, user
    return board, user


def pick_control(message: FakeMessage, rng: random.Random) -> tuple[str, str, list[str] | None]:
    """(kind, custom id, select values): options of the first select (as many as it takes,
    ``ComponentInfo.pick``), else a non-Back button."""
    for select in message.selects:
        assert select.custom_id is not None
        return "select", select.custom_id, select.pick(rng)
    buttons = [
        b
        for b in message.buttons
        if not b.disabled
        and b.label not in ("Back", "Resign", "Rules", "Undo")
        and not (b.label or "").startswith("Resign")
    ]
    button = rng.choice(buttons)
    assert button.custom_id is not None
    return "button", button.custom_id, None


async def play_one(
    fake: FakeDiscord, message: FakeMessage, user: FakeUser, rng: random.Random
) -> InteractionResult:
    """The user picks one control: an option of the first select, or a non-Back button."""
    kind, custom_id, values = pick_control(message, rng)
    if kind == "select":
        assert values is not None
        return await fake.select(user, message, custom_id, values, idle=True)
    return await fake.click(user, message, custom_id, idle=True)


async def play_until_over(
    fake: FakeDiscord, channel_id: int, users: dict[int, FakeUser], rng: random.Random, max_clicks: int = 2000
) -> FakeMessage:
    """Click random legal controls until a result message (🏆) is posted; returns it."""
    for _ in range(max_clicks):
        board, user = controls_of(fake, channel_id, users)
        if board.content.startswith("🏆"):
            return board
        assert user is not None, f"no player on turn in {board.content!r}"
        await play_one(fake, board, user, rng)
    raise AssertionError("the match did not end")


async def resign(fake: FakeDiscord, user: FakeUser, channel_id: int) -> InteractionResult:
    """The user runs /resign in the channel and confirms; returns the confirmation prompt's result."""
    prompt = await fake.slash(user, "resign", channel=channel_id)
    assert prompt.message is not None
    yes = next(c for c in prompt.message.custom_ids if c.endswith(":yes"))
    await fake.click(user, prompt.message, yes, idle=True)
    return prompt
