"""How fast ``/stats`` answers in backgammon for a player with many analysed matches (the PR beside the
rating, issue 24).

    python bench/stats_pr.py [--matches 1000] [--decisions 120] [--samples 50] [--seed 1]

A fresh temporary SQLite file and a fresh bot (``RingsideBot``) on the in-process fake Discord. One
player gets a rated backgammon match (so ``/stats`` shows a rating) and ``--matches`` finished
backgammon matches with an analysis of ``--decisions`` decisions per player each (against the
computer and against people, as their analyses count alike), saved as the bot saves them.

Three figures, each the wall time of ``await fake.slash(..., "stats")`` (to the answer):

- ``first_ms``: the first ``/stats`` after the analyses were saved *without* their per-player rows
  (as analyses saved before migration 019 are): it makes the rows once, reading every analysis's JSON.
- ``median_ms`` (and p90): ``--samples`` answers after that, reading the rows (what every later
  ``/stats`` costs).
- ``ring_median_ms``: ``/stats`` for ring (no analysis, no PR) by the same kind of player: the cost of
  the rest of the command, for comparison.

Prints one JSON object. It asserts that the answers carry the PR and that the fake saw no error; the
figures depend on the machine (say its load, ``uptime``, with them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.client import RingsideBot
from bot.clock import SystemClock
from bot.store import Store
from engine.ai.coaching import Analysis, Decision, PlayerReport, Scale, analysis_to_json
from fakediscord import FakeDiscord, FakeUser


def fake_analysis(rng: random.Random, decisions: int) -> dict[str, object]:
    """An analysis as the bot saves it, with ``decisions`` checker plays per player."""
    made = [
        Decision(
            seat,
            1,
            turn,
            "play",
            "24/18 13/9",
            "8/2 6/2",
            loss,
            True,
            "6-4",
            -loss,
            0.0,
            1 + turn % 7,
            19,
            turn,
        )
        for turn in range(decisions)
        for seat in (0, 1)
        for loss in [max(0.0, rng.gauss(0.01, 0.02))]
    ]
    lost = [sum(d.loss for d in made if d.seat == seat) for seat in (0, 1)]
    report = PlayerReport(0, decisions, lost[0], 0, 0, 0, 0.1, decisions)
    players = (report, replace(report, seat=1, equity_lost=lost[1]))
    chances = tuple(tuple(rng.random() for _ in range(decisions)) for _ in range(1))
    return analysis_to_json(Analysis(players, tuple(made), chances, Scale.MATCH, "2-ply"))


async def timed_stats(fake: FakeDiscord, asker: FakeUser, user: FakeUser, game: str) -> tuple[float, str]:
    start = time.perf_counter()
    result = await fake.slash(asker, "stats", {"user": user, "game": game})
    took = time.perf_counter() - start
    await fake.wait_idle()
    message = result.message
    assert message is not None, "no answer"
    return took, json.dumps(message.embeds)


async def run(matches: int, decisions: int, samples: int, seed: int) -> dict[str, object]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite3"
        async with FakeDiscord(timeout=300.0) as fake:
            store = await Store.open(db)
            bot = RingsideBot(store, clock=SystemClock(), rng=random.Random(seed), run_scheduler=False)
            try:
                await fake.connect(bot)
                alice, bob, carol = fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol")
                for game in ("backgammon", "ring"):
                    played = await bot.sessions.start_match(
                        game=game, options={}, players=(alice.id, bob.id), guild_id=fake.guild.id,
                        channel_id=fake.channel.id, parent_id=None, rated=True,
                    )  # fmt: skip
                    await bot.sessions.ends.resign(played.session.id, bob.id)
                await fake.wait_idle()
                start = time.perf_counter()
                for i in range(matches):
                    opponent = fake.bot_user.id if i % 2 else bob.id
                    made = await store.matches.create(
                        guild_id=fake.guild.id, channel_id=fake.channel.id, parent_id=None,
                        game="backgammon", options={}, players=(alice.id, opponent), state="{}",
                        actions=[], rated=False, now=1000.0 + i,
                    )  # fmt: skip
                    await store.matches.end(made.id, status="finished", result=None, now=1000.5 + i)
                    await store.analyses.request(made.id, 1000.5 + i)
                    await store.analyses.save(made.id, fake_analysis(rng, decisions), 1001.0 + i)
                    await store.analyses.posted(made.id, None)
                setup_s = time.perf_counter() - start
                # As analyses saved before migration 019: no rows yet.
                async with store.connection.transaction() as tx:
                    await tx.execute("DELETE FROM analysis_error_rates")
                first, shown = await timed_stats(fake, carol, alice, "backgammon")
                assert (
                    f"over {matches + 1} analysed matches" in shown or f"over {matches} analysed" in shown
                ), shown
                times = [(await timed_stats(fake, carol, alice, "backgammon"))[0] for _ in range(samples)]
                ring = [(await timed_stats(fake, carol, alice, "ring"))[0] for _ in range(samples)]
                assert not fake.errors, fake.errors
            finally:
                await bot.close()
                await store.close()

    return {
        "matches": matches,
        "decisions_per_player": decisions,
        "samples": samples,
        "setup_s": round(setup_s, 1),
        "first_ms": round(1000 * first, 1),
        "median_ms": round(1000 * statistics.median(times), 2),
        "p90_ms": round(1000 * statistics.quantiles(times, n=10)[-1], 2),
        "ring_median_ms": round(1000 * statistics.median(ring), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--decisions", type=int, default=120)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.matches, args.decisions, args.samples, args.seed))))


if __name__ == "__main__":
    main()
