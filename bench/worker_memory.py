"""How much memory a render worker holds after drawing thousands of pictures of all three games.

    python bench/worker_memory.py [--pictures 4500] [--every 500] [--seed 7]

Starts the bot's lanes with one board worker (``app.render_pool.RenderPool(1)``), then has it draw
``--pictures`` board pictures: the positions of seeded random games of ring, backgammon and space
(a third each, shuffled), each with other players' names, as a bot with many matches would. Every
``--every`` pictures it reads the worker's resident memory (``VmRSS`` in ``/proc/<pid>/status``), and
at the end the sum of the byte budgets of the caches (``engine.memo``). Prints one JSON object; the
issue's bound: a worker stays under 250 MB whatever it draws.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from app.render_pool import RenderPool  # noqa: E402
from bench.render import positions  # noqa: E402
from engine.memo import CACHES  # noqa: E402
from render import Caption  # noqa: E402


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    raise RuntimeError(f"no VmRSS for process {pid}")


async def run(args: argparse.Namespace) -> dict[str, object]:
    third = args.pictures // 3 + 1
    views = [
        s.view(None) for game in ("ring", "backgammon", "space") for s in positions(third, args.seed, game)
    ]
    random.Random(args.seed).shuffle(views)
    views = views[: args.pictures]
    with RenderPool(1, heavy_workers=0) as pool:
        (worker,) = pool.board.pids()
        samples = {0: rss_mb(worker)}
        for n, view in enumerate(views, start=1):
            await pool.png(view, Caption(names=(f"player {n % 97}", f"opponent {n % 89}")))
            if n % args.every == 0 or n == len(views):
                samples[n] = rss_mb(worker)
        assert pool.board.pids() == [worker], "the worker was replaced during the run"
    return {
        "pictures": len(views),
        "worker_rss_mb": samples,
        "max_rss_mb": max(samples.values()),
        "cache_budgets_mb": round(sum(c.budget for c in CACHES) / 2**20, 1),
        "bot_rss_mb": rss_mb(os.getpid()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pictures", type=int, default=4500)
    parser.add_argument("--every", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args))))


if __name__ == "__main__":
    main()
