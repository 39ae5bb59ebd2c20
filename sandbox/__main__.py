"""``python -m sandbox``: try the bot without a token, against an in-process fake Discord."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import logging
import sys
import traceback
from pathlib import Path

from bot.store import StoreError

from .core import DEFAULT_PICTURES, PROMPT, Sandbox
from .prompt import LineReader


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox",
        description="Play with the real bot against a fake Discord in this process: no token, no network. "
        "Type help at the prompt.",
    )
    parser.add_argument("--script", type=Path, metavar="FILE", help="run the lines of FILE, then exit")
    parser.add_argument("--seed", type=int, metavar="N", help="seed the dice (reproducible sessions)")
    parser.add_argument(
        "--database",
        type=Path,
        metavar="PATH",
        help="keep the matches in this SQLite file (default: a temporary one)",
    )
    parser.add_argument(
        "--pictures",
        type=Path,
        default=DEFAULT_PICTURES,
        metavar="DIR",
        help=f"where the board pictures go (default: ./{DEFAULT_PICTURES}/)",
    )
    parser.add_argument(
        "--keep-going", action="store_true", help="in a script, go on after a failed line (default: stop)"
    )
    parser.add_argument("--verbose", action="store_true", help="show the bot's log and full tracebacks")
    return parser.parse_args(argv)


async def interactive(sandbox: Sandbox, reader: LineReader) -> None:
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401  (line editing and history for input(), in the reader's thread)
    sandbox.out("Ringside sandbox: the real bot, a fake Discord. Type help for the commands, quit to leave.")
    sandbox.out(
        f"You are in {sandbox.label(sandbox.channel)}. Try: as alice /challenge opponent:@bob game:ring"
    )
    while not sandbox.quit_requested:
        line = await reader.readline()
        if line is None:
            sandbox.out("")
            break
        await sandbox.execute(line)


async def run(args: argparse.Namespace) -> int:
    reader = LineReader(PROMPT)
    async with Sandbox.open(
        database=args.database, pictures=args.pictures, seed=args.seed, verbose=args.verbose, out=reader.say
    ) as sandbox:
        # While a line is awaited (typed, piped), what the bot does by itself is printed as it happens.
        background = asyncio.create_task(sandbox.show_background(), name="sandbox-background")
        try:
            if args.script is not None:
                lines = args.script.read_text(encoding="utf-8").splitlines()
                failed = await sandbox.run_lines(lines, keep_going=args.keep_going)
            elif not reader.terminal:
                failed = await sandbox.run_lines(reader.lines(), keep_going=args.keep_going)
            else:
                await interactive(sandbox, reader)
                failed = 0
        finally:
            background.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await background
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="replace")  # emoji in labels must not kill a session on a C locale
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    if args.script is not None and not args.script.is_file():
        print(f"error: no script file {str(args.script)!r}", file=sys.stderr)
        return 2
    try:
        return asyncio.run(run(args))
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # the bot did not start (or stop) cleanly: say why in one line
        if args.verbose:
            traceback.print_exc()
        print(f"error: the bot failed to start or stop: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
