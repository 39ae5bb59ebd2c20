"""SIGTERM a moment into a burst of clicks on the real bot process: what is shown before it exits?

    .venv/bin/python bench/draining.py [--matches 300] [--after 3]

Starts ``python -m bot`` against the local fake Discord server (``fakediscord.FakeDiscordServer``), a
fresh database, ``--matches`` ring matches started through ``/challenge`` and Accept; then the player
on turn of every match clicks Roll at once, and SIGTERM is sent as soon as ``--after`` of those clicks
have been answered. Prints how many clicks were taken (deferred: saved and shown) and refused ("the
bot is restarting"), the seconds from SIGTERM to the exit and the exit code, the boards still behind
what is saved at the exit, the matches whose live boards are not exactly the one the store knows, and
the tracebacks in the bot's output.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sqlite3
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and ``bench/render.py`` would shadow
# the ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from fakediscord import FakeDiscord  # noqa: E402
from tests.bot.test_process import CALLBACK, bot_processes, live_board_ids, rolls_of, start_matches  # noqa: E402


async def run(matches: int, after: int) -> dict[str, object]:
    fake = FakeDiscord(timeout=60, token="bench-token", validate_openapi=False, raise_bot_errors=False)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        async with bot_processes(directory, fake) as start:
            proc = await start()
            started = await start_matches(fake, matches)
            before = len(fake.find_requests("POST", CALLBACK))
            sent = [asyncio.create_task(fake.dispatch_interaction(c)) for c in rolls_of(fake, started)]
            await fake.wait_for(
                lambda: len(fake.find_requests("POST", CALLBACK)) >= before + after, 60, "answers"
            )
            proc.send_signal(signal.SIGTERM)
            term = time.perf_counter()
            answers = await asyncio.gather(*sent)
            await asyncio.wait_for(proc.wait(), 120)
            exited = time.perf_counter() - term
        logged = (directory / "bot.log").read_text()
        with closing(sqlite3.connect(directory / "db.sqlite3")) as check:
            rows = check.execute(
                "SELECT channel_id, message_id, shown_version, board_version FROM matches"
            ).fetchall()
    return {
        "matches": matches,
        "taken": sum(1 for a in answers if a.callback_type == 6),
        "refused_restarting": sum(
            1 for a in answers if a.private is not None and "restarting" in a.private.content
        ),
        "sigterm_to_exit_s": round(exited, 2),
        "exit_code": proc.returncode,
        "behind_at_exit": sum(1 for _, _, shown, version in rows if shown is None or shown < version),
        "not_one_live_board": sum(
            1 for channel, message, *_ in rows if live_board_ids(fake, channel) != [message]
        ),
        "tracebacks": logged.count("Traceback"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300)
    parser.add_argument("--after", type=int, default=3, help="clicks answered before SIGTERM")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.matches, args.after)), indent=1))


if __name__ == "__main__":
    main()
