"""The shared layers take each game's parts from its registries: typed end reasons read back from the
store, seat colours from the game's renderer, the default game of /stats and /leaderboard, and the
scheduler handing due work to the publishers the cogs register."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.publishing import Publishers
from bot.ratings import Standing
from bot.session import Played, Reminder
from bot.sessions import SessionManager
from bot.store import ChallengeRecord, Store
from cogs.board import board_message
from cogs.challenge import Challenge
from cogs.control_framework import ControlHandlers
from cogs.control_kinds import CHALLENGE, GAME, HINT, REVIEW, RULES, TOURNAMENT, TUTOR
from cogs.play import Play
from cogs.stats import default_game
from engine import VARIANTS, CorruptStateError, Forfeit
from engine.ring import RingWin
from fakediscord import FakeDiscord
from fakediscord.matches import challenge_and_accept, match_id_of
from render import SEAT_STYLES
from tests.databases import sql
from tests.support import start_bot, stop_bot

ALICE, BOB = 101, 202
HOUR = 3600.0


async def _resigned(path: Path) -> tuple[SessionManager, int]:
    manager = SessionManager(await Store.open(path), ManualClock(), rng=random.Random(1))
    played = await manager.start_match(
        game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    await manager.ends.resign(played.session.id, ALICE)
    return manager, played.session.id


@pytest.mark.asyncio
async def test_a_saved_reason_is_read_back_as_the_games_enum(tmp_path: Path) -> None:
    manager, mid = await _resigned(tmp_path / "db.sqlite3")
    outcome = await manager.history.result_of(mid)
    assert outcome is not None and outcome.reason is Forfeit.RESIGNATION
    history = await manager.store.matches.recent(BOB)
    assert history[0].reason is Forfeit.RESIGNATION
    await manager.store.close()
    sql(tmp_path / "db.sqlite3", "UPDATE results SET reason = 'five-in-a-row' WHERE match_id = ?", (mid,))
    manager, _ = await _resigned(tmp_path / "db.sqlite3")
    outcome = await manager.history.result_of(mid)
    assert outcome is not None and outcome.reason is RingWin.FIVE_IN_A_ROW
    await manager.store.close()


@pytest.mark.asyncio
async def test_an_unknown_saved_reason_is_a_clear_error_but_history_goes_on(tmp_path: Path) -> None:
    manager, mid = await _resigned(tmp_path / "db.sqlite3")
    await manager.store.close()
    sql(tmp_path / "db.sqlite3", "UPDATE results SET reason = 'checkmate' WHERE match_id = ?", (mid,))
    store = await Store.open(tmp_path / "db.sqlite3")
    with pytest.raises(CorruptStateError, match="'checkmate' is not a way a Ring game ends"):
        await store.matches.result(mid)
    history = await store.matches.recent(ALICE)
    assert len(history) == 1 and history[0].reason is None and history[0].won is False
    await store.close()


def _standing(game: str) -> Standing:
    return Standing(
        guild_id=1, game=game, user_id=ALICE, rating=1500.0, experience=1, wins=1, losses=0, streak=1,
        updated_at=0.0,
    )  # fmt: skip


def test_the_default_game_is_the_one_played_last_else_the_first_registered() -> None:
    first = next(iter(VARIANTS))
    assert default_game([]) == first
    assert default_game([_standing(first)]) == first
    # A game no longer registered is passed over.
    assert default_game([_standing("gone"), _standing(first)]) == first
    assert default_game([_standing("gone")]) == first


@pytest.mark.asyncio
async def test_the_board_embed_takes_the_seat_colour_from_the_games_renderer(tmp_path: Path) -> None:
    manager = SessionManager(await Store.open(tmp_path / "db.sqlite3"), ManualClock(), rng=random.Random(1))
    played = await manager.start_match(
        game="ring", options={}, players=(ALICE, BOB), guild_id=1, channel_id=10, parent_id=None, rated=True
    )
    session = played.session
    assert session.state is not None and session.state.turn is not None
    message = board_message(session)
    assert message.embed.colour is not None
    assert message.embed.colour.value == SEAT_STYLES["ring"][session.state.turn].hex
    await manager.store.close()


class Recorder:
    """A publisher of every kind that only notes what it is handed."""

    def __init__(self) -> None:
        self.expired: list[ChallengeRecord] = []
        self.reminded: list[Reminder] = []
        self.ended: list[Played] = []

    async def challenge_expired(self, record: ChallengeRecord) -> None:
        self.expired.append(record)

    async def remind(self, reminder: Reminder) -> None:
        self.reminded.append(reminder)

    async def match_ended(self, played: Played) -> None:
        self.ended.append(played)


@pytest.mark.asyncio
async def test_the_cogs_register_as_publishers_and_unregister_when_unloaded(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    challenge = bot.get_cog("Challenge")
    assert isinstance(challenge, Challenge)
    assert bot.publishers.challenges is challenge.answers
    play = bot.get_cog("Play")
    assert isinstance(play, Play)
    assert bot.publishers.matches is play.notices
    assert bot.publishers.analyses is bot.get_cog("Coach").posts  # type: ignore[union-attr]
    assert bot.controls.get(GAME) is play.controls and bot.controls.get(RULES) is bot.get_cog("Help")
    assert bot.controls.get(CHALLENGE) is challenge.answers and bot.controls.get(HINT) is bot.get_cog("Coach")
    assert bot.controls.get(REVIEW) is bot.get_cog("Review")
    assert bot.publishers.tournaments is bot.get_cog("Tournament")
    assert bot.controls.get(TOURNAMENT) is bot.get_cog("Tournament")
    assert bot.publishers.replays is bot.get_cog("Replay").posts  # type: ignore[union-attr]
    assert bot.controls.get(TUTOR) is bot.get_cog("Tutoring")
    assert bot.publishers.rollouts is bot.get_cog("Rollout").posts  # type: ignore[union-attr]
    names = ("Play", "Coach", "Challenge", "Help", "Review", "Tournament", "Replay", "Tutoring", "Rollout")
    for name in names:
        await bot.remove_cog(name)
    assert bot.publishers == Publishers()
    assert bot.controls == ControlHandlers()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_scheduler_hands_what_came_due_to_the_registered_publishers(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    clock = ManualClock()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", clock)
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    board = await challenge_and_accept(fake, alice, bob)
    mid = match_id_of(board)
    pending = await fake.slash(alice, "challenge", {"opponent": carol})
    assert pending.message is not None
    recorder = Recorder()
    bot.publishers = Publishers()
    clock.advance(13 * HOUR)
    await bot.run_due_tasks()  # nobody registered: nothing is claimed
    assert (recorder.expired, recorder.reminded, recorder.ended) == ([], [], [])
    bot.publishers = Publishers(challenges=recorder, matches=recorder)
    await bot.run_due_tasks()
    assert [r.opponent_id for r in recorder.expired] == [carol.id]
    assert [r.session.id for r in recorder.reminded] == [mid]
    assert recorder.reminded[0].seconds_left == pytest.approx(35 * HOUR)
    clock.advance(36 * HOUR)
    await bot.run_due_tasks()
    await bot.run_due_tasks()
    assert len(recorder.reminded) == 1 and len(recorder.expired) == 1
    assert [p.session.id for p in recorder.ended] == [mid]
    outcome = await bot.sessions.history.result_of(mid)
    assert outcome is not None and outcome.reason is Forfeit.TIMEOUT
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_every_cog_is_an_instance_of_the_class_its_module_holds(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    """Cogs are added from the modules everyone else imports, never loaded a second time as
    extensions: a control that names a cog module's class must find the very same class (the real
    process's Rules button failed on this)."""
    import sys

    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    for cog in bot.cogs.values():
        module = sys.modules[type(cog).__module__]
        assert getattr(module, type(cog).__name__) is type(cog)
    assert bot.extensions == {}
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_control_whose_handler_is_not_running_is_answered_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob)
    rules = next(c for c in board.custom_ids if c.startswith("rules:"))
    opened = await fake.click(alice, board, rules)
    assert opened.ephemeral and opened.message is not None and opened.message.embeds
    await bot.remove_cog("Help")
    await bot.remove_cog("Play")
    for custom_id in (rules, next(c for c in board.custom_ids if c.startswith("g:"))):
        refused = await fake.click(alice, board, custom_id)
        assert refused.ephemeral and refused.message is not None
        assert "cannot be answered right now" in refused.message.content
    fake.assert_clean()
    await stop_bot(bot)
