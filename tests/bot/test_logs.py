"""``LOG_FORMAT=json`` (``bot.logs``): one JSON object a line on stderr; an unknown format is refused
at start-up in one line."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.main import setup_logging
from bot.config import ConfigError
from bot.logs import JsonFormatter, log_format
from fakediscord import FakeDiscord, FakeDiscordServer
from tests.bot.test_metrics import free_port, scrape
from tests.bot.test_process import _env, _stop

REPO = Path(__file__).resolve().parents[2]


def _lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def test_each_record_is_one_json_line_with_time_level_logger_message_and_extras() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("ringside.test.json")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning(
            "match %d: a write failed\non two lines", 42, extra={"match_id": 42, "where": object()}
        )
        try:
            raise ValueError("the dice are loaded")
        except ValueError:
            logger.exception("scheduled work failed")
    finally:
        logger.removeHandler(handler)
    first, second = _lines(stream)
    assert stream.getvalue().count("\n") == 2, "one line per record, even for a message with a newline"
    assert first["level"] == "WARNING" and first["logger"] == "ringside.test.json"
    assert first["message"] == "match 42: a write failed\non two lines" and first["match_id"] == 42
    assert str(first["where"]).startswith("<object object")  # what JSON cannot hold, as its repr
    assert "exception" not in first
    time = str(first["time"])
    assert time.endswith("Z") and len(time) == len("2025-01-31T12:00:00.123Z")
    when = datetime.fromisoformat(time.replace("Z", "+00:00"))
    assert abs(datetime.now(UTC) - when) < timedelta(minutes=1)
    assert second["level"] == "ERROR" and second["message"] == "scheduled work failed"
    exception = str(second["exception"])
    assert exception.startswith("Traceback") and exception.endswith("ValueError: the dice are loaded")


def test_log_format_is_text_unless_json_is_asked_for() -> None:
    assert log_format({}) == "text"
    assert log_format({"LOG_FORMAT": " "}) == "text"
    assert log_format({"LOG_FORMAT": "text"}) == "text"
    assert log_format({"LOG_FORMAT": "JSON"}) == "json"
    with pytest.raises(ConfigError) as refused:
        log_format({"LOG_FORMAT": "logfmt"})
    assert str(refused.value) == "LOG_FORMAT must be text or json, not 'logfmt'"


@pytest.fixture
def root_logging() -> Iterator[None]:
    """The root logger as it was, after a test that configures it."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_json_logging_goes_to_stderr_and_text_stays_discord_pys(
    root_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_logging("json")
    logging.getLogger("app.client").info("synced %d slash commands", 9)
    [line] = capsys.readouterr().err.splitlines()
    entry = json.loads(line)
    assert (entry["level"], entry["logger"], entry["message"]) == (
        "INFO",
        "app.client",
        "synced 9 slash commands",
    )

    logging.getLogger().handlers[:] = []
    setup_logging("text")
    logging.getLogger("app.client").info("synced %d slash commands", 9)
    text = capsys.readouterr().err
    assert "synced 9 slash commands" in text and not text.startswith("{")


@pytest.mark.parametrize(("name", "value"), [("LOG_FORMAT", "xml"), ("METRICS_PORT", "ninety")])
def test_a_bad_log_format_or_metrics_port_stops_the_bot_in_one_line(
    tmp_path: Path, name: str, value: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=_env(tmp_path, DISCORD_TOKEN="x", **{name: value}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    [line] = done.stderr.splitlines()
    assert line.startswith(f"error: {name} must be ") and repr(value) in line


@pytest.mark.asyncio
async def test_the_bot_process_logs_json_lines_and_serves_metrics(tmp_path: Path) -> None:
    """The real ``python -m bot`` with ``LOG_FORMAT=json`` and ``METRICS_PORT``: every line it writes
    on stderr is a JSON object, and its ``/metrics`` answers."""
    fake = FakeDiscord(timeout=15, token="process-token")
    port = free_port()
    async with FakeDiscordServer(fake) as server:
        env = _env(
            tmp_path,
            DISCORD_TOKEN="process-token",
            DATABASE=str(tmp_path / "db.sqlite3"),
            LOG_FORMAT="json",
            METRICS_PORT=f"127.0.0.1:{port}",
        )
        proc = await asyncio.create_subprocess_exec(
            *server.bot_command(), cwd=tmp_path, env=env, stderr=asyncio.subprocess.PIPE
        )
        try:
            await server.wait_until_identified(timeout=30)
            await fake.wait_for(lambda: fake.synced, 30, "command sync")
            families = await scrape(port)
            assert "ringside_interactions" in families and "ringside_active_matches" in families
        finally:
            await _stop(proc)
        assert proc.stderr is not None
        err = (await proc.stderr.read()).decode()
    entries = [json.loads(line) for line in err.splitlines()]
    assert entries and all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    assert any(e["logger"] == "app.client" and str(e["message"]).startswith("synced ") for e in entries)
    assert any(e["logger"] == "bot.metrics" and f"port {port}" in str(e["message"]) for e in entries)
    assert "process-token" not in err
