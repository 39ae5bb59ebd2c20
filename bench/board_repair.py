"""Board repair under boards that can never be posted: does a newer match's failed board still get shown?

    .venv/bin/python bench/board_repair.py [--stuck 120] [--seconds 100] [--kind gone|refused]

The real bot on the in-process fake Discord (``fakediscord``), a manual clock and the scheduler's own
rhythm (``run_due_tasks`` at the earliest stored deadline, 30 s at most, as ``_schedule_forever``
sleeps). ``--stuck`` matches are saved whose boards Discord will never take: ``gone`` their channel
was deleted (404 Unknown Channel), ``refused`` Discord answers 403 Missing Permissions (a permission
an admin may give back: not gone). Then one newer match is saved whose first post fails once. The
run lasts ``--seconds`` of the bot's time and prints when the newer board was shown, how many POSTs
went to the stuck boards, how many warnings were logged, and what became of the stuck matches.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import tempfile
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path and ``bench/render.py`` would shadow
# the ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.client import SCHEDULER_MAX_SLEEP  # noqa: E402
from bot.clock import ManualClock  # noqa: E402
from fakediscord import FakeDiscord  # noqa: E402
from tests.support import start_bot, stop_bot  # noqa: E402


class Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith("cogs.") or record.name.startswith("bot."):
            self.records += 1


async def run(stuck: int, seconds: float, kind: str) -> dict[str, object]:
    counted = Count()
    logging.getLogger().addHandler(counted)
    with tempfile.TemporaryDirectory() as tmp:
        async with FakeDiscord(timeout=30, validate_openapi=False, raise_bot_errors=False) as fake:
            clock = ManualClock()
            bot = await start_bot(fake, Path(tmp) / "db.sqlite3", clock)
            broken = fake.add_text_channel("broken")
            ids = []
            for i in range(stuck + 1):
                a, b = fake.add_user(f"a{i}"), fake.add_user(f"b{i}")
                played = await bot.sessions.start_match(
                    game="ring", options={}, players=(a.id, b.id), guild_id=fake.guild.id,
                    channel_id=(broken if i < stuck else fake.channel).id, parent_id=None, rated=False,
                )  # fmt: skip
                ids.append(played.session.id)
                if i == stuck - 1:
                    if kind == "gone":
                        fake.delete_channel(broken)
                    else:
                        fake.fail("POST", rf"^/channels/{broken.id}/messages$", status=403, times=None)
                    clock.advance(1)
            newer = ids[-1]
            fake.fail("POST", rf"^/channels/{fake.channel.id}/messages$", times=1)
            start = clock.now()
            shown_at = None
            while clock.now() - start <= seconds:
                await bot.run_due_tasks()
                await fake.wait_idle()
                record = await bot.store.matches.get(newer)
                if shown_at is None and record is not None and not record.behind:
                    shown_at = clock.now() - start
                deadline = await bot.store.deadlines.earliest()
                wait = SCHEDULER_MAX_SLEEP if deadline is None else max(0.5, deadline - clock.now())
                clock.advance(min(wait, SCHEDULER_MAX_SLEEP))
            statuses: dict[str, int] = {}
            for match_id in ids[:-1]:
                found = await bot.store.matches.get(match_id)
                assert found is not None
                key = found.status + (" (behind)" if found.behind else "")
                statuses[key] = statuses.get(key, 0) + 1
            posts = [
                r for r in fake.requests if r.method == "POST" and r.path == f"/channels/{broken.id}/messages"
            ]
            await stop_bot(bot)
    logging.getLogger().removeHandler(counted)
    return {
        "kind": kind,
        "stuck": stuck,
        "seconds": seconds,
        "newer_shown_after_s": shown_at,
        "posts_to_stuck": len(posts),
        "warnings": counted.records,
        "stuck_matches": statuses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stuck", type=int, default=120)
    parser.add_argument("--seconds", type=float, default=100.0)
    parser.add_argument("--kind", choices=("gone", "refused"), default="gone")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    for handler in logging.getLogger().handlers:
        handler.setLevel(logging.ERROR)  # warnings are counted, not printed
    print(json.dumps(asyncio.run(run(args.stuck, args.seconds, args.kind)), indent=1))


if __name__ == "__main__":
    main()
