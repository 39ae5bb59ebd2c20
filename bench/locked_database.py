"""How long commands and controls take to be answered while another process holds the database locked.

    python bench/locked_database.py [--hold 8] [--rounds 3] [--lock-wait SECONDS]

Each round: a fresh temporary SQLite file and a fresh bot (``RingsideBot``) on the in-process fake
Discord, a ring match between two players (its board live) and a pending challenge between two
others. Then a second SQLite connection to the same file takes ``BEGIN EXCLUSIVE`` (what a backup or a
second bot started by mistake does) and releases it ``--hold`` seconds later. While it is held, five
interactions arrive, in this order: the Roll on the live board, ``/challenge``, Accept on the pending
challenge, ``/board`` and ``/stats``.

Per interaction kind: the first answer, from the fake dispatching INTERACTION_CREATE to it recording
the interaction callback (``InteractionResult.answer_seconds``: what decides Discord's "This
interaction failed" after 3 s), its callback type (4 a message, 5 deferred with "thinking…", 6 a
silent acknowledgement), and whether a private "try again" followed. Medians over the rounds.

``--lock-wait``: the store's ``Connection.lock_wait`` (default: the bot's own, ``LOCK_WAIT``); a long
one shows the answer deadline (``cogs.answer_deadline``) deferring handlers still waiting for the lock.
Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.client import RingsideBot  # noqa: E402
from bot.clock import ManualClock  # noqa: E402
from bot.store import Store  # noqa: E402
from fakediscord import FakeDiscord, InteractionResult  # noqa: E402
from fakediscord.matches import challenge_and_accept, user_on_turn  # noqa: E402

KINDS = ("roll", "/challenge", "Accept", "/board", "/stats")


async def one_round(hold: float, lock_wait: float | None, seed: int) -> dict[str, dict[str, Any]]:
    folder = Path(tempfile.mkdtemp(prefix="ringside-locked-"))
    db = folder / "db.sqlite3"
    async with FakeDiscord(timeout=hold + 30) as fake:
        store = await Store.open(db)
        bot = RingsideBot(
            store, clock=ManualClock(), rng=random.Random(seed), run_scheduler=False, render_workers=0
        )
        await fake.connect(bot)
        if lock_wait is not None:
            store.connection.lock_wait = lock_wait
        alice, bob, carol, dave = (fake.add_user(n) for n in ("alice", "bob", "carol", "dave"))
        board = await challenge_and_accept(fake, alice, bob)
        pending = await fake.slash(carol, "challenge", {"opponent": dave, "game": "ring"}, idle=True)
        assert pending.message is not None
        accept = next(c for c in pending.message.custom_ids if c.endswith(":accept"))
        roll = next(b.custom_id for b in board.buttons if b.label == "Roll" and b.custom_id)
        player = user_on_turn(board, {alice.id: alice, bob.id: bob})
        assert player is not None
        other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN EXCLUSIVE")

        async def release() -> None:
            await asyncio.sleep(hold)
            other.execute("ROLLBACK")

        releasing = asyncio.create_task(release())
        first = await fake.click(player, board, roll)
        rest = await asyncio.gather(
            fake.slash(alice, "challenge", {"opponent": carol, "game": "ring"}),
            fake.click(dave, pending.message, accept),
            fake.slash(alice, "board", channel=board.channel_id),
            fake.slash(alice, "stats"),
        )
        await releasing
        other.close()
        await fake.wait_idle()
        results: list[InteractionResult] = [first, *rest]
        found = {kind: _figures(result) for kind, result in zip(KINDS, results, strict=True)}
        await bot.close()
        await store.close()
    return found


def _figures(result: InteractionResult) -> dict[str, Any]:
    private = result.private
    return {
        "answer_s": result.answer_seconds,
        "callback_type": result.callback_type,
        "try_again": private is not None and "try again" in private.content,
    }


async def run(hold: float, rounds: int, lock_wait: float | None) -> dict[str, Any]:
    per_round = [await one_round(hold, lock_wait, seed) for seed in range(1, rounds + 1)]
    kinds: dict[str, Any] = {}
    for kind in KINDS:
        seen = [r[kind] for r in per_round]
        kinds[kind] = {
            "answer_s_median": round(statistics.median(s["answer_s"] for s in seen), 3),
            "answer_s_max": round(max(s["answer_s"] for s in seen), 3),
            "callback_types": sorted({s["callback_type"] for s in seen}),
            "try_again": sum(s["try_again"] for s in seen),
        }
    return {
        "hold_s": hold,
        "rounds": rounds,
        "lock_wait_s": lock_wait,
        "by_kind": kinds,
        "python": sys.version.split()[0],
        "sqlite": sqlite3.sqlite_version,
        "cpus": os.cpu_count(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hold", type=float, default=8.0, help="seconds the other process holds the lock")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lock-wait", type=float, default=None, help="the store's lock wait, seconds")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.hold, args.rounds, args.lock_wait))))


if __name__ == "__main__":
    main()
