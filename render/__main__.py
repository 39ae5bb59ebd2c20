"""``python -m render sample --game G --out DIR``: write sample board pictures from seeded games.

Each picture shows one situation worth looking at (the start, tall stacks, every kind of roll, a
finished game per way of winning), found by playing seeded random games (``render/<game>_samples.py``,
named by the game's kit), so the same command always writes the same files. ``--only`` picks some of
them by name.

``python -m render rules --game G --out cogs/rules``: the pictures of the rules pages (sheets of small
sample boards with captions, see ``render/rules_pictures.py``), redrawn the same way.

``python -m render palette --game G``: rebuild the game's fixed palette from sample pictures and write
it to ``render/<game>_palette.py`` (after a change of colours or shapes).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from kits import KITS, KitTable
from render import RENDERERS, render_board
from render.rules_pictures import Sheet, rules_pictures
from render.samples import MAX_GAMES, SampleSet

SAMPLES: Mapping[str, SampleSet] = KitTable(KITS, lambda kit: kit.samples)
RULES_SHEETS: Mapping[str, tuple[Sheet, ...]] = KitTable(KITS, lambda kit: kit.rules_sheets)
PALETTES: Mapping[str, Callable[[], Path]] = KitTable(KITS, lambda kit: kit.palette)


class _Parser(argparse.ArgumentParser):
    """Bad arguments end with one line on stderr, not a usage block or a traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _sample(game: str, out: Path, only: list[str] | None, seed: int) -> list[Path]:
    key = game.strip().lower()
    if key not in SAMPLES or key not in RENDERERS:
        known = ", ".join(sorted(set(SAMPLES) & set(RENDERERS)))
        raise ValueError(f"no sample pictures for the game {game!r} (games: {known})")
    sample_set = SAMPLES[key]
    unknown = [n for n in only or () if n not in sample_set.names]
    if unknown:
        raise ValueError(f"no sample called {', '.join(unknown)} (samples: {', '.join(sample_set.names)})")
    samples = sample_set.find(seed, frozenset(only or ()))
    if only:
        samples = [(name, state) for name, state in samples if name in only]
        missing = [n for n in only if n not in {name for name, _ in samples}]
        if missing:
            raise ValueError(f"{', '.join(missing)} did not occur in {MAX_GAMES} seeded random games")
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, state in samples:
        path = out / f"{key}-{name}.png"
        path.write_bytes(render_board(state.view(None)))
        written.append(path)
    return written


def _rules(game: str, out: Path, seed: int) -> list[Path]:
    key = game.strip().lower()
    if key not in RULES_SHEETS or key not in SAMPLES:
        raise ValueError(
            f"no rules pictures for the game {game!r} (games: {', '.join(sorted(RULES_SHEETS))})"
        )
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, data in rules_pictures(RULES_SHEETS[key], SAMPLES[key].find, seed).items():
        path = out / f"{key}-{name}.png"
        path.write_bytes(data)
        written.append(path)
    return written


def _palette(game: str) -> Path:
    key = game.strip().lower()
    if key not in PALETTES:
        raise ValueError(f"no fixed palette for the game {game!r} (games: {', '.join(sorted(PALETTES))})")
    return PALETTES[key]()


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m render", description="Board pictures of the bot's games.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sample = commands.add_parser("sample", help="write sample pictures of a game from seeded random games")
    sample.add_argument("--game", required=True, help="the game's key, e.g. ring")
    sample.add_argument("--out", required=True, type=Path, help="directory to write the PNG files to")
    sample.add_argument("--only", help="comma-separated sample names to write (default: all)")
    sample.add_argument(
        "--seed", type=int, default=1, help="first seed of the random games searched (default 1)"
    )
    rules = commands.add_parser("rules", help="write the pictures of a game's rules pages")
    rules.add_argument("--game", required=True, help="the game's key, e.g. ring")
    rules.add_argument("--out", required=True, type=Path, help="directory to write the PNG files to")
    rules.add_argument(
        "--seed", type=int, default=1, help="first seed of the random games searched (default 1)"
    )
    palette = commands.add_parser("palette", help="rebuild a game's fixed palette (render/<game>_palette.py)")
    palette.add_argument("--game", required=True, help="the game's key, e.g. ring")
    args = parser.parse_args(argv)
    try:
        if args.command == "palette":
            written = [_palette(args.game)]
        elif args.command == "rules":
            written = _rules(args.game, args.out, args.seed)
        else:
            only = [n.strip() for n in args.only.split(",") if n.strip()] if args.only else None
            written = _sample(args.game, args.out, only, args.seed)
    except (ValueError, OSError) as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
