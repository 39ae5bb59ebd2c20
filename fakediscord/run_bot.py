"""``python -m fakediscord.run_bot --api-base URL``: ``python -m bot`` against a local fake Discord.

The product always talks to discord.com; only this launcher, which is not shipped, points discord.py
at another host (see :class:`fakediscord.server.FakeDiscordServer`) before running the bot's own
``main()``, so settings, start-up and error handling are exactly those of ``python -m bot``.
"""

from __future__ import annotations

import argparse
import sys

from .server import point_discord_py_at


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fakediscord.run_bot",
        description="Run the bot (python -m bot, settings from .env and the environment) against a fake Discord server.",
    )
    parser.add_argument(
        "--api-base", required=True, metavar="URL", help="root of the fake server, e.g. http://127.0.0.1:8080"
    )
    args = parser.parse_args(argv)
    point_discord_py_at(args.api_base)

    from app.main import main as bot_main

    return bot_main([])  # the arguments above were for this wrapper: the bot runs without a command


if __name__ == "__main__":
    sys.exit(main())
