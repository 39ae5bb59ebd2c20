"""``python -m fakediscord.blackbox [--checkout DIR] [--keep DIR]``: see the package's docstring."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from .scenario import BlackBox

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fakediscord.blackbox",
        description="Drive the real bot process against the fake Discord server; exit 1 on any failure.",
    )
    parser.add_argument(
        "--checkout", type=Path, default=REPO, metavar="DIR",
        help="the checkout whose bot is run (default: this one)",
    )  # fmt: skip
    parser.add_argument(
        "--keep", type=Path, metavar="DIR",
        help="keep the database and the bot's log in DIR (default: a temporary directory, removed)",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=1, help="seed of the members' random choices")
    parser.add_argument(
        "--impatient", action="store_true",
        help="click as soon as the next decision shows, before the public board has caught up",
    )  # fmt: skip
    args = parser.parse_args(argv)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="blackbox-") as scratch:
        workdir = args.keep or Path(scratch)
        workdir.mkdir(parents=True, exist_ok=True)
        if any(workdir.iterdir()):
            parser.error(
                f"--keep {workdir}: choose a new or empty directory (the bot starts on a fresh database)"
            )
        box = BlackBox(args.checkout.resolve(), workdir.resolve(), seed=args.seed, impatient=args.impatient)
        ledger = asyncio.run(box.run())
        print(ledger.summary(box.kinds.names))
        logs = ", ".join(str(run.log_path) for run in box.runs)
        print(
            f"({time.perf_counter() - started:.0f} s; the bot's output: {logs}{'' if args.keep else ', removed'})"
        )
    return 1 if ledger.failures else 0


if __name__ == "__main__":
    sys.exit(main())
