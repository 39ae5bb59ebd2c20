"""Clicks on controls a message no longer carries, and forged custom ids of every kind (issue 33).

A player whose client has not shown the bot's latest edit still sees the old controls: Discord delivers
their click with the message as it is now, which no longer has that control, and discord.py's dynamic
items ignore such a click. Every one of them gets an answer: a control of a match's earlier position is
refused privately with a link to the latest board, a rules page's Prev / Next shows the page asked for,
an old resignation question says it was answered. A forged custom id (on the message or not) is refused
privately and changes nothing: no public board is edited, nothing is logged at ERROR.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.client import RingsideBot
from fakediscord import FakeDiscord
from fakediscord.blackbox.forged import button, forged_controls
from fakediscord.matches import challenge_and_accept, match_id_of
from fakediscord.results import InteractionResult
from fakediscord.world import FakeMessage, FakeUser
from tests.support import start_bot, stop_bot


def button_of(message: FakeMessage, label: str) -> str:
    found = next(b.custom_id for b in message.buttons if b.label == label and b.custom_id)
    assert found is not None
    return found


def on_turn(message: FakeMessage, *users: FakeUser) -> FakeUser:
    return next(u for u in users if message.content.split(" — ")[-1].startswith(u.mention))


def link_to(message: FakeMessage) -> str:
    return f"https://discord.com/channels/{message.guild_id}/{message.channel_id}/{message.id}"


def private_text(answer: InteractionResult) -> str:
    private = answer.private
    assert private is not None, f"no private answer: {answer.replies}"
    return private.content


async def rolled_board(fake: FakeDiscord, bot: RingsideBot) -> tuple[FakeMessage, FakeUser, str, int]:
    """A ring match whose player on turn has rolled: the board was edited in place (the Roll it had
    is gone). Returns the board, the player, the old Roll's custom id and the version after it."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    player = on_turn(board, alice, bob)
    roll = button_of(board, "Roll")
    edits = len(board.history)
    await fake.click(player, board, roll, idle=True)
    board = fake.message(board)
    assert len(board.history) > edits and roll not in board.custom_ids, "the roll edited the board in place"
    return board, player, roll, (await bot.sessions.get(match_id_of(board))).version


@pytest.mark.asyncio
async def test_an_old_roll_on_a_board_edited_since_gets_a_private_answer_with_the_latest_board(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, player, roll, version = await rolled_board(fake, bot)
    edits = len(board.history)
    answer = await fake.click_earlier(player, board, roll, idle=True)
    text = private_text(answer)
    assert "earlier position" in text and link_to(board) in text, text
    assert (await bot.sessions.get(match_id_of(board))).version == version
    assert len(fake.message(board).history) == edits, "the public board was not touched"
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_old_select_choice_not_on_the_message_is_refused_with_the_latest_board(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, player, _, version = await rolled_board(fake, bot)
    mid = match_id_of(board)
    old = {
        "type": 3,
        "custom_id": f"g:{mid}:{version - 1}:s0",
        "options": [{"label": "a move", "value": "a:move 1 from 1 by 1"}],
    }
    answer = await fake.forge(player, board, old, ["a:move 1 from 1 by 1"], on_message=False)
    await answer.wait_idle()
    text = private_text(answer)
    assert "earlier position" in text and link_to(board) in text, text
    assert (await bot.sessions.get(mid)).version == version
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rules_page_turned_on_an_old_copy_shows_the_page_it_asked_for(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    rules = await fake.slash(alice, "rules", {"game": "ring"})
    page = rules.message
    assert page is not None and page.embeds[0]["footer"]["text"].startswith("Page 1/")
    to_two = button_of(page, "Next ▶")
    await fake.click(alice, page, to_two, idle=True)
    for _ in range(2):
        await fake.click(alice, page, button_of(fake.message(page), "Next ▶"), idle=True)
    assert fake.message(page).embeds[0]["footer"]["text"].startswith("Page 4/")
    assert to_two not in fake.message(page).custom_ids
    # Her other client still shows page 1: its Next leads to page 2.
    answer = await fake.click_earlier(alice, page, to_two, idle=True)
    assert answer.answered
    assert fake.message(page).embeds[0]["footer"]["text"].startswith("Page 2/")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_answered_resignation_question_clicked_again_on_an_old_copy_changes_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    prompt = await fake.slash(alice, "resign", channel=board.channel_id)
    assert prompt.message is not None
    resign = next(c for c in prompt.message.custom_ids if c.endswith(":yes"))
    keep = next(c for c in prompt.message.custom_ids if c.endswith(":no"))
    await fake.click(alice, prompt.message, keep, idle=True)
    assert "match goes on" in fake.message(prompt.message).content
    answer = await fake.click_earlier(alice, prompt.message, resign, idle=True)
    text = private_text(answer)
    assert "answered already" in text and "Nothing was changed" in text, text
    assert link_to(board) in text, text
    assert (await bot.sessions.get(mid)).record.status == "active"
    assert "match goes on" in fake.message(prompt.message).content
    fake.assert_clean()
    await stop_bot(bot)


# -- forged custom ids of every kind (``fakediscord.blackbox.forged``), on the message and not ----------


@pytest.mark.asyncio
@pytest.mark.parametrize("on_message", [True, False], ids=["on the message", "not on the message"])
async def test_forged_controls_of_every_kind_are_refused_privately_and_change_nothing(
    fake: FakeDiscord, tmp_path: Path, on_message: bool
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, player, _, version = await rolled_board(fake, bot)
    mid = match_id_of(board)
    log = len(await bot.store.matches.action_log(mid))
    edits = len(board.history)
    public = len([m for m in fake.messages_in(board.channel_id) if not m.ephemeral])
    for component, values in forged_controls(mid, version, player.id):
        what = f"{component['custom_id']!r} as a {'select' if values else 'button'}"
        answer = await fake.forge(player, board, component, values, on_message=on_message)
        await answer.wait_idle()
        assert answer.private is not None, f"{what}: no private answer ({answer.replies})"
        assert answer.callback_type in (4, 5), f"{what}: answered with callback {answer.callback_type}"
        assert len(fake.message(board).history) == edits, f"{what} edited the public board"
        fake.assert_clean()
    assert (await bot.sessions.get(mid)).version == version
    assert len(await bot.store.matches.action_log(mid)) == log
    assert len([m for m in fake.messages_in(board.channel_id) if not m.ephemeral]) == public
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize("on_message", [True, False], ids=["on the message", "not on the message"])
async def test_a_challenge_or_a_match_answered_from_another_message_is_refused(
    fake: FakeDiscord, tmp_path: Path, on_message: bool
) -> None:
    """Accept / Decline of a pending challenge sent from a board would write the answer over the board;
    Resign and Stop after this game of one match sent from another match's board act on neither."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
    board_a = await challenge_and_accept(fake, alice, bob)
    board_b = await challenge_and_accept(fake, carol, dave)
    a = match_id_of(board_a)
    pending = await fake.slash(alice, "challenge", {"opponent": carol, "game": "space"}, idle=True)
    assert pending.message is not None
    challenge = next(c for c in pending.message.custom_ids if c.endswith(":accept")).split(":")[1]
    edits = len(fake.message(board_b).history)
    for user, custom_id in (
        (carol, f"ch:{challenge}:accept"),
        (carol, f"ch:{challenge}:decline"),
        (alice, f"ch:{challenge}:cancel"),
        (alice, f"rsk:{a}"),
        (alice, f"stop:{a}"),
        (alice, f"hp:{a}:1:roll"),
    ):
        component, _ = button(custom_id)
        answer = await fake.forge(user, board_b, component, on_message=on_message)
        await answer.wait_idle()
        text = private_text(answer)
        assert "belong" in text and "Nothing was changed" in text, (custom_id, text)
        assert len(fake.message(board_b).history) == edits, f"{custom_id} edited another board"
    assert "challenges you to" in fake.message(pending.message).content
    assert (await bot.store.challenges.pending(alice.id, carol.id, bot.clock.now())) is not None
    assert (await bot.sessions.get(a)).record.status == "active"
    fake.assert_clean()
    await stop_bot(bot)
