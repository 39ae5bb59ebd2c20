"""``python -m bot [COMMAND ...]``: the bot itself without a command, or one of ``COMMANDS``.

A command is one function taking the parsed arguments and returning the exit code, and one entry
in ``COMMANDS`` naming it, saying what it does and listing its arguments. Every refusal is one line
on stderr and exit code 2, as the bot's own start-up errors are.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.backup import BackupFailed, BackupRefused, backup
from bot.config import database_file
from bot.copy_db import copy_database
from bot.store import StoreError


@dataclass(frozen=True, slots=True)
class Command:
    run: Callable[[argparse.Namespace], int]
    help: str
    arguments: tuple[tuple[str, str], ...] = ()
    """Positional arguments: (name, what it is)."""
    options: tuple[tuple[str, str, str], ...] = ()
    """Required options: (flag, name, what it is)."""


def _refuse(text: str) -> int:
    print(f"error: {text}", file=sys.stderr)
    return 2


def backup_command(args: argparse.Namespace) -> int:
    """Copy the database (``DATABASE``) into a new file while the bot may be running (``bot.backup``)."""
    source = database_file()  # reads .env first
    if os.environ.get("DATABASE_URL", "").strip():
        return _refuse("DATABASE_URL is set: the bot keeps its data in PostgreSQL; back it up with pg_dump")
    try:
        report = backup(source, Path(args.file).expanduser())
    except BackupRefused as exc:
        return _refuse(str(exc))
    except BackupFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(report.line())
    return 0


def copy_db_command(args: argparse.Namespace) -> int:
    """Copy a SQLite database into an empty one, PostgreSQL most often (``bot.copy_db``)."""
    source = Path(args.source).expanduser()
    try:
        copied = asyncio.run(copy_database(source, args.target, say=lambda line: print(f"  {line}")))
    except StoreError as exc:
        return _refuse(str(exc))
    print(f"copied {copied.text()} from {source}")
    return 0


def worker_command(args: argparse.Namespace) -> int:
    """Run heavy jobs only (no Discord), from the PostgreSQL database (``bot.jobs.worker``)."""
    import logging

    from bot.config import ConfigError, heavy_jobs, worker_database_url
    from bot.jobs.worker import run_worker

    try:
        url = worker_database_url()
        lanes = max(1, heavy_jobs("WORKER_JOBS", 1))
    except ConfigError as exc:
        return _refuse(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from app.render_pool import RenderPool

    pool = RenderPool.heavy_only(lanes)
    pool.start()
    try:
        asyncio.run(run_worker(url, lanes, analyser=pool, replayer=pool))
    except StoreError as exc:
        return _refuse(str(exc))
    except KeyboardInterrupt:
        return 0
    finally:
        pool.close(0)
    return 0


COMMANDS: dict[str, Command] = {
    "worker": Command(
        worker_command,
        "run heavy jobs (analyses) only, no Discord, from the bot's PostgreSQL database (DATABASE_URL); "
        "WORKER_JOBS at a time (1)",
    ),
    "backup": Command(
        backup_command,
        "copy the database into FILE, safely while the bot runs",
        (("file", "the new file (must not exist)"),),
    ),
    "copy-db": Command(
        copy_db_command,
        "copy a SQLite database (matches in play, ratings, settings, analyses) into an empty database",
        options=(
            (
                "--from",
                "source",
                "the SQLite file to copy (stop the bot first: later changes are not copied)",
            ),
            ("--to", "target", "the empty database: a postgresql:// URL, or a new SQLite file"),
        ),
    ),
}


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="python -m bot",
        description="Run the Ringside bot (no command), or one of its commands. Settings come from .env.",
    )
    commands = made.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, command in COMMANDS.items():
        sub = commands.add_parser(name, help=command.help, description=command.help)
        for argument, what in command.arguments:
            sub.add_argument(argument, metavar=argument.upper(), help=what)
        for flag, name, what in command.options:
            sub.add_argument(flag, dest=name, metavar=name.upper(), required=True, help=what)
    return made


def main(argv: Sequence[str] | None, run_bot: Callable[[], int]) -> int:
    """Run the command ``argv`` names (``sys.argv[1:]`` when None), else ``run_bot()``."""
    args = parser().parse_args(argv)
    if args.command is None:
        return run_bot()
    return COMMANDS[args.command].run(args)
