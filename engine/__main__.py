"""Command line: ``python -m engine selfplay --game ring --games N --seed S``."""

from __future__ import annotations

import argparse
import json
import sys

from engine.ai.selfplay import selfplay
from engine.errors import GameError
from engine.registry import VARIANTS, find_variant


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("selfplay", help="play games between two random players and print figures")
    play.add_argument("--game", default="ring", help=f"one of: {', '.join(sorted(VARIANTS))}")
    play.add_argument("--games", type=int, default=1000)
    play.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        variant = find_variant(args.game)
    except GameError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    report = selfplay(variant, args.games, args.seed)
    print(json.dumps(report.to_json()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
