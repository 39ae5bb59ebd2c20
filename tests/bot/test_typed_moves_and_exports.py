"""/move (a move typed in the game's notation), /position (the position's interchange codes) and the
match file on the result message, for every game, through the real bot on the fake Discord.

Ring has no codes and no match file; ``tests.support.RingExported`` (key ``ringe``) has both, and
``RingExportFails`` (``ringf``) a match file that cannot be built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.client import RingsideBot
from bot.session import Session
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import (
    live_board,
    match_id_of,
    private_panel,
    resign,
    user_on_turn,
)
from tests.bot.test_clock_settings import admin, challenge_and_accept_in_channel
from tests.support import (
    RingExported,
    RingExportFails,
    match_text,
    position_digest,
    register_ring_confirmed,
    register_ring_like,
    start_bot,
    stop_bot,
)


async def _start(fake: FakeDiscord, alice: FakeUser, bob: FakeUser, game: str = "ring") -> FakeMessage:
    """Alice challenges Bob to ``game``, Bob accepts; the first board (in the match's thread)."""
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": game})
    assert result.message is not None
    accept = next(c for c in result.message.custom_ids if c.endswith(":accept"))
    await fake.click(bob, result.message, accept, idle=True)
    thread = fake.thread_of(result.message)
    assert thread is not None
    return fake.messages_in(thread)[-1]


def _control(message: FakeMessage, suffix: str) -> str:
    return next(c for c in message.custom_ids if c.endswith(suffix))


def _steps(message: FakeMessage) -> list[str]:
    """The custom ids of a message's game steps (``g:<match>:<version>:a:<notation>``)."""
    return [c for c in message.custom_ids if ":a:" in c]


def _notation(custom_id: str) -> str:
    return custom_id.split(":a:", 1)[1]


def _waits_for_roll_of(session: Session, user_id: int) -> bool:
    spec = session.state.chance() if session.state is not None else None
    return spec is not None and spec.prompt_seat is not None and session.user_of(spec.prompt_seat) == user_id


async def _rolled(fake: FakeDiscord, board: FakeMessage, users: dict[int, FakeUser]) -> FakeUser:
    """The player on turn rolls with the board's Roll button; returns that player."""
    player = user_on_turn(board, users)
    assert player is not None
    await fake.click(player, board, _control(board, ":roll"), idle=True)
    return player


def _snapshot(message: FakeMessage, users: dict[int, FakeUser]) -> dict[str, Any]:
    """What a player sees of a message, with user ids (which differ between fakes) by name."""

    def named(text: str) -> str:
        for user in users.values():
            text = text.replace(str(user.id), user.name)
        return text

    return {
        "content": named(message.content),
        "embeds": named(str(message.embeds)),
        "files": message.files,
        "controls": [(c.custom_id, c.label, c.disabled) for c in message.all_components],
        "visible_to": users[message.visible_to].name if message.visible_to else None,
    }


async def _one_turn(typed: bool, tmp_path: Path) -> list[dict[str, Any]]:
    """A new ring match (seed 1) whose first player rolls and plays its two steps, each by clicking or
    by /move with the clicked control's notation: the public board after the roll, the private panel
    after the first step (ring's first step is not final), the public board after the last, and the
    saved match."""
    async with FakeDiscord() as fake:
        bot = await start_bot(fake, tmp_path / f"{typed}.sqlite3", seed=1)
        alice, bob = fake.add_user("alice"), fake.add_user("bob")
        users = {alice.id: alice, bob.id: bob}
        board = await _start(fake, alice, bob)
        thread, mid = board.channel_id, match_id_of(board)
        player = user_on_turn(board, users)
        assert player is not None
        if typed:
            rolled = await fake.slash(player, "move", {"notation": " Roll "}, channel=thread, idle=True)
            assert rolled.private is not None and "Played `Roll`" in rolled.private.content
        else:
            await fake.click(player, board, _control(board, ":roll"), idle=True)
        board = live_board(fake, thread)
        shown = [_snapshot(board, users)]
        panel = board
        for _ in range(2):
            step = _steps(panel)[0]
            if typed:
                await fake.slash(player, "move", {"notation": _notation(step)}, channel=thread, idle=True)
            else:
                await fake.click(player, panel, step, idle=True)
            found = private_panel(fake, thread, player, board)
            if found is not None and found.id != panel.id:
                panel = found
                shown.append(_snapshot(panel, users))
        shown.append(_snapshot(live_board(fake, thread), users))
        record = await bot.store.matches.get(mid)
        assert record is not None
        log = await bot.store.matches.action_log(mid)
        shown.append({"version": record.version, "log": log, "state": record.state})
        fake.assert_clean()
        await stop_bot(bot)
    return shown


@pytest.mark.asyncio
async def test_a_typed_move_shows_and_saves_exactly_what_the_click_does(tmp_path: Path) -> None:
    clicked = await _one_turn(False, tmp_path)
    typed = await _one_turn(True, tmp_path)
    assert typed == clicked
    # The turn went through a private panel (ring's first step) and ended on a new public board.
    board_after_roll, first_step, handover, saved = typed
    assert first_step["visible_to"] is not None and "Your turn so far" in first_step["content"]
    assert handover["content"] != board_after_roll["content"]
    assert saved["version"] > 0 and any(a.notation.startswith("move ") for a in saved["log"])


@pytest.mark.asyncio
async def test_a_typed_move_that_cannot_be_read_or_is_illegal_is_refused_privately_and_changes_nothing(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_ring_like(monkeypatch, RingExported())
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await _start(fake, alice, bob, "ringe")
    player = await _rolled(fake, board, users)
    board = live_board(fake, board.channel_id)
    mid = match_id_of(board)
    before = (await bot.store.matches.get(mid), await bot.store.matches.action_log(mid), len(fake.requests))
    posted, edits = len(fake.messages_in(board.channel_id)), len(fake.message(board).history)
    unreadable = await fake.slash(
        player, "move", {"notation": "fly away"}, channel=board.channel_id, idle=True
    )
    assert unreadable.private is not None
    text = unreadable.private.content
    assert "Cannot read 'fly away' as a ring action" in text  # the engine's own message
    assert RingExported.notation_help in text and "Nothing was changed." in text
    illegal = await fake.slash(
        player, "move", {"notation": "move 1 from 8 by 6"}, channel=board.channel_id, idle=True
    )
    assert illegal.private is not None and "Nothing was changed." in illegal.private.content
    assert RingExported.notation_help not in illegal.private.content  # the game said what is wrong
    chance = await fake.slash(player, "move", {"notation": "roll 6-6-6"}, channel=board.channel_id, idle=True)
    assert chance.private is not None
    assert await bot.store.matches.get(mid) == before[0]
    assert await bot.store.matches.action_log(mid) == before[1]
    # Only private answers: nothing was posted or edited in the match's thread.
    assert len(fake.messages_in(board.channel_id)) == posted + 3
    assert all(m.ephemeral for m in fake.messages_in(board.channel_id)[posted:])
    assert len(fake.message(board).history) == edits
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_typed_move_from_outside_the_match_or_out_of_turn_is_refused_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {alice.id: alice, bob.id: bob}
    board = await _start(fake, alice, bob)
    player = user_on_turn(board, users)
    assert player is not None
    other = bob if player is alice else alice
    mid = match_id_of(board)
    version = (await bot.sessions.get(mid)).version
    stranger = await fake.slash(carol, "move", {"notation": "roll"}, channel=board.channel_id)
    assert stranger.ephemeral and stranger.message is not None
    assert "no match in progress here" in stranger.message.content
    waiting = await fake.slash(other, "move", {"notation": "roll"}, channel=board.channel_id)
    assert waiting.ephemeral and waiting.message is not None and "not yours" in waiting.message.content
    elsewhere = await fake.slash(player, "move", {"notation": "roll"})  # the parent channel
    assert elsewhere.ephemeral and elsewhere.message is not None
    assert (await bot.sessions.get(mid)).version == version
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_typed_step_of_a_turn_waiting_for_confirm_is_a_draft_answered_by_the_private_panel(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_ring_confirmed(monkeypatch)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await _start(fake, alice, bob, "ringc")
    player = await _rolled(fake, board, users)
    board = live_board(fake, board.channel_id)
    public_before = fake.message(board).embeds
    step = _notation(_steps(board)[0])
    typed = await fake.slash(player, "move", {"notation": step}, channel=board.channel_id, idle=True)
    panel = typed.private
    assert panel is not None and panel.visible_to == player.id and "Your turn so far" in panel.content
    assert any(b.label == "Undo" for b in panel.buttons) and panel.attachments
    session = await bot.sessions.get(match_id_of(board))
    assert [s.notation for s in session.draft][:1] == [step]
    assert fake.message(board).embeds == public_before  # the opponent sees nothing yet
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_with_several_matches_here_a_typed_move_asks_which_one_and_plays_it_there(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3", seed=5)  # a match opens with Alice to roll
    alice, bob, carol, ada = (
        fake.add_user("alice"),
        fake.add_user("bob"),
        fake.add_user("carol"),
        await admin(fake),
    )
    await fake.slash(ada, "settings", {"threads": False})
    await challenge_and_accept_in_channel(fake, alice, bob)
    await challenge_and_accept_in_channel(fake, alice, carol)
    matches = await bot.store.matches.active()
    assert len(matches) == 2
    # The match whose board waits for Alice's roll.
    sessions = [await bot.sessions.get(m.id) for m in matches]
    target = next(s for s in sessions if s.state is not None and _waits_for_roll_of(s, alice.id))
    asked = await fake.slash(alice, "move", {"notation": "roll"})
    assert asked.ephemeral and asked.message is not None and "play `roll` in" in asked.message.content
    (select,) = asked.message.selects
    assert select.custom_id == "pick:move:roll" and len(select.options) == 2
    versions = [s.version for s in sessions]
    await fake.select(alice, asked.message, select.custom_id, [str(target.id)], idle=True)
    assert [s.version > v for s, v in zip(sessions, versions, strict=True)] == [s is target for s in sessions]
    assert "rolled" in str(fake.messages_in(fake.channel)[-1].embeds)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_position_lists_the_codes_of_the_board_position_for_anyone_in_the_channel(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_ring_like(monkeypatch, RingExported())
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {alice.id: alice, bob.id: bob}
    board = await _start(fake, alice, bob, "ringe")
    player = await _rolled(fake, board, users)
    board = live_board(fake, board.channel_id)
    session = await bot.sessions.get(match_id_of(board))
    committed = session.state
    assert committed is not None
    # A step of the turn in progress is not in the codes: they are of the position on the board.
    await fake.click(player, board, _steps(board)[0], idle=True)
    assert session.draft and session.position != committed
    for who in (player, carol):
        shown = await fake.slash(who, "position", channel=board.channel_id)
        assert shown.ephemeral and shown.message is not None
        text = shown.message.content
        assert f"**Ring E · match #{session.id}**" in text
        assert f"Digest:\n```\n{position_digest(committed)}\n```" in text
        assert f"Turn:\n```\n{committed.turn_number}\n```" in text
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_position_of_a_game_without_codes_says_so(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await _start(fake, alice, bob)
    shown = await fake.slash(alice, "position", channel=board.channel_id)
    assert shown.ephemeral and shown.message is not None
    assert shown.message.content == "Ring has no position codes to export; /board shows the position."
    nothing = await fake.slash(alice, "position")  # the parent channel: the match is in its thread
    assert nothing.message is not None and "no match in progress here" in nothing.message.content
    fake.assert_clean()
    await stop_bot(bot)


async def _finished_by_resignation(
    fake: FakeDiscord, bot: RingsideBot, game: str
) -> tuple[FakeMessage, list[str], tuple[FakeUser, FakeUser]]:
    """A match of ``game`` that Alice resigns after the first roll: its result message and its log."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await _start(fake, alice, bob, game)
    mid = match_id_of(board)
    await _rolled(fake, board, {alice.id: alice, bob.id: bob})
    await resign(fake, alice, board.channel_id)
    result = fake.messages_in(board.channel_id)[-1]
    assert result.content.startswith("🏆") and bob.mention in result.content
    log = [a.notation for a in await bot.store.matches.action_log(mid)]
    return result, log, (alice, bob)


@pytest.mark.asyncio
async def test_the_result_message_carries_the_match_file_of_a_game_that_exports_one(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_ring_like(monkeypatch, RingExported())
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    result, log, (alice, bob) = await _finished_by_resignation(fake, bot, "ringe")
    assert [a.filename for a in result.attachments] == ["board.png", "match.txt"]
    names = (alice.global_name or alice.name, bob.global_name or bob.name)  # as the server shows them
    assert result.attachment_bytes("match.txt").decode() == match_text(log, names)
    assert result.attachment("match.txt").description == f"{names[0]} vs {names[1]}: every action"
    assert len(log) >= 2  # what was played before the resignation: the opening and the roll
    # Sent as a multipart upload of two files, each described in the payload.
    (post,) = [r for r in fake.find_requests("POST") if r.message_id == result.id]
    assert [name for name, _ in post.files] == ["board.png", "match.txt"]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_ring_result_carries_no_match_file(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    result, _, _ = await _finished_by_resignation(fake, bot, "ring")
    assert [a.filename for a in result.attachments] == ["board.png"]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_match_file_that_cannot_be_built_is_logged_and_the_result_still_posted(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_ring_like(monkeypatch, RingExportFails())
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    fake.raise_bot_errors = False  # the failure is logged as an error, checked below
    result, _, _ = await _finished_by_resignation(fake, bot, "ringf")
    assert [a.filename for a in result.attachments] == ["board.png"]
    assert [m.id for m in await bot.store.boards.unshown()] == []  # shown: nothing left to retry
    failures = [r for r in fake.errors if "match file could not be built" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None
    fake.errors.remove(failures[0])
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_help_says_how_moves_are_written_for_the_games_that_say_so(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    plain = await fake.slash(alice, "help")
    assert plain.message is not None and "/move" in str(plain.message.embeds[0])
    (typing,) = [f for f in plain.message.embeds[0]["fields"] if f["name"] == "Typing moves (/move)"]
    assert "**Backgammon**" in typing["value"] and "Ring" not in typing["value"]  # ring gives no help
    register_ring_like(monkeypatch, RingExported())
    helped = await fake.slash(alice, "help")
    assert helped.message is not None
    (typing,) = [f for f in helped.message.embeds[0]["fields"] if f["name"] == "Typing moves (/move)"]
    assert f"**Ring E**: {RingExported.notation_help}" in typing["value"]
    fake.assert_clean()
    await stop_bot(bot)
