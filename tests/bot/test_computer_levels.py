"""Playing the computer at a level (issue 12): ``/challenge opponent:@bot level:...``, the level kept
with the match and its rematch, and the computer thinking off the event loop."""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.clock import ManualClock
from bot.sessions import SessionManager
from bot.store import Store
from engine import Action, GameView
from engine.ai import levels
from engine.ai.levels import DEFAULT_LEVEL, LEVEL_PLAYERS, LEVELS, level_player, levels_of
from engine.ai.random_player import random_choice
from fakediscord import FakeDiscord
from fakediscord.matches import play_until_over
from kits import Part
from tests.bot.test_several_matches import button
from tests.support import change_kit, start_bot, stop_bot

Player = Callable[[GameView, random.Random], Action]


class Spy:
    """Wraps a computer player: counts its decisions and notes whether any ran on the event loop's
    thread."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.calls = 0
        self.on_main_thread = 0

    def __call__(self, view: GameView, rng: random.Random) -> Action:
        self.calls += 1
        if threading.current_thread() is threading.main_thread():
            self.on_main_thread += 1
        return self.player(view, rng)


def test_ring_has_the_three_levels_and_unknown_levels_are_named() -> None:
    assert LEVELS == ("easy", "medium", "hard", "expert")
    assert levels_of("ring") == ("easy", "medium", "hard")
    assert level_player("ring", "hard") is LEVEL_PLAYERS["ring"]["hard"]
    with pytest.raises(levels.UnknownPlayerError, match="levels: easy, medium, hard"):
        level_player("ring", "grandmaster")
    with pytest.raises(levels.UnknownPlayerError, match="no computer level 'expert'"):
        level_player("ring", "expert")


@pytest.mark.asyncio
async def test_challenging_the_computer_at_a_level_plays_that_level_off_the_event_loop(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(LEVEL_PLAYERS["ring"]["hard"])
    monkeypatch.setitem(LEVEL_PLAYERS["ring"], "hard", spy)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    result = await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "ring", "level": "hard"}, idle=True
    )
    assert any("(level hard)" in m.content for m in result.messages)
    (record,) = await bot.store.matches.active()
    assert record.computer_level == "hard"
    (thread,) = fake.threads(fake.channel)
    await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(4))
    assert spy.calls > 0, "the hard player made the computer's decisions"
    assert spy.on_main_thread == 0, "the computer thinks in a worker thread, never on the event loop"
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.parametrize("game", ["ring", "backgammon", "space"])
def test_every_game_has_the_three_levels(game: str) -> None:
    """Easy, medium and hard in every game; backgammon also has expert (issue 36)."""
    assert levels_of(game) == (LEVELS if game == "backgammon" else ("easy", "medium", "hard"))
    players = {level_player(game, level) for level in levels_of(game)}
    assert len(players) == len(levels_of(game)), "a different player for each level"


@pytest.mark.asyncio
@pytest.mark.parametrize("game", ["backgammon", "space"])
async def test_a_whole_match_against_the_hard_computer(
    game: str, fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(LEVEL_PLAYERS[game]["hard"])
    monkeypatch.setitem(LEVEL_PLAYERS[game], "hard", spy)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": game, "level": "hard"}, idle=True
    )
    (thread,) = fake.threads(fake.channel)
    result = await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(5), max_clicks=3000)
    assert result.content.startswith("🏆")
    assert spy.calls > 0 and spy.on_main_thread == 0
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_backgammon_offers_the_expert_level_and_other_games_name_theirs(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``/challenge level:expert`` (issue 36): a backgammon match at expert (its player stood in for by
    a quicker one here); ring, which has no expert, names the levels it has and creates nothing."""
    spy = Spy(LEVEL_PLAYERS["backgammon"]["medium"])
    monkeypatch.setitem(LEVEL_PLAYERS["backgammon"], "expert", spy)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    refused = await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "ring", "level": "expert"}
    )
    assert refused.ephemeral and "at these levels: easy, medium, hard." in refused.message.content  # type: ignore[union-attr]
    assert await bot.store.matches.active() == []
    result = await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon", "level": "expert"}, idle=True
    )
    assert any("(level expert)" in m.content for m in result.messages)
    (record,) = await bot.store.matches.active()
    assert record.computer_level == "expert"
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_without_a_level_the_computer_plays_medium(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "ring"}, idle=True)
    (record,) = await bot.store.matches.active()
    assert record.computer_level == DEFAULT_LEVEL == "medium"
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_level_against_a_person_is_refused_and_nothing_is_created(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring", "level": "easy"})
    assert result.ephemeral and "A level is for games against the computer" in result.message.content  # type: ignore[union-attr]
    assert await bot.store.challenges.pending(alice.id, bob.id, bot.clock.now()) is None
    assert await bot.store.matches.active() == []
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_game_without_levels_refuses_a_level_and_plays_its_one_player_without(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    change_kit(monkeypatch, "backgammon", players=Part({"random": random_choice}), bot_player="random")
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    result = await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon", "level": "hard"}
    )
    assert result.ephemeral and "no levels in Backgammon yet" in result.message.content  # type: ignore[union-attr]
    assert await bot.store.matches.active() == []
    await fake.slash(alice, "challenge", {"opponent": fake.bot_user, "game": "backgammon"}, idle=True)
    (record,) = await bot.store.matches.active()
    assert record.computer_level is None
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_rematch_against_the_computer_keeps_its_level(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    await fake.slash(
        alice, "challenge", {"opponent": fake.bot_user, "game": "ring", "level": "easy"}, idle=True
    )
    (thread,) = fake.threads(fake.channel)
    final = await play_until_over(fake, thread.id, {alice.id: alice}, random.Random(2))
    await fake.click(alice, final, button(final, "Rematch"), idle=True)
    (record,) = await bot.store.matches.active()
    assert record.computer_level == "easy"
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_other_matches_go_on_while_the_computer_thinks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The computer's decision runs in a worker thread: while it thinks (held here until released),
    a move in another match is made and saved."""
    release = threading.Event()
    started = threading.Event()
    hard = LEVEL_PLAYERS["ring"]["hard"]

    def slow(view: GameView, rng: random.Random) -> Action:
        started.set()
        assert release.wait(10), "the test never released the computer"
        return hard(view, rng)

    monkeypatch.setitem(LEVEL_PLAYERS["ring"], "hard", slow)
    store = await Store.open(tmp_path / "db.sqlite3")
    manager = SessionManager(store, ManualClock(), rng=random.Random(5))
    computer, alice, bob, carol = 999, 101, 202, 303
    manager.computer_ids.add(computer)
    people = await manager.start_match(
        game="ring", options={}, players=(bob, carol), guild_id=1, channel_id=11, parent_id=None, rated=True
    )

    async def alice_until_the_computer_thinks() -> int:
        """The computer's match, Alice playing her first legal choice until the computer thinks."""
        played = await manager.start_match(
            game="ring",
            options={},
            players=(alice, computer),
            guild_id=1,
            channel_id=10,
            parent_id=None,
            rated=False,
            computer_level="hard",
        )
        mid = played.session.id
        while not started.is_set():
            session = await manager.get(mid)
            spec = session.state.chance() if session.state is not None else None
            if spec is not None:
                await manager.roll(mid, alice, session.version)
            else:
                action = session.position.legal_actions()[0]  # type: ignore[union-attr]
                await manager.act(mid, alice, session.version, action.notation)
        return mid

    against = asyncio.create_task(alice_until_the_computer_thinks())
    for _ in range(500):
        if started.is_set():
            break
        await asyncio.sleep(0.01)
    assert started.is_set(), "the computer started thinking"
    session = people.session
    assert session.state is not None
    on_turn = session.user_of(session.state.turn or 0)
    played = await manager.roll(session.id, on_turn, session.version)
    assert played.steps, "the other match moved on while the computer was thinking"
    assert not against.done()
    release.set()
    mid = await against
    assert (await manager.get(mid)).record.computer_level == "hard"
    await store.close()
