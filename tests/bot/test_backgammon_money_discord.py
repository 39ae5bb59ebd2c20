"""Backgammon money sessions on Discord (the real bot on the fake Discord): /challenge length:0 with
its options, Stop after this game by either player, the beaver button, a whole session by clicks with
its .mat file, unrated, and the computer playing money."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.backgammon.variant import VARIANT
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, live_board, match_id_of, play_until_over, user_on_turn
from tests.bot.test_backgammon_discord import buttons, play_turn_by_clicks, text_of
from tests.support import start_bot, stop_bot

STOP = "Stop after this game"


async def start(fake: FakeDiscord, **options: object) -> tuple[FakeMessage, dict[int, FakeUser]]:
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "backgammon", length=0, **options)
    return board, {alice.id: alice, bob.id: bob}


@pytest.mark.asyncio
async def test_money_challenge_says_money_game_and_refuses_money_options_in_a_match(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await fake.slash(
        alice, "challenge", {"opponent": bob, "game": "backgammon", "length": 0, "beavers": True}
    )
    assert made.message is not None and not made.ephemeral
    assert "**Backgammon** (money game, Jacoby rule, beavers, unrated)!" in made.message.content
    for options in ({"length": 5, "jacoby": False}, {"limit": 10}, {"length": 0, "rules": "oldenglish"}):
        refused = await fake.slash(alice, "challenge", {"opponent": bob, "game": "backgammon", **options})
        assert refused.ephemeral and refused.message is not None
        assert "money" in refused.message.content
    assert await bot.store.challenges.get(2) is None  # nothing was created by the refusals
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_stop_after_this_game_by_the_player_not_on_turn_ends_the_session_with_the_game(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, jacoby=False)
    mid = match_id_of(board)
    assert "Money game" in text_of(board) and STOP in buttons(board)
    mover = user_on_turn(board, users)
    assert mover is not None
    other = next(u for u in users.values() if u != mover)
    await fake.click(other, board, buttons(board)[STOP], idle=True)
    now = live_board(fake, board.channel_id)
    assert "stops the session after this game" in text_of(now) and "last game" in text_of(now)
    assert STOP not in buttons(now)
    # The game goes on to its end (passed at once here), and so does the session.
    now = await play_turn_by_clicks(fake, now, mover)
    doubler = user_on_turn(now, users)
    assert doubler is other
    await fake.click(other, now, buttons(now)["Double to 2"], idle=True)
    offer = live_board(fake, board.channel_id)
    await fake.click(mover, offer, buttons(offer)["Pass (lose 1 point)"], idle=True)
    result = live_board(fake, board.channel_id)
    assert result.content.startswith("🏆")
    assert "wins the money session by 1 point (1-0)" in text_of(result)
    record = await bot.store.matches.get(mid)
    assert record is not None and record.status == "finished" and not record.rated
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_doubled_player_may_beaver_with_a_button(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, beavers=True)
    first = user_on_turn(board, users)
    assert first is not None
    board = await play_turn_by_clicks(fake, board, first)
    second = user_on_turn(board, users)
    assert second is not None
    await fake.click(second, board, buttons(board)["Double to 2"], idle=True)
    offer = live_board(fake, board.channel_id)
    assert "Beaver (cube at 4, yours)" in buttons(offer)
    await fake.click(first, offer, buttons(offer)["Beaver (cube at 4, yours)"], idle=True)
    after = live_board(fake, board.channel_id)
    assert "beavers: the cube is at 4" in text_of(after)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_whole_money_session_by_clicks_ends_with_a_0_point_match_file_unrated(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake, beavers=True, limit=3)
    mid = match_id_of(board)
    result = await play_until_over(fake, board.channel_id, users, random.Random(7), max_clicks=3000)
    assert "money session" in text_of(result)
    names = [a.filename for a in result.attachments]
    assert names[0] == "board.png" and names[1].endswith(".mat")
    assert result.attachment_bytes(names[1]).decode().startswith(" 0 point match")
    outcome = await bot.sessions.history.result_of(mid)
    assert outcome is not None and outcome.length == 0
    record = await bot.store.matches.get(mid)
    assert record is not None and not record.rated
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_computer_plays_a_money_session(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    options = {"opponent": fake.bot_user, "game": "backgammon", "length": 0, "beavers": True}
    await fake.slash(alice, "challenge", options, idle=True)
    (thread,) = fake.threads(fake.channel)
    result = await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(2), max_clicks=1500)
    assert result.content.startswith("🏆") and "money session" in text_of(result)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_stop_pressed_during_the_opponents_turn_in_progress_keeps_their_moves(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)
    mid = match_id_of(board)
    mover = user_on_turn(board, users)
    assert mover is not None
    other = next(u for u in users.values() if u != mover)
    first = next(cid for label, cid in buttons(board).items() if "/" in label)
    await fake.click(mover, board, first, idle=True)
    session = await bot.sessions.get(mid)
    assert len(session.draft) == 1
    await fake.click(other, board, buttons(board)[STOP], idle=True)
    session = await bot.sessions.get(mid)
    assert len(session.draft) == 1  # the checker moved so far stays moved
    assert session.state is not None and "last game" in session.state.phase_text
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_money_session_survives_a_restart_and_its_stop_button_still_answers(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    board, users = await start(fake, beavers=True, limit=5)
    mid = match_id_of(board)
    mover = user_on_turn(board, users)
    assert mover is not None
    board = await play_turn_by_clicks(fake, board, mover)
    await stop_bot(bot)
    bot = await start_bot(fake, db, seed=3)  # a new process: nothing in memory
    session = await bot.sessions.get(mid)
    assert session.state is not None and "Money game" in session.state.phase_text
    await fake.click(mover, board, buttons(board)[STOP], idle=True)
    now = live_board(fake, board.channel_id)
    assert "stops the session after this game" in text_of(now)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_length_autocomplete_offers_the_money_game(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    given = {"opponent": bob, "game": "backgammon", "length": ""}
    offered = await fake.autocomplete(alice, "challenge", given, focused="length")
    assert offered.choices is not None
    choices = [(c["name"], c["value"]) for c in offered.choices]
    assert choices[:3] == [("money game", 0), ("1 (default)", 1), ("3-point match", 3)]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_money_session_started_as_rated_is_played_unrated(fake: FakeDiscord, tmp_path: Path) -> None:
    """Whatever path starts it (a challenge, a rematch), a money session is never rated."""
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    played = await bot.sessions.start_match(
        game="backgammon",
        options={"length": 0},
        players=(alice.id, bob.id),
        guild_id=fake.channel.guild_id,
        channel_id=fake.channel.id,
        parent_id=None,
        rated=True,
    )
    assert not played.session.record.rated
    await bot.sessions.ends.resign(played.session.id, bob.id)
    outcome = await bot.sessions.history.result_of(played.session.id)
    assert outcome is not None and outcome.length == 0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_typed_stop_in_the_other_players_name_is_refused_and_changes_nothing(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)
    mid = match_id_of(board)
    mover = user_on_turn(board, users)
    assert mover is not None
    session = await bot.sessions.get(mid)
    seat = session.record.players.index(mover.id)
    other_colour = ("black", "white")[seat]
    before = session.record.version
    refused = await fake.slash(mover, "move", {"notation": f"stop {other_colour}"}, channel=board.channel_id)
    assert refused.ephemeral and refused.message is not None
    assert "other player" in refused.message.content and "Nothing was changed" in refused.message.content
    assert (await bot.sessions.get(mid)).record.version == before
    await fake.slash(
        mover, "move", {"notation": f"stop {('white', 'black')[seat]}"}, channel=board.channel_id, idle=True
    )
    assert (await bot.sessions.get(mid)).record.version > before  # their own stop is taken
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_hints_and_analyses_of_a_money_session_speak_of_money(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Issue 33: /hint and the analysis said 'match equity' and 'the Crawford game count' in a money
    game. A money session's equities are cubeful money equities: so they are called."""
    from cogs.analysis_words import analysis_text
    from engine.ai.backgammon_analysis import analyse

    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    board, users = await start(fake)  # a money session is unrated: hints are given
    mover = user_on_turn(board, users)
    assert mover is not None
    result = await fake.slash(mover, "hint", {}, channel=board.channel_id, idle=True)
    shown = result.private
    assert shown is not None and "Equity: money equity (cubeful" in shown.content, shown
    assert "match equity" not in shown.content and "Crawford" not in shown.content
    options = VARIANT.resolve_options({"length": 0})
    log = ["opening 2-5", "move 8/6", "move 13/8", "double", "take", "roll 4-6", "move 13/9", "move 24/18"]
    text = analysis_text(analyse(options, log, level="2ply"), 1, "Backgammon", "money game", ("Ann", "Bob"))
    assert "money equity (cubeful" in text and "match equity" not in text and "Crawford" not in text
    fake.assert_clean()
    await stop_bot(bot)
