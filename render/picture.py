"""One base for every game's board picture: the canvas, the fixed palette, the PNG out.

A game's renderer module declares a ``BoardPicture``: its name, its empty board (``background``), how
it paints a view on it (``paint``, which draws the shared header and its own footer), the flat colours
its palette keeps exact, and the positions whose pictures give the palette its anti-aliased edge
colours. The base does the rest, the same way for every game: ``render`` (a view to PNG bytes over
a ``PaletteCanvas`` of that background), ``draw`` (the RGB image), the palette and ``write_palette``
(``python -m render palette --game G``).

The fixed palette is optional. A new game's picture leaves ``palette_hex`` out and its palette is
built when it is first drawn (``build_palette``: seconds for a big board, in every process that draws
it). To ship it ready, name ``PICTURE.write_palette`` as the kit's ``palette``, run the command, which
writes ``render/<game>_palette.py``, and pass that module's ``PALETTE_HEX`` as ``palette_hex``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from engine.memo import MB, bytes_lru
from engine.protocol import GameView
from render.look import NO_CAPTION, RGB, Caption
from render.png import PaletteCanvas, canvas_bytes, palette_entries, palette_image, palette_module
from render.text import picture_bytes

SAMPLE_CAPTION = Caption(names=("Alice", "Bob"))
"""The players' names on the pictures the palettes are built from."""


@dataclass(frozen=True, eq=False)
class BoardPicture:
    """A game's picture (see the module docstring). ``draws`` names what it accepts, for the error
    a wrong view gets ("ring states"); ``kind`` is that class."""

    game: str
    kind: type[Any]
    draws: str
    background: Callable[[], Image.Image]
    paint: Callable[[Image.Image, Any, Caption], None]
    base_colours: Callable[[], list[RGB]]
    palette_hex: str = ""
    """The hex text of the fixed palette (``PALETTE_HEX`` of ``render/<game>_palette.py``); empty:
    none shipped, the palette is built on first use (see the module docstring)."""
    palette_views: Callable[[], Sequence[Any]] = tuple
    """The views whose pictures give the palette its blended colours (none: ``base_colours`` only)."""

    def render(self, view: GameView, caption: Caption = NO_CAPTION) -> bytes:
        """The picture of ``view`` as PNG bytes."""
        self._check(view)
        canvas = self.canvas()
        image = canvas.new_image()
        self.paint(image, view, caption)
        return canvas.encode(image)

    def draw(self, view: Any, caption: Caption = NO_CAPTION) -> Image.Image:
        """The picture as an RGB image (no palette: what the palette is built from)."""
        image = self.background().copy()
        self.paint(image, view, caption)
        return image

    def _check(self, view: GameView) -> None:
        if not isinstance(view, self.kind):
            raise TypeError(f"the {self.game} renderer draws {self.draws}, not {type(view).__name__}")

    def canvas(self) -> PaletteCanvas:
        return _canvas(self)

    def palette(self) -> Image.Image:
        """The fixed palette of every picture of the game: ``render/<game>_palette.py``, made by
        ``build_palette`` (building it takes seconds, so it ships ready; a test checks it is current),
        or without one (no ``palette_hex``) ``build_palette`` itself, once per process."""
        return _palette(self)

    def build_palette(self) -> list[RGB]:
        """``base_colours`` exactly, and the blends found in pictures of ``palette_views``."""
        pictures = [self.draw(view, SAMPLE_CAPTION) for view in self.palette_views()]
        return palette_entries(self.base_colours(), pictures)

    def palette_module(self, entries: list[RGB]) -> str:
        """The text of ``render/<game>_palette.py`` holding ``entries``."""
        return palette_module(self.game, entries)

    def write_palette(self) -> Path:
        """Write ``render/<game>_palette.py`` again (``python -m render palette --game <game>``)."""
        path = Path(__file__).with_name(f"{self.game}_palette.py")
        path.write_text(self.palette_module(self.build_palette()))
        return path


@bytes_lru(1 * MB, picture_bytes)
def _palette(picture: BoardPicture) -> Image.Image:
    data = bytes.fromhex("".join(picture.palette_hex.split()))
    entries = [(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)] or picture.build_palette()
    return palette_image(entries, picture.base_colours())


@bytes_lru(18 * MB, canvas_bytes)
def _canvas(picture: BoardPicture) -> PaletteCanvas:
    return PaletteCanvas(picture.background(), _palette(picture))
