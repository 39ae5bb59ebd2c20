"""Metrics on ``METRICS_PORT`` (``bot.metrics``): the real bot on the fake Discord, clicked, and its
``/metrics`` read over HTTP and parsed as Prometheus parses it."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
from pathlib import Path

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

import app.scheduler
from app.client import RingsideBot
from bot.clock import ManualClock
from bot.config import ConfigError
from bot.metrics import Metrics, MetricsServer, MetricsUnavailable, metrics_address
from bot.store import Store
from cogs.control_kinds import (
    ChallengeButton,
    GameButton,
    GameSelect,
    MatchPicker,
    OpenRulesButton,
    control_kind,
)
from fakediscord import FakeDiscord
from fakediscord.matches import challenge_and_accept, controls_of, play_one, user_on_turn
from tests.support import start_bot, stop_bot


def free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def scrape(port: int) -> dict[str, list[Sample]]:
    """``GET /metrics``, parsed: the samples of each metric family by name."""
    async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{port}/metrics") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/plain; version=")
        text = await response.text()
    return {family.name: family.samples for family in text_string_to_metric_families(text)}


def value(families: dict[str, list[Sample]], sample: str, **labels: str) -> float:
    """The value of the sample named ``sample`` with exactly ``labels`` (0 when there is none)."""
    family = sample.removesuffix("_total").removesuffix("_count").removesuffix("_sum")
    for found in families.get(family, []):
        if found.name == sample and found.labels == labels:
            return found.value
    return 0.0


def metrics_at(port: int) -> tuple[str, int]:
    found = metrics_address({"METRICS_PORT": f"127.0.0.1:{port}"})
    assert found is not None
    return found


@pytest.mark.asyncio
async def test_clicks_commands_refusals_and_errors_are_counted_on_the_metrics_port(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    bot = await start_bot(fake, tmp_path / "db.sqlite3", metrics_address=metrics_at(port))
    alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
    users = {alice.id: alice, bob.id: bob}
    before = await scrape(port)
    assert value(before, "ringside_interactions_total", kind="challenge", outcome="ok") == 0
    assert value(before, "ringside_active_matches", game="ring") == 0

    board = await challenge_and_accept(fake, alice, bob)  # /challenge, then Accept
    # A stranger and the player not on turn are refused: each is told why, nothing changes.
    on_turn = user_on_turn(board, users)
    assert on_turn is not None
    other = bob if on_turn is alice else alice
    roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
    stranger = await fake.click(carol, board, roll, idle=True)
    wrong_seat = await fake.click(other, board, roll, idle=True)
    assert stranger.ephemeral and wrong_seat.ephemeral
    rng = random.Random(7)
    clicks = 0
    for _ in range(4):
        live, user = controls_of(fake, board.channel_id, users)
        assert user is not None
        await play_one(fake, live, user, rng)
        clicks += 1
    fake.assert_clean()
    await asyncio.sleep(0)

    after = await scrape(port)
    assert value(after, "ringside_interactions_total", kind="challenge", outcome="ok") == 1
    assert value(after, "ringside_interactions_total", kind="challenge_button", outcome="ok") == 1
    played = sum(
        value(after, "ringside_interactions_total", kind=kind, outcome="ok")
        for kind in ("game_button", "game_select")
    )
    assert played == clicks
    assert value(after, "ringside_interactions_total", kind="game_button", outcome="refused") == 2
    answered = sum(s.value for s in after["ringside_interactions"] if s.name == "ringside_interactions_total")
    assert answered == clicks + 4
    assert value(after, "ringside_first_answer_seconds_count") == answered  # each answered once
    assert 0 < value(after, "ringside_first_answer_seconds_sum") < answered * 2.5
    assert value(after, "ringside_picture_seconds_count") >= 1 + clicks / 2  # the first board, then turns
    assert value(after, "ringside_active_matches", game="ring") == 1
    assert value(after, "ringside_render_queue") == 0
    assert value(after, "ringside_errors_total", where="interaction") == 0

    # A handler that raises is an error: counted by kind and in the errors.
    async def broken(*args: object) -> None:
        raise RuntimeError("the dice fell off the table")

    live, user = controls_of(fake, board.channel_id, users)
    assert user is not None
    monkeypatch.setattr(bot.sessions, "roll", broken)
    monkeypatch.setattr(bot.sessions, "act", broken)
    fake.raise_bot_errors = False  # the failure is logged as an error; it is counted below
    await play_one(fake, live, user, rng)
    await asyncio.sleep(0)
    failed = await scrape(port)
    errors = sum(
        value(failed, "ringside_interactions_total", kind=k, outcome="error")
        for k in ("game_button", "game_select")
    )
    assert errors == 1
    assert value(failed, "ringside_errors_total", where="interaction") == 1
    await stop_bot(bot)
    with pytest.raises(aiohttp.ClientConnectionError):  # the port is closed with the bot
        await scrape(port)


@pytest.mark.asyncio
async def test_without_metrics_port_no_port_is_opened(fake: FakeDiscord, tmp_path: Path) -> None:
    assert metrics_address({}) is None and metrics_address({"METRICS_PORT": ""}) is None
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    assert bot.metrics_server is None
    await stop_bot(bot)


def test_metrics_port_is_a_port_or_host_and_port() -> None:
    assert metrics_address({"METRICS_PORT": "9108"}) == ("", 9108)
    assert metrics_address({"METRICS_PORT": "127.0.0.1:9108"}) == ("127.0.0.1", 9108)
    assert metrics_address({"METRICS_PORT": "[::1]:9108"}) == ("::1", 9108)
    for wrong in ("0", "70000", "metrics", "9108:"):
        with pytest.raises(ConfigError, match="METRICS_PORT must be a port number"):
            metrics_address({"METRICS_PORT": wrong})


@pytest.mark.asyncio
async def test_a_port_in_use_is_refused_in_one_line() -> None:
    with contextlib.closing(socket.socket()) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(MetricsUnavailable) as refused:
            await MetricsServer(Metrics()).start("127.0.0.1", port)
    assert str(refused.value).startswith(f"cannot serve metrics on METRICS_PORT=127.0.0.1:{port} (")
    assert "\n" not in str(refused.value)


@pytest.mark.asyncio
async def test_two_bots_count_in_registries_of_their_own() -> None:
    one, two = Metrics(), Metrics()
    one.interaction("board", "ok")
    assert b'ringside_interactions_total{kind="board",outcome="ok"} 1.0' in await one.page()
    assert b'kind="board"' not in await two.page()


@pytest.mark.asyncio
async def test_a_store_that_cannot_be_read_keeps_the_page_up_and_counts_the_error() -> None:
    metrics = Metrics()
    metrics.set_active_matches({"ring": 2, "backgammon": 1})

    async def unreadable() -> None:
        raise OSError("disk gone")

    metrics.on_scrape(unreadable)
    page = (await metrics.page()).decode()
    assert 'ringside_active_matches{game="ring"} 2.0' in page
    assert 'ringside_errors_total{where="metrics"} 1.0' in page
    metrics.set_active_matches({"backgammon": 3})
    page = (await metrics.page()).decode()
    assert 'ringside_active_matches{game="ring"} 0.0' in page  # none left: back to 0, not stale


def test_each_control_kind_is_named_from_its_class() -> None:
    assert control_kind(GameButton.id_for(match_id=1, version=2, value="roll")) == "game_button"
    assert control_kind(GameSelect.id_for(match_id=1, version=2, row=0)) == "game_select"
    assert control_kind(ChallengeButton.id_for(challenge_id=3, op="accept")) == "challenge_button"
    assert control_kind(MatchPicker.id_for(op="move", arg="2 from 7 by 3")) == "match_picker"
    assert control_kind(OpenRulesButton.id_for(game="ring")) == "open_rules_button"
    assert control_kind("rules:ring:9999999") == "malformed_control"
    assert control_kind("somebody-else:1") == "unknown"


@pytest.mark.asyncio
async def test_the_scheduler_lag_is_how_late_the_due_task_loop_ran(
    fake: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The loop sleeps 0.5 s (real time) between rounds: the gauge keeps each lag that long.
    monkeypatch.setattr(app.scheduler, "SCHEDULER_MAX_SLEEP", 0.5)
    clock = ManualClock()
    port = free_port()
    bot: RingsideBot = await start_bot(
        fake, tmp_path / "db.sqlite3", clock, metrics_address=metrics_at(port), run_scheduler=True
    )
    await asyncio.sleep(0.2)  # the loop has run and sleeps, due 0.5 s of the clock later
    assert value(await scrape(port), "ringside_scheduler_lag_seconds") == 0
    # As if the machine had been suspended for 30 s. A jump that lands while the loop runs a round (not
    # while it sleeps) is no late wake-up: the next one is counted from after the jump. So jump again,
    # once the loop has slept since the last jump, until one lands in a sleep.
    lag = 0.0
    for _ in range(20):
        clock.advance(30)
        for _ in range(15):
            await asyncio.sleep(0.05)
            lag = value(await scrape(port), "ringside_scheduler_lag_seconds")
            if lag:
                break
        if lag:
            break
    assert 29 <= lag <= 30
    await stop_bot(bot)
    assert isinstance(bot.store, Store)
