"""Honest endings and pictures (issue 9): the final picture of a resignation or a timeout says who won
and how, the picture names the players and shows the turn number the message shows."""

from __future__ import annotations

import io
from pathlib import Path

import discord
import pytest
from PIL import Image

from bot.clock import ManualClock
from engine import find_variant
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, match_id_of, resign, user_on_turn
from render import Caption, render_board, ring, theme
from tests.support import start_bot, stop_bot

HOUR = 3600.0


def display(user: FakeUser) -> str:
    """The display name the bot reads for a member without a nickname."""
    return user.global_name or user.name


def footer(message: FakeMessage) -> str:
    return str((message.embeds[0].get("footer") or {}).get("text"))


@pytest.mark.asyncio
async def test_a_resignation_gets_a_final_picture_saying_who_won_and_how(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice", global_name="Alice Liddell")
    bob = fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    await resign(fake, alice, board.channel_id)
    final = fake.messages_in(board.channel_id)[-1]
    session = await bot.sessions.get(mid)
    outcome = await bot.sessions.history.result_of(mid)
    assert session.state is not None and outcome is not None and outcome.winner is not None
    names = find_variant("ring").seat_names
    loser = 0 if session.record.players[0] == alice.id else 1
    # One full sentence: the winner's mention, then how.
    assert final.content == f"🏆 {bob.mention} wins: {names[loser]} resigned."
    assert outcome.description == f"{names[1 - loser]} wins: {names[loser]} resigned."
    # Said once: the embed does not repeat the ending under the message that says it.
    assert outcome.description not in str(final.embeds[0]["description"])
    # The picture is the position with the ending and the players' display names drawn on it, not
    # the position as it stood ("... to roll").
    public = session.state.view(None)
    shown = final.attachment_bytes("board.png")
    players = tuple(display(alice) if p == alice.id else display(bob) for p in session.record.players)
    assert shown == render_board(public, Caption(names=(players[0], players[1]), ending=outcome))
    assert shown != render_board(public, Caption(names=(players[0], players[1])))
    # The message and the picture count turns alike.
    assert footer(final) == (f"Turn {public.turn_number}" if public.turn_number else "Before the first turn")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_timeout_gets_a_final_picture_saying_who_won_and_how(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    on_turn = user_on_turn(board, {alice.id: alice, bob.id: bob})
    assert on_turn is not None
    other = bob if on_turn is alice else alice
    clock.advance(48 * HOUR + 1)
    await bot.run_due_tasks()
    await bot.run_due_tasks()
    final = [m for m in fake.messages_in(board.channel_id) if m.content.startswith("🏆")][-1]
    session = await bot.sessions.get(mid)
    outcome = await bot.sessions.history.result_of(mid)
    assert session.state is not None and outcome is not None and outcome.winner is not None
    names = find_variant("ring").seat_names
    loser = 1 - outcome.winner
    assert final.content == f"🏆 {other.mention} wins: {names[loser]} ran out of time."
    public = session.state.view(None)
    players = tuple(display(alice) if p == alice.id else display(bob) for p in session.record.players)
    assert final.attachment_bytes("board.png") == render_board(
        public, Caption(names=(players[0], players[1]), ending=outcome)
    )
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_every_board_shows_the_players_names_and_the_turn_of_the_message(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice", global_name="Alice with a rather long display name indeed")
    bob = fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    session = await bot.sessions.get(match_id_of(board))
    assert session.state is not None
    public = session.state.view(None)
    players = tuple(display(alice)[:32] if p == alice.id else display(bob) for p in session.record.players)
    shown = board.attachment_bytes("board.png")
    assert shown == render_board(public, Caption(names=(players[0], players[1])))
    assert shown != render_board(public)
    assert public.turn_number >= 1 and footer(board) == f"Turn {public.turn_number}"
    assert "Position" not in footer(board)
    fake.assert_clean()
    await stop_bot(bot)


def test_the_shared_header_draws_each_name_in_its_seat_colour_within_the_picture() -> None:
    state = find_variant("ring").new_game()
    long = "W" * 40
    plain = Image.open(io.BytesIO(render_board(state.view(None)))).convert("RGB")
    named = Image.open(io.BytesIO(render_board(state.view(None), Caption(names=(long, long))))).convert("RGB")
    assert named.size == plain.size == (ring.WIDTH, ring.HEIGHT)
    header = (0, 0, ring.WIDTH, ring.HEADER)

    def seat_pixels(image: Image.Image, colour: tuple[int, int, int]) -> int:
        crop = image.crop(header)
        return sum(
            1
            for y in range(crop.height)
            for x in range(crop.width)
            if all(abs(a - b) < 30 for a, b in zip(crop.getpixel((x, y)), colour, strict=True))  # type: ignore[arg-type]
        )

    for style in ring.SEATS:
        assert seat_pixels(named, style.text) > seat_pixels(plain, style.text) + 50
    # Elided: a 40-letter name takes no more than its share of the header.
    face = theme.font(theme.NAME_SIZE)
    assert face.getlength(theme.elide(long, face, theme.MAX_NAME_WIDTH)) <= theme.MAX_NAME_WIDTH


# -- wording ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_an_unknown_game_gets_the_same_sentence_from_every_command(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    role = fake.add_role("admins", discord.Permissions(manage_guild=True))
    ada, bob = fake.add_user("ada", roles=[role]), fake.add_user("bob")
    replies = [
        await fake.slash(ada, "challenge", {"opponent": bob, "game": "chess"}),
        await fake.slash(ada, "rules", {"game": "chess"}),
        await fake.slash(ada, "stats", {"game": "chess"}),
        await fake.slash(ada, "leaderboard", {"game": "chess"}),
        await fake.slash(ada, "settings", {"games": "chess"}),
    ]
    texts = {r.message.content for r in replies if r.message is not None}
    assert all(r.ephemeral for r in replies)
    assert texts == {
        "There is no game called “chess”. The games are: Backgammon (backgammon), Ring (ring), Space (space)."
    }
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_leaderboard_and_stats_show_a_rating_alike(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    await resign(fake, alice, board.channel_id)
    standing = await bot.store.ratings.standing(fake.guild.id, "ring", bob.id)
    assert standing is not None
    shown = f"**{standing.rating:.0f}{'?' if standing.provisional else ''}**"
    board_reply = await fake.slash(alice, "leaderboard", {"game": "ring"})
    stats_reply = await fake.slash(alice, "stats", {"user": bob, "game": "ring"})
    assert board_reply.message is not None and stats_reply.message is not None
    assert shown in str(board_reply.message.embeds[0]["description"])
    assert f"Rating {shown}" in str(stats_reply.message.embeds[0]["description"])
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_any_member_may_view_the_settings_but_not_change_them(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    shown = await fake.slash(alice, "settings")
    assert shown.ephemeral and shown.message is not None
    assert "after 12 h" in str(shown.message.embeds)
    refused = await fake.slash(alice, "settings", {"threads": False})
    assert refused.ephemeral and refused.message is not None
    assert "Manage Server" in refused.message.content and refused.message.content.endswith(".")
    assert (await bot.settings.get(fake.guild.id)).use_threads
    fake.assert_clean()
    await stop_bot(bot)
