"""Ratings: the FIBS formula against worked examples, and the store writing ratings with results.

The worked examples are computed by hand below (values rounded to 6 decimal places; the tests
allow 1e-5). Notation: D = |r1 - r2|, n = match length, P_upset = 1 / (10^(D*sqrt(n)/2000) + 1),
change = 4 * K * sqrt(n) * P with P = P_upset if the favourite won, 1 - P_upset if the underdog won,
K = max(1, 5 - experience / 100) for each player separately.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from bot import ratings
from bot.clock import ManualClock
from bot.ratings import Player, is_provisional, k_factor, next_streak, rate_match, upset_probability
from bot.sessions import SessionManager
from bot.store import ResultRecord, Store
from bot.store.connection import Conflict
from tests.databases import sql

ALICE, BOB, CAROL, COMPUTER = 101, 202, 303, 999
GUILD = 1


def approx(value: float) -> object:
    return pytest.approx(value, abs=1e-5)


# -- the formula ------------------------------------------------------------------------------------


def test_k_falls_from_five_to_one_with_experience() -> None:
    # K = max(1, 5 - experience / 100)
    assert k_factor(0) == 5.0
    assert k_factor(100) == 4.0  # 5 - 1
    assert k_factor(250) == 2.5  # 5 - 2.5
    assert k_factor(400) == 1.0  # 5 - 4
    assert k_factor(1200) == 1.0  # 5 - 12 = -7, floored at 1


def test_provisional_below_fifty_points_of_experience() -> None:
    assert is_provisional(0) and is_provisional(49)
    assert not is_provisional(50) and not is_provisional(400)


def test_equal_ratings_win_half_the_stake() -> None:
    # 1500 vs 1500, n = 1, both new (K = 5).
    # D = 0 -> 10^0 = 1 -> P_upset = 1 / (1 + 1) = 0.5; P = 0.5 whoever wins.
    # change = 4 * 5 * sqrt(1) * 0.5 = 10
    assert upset_probability(1500, 1500, 1) == 0.5
    rated = rate_match(Player(), Player(), 1)
    assert rated.winner_after == Player(1510.0, 1)
    assert rated.loser_after == Player(1490.0, 1)


def test_a_favourite_win_gains_less_than_half_the_stake() -> None:
    # 1600 beats 1500, n = 1, both K = 5.
    # D = 100; D * sqrt(1) / 2000 = 0.05; 10^0.05 = 1.122018
    # P_upset = 1 / (1.122018 + 1) = 1 / 2.122018 = 0.471249
    # The favourite won: P = P_upset = 0.471249
    # change = 4 * 5 * 1 * 0.471249 = 9.424989
    assert upset_probability(1600, 1500, 1) == approx(0.471249)
    rated = rate_match(Player(1600, 0), Player(1500, 0), 1)
    assert rated.winner_gain == approx(9.424989)
    assert rated.loser_loss == approx(9.424989)
    assert rated.winner_after.rating == approx(1609.424989)
    assert rated.loser_after.rating == approx(1490.575011)


def test_an_upset_gains_more_than_half_the_stake() -> None:
    # 1500 beats 1600, n = 1, both K = 5.
    # P_upset = 0.471249 as above; the underdog won: P = 1 - 0.471249 = 0.528751
    # change = 4 * 5 * 1 * 0.528751 = 10.575011
    rated = rate_match(Player(1500, 0), Player(1600, 0), 1)
    assert rated.winner_gain == approx(10.575011)
    assert rated.loser_loss == approx(10.575011)
    assert rated.winner_after.rating == approx(1510.575011)
    assert rated.loser_after.rating == approx(1589.424989)


def test_a_five_point_match_weighs_more_and_favours_the_favourite_more() -> None:
    # 1600 beats 1500, n = 5, both K = 5.
    # sqrt(5) = 2.236068; D * sqrt(n) / 2000 = 100 * 2.236068 / 2000 = 0.111803
    # 10^0.111803 = 1.293610; P_upset = 1 / 2.293610 = 0.435994 (down from 0.471249 at n = 1:
    # the longer the match, the likelier the stronger player wins it)
    # change = 4 * 5 * 2.236068 * 0.435994 = 44.721360 * 0.435994 = 19.498240
    assert upset_probability(1600, 1500, 5) == approx(0.435994)
    rated = rate_match(Player(1600, 0), Player(1500, 0), 5)
    assert rated.winner_gain == approx(19.498240)
    assert rated.loser_loss == approx(19.498240)
    # Both gain the match length in experience.
    assert rated.winner_after.experience == 5 and rated.loser_after.experience == 5


def test_experienced_players_move_slowly() -> None:
    # 1700 (experience 1200: K = max(1, 5 - 12) = 1) beats 1650 (experience 400: K = 5 - 4 = 1), n = 1.
    # D = 50; 50 / 2000 = 0.025; 10^0.025 = 1.059254; P_upset = 1 / 2.059254 = 0.485613
    # The favourite won: P = 0.485613; change = 4 * 1 * 1 * 0.485613 = 1.942451
    rated = rate_match(Player(1700, 1200), Player(1650, 400), 1)
    assert rated.winner_gain == approx(1.942451)
    assert rated.loser_loss == approx(1.942451)
    assert rated.winner_after == Player(pytest.approx(1701.942451), 1201)  # type: ignore[arg-type]


def test_each_player_uses_their_own_k() -> None:
    # A newcomer 1500 (experience 0: K = 5) beats 1800 (experience 250: K = 5 - 2.5 = 2.5), n = 1.
    # D = 300; 300 / 2000 = 0.15; 10^0.15 = 1.412538; P_upset = 1 / 2.412538 = 0.414501
    # The underdog won: P = 1 - 0.414501 = 0.585499
    # winner gains 4 * 5 * 1 * 0.585499 = 11.709974; loser loses 4 * 2.5 * 1 * 0.585499 = 5.854987
    rated = rate_match(Player(1500, 0), Player(1800, 250), 1)
    assert rated.winner_gain == approx(11.709974)
    assert rated.loser_loss == approx(5.854987)


def test_the_stake_with_equal_k_is_zero_sum_and_the_probabilities_add_up() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a, b = rng.uniform(1000, 2200), rng.uniform(1000, 2200)
        n = rng.choice([1, 3, 5, 7, 11])
        assert ratings.win_probability(a, b, n) + ratings.win_probability(b, a, n) == pytest.approx(1.0)
        rated = rate_match(Player(a, 500), Player(b, 500), n)
        assert rated.winner_gain == pytest.approx(rated.loser_loss)
        assert 0 < rated.winner_gain < 4 * k_factor(500) * n**0.5


def test_a_match_length_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        rate_match(Player(), Player(), 0)


def test_streaks_count_wins_up_and_losses_down() -> None:
    assert next_streak(0, True) == 1 and next_streak(2, True) == 3 and next_streak(-3, True) == 1
    assert next_streak(0, False) == -1 and next_streak(-2, False) == -3 and next_streak(4, False) == -1


# -- the store: ratings are written in the transaction that ends the match --------------------------


_opened: list[Store] = []


@pytest_asyncio.fixture(autouse=True)
async def _close_stores() -> AsyncIterator[None]:
    """Close every store a test opened, even when it fails (an open one keeps the process alive)."""
    yield
    while _opened:
        await _opened.pop().close()


async def _manager(path: Path, clock: ManualClock | None = None) -> SessionManager:
    store = await Store.open(path)
    _opened.append(store)
    return SessionManager(
        store, clock or ManualClock(), rng=random.Random(1), computer_ids=frozenset({COMPUTER})
    )


async def _start(
    manager: SessionManager,
    players: tuple[int, int] = (ALICE, BOB),
    *,
    rated: bool = True,
    guild_id: int | None = GUILD,
) -> int:
    played = await manager.start_match(
        game="ring",
        options={},
        players=players,
        guild_id=guild_id,
        channel_id=10,
        parent_id=None,
        rated=rated,
    )
    return played.session.id


def _rows(path: Path, statement: str) -> list[tuple[object, ...]]:
    return sql(path, statement)


@pytest.mark.asyncio
async def test_a_resignation_rates_both_players_with_history(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    manager = await _manager(db)
    mid = await _start(manager)
    await manager.ends.resign(mid, ALICE)  # Bob wins; both new at 1500: +10 / -10
    store = manager.store
    bob = await store.ratings.standing(GUILD, "ring", BOB)
    alice = await store.ratings.standing(GUILD, "ring", ALICE)
    assert bob is not None and alice is not None
    assert (bob.rating, bob.experience, bob.wins, bob.losses, bob.streak) == (1510.0, 1, 1, 0, 1)
    assert (alice.rating, alice.experience, alice.wins, alice.losses, alice.streak) == (1490.0, 1, 0, 1, -1)
    assert bob.provisional
    history = _rows(
        db, "SELECT match_id, guild_id, game, user_id, before, after FROM rating_history ORDER BY user_id"
    )
    assert history == [(mid, GUILD, "ring", ALICE, 1500.0, 1490.0), (mid, GUILD, "ring", BOB, 1500.0, 1510.0)]
    await store.close()


@pytest.mark.asyncio
async def test_a_match_played_to_its_end_rates_its_winner(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid = await _start(manager)
    rng = random.Random(9)
    for _ in range(2000):
        session = await manager.get(mid)
        state = session.state
        assert state is not None
        if state.is_terminal():
            break
        spec = state.chance()
        if spec is not None:
            await manager.roll(mid, session.user_of(spec.prompt_seat or 0), session.version)
        else:
            action = rng.choice(session.position.legal_actions())  # type: ignore[union-attr]
            await manager.act(mid, session.user_of(state.to_move()), session.version, action.notation)
    result = await manager.history.result_of(mid)
    assert result is not None and result.winner is not None
    players = (ALICE, BOB)
    winner = await manager.store.ratings.standing(GUILD, "ring", players[result.winner])
    loser = await manager.store.ratings.standing(GUILD, "ring", players[1 - result.winner])
    assert winner is not None and loser is not None
    assert (winner.rating, winner.wins, loser.rating, loser.losses) == (1510.0, 1, 1490.0, 1)
    await manager.store.close()


@pytest.mark.asyncio
async def test_a_failure_while_rating_leaves_the_match_unended(tmp_path: Path) -> None:
    """Both or neither: when writing a rating fails, the result is not saved either."""
    db = tmp_path / "db.sqlite3"
    manager = await _manager(db)
    mid = await _start(manager)
    # A history row already there for this match makes the rating's INSERT fail inside the transaction.
    sql(
        db,
        "INSERT INTO rating_history (match_id, guild_id, game, user_id, before, after, at)"
        " VALUES (?, ?, 'ring', ?, 1, 1, 0)",
        (mid, GUILD, ALICE),
    )
    with pytest.raises(Conflict):
        await manager.ends.resign(mid, ALICE)
    record = await manager.store.matches.get(mid)
    assert record is not None and record.status == "active"
    assert await manager.store.matches.result(mid) is None
    assert _rows(db, "SELECT COUNT(*) FROM ratings") == [(0,)]
    assert (await manager.get(mid)).record.status == "active"

    # The same through record_actions (the path of a final move): nothing of it is kept.
    session = await manager.get(mid)
    assert session.state is not None
    version, log_length = session.version, len(await manager.store.matches.action_log(mid))
    saved_state = record.state
    with pytest.raises(Conflict):
        await manager.store.matches.record_actions(
            mid,
            expected_version=version,
            actions=[],
            state=saved_state,
            now=1.0,
            result=ResultRecord(mid, 1, "five-in-a-row", "Blue wins.", 1, 1, 1.0),
        )
    after = await manager.store.matches.get(mid)
    assert after is not None and (after.status, after.version) == ("active", version)
    assert len(await manager.store.matches.action_log(mid)) == log_length
    assert await manager.store.matches.result(mid) is None
    assert _rows(db, "SELECT COUNT(*) FROM ratings") == [(0,)]

    # Once the obstacle is gone the match ends, rated.
    sql(db, "DELETE FROM rating_history")
    await manager.ends.resign(mid, ALICE)
    assert _rows(db, "SELECT user_id, rating FROM ratings ORDER BY user_id") == [
        (ALICE, 1490.0),
        (BOB, 1510.0),
    ]
    await manager.store.close()


@pytest.mark.asyncio
async def test_unrated_computer_dm_and_abandoned_matches_change_nothing(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    manager = await _manager(db)
    unrated = await _start(manager, rated=False)
    await manager.ends.resign(unrated, ALICE)
    computer = await _start(manager, (ALICE, COMPUTER), rated=False)
    await manager.ends.resign(computer, ALICE)
    outside = await _start(manager, guild_id=None)  # rated, but not in a server
    await manager.ends.resign(outside, BOB)
    damaged = await _start(manager)
    await manager.store.close()
    sql(db, "UPDATE matches SET state = 'not json' WHERE id = ?", (damaged,))
    manager = await _manager(db)
    played = await manager.ends.resign(damaged, ALICE)
    assert played.session.record.status == "abandoned"
    for mid in (unrated, computer, outside):
        assert await manager.history.result_of(mid) is not None
    assert _rows(db, "SELECT COUNT(*) FROM ratings") == [(0,)]
    assert _rows(db, "SELECT COUNT(*) FROM rating_history") == [(0,)]
    await manager.store.close()


@pytest.mark.asyncio
async def test_a_timeout_ending_through_end_match_is_rated_like_any_loss(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    mid = await _start(manager)
    result = ResultRecord(mid, 0, "timeout", "Blue ran out of time: Red wins.", 1, 1, 5.0)
    assert await manager.store.matches.end(mid, status="finished", result=result, now=5.0)
    alice = await manager.store.ratings.standing(GUILD, "ring", ALICE)
    bob = await manager.store.ratings.standing(GUILD, "ring", BOB)
    assert alice is not None and bob is not None
    assert (alice.rating, alice.wins, bob.rating, bob.losses) == (1510.0, 1, 1490.0, 1)
    await manager.store.close()


@pytest.mark.asyncio
async def test_ratings_accumulate_per_server_and_game_with_streaks_and_trends(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    clock = ManualClock()
    manager = await _manager(db, clock)
    store = manager.store
    # Alice beats Bob twice, then loses to him, all in server 1.
    for loser in (BOB, BOB, ALICE):
        clock.advance(60)
        mid = await _start(manager)
        await manager.ends.resign(mid, loser)
    # 1: 1500/1500 -> Alice +10: A 1510, B 1490.
    # 2: Alice (1510, K = 5 - 1/100 = 4.99) is the favourite by D = 20: 20 / 2000 = 0.01;
    #    10^0.01 = 1.023293; P_upset = 1 / 2.023293 = 0.494244; she wins: P = 0.494244
    #    Alice +4 * 4.99 * 0.494244 = +9.865106 -> 1519.865106; Bob -9.865106 -> 1480.134894
    # 3: D = 39.730220; 39.730220 / 2000 = 0.019865; 10^0.019865 = 1.046803;
    #    P_upset = 1 / 2.046797 = 0.488567; the underdog Bob wins: P = 0.511433;
    #    K = 5 - 2/100 = 4.98 for both: change = 4 * 4.98 * 0.511433 = 10.187751
    #    Alice 1509.677355, Bob 1490.322645
    alice = await store.ratings.standing(GUILD, "ring", ALICE)
    bob = await store.ratings.standing(GUILD, "ring", BOB)
    assert alice is not None and bob is not None
    assert alice.rating == approx(1509.677355) and bob.rating == approx(1490.322645)
    assert (alice.wins, alice.losses, alice.streak, alice.experience) == (2, 1, -1, 3)
    assert (bob.wins, bob.losses, bob.streak) == (1, 2, 1)

    # Carol plays Bob once in another server and once at backgammon (a match made by hand).
    other = await _start(manager, (CAROL, BOB), guild_id=2)
    await manager.ends.resign(other, BOB)
    game = await store.matches.create(
        guild_id=GUILD, channel_id=10, parent_id=None, game="backgammon", options={}, players=(CAROL, ALICE),
        state="{}", actions=[], rated=True, now=clock.now(),
    )  # fmt: skip
    clock.advance(60)
    done = clock.now()
    await store.matches.end(
        game.id,
        status="finished",
        result=ResultRecord(game.id, 0, "single", "Carol wins.", 1, 5, done),
        now=done,
    )
    assert (await store.ratings.standing(2, "ring", CAROL)) is not None
    assert (await store.ratings.standing(GUILD, "ring", CAROL)) is None
    assert (
        await store.ratings.standing(GUILD, "ring", ALICE)
    ) == alice  # other games and servers left it alone
    backgammon = await store.ratings.standing(GUILD, "backgammon", ALICE)
    assert backgammon is not None and backgammon.experience == 5  # the match length

    board = await store.ratings.leaderboard(GUILD, "ring")
    assert [s.user_id for s in board] == [ALICE, BOB]
    assert await store.ratings.rank(GUILD, "ring", BOB) == 2
    assert await store.ratings.rank(GUILD, "ring", CAROL) is None
    assert await store.ratings.players_rated(GUILD, "ring") == 2
    assert [s.game for s in await store.ratings.standings_of(GUILD, ALICE)] == ["backgammon", "ring"]
    trends = await store.ratings.trends(GUILD, "ring", [ALICE, BOB, CAROL])
    assert trends[ALICE] == approx(9.677355) and trends[BOB] == approx(-9.677355) and CAROL not in trends
    assert (await store.ratings.trends(GUILD, "ring", [ALICE], last=1))[ALICE] == approx(-10.187751)

    results = await store.ratings.rated_results(GUILD, "ring", ALICE)
    assert [(r.opponent_id, r.won) for r in results] == [(BOB, True), (BOB, True), (BOB, False)]
    assert results[-1].change == approx(-10.187751)
    recent = await store.matches.recent(ALICE)
    assert [m.game for m in recent][:1] == ["backgammon"] and len(recent) == 4
    assert recent[1].won is False and recent[1].rating_change == approx(-10.187751)
    await store.close()


@pytest.mark.asyncio
async def test_recent_matches_include_active_and_unrated_ones(tmp_path: Path) -> None:
    manager = await _manager(tmp_path / "db.sqlite3")
    finished = await _start(manager, rated=False)
    await manager.ends.resign(finished, BOB)
    active = await _start(manager)
    recent = await manager.store.matches.recent(ALICE, limit=10)
    assert [(m.match_id, m.status, m.won, m.rating_change) for m in recent] == [
        (active, "active", None, None),
        (finished, "finished", True, None),
    ]
    assert recent[1].reason == "resignation" and not recent[1].rated
    await manager.store.close()
