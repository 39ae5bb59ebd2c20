"""``python -m bot``: run the bot with the settings in ``.env``; any problem is one line, not a traceback.
``python -m bot COMMAND`` runs one of the commands of ``app.cli`` instead (``--help`` lists them)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Sequence

import aiohttp
import discord

from app import cli
from app.client import RingsideBot, make_bot
from app.process_lock import ProcessLock
from bot.config import ConfigError, Settings, load_settings
from bot.logs import JsonFormatter, log_format
from bot.metrics import MetricsUnavailable, metrics_address
from bot.store import Store, StoreError
from bot.store.scope import Scope

log = logging.getLogger("bot")


async def run(settings: Settings, metrics_at: tuple[str, int] | None = None) -> None:
    # One process per SQLite file (app.process_lock); PostgreSQL is shared by several.
    lock = None if settings.database_url else ProcessLock(settings.database)
    if lock is not None:
        lock.take()
    try:
        await _run(settings, metrics_at)
    finally:
        if lock is not None:
            lock.release()


async def _run(settings: Settings, metrics_at: tuple[str, int] | None) -> None:
    shards = settings.shards
    scope = Scope() if shards is None else Scope.of(shards.count, shards.ids)
    store = await Store.open(settings.store_target, scope)
    try:
        bot = make_bot(store, settings, metrics_address=metrics_at)
        # SIGTERM (a service manager stopping the bot) drains the bot (no new work is taken; analyses
        # are stopped, not waited for; what was taken is finished and every saved change shown, for a
        # bounded time), then closes it and the database cleanly: the write-ahead log is checkpointed
        # and the process exits 0, within DRAIN_SECONDS of the signal. A second SIGTERM cuts the
        # draining short.
        loop = asyncio.get_running_loop()
        stopping: list[asyncio.Task[None]] = []

        def on_sigterm() -> None:
            if stopping:
                bot.hurry()
            else:
                stopping.append(loop.create_task(_stop(bot)))

        with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
            loop.add_signal_handler(signal.SIGTERM, on_sigterm)
        async with bot:
            await bot.start(settings.token)
    finally:
        await store.close()


async def _stop(bot: RingsideBot) -> None:
    log.info("SIGTERM received: draining, then closing")
    await bot.drain()
    await bot.close()


def main(argv: Sequence[str] | None = None) -> int:
    return cli.main(argv, run_bot)


def setup_logging(form: str) -> None:
    """discord.py's logging on stderr: its usual lines, or one JSON object a line (``bot.logs``)."""
    if form == "json":
        discord.utils.setup_logging(formatter=JsonFormatter(), level=logging.INFO)
    else:
        discord.utils.setup_logging(level=logging.INFO)


def run_bot() -> int:
    try:
        settings = load_settings()
        form = log_format()
        metrics_at = metrics_address()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup_logging(form)
    try:
        asyncio.run(run(settings, metrics_at))
    except (StoreError, MetricsUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except discord.LoginFailure:
        print(
            "error: Discord rejected DISCORD_TOKEN; copy the token again from the Bot page", file=sys.stderr
        )
        return 2
    except discord.PrivilegedIntentsRequired:
        print("error: Discord refused the connection over intents; this bot needs none", file=sys.stderr)
        return 2
    except (aiohttp.ClientError, OSError) as exc:
        print(f"error: cannot reach Discord ({exc.__class__.__name__}: {exc})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
