"""Does the hand-written PNG encoder (``render.png.PaletteCanvas``) pay for itself?

    python bench/png_encoder.py [--positions 300] [--game ring]

For positions of seeded random games, each game's picture is painted once, then encoded both ways:
``PaletteCanvas.encode`` (bands equal to the background's or a recent picture's are not compressed
again) and Pillow's own ``quantize(palette) + save(format="PNG", compress_level=1)`` of the same
picture with the same fixed palette (the fastest Pillow setting; what the canvas would be replaced
with). Prints one JSON line per game: the median milliseconds of each, their ratio, and the median
file sizes. Both must decode to the same pixels (checked on every picture).
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from PIL import Image

from engine import find_variant
from engine.ai.random_player import random_action
from kits import KITS
from render.theme import Caption


def positions(game: str, count: int) -> list[object]:
    variant = find_variant(game)
    rng = random.Random(1)
    found: list[object] = []
    while len(found) < count:
        state = variant.new_game()
        while state.outcome() is None and len(found) < count:
            if rng.random() < 0.3:
                found.append(state.view(None))
            state = state.apply(random_action(state, rng))
    return found


def measure(game: str, count: int) -> dict[str, object]:
    picture = KITS[game].renderer.get().__self__  # type: ignore[attr-defined]
    canvas = picture.canvas()
    caption = Caption(names=("Alice", "Bob"))
    ours: list[float] = []
    pillow: list[float] = []
    sizes: tuple[list[int], list[int]] = ([], [])
    for view in positions(game, count):
        image = canvas.new_image()
        picture.paint(image, view, caption)
        plain = image.crop((0, 0, *canvas.size))
        start = time.perf_counter()
        data = canvas.encode(image.copy())
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        out = io.BytesIO()
        plain.quantize(palette=canvas.palette, dither=Image.Dither.NONE).save(
            out, format="PNG", compress_level=1
        )
        pillow.append(time.perf_counter() - start)
        a, b = (
            Image.open(io.BytesIO(data)).convert("RGB"),
            Image.open(io.BytesIO(out.getvalue())).convert("RGB"),
        )
        assert a.tobytes() == b.tobytes(), "the two encoders disagree about the pixels"
        sizes[0].append(len(data))
        sizes[1].append(len(out.getvalue()))
    ours_ms, pillow_ms = statistics.median(ours) * 1000, statistics.median(pillow) * 1000
    return {
        "game": game,
        "positions": count,
        "canvas_median_ms": round(ours_ms, 3),
        "pillow_median_ms": round(pillow_ms, 3),
        "pillow_over_canvas": round(pillow_ms / ours_ms, 2),
        "canvas_median_bytes": int(statistics.median(sizes[0])),
        "pillow_median_bytes": int(statistics.median(sizes[1])),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--game", action="append", help="a game (default: every game with a picture)")
    args = parser.parse_args(argv)
    for game in args.game or list(KITS):
        print(json.dumps(measure(game, args.positions)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
