"""The bot's metrics, in the Prometheus text format on an opt-in port (``METRICS_PORT``).

Every metric lives in the bot's own ``CollectorRegistry`` (never prometheus_client's global one, so
two bots in one process, as in the tests, count separately and nothing a library registers leaks in).
docs/operations.md lists them for operators:

- ``ringside_interactions_total{kind, outcome}``: interactions handled; ``kind`` is the slash
  command's name or the control's kind (``game_button``, ``challenge_button`` ...), ``outcome`` is
  ``ok``, ``refused`` (the user was told why nothing was done) or ``error``.
- ``ringside_first_answer_seconds``: from receiving an interaction to its first response.
- ``ringside_picture_seconds``: asking for a board picture until having it (queue included).
- ``ringside_active_matches{game}``: matches being played, read from the store at each scrape.
- ``ringside_scheduler_lag_seconds``: how late the due-task loop last ran after it was due.
- ``ringside_render_queue``: board pictures waiting for a free worker.
- ``ringside_errors_total{where}``: failures logged, by where they happened.

The page is served by an aiohttp server on the bot's own event loop (``MetricsServer``), not by
prometheus_client's ``start_http_server`` thread: the active-matches gauge is an async read of the
store, which lives on that loop; the server starts and stops with the bot (a test's bot leaves no
thread or port behind); and a scrape that times out says the loop is stuck, which is worth knowing.
Nothing here imports discord.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Mapping

from aiohttp import web
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from bot.config import ConfigError

log = logging.getLogger(__name__)

OUTCOMES = ("ok", "refused", "error")
SCRAPE_READ_TIMEOUT = 2.0
"""Seconds a scrape waits for the store's counts before serving the last ones it had."""


class Metrics:
    """The metrics of one bot, in their own registry; see the module docstring."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.interactions = Counter(
            "ringside_interactions",
            "Interactions handled, by slash command or control kind and by outcome (ok, refused, error).",
            ["kind", "outcome"],
            registry=r,
        )
        self.first_answer = Histogram(
            "ringside_first_answer_seconds",
            "Seconds from receiving an interaction to its first response (a deferral or a message).",
            buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 2.5, 3.0, 5.0, 10.0),
            registry=r,
        )
        self.picture = Histogram(
            "ringside_picture_seconds",
            "Seconds from asking for a board picture to having it, waiting for a worker included.",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
            registry=r,
        )
        self.active_matches = Gauge(
            "ringside_active_matches",
            "Matches being played, by game (read at each scrape).",
            ["game"],
            registry=r,
        )
        self.scheduler_lag = Gauge(
            "ringside_scheduler_lag_seconds",
            "How late the scheduler's due-task loop last ran, after the time it was due.",
            registry=r,
        )
        self.render_queue = Gauge(
            "ringside_render_queue", "Board pictures waiting for a free worker process.", registry=r
        )
        self.errors = Counter(
            "ringside_errors", "Failures logged, by where they happened.", ["where"], registry=r
        )
        self._refreshers: list[Callable[[], Awaitable[None]]] = []
        self._games: set[str] = set()

    def interaction(self, kind: str, outcome: str) -> None:
        self.interactions.labels(kind=kind, outcome=outcome).inc()

    def error(self, where: str) -> None:
        self.errors.labels(where=where).inc()

    def set_active_matches(self, counts: Mapping[str, int]) -> None:
        """The active matches by game; a game no longer in ``counts`` goes back to 0."""
        self._games |= set(counts)
        for game in self._games:
            self.active_matches.labels(game=game).set(counts.get(game, 0))

    def on_scrape(self, refresh: Callable[[], Awaitable[None]]) -> None:
        """Run ``refresh()`` before each scrape (at most ``SCRAPE_READ_TIMEOUT`` seconds)."""
        self._refreshers.append(refresh)

    async def page(self) -> bytes:
        """The metrics as the Prometheus text format, refreshed first."""
        for refresh in self._refreshers:
            try:
                await asyncio.wait_for(refresh(), SCRAPE_READ_TIMEOUT)
            except Exception as exc:
                self.error("metrics")
                log.warning(
                    "metrics: a value could not be read for this scrape (%r); serving the last one", exc
                )
        return generate_latest(self.registry)


class MetricsUnavailable(Exception):
    """The metrics port cannot be listened on; the message says which and why, in one line."""


def metrics_address(env: Mapping[str, str] | None = None) -> tuple[str, int] | None:
    """``METRICS_PORT`` as (host, port), or None when it is unset (no port is opened).

    A bare port (``9108``) listens on every interface, as prometheus_client's own server does;
    ``HOST:PORT`` (``127.0.0.1:9108``) on one. ``ConfigError`` for anything else.
    """
    raw = (os.environ if env is None else env).get("METRICS_PORT", "").strip()
    if not raw:
        return None
    host, _, port = raw.rpartition(":")
    host = host.strip("[]")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(
            f"METRICS_PORT must be a port number (1-65535), or HOST:PORT to listen on one address, not {raw!r}"
        )
    return host, int(port)


class MetricsServer:
    """``GET /metrics`` served on the running event loop; ``start`` then ``close``."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        self._runner: web.AppRunner | None = None
        self.port: int | None = None
        """The port listened on (the one chosen by the system when 0 was asked for)."""

    async def _serve(self, _request: web.Request) -> web.Response:
        body = await self.metrics.page()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host`` (every interface when empty) and ``port``; ``MetricsUnavailable`` if not."""
        app = web.Application()
        app.router.add_get("/metrics", self._serve)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            site = web.TCPSite(runner, host or None, port)
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise MetricsUnavailable(
                f"cannot serve metrics on METRICS_PORT={host + ':' if host else ''}{port} ({exc.strerror or exc}): "
                "choose a free port"
            ) from exc
        self._runner = runner
        self.port = runner.addresses[0][1]
        log.info("metrics served on port %d at /metrics", self.port)

    async def close(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
