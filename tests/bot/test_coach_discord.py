"""The coach on Discord (the real bot on the fake Discord): ``/hint`` only to the player on turn in an
unrated or computer match, with clear private refusals that change nothing; the analysis posted after
a finished match, and taken up again after a restart."""

from __future__ import annotations

import asyncio
import io
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import discord
import pytest
from PIL import Image

from bot.session import Session, deciding_seat
from bot.store import Store
from bot.store.analyses import DONE, FAILED, PENDING, POSTED
from cogs.analysis_words import analysis_text, biggest_mistakes
from cogs.publisher import ANALYSIS_FAILED, ANALYSIS_PENDING, ANALYSIS_POSTED
from engine import IllegalActionError
from engine.ai.coaches import ANALYSES
from engine.ai.coaching import (
    Analysis,
    AnalysisStopped,
    Decision,
    PlayerReport,
    ProgressReport,
    Scale,
    StopCheck,
    analysis_to_json,
)
from fakediscord import FakeDiscord, FakeMessage, FakeUser
from fakediscord.matches import challenge_and_accept, match_id_of, play_until_over, resign, user_on_turn
from fakediscord.patience import patient
from kits import KITS, Part
from tests.support import change_kit, start_bot, stop_bot

ANALYSIS_SECONDS = 180.0
"""Generous: a 1-point match takes about 10 s on a busy machine (bench/README.md)."""


def other(users: dict[int, FakeUser], user: FakeUser) -> FakeUser:
    return next(u for u in users.values() if u.id != user.id)


async def private_answer(fake: FakeDiscord, user: FakeUser, channel_id: int) -> FakeMessage:
    result = await fake.slash(user, "hint", {}, channel=channel_id, idle=True)
    answer = result.private
    assert answer is not None, "every /hint answer is private"
    assert answer.visible_to == user.id
    return answer


@pytest.mark.asyncio
async def test_hint_refusals_are_private_and_change_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {alice.id: alice, bob.id: bob}
    nothing = await private_answer(fake, alice, fake.channel.id)
    assert "no match in progress here" in nothing.content
    # A rated match between people: no hints, for either player.
    rated = await challenge_and_accept(fake, alice, bob, "backgammon")
    match_id = match_id_of(rated)
    before = await bot.store.matches.get(match_id)
    on_turn = user_on_turn(rated, users)
    assert on_turn is not None
    refused = await private_answer(fake, on_turn, rated.channel_id)
    assert f"Match #{match_id} is rated" in refused.content and "unrated" in refused.content
    after = await bot.store.matches.get(match_id)
    assert before is not None and after is not None and after.version == before.version
    # Someone not playing here has no match here.
    stranger = await private_answer(fake, carol, rated.channel_id)
    assert "no match in progress here" in stranger.content
    # Another game: no hints.
    ring = await challenge_and_accept(fake, alice, carol, "ring", rated=False)
    refused = await private_answer(fake, alice, ring.channel_id)
    assert "Hints are given for Backgammon only" in refused.content and "Ring" in refused.content
    # The match is over.
    await resign(fake, alice, rated.channel_id)
    over = await private_answer(fake, bob, rated.channel_id)
    assert f"Match #{match_id} here is over" in over.content
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_hint_in_an_unrated_match_is_shown_only_to_the_player_on_turn(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    users = {alice.id: alice, bob.id: bob}
    board = await challenge_and_accept(fake, alice, bob, "backgammon", rated=False, length=3)
    match_id = match_id_of(board)
    on_turn = user_on_turn(board, users)
    assert on_turn is not None
    waiting = await private_answer(fake, other(users, on_turn), board.channel_id)
    assert f"It is not your turn in match #{match_id}" in waiting.content
    public_before = [m.id for m in fake.messages_in(board.channel_id) if m.visible_to is None]
    version = (await bot.store.matches.get(match_id)).version  # type: ignore[union-attr]
    shown = await private_answer(fake, on_turn, board.channel_id)
    text = shown.content
    assert text.startswith("**Hint · Your play of") and f"match #{match_id}, 3-point match" in text
    rows = [line for line in text.split("```")[1].splitlines() if line.strip()]
    assert len(rows) == 5 and "best" in rows[0] and rows[0].lstrip().startswith("▶ 1.")
    diffs = [float(row.split()[-1]) for row in rows[1:]]
    assert all(d <= 0 for d in diffs) and diffs == sorted(diffs, reverse=True)
    assert "match equity (cubeful" in text and "3-ply" in text and "Approximate" not in text
    # Nobody else sees it, and nothing changed.
    assert [m.id for m in fake.messages_in(board.channel_id) if m.visible_to is None] == public_before
    assert (await bot.store.matches.get(match_id)).version == version  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


def opponent_in(session: Session, user_id: int) -> int:
    return next(p for p in session.record.players if p != user_id)


async def hand_turn_to(bot: Any, match_id: int, user_id: int) -> None:
    """The other player acts (first legal step, confirmed) until match ``match_id`` waits for ``user_id``."""
    for _ in range(40):
        session = await bot.sessions.get(match_id)
        seat = deciding_seat(session.state)
        assert seat is not None
        player = session.user_of(seat)
        if player == user_id:
            return
        if session.state.chance() is not None:
            await bot.sessions.roll(match_id, player, None)
        elif session.awaiting_confirmation:
            await bot.sessions.drafts.confirm(match_id, player, None)
        else:
            await bot.sessions.act(match_id, player, None, session.position.legal_actions()[0].notation)
    raise AssertionError(f"match {match_id} never waited for {user_id}")


@pytest.mark.asyncio
async def test_with_several_matches_waiting_here_a_hint_asks_which_one(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    ada = fake.add_user("ada", roles=[fake.add_role("admins", discord.Permissions(manage_guild=True))])
    await fake.slash(ada, "settings", {"threads": False})
    for opponent in (bob, carol):
        asked = await fake.slash(
            alice, "challenge", {"opponent": opponent, "game": "backgammon", "rated": False}
        )
        assert asked.message is not None
        accept = next(c for c in asked.message.custom_ids if c.endswith(":accept"))
        await fake.click(opponent, asked.message, accept, idle=True)
    matches = sorted(m.id for m in await bot.store.matches.active())
    assert len(matches) == 2
    first, second = matches
    # Only one of them waits for Alice: the hint is for that one, without a question.
    await hand_turn_to(bot, first, alice.id)
    await hand_turn_to(bot, second, opponent_in(await bot.sessions.get(second), alice.id))
    only = await private_answer(fake, alice, fake.channel.id)
    assert only.content.startswith("**Hint · ") and f"match #{first}" in only.content
    # Both wait for her: a private list of the two, and the hint for the one she picks.
    await hand_turn_to(bot, second, alice.id)
    versions = [(await bot.store.matches.get(m)).version for m in matches]  # type: ignore[union-attr]
    question = await private_answer(fake, alice, fake.channel.id)
    assert "which one do you want a hint for?" in question.content
    (select,) = question.selects
    assert select.custom_id == "pick:hint" and [o["value"] for o in select.options] == [
        str(m) for m in matches
    ]
    assert all(
        " · backgammon vs " in str(o["label"]) and "user " not in str(o["label"]) for o in select.options
    )
    # A match that has moved on since the list was sent is refused, changing nothing.
    await hand_turn_to(bot, first, opponent_in(await bot.sessions.get(first), alice.id))
    versions = [(await bot.store.matches.get(m)).version for m in matches]  # type: ignore[union-attr]
    await fake.select(alice, question, "pick:hint", [str(first)], idle=True)
    refused = fake.messages_in(fake.channel)[-1]
    assert refused.visible_to == alice.id and f"It is not your turn in match #{first}" in refused.content
    await fake.select(alice, question, "pick:hint", [str(second)], idle=True)
    shown = fake.messages_in(fake.channel)[-1]
    assert shown.visible_to == alice.id and shown.content.startswith("**Hint · ")
    assert f"match #{second}" in shown.content
    assert [(await bot.store.matches.get(m)).version for m in matches] == versions  # type: ignore[union-attr]
    fake.assert_clean()
    await stop_bot(bot)


def analysis_of(fake: FakeDiscord, channel_id: int) -> FakeMessage | None:
    for message in fake.messages_in(channel_id):
        if message.visible_to is None and message.content.startswith("📊 **Analysis of match #"):
            return message
    return None


async def finish_against_the_computer(fake: FakeDiscord, seed: int) -> tuple[FakeUser, int, FakeMessage]:
    alice = fake.add_user("alice")
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon"}, idle=True)
    (thread,) = fake.threads(fake.channel)
    result = await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(seed), max_clicks=3000)
    # The result says the analysis is on its way; one that fails at once may already say so (a race
    # between the analysis worker and the reading of the result here).
    assert result.content.startswith("🏆")
    assert ANALYSIS_PENDING in result.content or ANALYSIS_FAILED in result.content
    return alice, thread.id, result


async def check_posted(fake: FakeDiscord, bot: Any, thread_id: int, result: FakeMessage) -> FakeMessage:
    await fake.wait_for(
        lambda: analysis_of(fake, thread_id) is not None, timeout=ANALYSIS_SECONDS, what="the analysis"
    )
    posted = analysis_of(fake, thread_id)
    assert posted is not None
    match_id = match_id_of(result)
    assert f"Analysis of match #{match_id}" in posted.content
    for label in ("PR", "Doubtful", "Errors", "Blunders", "Luck"):
        assert f"\n{label}" in posted.content
    assert posted.message_reference is not None and int(posted.message_reference["message_id"]) == result.id
    chart = Image.open(io.BytesIO(posted.attachment(f"analysis-{match_id}.png").data))
    assert chart.format == "PNG" and chart.size == (800, 420)
    # The match with its analysis, for GNU Backgammon (its own test: tests/engine/test_backgammon_sgfexport.py).
    sgf = posted.attachment(f"match-{match_id}.sgf").data.decode()
    assert sgf.startswith("(;FF[4]GM[6]") and " E ver 3 " in sgf
    await fake.wait_for(
        lambda: ANALYSIS_POSTED in fake.world.messages[result.id].content,
        timeout=10,
        what="the result's note",
    )
    await asyncio.wait_for(bot.analyses.finished.wait(), timeout=patient(60))
    record = await bot.store.analyses.get(match_id)
    assert record.status == POSTED and record.message_id == posted.id
    return posted


@pytest.mark.asyncio
async def test_the_analysis_is_posted_after_a_match_against_the_computer(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    _, thread_id, result = await finish_against_the_computer(fake, 7)
    await check_posted(fake, bot, thread_id, result)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_an_analysis_cut_short_by_a_restart_is_computed_at_the_next_start(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[int] = []

    def until_stopped(
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        should_stop: StopCheck | None,
        progress: ProgressReport | None = None,
    ) -> Analysis:
        started.append(len(log))
        while should_stop is None or not should_stop():
            time.sleep(0.01)
        raise AnalysisStopped("stopped")

    real = ANALYSES["backgammon"]
    change_analysis(monkeypatch, until_stopped)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    _, thread_id, result = await finish_against_the_computer(fake, 8)
    match_id = match_id_of(result)
    for _ in range(1000):  # the analysis starts in a worker thread: nothing is sent to wake a wait
        if started:
            break
        await asyncio.sleep(0.01)
    assert started == [len(await bot.store.matches.action_log(match_id))]
    await stop_bot(bot)
    record_before = analysis_of(fake, thread_id)
    assert record_before is None
    change_analysis(monkeypatch, real)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    pending = await bot.store.analyses.get(match_id)
    assert pending is not None and pending.status in (PENDING, POSTED)
    await check_posted(fake, bot, thread_id, result)
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_analysis_store_requests_once_and_lists_what_is_open(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "db.sqlite3")
    made = await store.matches.create(
        guild_id=1, channel_id=10, parent_id=None, game="backgammon", options={}, players=(1, 2),
        state="{}", actions=[], rated=False, now=5.0,
    )  # fmt: skip
    first = await store.analyses.request(made.id, 10.0)
    again = await store.analyses.request(made.id, 20.0)
    assert first.status == again.status == PENDING and again.requested_at == 10.0
    assert await store.analyses.open() == [made.id]
    await store.analyses.save(made.id, {"a": [1, 2]}, 30.0)
    saved = await store.analyses.get(made.id)
    assert saved is not None and saved.status == DONE and saved.analysis == {"a": [1, 2]}
    assert await store.analyses.open() == [made.id]  # computed, not posted yet
    await store.analyses.posted(made.id, 99)
    assert await store.analyses.open() == [] and (await store.analyses.get(made.id)).message_id == 99  # type: ignore[union-attr]
    assert await store.analyses.get(made.id + 1) is None
    await store.close()


@pytest.mark.asyncio
async def test_a_match_that_cannot_be_analysed_says_so_on_its_result(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(
        options: Mapping[str, Any] | None,
        log: Sequence[str],
        should_stop: StopCheck | None,
        progress: ProgressReport | None = None,
    ) -> Analysis:
        raise IllegalActionError("'roll 7-1' is not a roll")

    change_analysis(monkeypatch, broken)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    _, thread_id, result = await finish_against_the_computer(fake, 9)
    await fake.wait_for(
        lambda: ANALYSIS_FAILED in fake.world.messages[result.id].content, timeout=30, what="the failure note"
    )
    record = await bot.store.analyses.get(match_id_of(result))
    assert record is not None and record.status == FAILED and analysis_of(fake, thread_id) is None
    assert await bot.analyses.resume() == 0  # not tried again
    fake.assert_clean()
    await stop_bot(bot)


def test_the_analysis_lists_the_costliest_counted_decisions() -> None:
    def decision(
        seat: int, turn: int, loss: float, unforced: bool = True, kind: str = "play", roll: str | None = None
    ) -> Decision:
        return Decision(
            seat, 1, turn, kind, f"played {turn}", f"best {turn}", loss, unforced, roll, action=turn
        )

    decisions = (
        decision(0, 1, 0.010),  # below doubtful: not a mistake
        decision(1, 2, 0.300, unforced=False),  # not counted
        decision(0, 3, 0.050, roll="6-4"),
        decision(1, 4, 0.120, kind="take"),
        decision(0, 5, 0.030),
        decision(1, 6, 0.050),
    )
    report = PlayerReport(0, 3, 0.09, 2, 1, 0, 0.1, 10)
    analysis = Analysis((report, replace(report, seat=1)), decisions, ((0.5, 1.0),), Scale.MONEY, "hard")
    assert [(d.seat, d.turn) for d in biggest_mistakes(analysis)] == [(1, 4), (0, 3), (1, 6)]
    text = analysis_text(analysis, 7, "Backgammon", "", ("Alice", "Bob"))
    listed = text.split("**Biggest mistakes**\n")[1].splitlines()
    assert listed[:3] == [
        "· Bob, game 1, move 4: answer: `played 4`, best `best 4` (-0.120)",
        "· Alice, game 1, move 3: rolled 6-4, played `played 3`, best `best 3` (-0.050)",
        # An analysis saved before rolls were kept has none to show.
        "· Bob, game 1, move 6: played `played 6`, best `best 6` (-0.050)",
    ]
    clean = replace(analysis, decisions=decisions[:2])
    assert "Biggest mistakes" not in analysis_text(clean, 7, "Backgammon", "", ("Alice", "Bob"))


async def analysed_without_a_result_message(bot: Any, fake: FakeDiscord) -> int:
    """A finished backgammon match whose analysis is computed and waits to be posted, and whose result
    message id was never noted (the bot died between the result's post and its note)."""
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    made = await bot.store.matches.create(
        guild_id=fake.guild.id, channel_id=fake.channel.id, parent_id=None, game="backgammon", options={},
        players=(alice.id, bob.id), state="{}", actions=[], rated=False, now=5.0,
    )  # fmt: skip
    await bot.store.matches.end(made.id, status="finished", result=None, now=6.0)
    report = PlayerReport(0, 3, 0.09, 2, 1, 0, 0.1, 10)
    analysis = Analysis((report, replace(report, seat=1)), (), ((0.5, 0.6, 1.0),), Scale.MONEY, "hard")
    await bot.store.analyses.request(made.id, 7.0)
    await bot.store.analyses.save(made.id, analysis_to_json(analysis), 8.0)
    record = await bot.store.matches.get(made.id)
    assert record is not None and record.result_message_id is None
    return int(made.id)


@pytest.mark.asyncio
async def test_an_analysis_whose_result_message_was_never_noted_is_posted_in_the_channel(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    match_id = await analysed_without_a_result_message(bot, fake)
    await bot.analyses.run(match_id)
    posted = analysis_of(fake, fake.channel.id)
    assert posted is not None and f"Analysis of match #{match_id}" in posted.content
    assert posted.message_reference is None  # no result message to reply to
    record = await bot.store.analyses.get(match_id)
    assert record is not None and record.status == POSTED and record.message_id == posted.id
    assert await bot.analyses.resume() == 0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
@pytest.mark.parametrize("fault", ["bug", "channel gone"])
async def test_an_analysis_that_can_never_be_posted_is_given_up_not_retried_every_round(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fault: str
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    match_id = await analysed_without_a_result_message(bot, fake)
    if fault == "bug":

        def broken(*args: Any) -> str:
            raise TypeError("a bug in the analysis message")

        monkeypatch.setattr("cogs.analysis_posts.analysis_text", broken)
    else:
        fake.delete_channel(fake.channel)
    await bot.analyses.run(match_id)
    record = await bot.store.analyses.get(match_id)
    assert record is not None and record.status == FAILED
    assert await bot.analyses.resume() == 0  # not queued again at every scheduler round
    assert analysis_of(fake, fake.channel.id) is None
    logged = [r for r in fake.errors if "cannot be posted" in r.getMessage()]
    assert len(logged) == (1 if fault == "bug" else 0)  # a bug's traceback once, then never again
    fake.errors.clear()
    await stop_bot(bot)


def change_analysis(monkeypatch: pytest.MonkeyPatch, analysis: Any) -> None:
    """Backgammon's coach with ``analysis`` in place of its own, for the test's duration."""
    coach = KITS["backgammon"].coach
    assert coach is not None
    change_kit(monkeypatch, "backgammon", coach=replace(coach, analysis=Part(analysis)))
