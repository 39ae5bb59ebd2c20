"""``/rollout`` (issue 36, ``bot.rollouts``, ``bot.rollout_sources``, ``cogs.rollout``): the rule of who
may roll out what, each case named; the games a server allows; bad input told at once and nothing
queued; and a rollout as a heavy job: queued with its place, shown as it goes, posted once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import discord
import pytest

from app.client import RingsideBot
from bot import rollout_sources
from bot.jobs import runner as runner_module
from bot.rollouts import (
    CODE,
    FINISHED,
    LIVE,
    REVIEW,
    ROLLING,
    Asked,
    RolloutRefused,
    games,
    refusal,
    result_text,
)
from bot.store.jobs import ROLLOUT
from engine.ai.backgammon_rollout import BATCH, Rollout
from engine.backgammon.actions import Double
from engine.backgammon.formats import MatchInfo, gnubg_id
from fakediscord import FakeDiscord
from fakediscord.patience import patient
from tests.databases import sql
from tests.engine.test_backgammon_rollout import BEAR_OFF, RACE
from tests.support import start_bot, stop_bot

BEAR_OFF_CODE = gnubg_id(BEAR_OFF.board, MatchInfo())
"""A money bear-off, cube centred, its player on roll: a cube decision (quick games)."""
ALICE, BOB, CAROL = 1, 2, 3


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner_module, "PROGRESS_EVERY", 0.05)
    monkeypatch.setattr("bot.analyses.SHOW_EVERY", 0.05)


# -- the rule --------------------------------------------------------------------------------------


def live(asker: int, *, rated: bool, deciding: int | None, playing_rated: int | None = None) -> Asked:
    return Asked(
        asker, playing_rated, LIVE, match_id=7, match_over=False, match_rated=rated, deciding=deciding
    )


def test_rule_1_a_player_of_a_rated_match_not_over_gets_no_rollout_of_any_position() -> None:
    for source in (CODE, FINISHED, REVIEW):
        why = refusal(Asked(ALICE, 7, source, match_id=3))
        assert why is not None and "rated match (#7)" in why and "until it has ended" in why
    assert refusal(live(ALICE, rated=False, deciding=BOB, playing_rated=9)) is not None


def test_rule_2_nobody_rolls_out_a_rated_match_not_over_not_even_a_spectator() -> None:
    why = refusal(live(CAROL, rated=True, deciding=ALICE))
    assert why is not None and "rated and still being played" in why
    assert refusal(live(CAROL, rated=True, deciding=None)) is not None


def test_rule_3_in_an_unrated_match_the_player_deciding_may_not_roll_out_the_decision() -> None:
    why = refusal(live(ALICE, rated=False, deciding=ALICE))
    assert why is not None and "is yours" in why


def test_rule_3_in_an_unrated_match_the_other_player_and_spectators_may() -> None:
    assert refusal(live(BOB, rated=False, deciding=ALICE)) is None
    assert refusal(live(CAROL, rated=False, deciding=ALICE)) is None


def test_rule_4_codes_finished_matches_and_reviews_are_open_to_anyone() -> None:
    for source in (CODE, FINISHED, REVIEW):
        assert refusal(Asked(CAROL, None, source, match_id=3)) is None
    assert (
        refusal(Asked(ALICE, None, LIVE, match_id=3, match_over=True, match_rated=True, deciding=ALICE))
        is None
    )


def test_the_deciding_player_is_the_one_to_play_to_roll_or_double_or_to_answer() -> None:
    players = (ALICE, BOB)
    on_roll = ALICE if BEAR_OFF.turn_seat == 0 else BOB
    other = BOB if on_roll == ALICE else ALICE
    assert rollout_sources.deciding_player(BEAR_OFF, players) == on_roll
    assert rollout_sources.deciding_player(RACE, players) == on_roll
    doubled = BEAR_OFF.apply(Double())
    assert rollout_sources.deciding_player(doubled, players) == other  # type: ignore[arg-type]


# -- the games a server allows ---------------------------------------------------------------------


def test_games_default_to_the_server_s_bound_and_are_a_multiple_of_36_within_it() -> None:
    assert games(None, 648) == 648
    assert games(144, 648) == 144
    assert games(None, 650) == 648  # a bound not a multiple of 36: the multiple below
    for bad, words in ((40, "multiple of 36"), (0, "multiple of 36"), (1296, "at most 648")):
        with pytest.raises(RolloutRefused, match=words):
            games(bad, 648)


# -- bad input -------------------------------------------------------------------------------------


def test_a_malformed_position_code_is_refused_with_the_reason() -> None:
    with pytest.raises(RolloutRefused, match="not a position code"):
        rollout_sources.from_code("hello", CAROL, None)
    with pytest.raises(RolloutRefused, match="XGID"):
        rollout_sources.from_code("XGID=nonsense", CAROL, None)


def test_a_bare_position_id_is_a_money_game_with_its_player_on_roll_to_decide() -> None:
    position = rollout_sources.from_code(BEAR_OFF_CODE.split(":")[0], CAROL, None)
    assert position.state.phase.value == "decide" and position.state.is_money


def test_a_position_code_is_refused_to_a_player_of_a_rated_match() -> None:
    with pytest.raises(RolloutRefused, match="rated match"):
        rollout_sources.from_code(BEAR_OFF_CODE, ALICE, 12)


# -- what players read -----------------------------------------------------------------------------


def test_the_result_shows_each_candidate_s_equity_its_error_and_both_sides_chances_on_a_phone() -> None:
    found = Rollout.from_json(
        {
            "kind": "cube", "trials": 648, "seed": 1, "seat": 0,
            "candidates": [
                {"label": "No double", "equity": 0.5, "se": 0.01, "chances": [0.7, 0.1, 0.01, 0.05, 0.0], "notation": "roll"},
                {"label": "Double, take", "equity": 0.6, "se": 0.02, "chances": [0.7, 0.1, 0.01, 0.05, 0.0], "notation": "double"},
                {"label": "Double, pass", "equity": 1.0, "se": 0.0, "chances": None, "notation": "double"},
            ],
        }
    )  # fmt: skip
    text = result_text(found, "the position `x`")
    assert "Right: Double, take" in text
    assert "+0.500 ± 0.010 (-0.100)" in text and "+0.600 ± 0.020\n" in text
    assert "win  70.0%  (gammon 10.0%, bg 1.0%)" in text and "lose 30.0%  (gammon 5.0%, bg 0.0%)" in text
    assert "648 games per candidate" in text
    block = text.split("```")[1]
    assert max(len(line) for line in block.splitlines()) <= 44  # a phone's width of monospace


# -- the job ---------------------------------------------------------------------------------------


async def finished(bot: RingsideBot) -> None:
    """Until no rollout waits, runs or is still to be posted."""

    async def nothing_left() -> None:
        while True:
            bot.analyses.finished.clear()
            if await bot.store.jobs.open_count(ROLLOUT) == 0:
                return
            await bot.analyses.finished.wait()

    await asyncio.wait_for(nothing_left(), patient(120))


def said(result: Any, start: str) -> bool:
    msg = result.message
    if msg is None:
        return False
    return msg.content.startswith(start) or any(
        str(old.get("content")).startswith(start) for old in msg.history
    )


@pytest.mark.asyncio
async def test_a_rollout_is_queued_with_its_place_shows_its_games_and_is_posted_once(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    release = asyncio.Event()
    roll_out = bot.render_pool.roll_out

    async def held(*args: Any) -> dict[str, Any]:
        args[-1](18, 108)  # progress: 18 of 108 games
        await release.wait()
        return await roll_out(*args)

    monkeypatch.setattr(bot.render_pool, "roll_out", held)
    carol, dave = fake.add_user("carol"), fake.add_user("dave")
    first = await fake.slash(carol, "rollout", {"code": BEAR_OFF_CODE, "games": BATCH}, idle=True)
    await fake.wait_for(
        lambda: said(first, f"{ROLLING} 18 of 108 games played"), timeout=patient(30), what="games"
    )
    second = await fake.slash(dave, "rollout", {"code": BEAR_OFF_CODE, "games": BATCH}, idle=True)
    assert second.message is not None and not second.ephemeral
    assert second.message.content.startswith(f"{ROLLING} (place 1 in the queue, done in")
    again = await fake.slash(carol, "rollout", {"code": BEAR_OFF_CODE})
    assert again.ephemeral and "one at a time per member" in again.message.content  # type: ignore[union-attr]
    release.set()
    await finished(bot)
    for asked in (first, second):
        assert asked.message is not None
        assert asked.message.content.startswith(f"**Rollout** of the position `{BEAR_OFF_CODE}`")
        assert "Right: " in asked.message.content and "36 games per candidate" in asked.message.content
    shown = [m.id for m in fake.messages_in(fake.channel) if "**Rollout**" in m.content]
    assert sorted(shown) == sorted(a.message.id for a in (first, second) if a.message)
    rows = sql(tmp_path / "db.sqlite3", "SELECT kind, state, posted, result FROM heavy_jobs ORDER BY id")
    assert rows == [(ROLLOUT, "done", 1, None), (ROLLOUT, "done", 1, None)]
    assert await bot.analyses.tell() == 0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_bad_input_is_told_privately_and_queues_nothing(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    carol = fake.add_user("carol")
    cases = {
        "not a position code": {"code": "hello"},
        "There is no match #999": {"match": 999, "page": 1},
        "No match is being played here": {},
        "at most 648 games": {"code": BEAR_OFF_CODE, "games": 1296},
        "give the match too": {"page": 2},
    }
    for words, options in cases.items():
        result = await fake.slash(carol, "rollout", options)
        assert result.ephemeral and result.message is not None and words in result.message.content, words
    assert sql(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM heavy_jobs") == [(0,)]
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_match_of_another_server_is_not_found_and_a_rated_live_match_is_refused(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    carol, alice, bob = fake.add_user("carol"), fake.add_user("alice"), fake.add_user("bob")
    state = json.dumps(BEAR_OFF.to_json())
    elsewhere = await bot.store.matches.create(
        guild_id=fake.guild.id + 1, channel_id=fake.channel.id, parent_id=None, game="backgammon", options={"length": 0},
        players=(alice.id, bob.id), state=state, actions=[], rated=False, now=5.0,
    )  # fmt: skip
    result = await fake.slash(carol, "rollout", {"match": elsewhere.id, "page": 1})
    assert result.ephemeral and f"There is no match #{elsewhere.id} on this server" in result.message.content  # type: ignore[union-attr]
    rated = await bot.store.matches.create(
        guild_id=fake.guild.id, channel_id=fake.channel.id, parent_id=None, game="backgammon", options={"length": 0},
        players=(alice.id, bob.id), state=state, actions=[], rated=True, now=5.0,
    )  # fmt: skip
    for who, words in ((carol, "rated and still being played"), (alice, "You are playing a rated match")):
        result = await fake.slash(who, "rollout", {})
        assert result.ephemeral and words in result.message.content, who  # type: ignore[union-attr]
    result = await fake.slash(bob, "rollout", {"code": BEAR_OFF_CODE})
    assert result.ephemeral and f"rated match (#{rated.id})" in result.message.content  # type: ignore[union-attr]
    assert sql(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM heavy_jobs") == [(0,)]
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_in_an_unrated_live_match_the_player_deciding_is_refused_and_the_other_gets_the_rollout(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    players = (alice.id, bob.id)
    record = await bot.store.matches.create(
        guild_id=fake.guild.id, channel_id=fake.channel.id, parent_id=None, game="backgammon", options={"length": 0},
        players=players, state=json.dumps(BEAR_OFF.to_json()), actions=[], rated=False, now=5.0,
    )  # fmt: skip
    deciding = rollout_sources.deciding_player(BEAR_OFF, players)
    on_roll, other = (alice, bob) if deciding == alice.id else (bob, alice)
    refused = await fake.slash(on_roll, "rollout", {})
    assert refused.ephemeral and "is yours" in refused.message.content  # type: ignore[union-attr]
    asked = await fake.slash(other, "rollout", {"games": BATCH}, idle=True)
    assert asked.message is not None and not asked.ephemeral
    await finished(bot)
    assert asked.message.content.startswith(f"**Rollout** of match #{record.id}, its position now")
    rows = sql(tmp_path / "db.sqlite3", "SELECT kind, replay_of, posted FROM heavy_jobs")
    assert rows == [(ROLLOUT, record.id, 1)]
    await stop_bot(bot)


def a_play_in(log: list[str]) -> tuple[int, str]:
    """The first checker play of ``log`` with a choice: its index and its notation."""
    from engine.backgammon.variant import VARIANT
    from engine.protocol import replay_states

    for index, state in enumerate(replay_states(VARIANT, {}, log)):
        if index < len(log) and state.phase.value == "play" and len(state.plays()) > 4:  # type: ignore[attr-defined]
            return index, log[index]
    raise AssertionError("no play with a choice")


@pytest.mark.asyncio
async def test_a_review_page_is_rolled_out_with_the_play_made_marked(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    from engine.ai.coaching import Analysis, Decision, PlayerReport, Scale, analysis_to_json
    from tests.bot.test_review_discord import LOG, analysed_match

    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    index, played = a_play_in(LOG)
    report = PlayerReport(
        seat=0, unforced=1, equity_lost=0.1, doubtful=0, errors=1, blunders=0, luck=0.0, rolls=1
    )
    decision = Decision(0, 1, 1, "play", played, "?", 0.1, True, action=index)
    analysis = Analysis(
        (report, report),
        (decision,),
        ((0.5,),),
        Scale.MONEY,
        "3ply",
    )
    match_id = await analysed_match(
        bot, (alice, bob), analysis, guild_id=fake.guild.id, channel_id=fake.channel.id
    )
    await bot.store.analyses.save(match_id, analysis_to_json(analysis), 9.0)
    for page, words in ((2, "has pages 1 to 1, not 2"),):
        refused = await fake.slash(carol, "rollout", {"match": match_id, "page": page})
        assert refused.ephemeral and words in refused.message.content  # type: ignore[union-attr]
    asked = await fake.slash(carol, "rollout", {"match": match_id, "page": 1, "games": BATCH}, idle=True)
    assert asked.message is not None and not asked.ephemeral
    await finished(bot)
    text = asked.message.content
    assert text.startswith(f"**Rollout** of match #{match_id}, page 1 of its Review")
    assert f"{played}  ← played" in text
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_server_s_games_per_candidate_are_saved_and_read_back(tmp_path: Path) -> None:
    from bot.store import GuildSettings, Store

    store = await Store.open(tmp_path / "db.sqlite3")
    try:
        assert (await store.settings.get(9)).rollout_trials == 648
        await store.settings.save(GuildSettings(guild_id=9, rollout_trials=144))
        assert (await store.settings.get(9)).rollout_trials == 144
    finally:
        await store.close()


@pytest.mark.asyncio
async def test_a_rollout_runs_in_a_heavy_worker_tells_its_games_and_stops_when_asked() -> None:
    from app.render_pool import RenderPool
    from engine.ai.rollouts import RolloutStopped

    pool = RenderPool(1, heavy_workers=1)
    pool.start()
    try:
        told: list[tuple[int, int]] = []
        state = BEAR_OFF.to_json()
        found = await pool.roll_out(
            "backgammon", state, None, 2 * BATCH, 3, lambda: False, lambda d, t: told.append((d, t))
        )
        assert Rollout.from_json(found).trials == 2 * BATCH
        assert told and told[-1] == (
            2 * BATCH,
            2 * BATCH,
        )  # a cube decision: one rollout, no double and double/take together
        with pytest.raises(RolloutStopped):
            await pool.roll_out("backgammon", state, None, 100 * BATCH, 3, lambda: True, lambda d, t: None)
    finally:
        pool.close()


@pytest.mark.asyncio
async def test_a_rollout_running_at_a_restart_stops_keeps_its_place_and_is_posted_once_after_it(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.rollouts import KEPT_AT_RESTART
    from bot.store.jobs import QUEUED
    from engine.ai.rollouts import RolloutStopped

    bot = await start_bot(fake, tmp_path / "db.sqlite3")

    async def until_stopped(*args: Any) -> dict[str, Any]:
        should_stop, progress = args[-2], args[-1]
        progress(36, 108)
        while not should_stop():
            await asyncio.sleep(0.01)
        raise RolloutStopped("stopped")

    monkeypatch.setattr(bot.render_pool, "roll_out", until_stopped)
    asked = await fake.slash(
        fake.add_user("carol"), "rollout", {"code": BEAR_OFF_CODE, "games": BATCH}, idle=True
    )
    await fake.wait_for(lambda: said(asked, f"{ROLLING} 36 of 108"), timeout=patient(30), what="games")
    await stop_bot(bot)
    assert asked.message is not None and asked.message.content == KEPT_AT_RESTART
    assert sql(tmp_path / "db.sqlite3", "SELECT state, worker, posted FROM heavy_jobs") == [(QUEUED, None, 0)]
    bot = await start_bot(fake, tmp_path / "db.sqlite3")  # its own render pool: the real rollouts
    await finished(bot)
    assert asked.message.content.startswith("**Rollout** of the position")
    assert [m.id for m in fake.messages_in(fake.channel) if "**Rollout**" in m.content] == [asked.message.id]
    assert sql(tmp_path / "db.sqlite3", "SELECT state, posted FROM heavy_jobs") == [("done", 1)]
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_settings_rollout_games_bounds_a_servers_rollouts_and_only_manage_server_changes_it(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    carol = fake.add_user("carol")
    ada = fake.add_user("ada", roles=[fake.add_role("admins", discord.Permissions(manage_guild=True))])
    shown = await fake.slash(carol, "settings")
    assert shown.message is not None and "at most 648 games per candidate" in str(shown.message.embeds)
    refused = await fake.slash(carol, "settings", {"rollout_games": 144})
    assert refused.message is not None and "Manage Server" in refused.message.content
    assert (await bot.store.settings.get(fake.guild.id)).rollout_trials == 648
    saved = await fake.slash(ada, "settings", {"rollout_games": 144})
    assert saved.message is not None and "at most 144 games per candidate" in str(saved.message.embeds)
    assert (await bot.store.settings.get(fake.guild.id)).rollout_trials == 144
    over = await fake.slash(carol, "rollout", {"code": BEAR_OFF_CODE, "games": 324})
    assert over.ephemeral and over.message is not None and "at most 144 games" in over.message.content
    assert sql(tmp_path / "db.sqlite3", "SELECT COUNT(*) FROM heavy_jobs") == [(0,)]
    await stop_bot(bot)
