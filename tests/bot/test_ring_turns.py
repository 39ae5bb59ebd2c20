"""A ring turn through the fake Discord: Roll and one pick per die; a forced second die plays itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import find_variant, replay
from engine.ring import Move
from fakediscord import FakeDiscord, FakeMessage
from fakediscord.matches import challenge_and_accept, controls_of, live_board, user_on_turn
from tests.support import start_bot, stop_bot


def first_control(message: FakeMessage) -> tuple[str, str, str | None]:
    """The first option of the first select, else the first game button (no Back, Resign, Rules)."""
    for select in message.selects:
        assert select.custom_id is not None
        return "select", select.custom_id, str(select.options[0]["value"])
    button = next(
        b for b in message.buttons if not b.disabled and b.label not in ("Back", "Resign", "Rules", "Undo")
    )
    assert button.custom_id is not None
    return "button", button.custom_id, None


def text_of(message: FakeMessage) -> str:
    return "\n".join([message.content, *(str(e.get("description", "")) for e in message.embeds)])


@pytest.mark.asyncio
async def test_forced_second_die_is_played_and_said(fake: FakeDiscord, tmp_path: Path) -> None:
    # Seed 1, first control each time: on turn 4 Red has 1 and 4 to play; after Red's pick of the 1
    # only one step is left for the 4 (11 → 3), and the bot plays it without asking.
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=1)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob)
    mid = int(next(c for c in board.custom_ids if c.startswith("g:")).split(":")[1])
    for _ in range(40):
        live, user = controls_of(fake, board.channel_id, users)
        public = live_board(fake, board.channel_id)
        assert user is not None
        kind, custom_id, value = first_control(live)
        before = text_of(public)
        if kind == "select":
            assert value is not None
            await fake.select(user, live, custom_id, [value], idle=True)
        else:
            await fake.click(user, live, custom_id, idle=True)
        after = live_board(fake, board.channel_id)
        picked = value or custom_id.split(":", 3)[3]
        if (
            after.id == public.id
            or live.visible_to is not None
            or not picked.startswith("a:move")
            or " and " not in before
        ):
            continue
        said = text_of(after)
        if said.count(" moved ") < 2:
            continue  # the other die was a choice, or nothing was left for it
        break
    else:
        raise AssertionError("no turn with a forced second die in 40 picks")
    # One pick played both dice: the player's step and then the forced one, both said on the new board.
    log = [a.notation for a in await bot.store.matches.action_log(mid)]
    variant = find_variant("ring")
    first_step = variant.parse_action(replay(variant, {}, log[:-2]), log[-2])
    forced = variant.parse_action(replay(variant, {}, log[:-1]), log[-1])
    assert isinstance(first_step, Move) and isinstance(forced, Move)
    assert picked == f"a:{first_step.notation}"
    assert replay(variant, {}, log[:-1]).legal_actions() == (forced,)  # forced indeed
    assert f"from {first_step.source} to {first_step.target}" in said
    assert f"from {forced.source} to {forced.target}" in said
    assert user_on_turn(after, users) is not user
    fake.assert_clean()
    await stop_bot(bot)
