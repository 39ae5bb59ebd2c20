"""From a picture to PNG bytes: the fixed palettes (``palette_entries``, ``palette_image``), the
encoder, and ``PaletteCanvas``, which re-uses the compressed bands of an unchanged background."""

from __future__ import annotations

import io
import struct
import zlib
from collections.abc import Iterable, Sequence
from typing import cast

from PIL import Image

from engine.memo import MB
from render.look import RGB


def canvas_bytes(canvas: PaletteCanvas) -> int:
    """A :class:`PaletteCanvas`: its background, its bands raw and compressed, its recent bands."""
    return canvas.size_in_bytes()


# -- output ----------------------------------------------------------------------------------------


def palette_entries(base: Sequence[RGB], pictures: Iterable[Image.Image], size: int = 256) -> list[RGB]:
    """The colours of a fixed palette for ``encode_png``: the ``base`` colours exactly (the flat
    colours of the theme, the seats and the dice), then up to ``size`` entries in all, chosen by
    octree from the colours of ``pictures`` (sample pictures: their anti-aliased edges and blends).

    Each colour of the pictures counts by the logarithm of how often it occurs, so the edge colours
    get entries and the big flat areas do not take them all. Pillow maps a pixel to the palette
    through a cache of 64 levels per channel, so an entry that falls in the same cell as a base
    colour (or near its cell's corner, which the cache looks up) would take that base colour's pixels:
    such entries are dropped until every base colour maps to itself.
    """
    base = list(dict.fromkeys(base))
    counts: dict[RGB, int] = {}
    for picture in pictures:
        for n, colour in picture.convert("RGB").getcolors(1 << 24) or ():
            rgb = cast(RGB, colour)
            counts[rgb] = counts.get(rgb, 0) + n

    def cell(c: RGB) -> RGB:
        return (c[0] >> 2, c[1] >> 2, c[2] >> 2)

    taken = {cell(c) for c in base}
    rest = [c for c in counts if cell(c) not in taken]
    chosen: list[RGB] = []
    if rest and size > len(base):
        weighted = [c for c in rest for _ in range(1 + counts[c].bit_length())]
        strip = Image.new("RGB", (len(weighted), 1))
        strip.putdata(weighted)
        reduced = strip.quantize(size - len(base), method=Image.Quantize.FASTOCTREE)
        flat = (reduced.getpalette() or [])[: 3 * (size - len(base))]
        found = [cast(RGB, tuple(flat[i : i + 3])) for i in range(0, len(flat) - 2, 3)]
        chosen = list(dict.fromkeys(c for c in found if cell(c) not in taken))
    chosen = chosen[: size - len(base)]
    while True:
        mapped = _mapped(base + chosen, base)
        thieves = {i - len(base) for i in mapped if i >= len(base)}
        if not thieves:
            break
        chosen = [c for i, c in enumerate(chosen) if i not in thieves]
    if mapped != list(range(len(base))):
        raise ValueError("two base colours of the palette are too close to tell apart")
    return base + chosen


def _mapped(entries: Sequence[RGB], colours: Sequence[RGB]) -> list[int]:
    """The palette index Pillow maps each of ``colours`` to, with the palette ``entries``."""
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for c in entries for v in c])
    check = Image.new("RGB", (len(colours), 1))
    check.putdata(list(colours))
    return list(check.quantize(palette=palette, dither=Image.Dither.NONE).tobytes())


def palette_image(entries: Sequence[RGB], exact: Sequence[RGB] = ()) -> Image.Image:
    """The palette ``entries`` as a one-pixel "P" image for ``encode_png`` and ``PaletteCanvas``;
    ``ValueError`` unless each of the ``exact`` colours maps to its own entry."""
    if len(entries) > 256:
        raise ValueError("a palette has at most 256 colours")
    wrong = [c for c, i in zip(exact, _mapped(entries, exact), strict=True) if entries[i] != c]
    if wrong:
        raise ValueError(f"the palette does not keep these colours exact: {wrong}")
    palette = Image.new("P", (1, 1))
    palette.putpalette([v for c in entries for v in c])
    return palette


def encode_png(
    image: Image.Image, colours: int = 256, compress_level: int = 3, palette: Image.Image | None = None
) -> bytes:
    """PNG bytes of ``image``, reduced to a palette of ``colours`` (0: keep full colour).

    A board picture holds few colours besides its anti-aliased edges, so a 256-colour palette looks
    the same and makes the file about a third as big and faster to compress. With a fixed
    ``palette`` (see ``palette_image``, one per game) each pixel is only looked up, which is
    several times faster than choosing a palette per picture (measured with ``bench/render.py``:
    ~1 ms against ~5 ms for an 800 x 900 board); ``colours`` is then ignored. ``compress_level`` 1
    (what the board pictures use) makes the file about a tenth bigger than 3 and is the fastest.
    """
    out = io.BytesIO()
    if palette is not None:
        image = image.quantize(palette=palette, dither=Image.Dither.NONE)
    elif colours:
        image = image.quantize(colours, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    image.save(out, format="PNG", compress_level=compress_level)
    return out.getvalue()


PNG_BAND = 64
"""Rows per independently compressed band of ``PaletteCanvas``."""

RECENT_BANDS_BYTES = 2 * MB
"""Bytes of drawn bands (raw and compressed) whose compressed bytes a ``PaletteCanvas`` remembers
(as many bands as fit, counting each twice its raw size: about 18 of the ring board's 55 KB bands)."""


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _adler32_combine(first: int, second: int, length: int) -> int:
    """The Adler-32 checksum of two pieces of data one after the other, from each one's checksum
    and the second's ``length`` (zlib's ``adler32_combine``, which Python's ``zlib`` lacks)."""
    base = 65521
    rem = length % base
    low = first & 0xFFFF
    high = (rem * low) % base
    low = (low + (second & 0xFFFF) + base - 1) % base
    high = (high + (first >> 16) + (second >> 16) + base - rem) % base
    return low | high << 16


class PaletteCanvas:
    """Fast PNG output for pictures drawn over one fixed background with one fixed palette.

    The pictures are drawn on a canvas one pixel wider than the picture (``new_image``), whose last
    column stays at palette index 0: in the bytes of the quantized canvas that column sits where
    PNG puts the filter byte of the next row (0, "none"), so those bytes are the PNG's image data as
    they are. The data is deflated (level 1, zlib's run-length strategy, the fastest measured here)
    in bands of ``PNG_BAND`` rows, each on its own (a full flush between them), so a band that
    equals the background's is not compressed again: its compressed bytes are kept from the
    background, and a band that equals one of a recent picture's takes its compressed bytes from
    ``RECENT_BANDS_BYTES``. The stream's Adler-32 is put together from each band's. Smaller bands would be
    skipped more often, but each costs a flush and a fresh compressor, which measured slower (ring
    board: 15 bands, about one in seven untouched).

    Kept because it pays in time (issue 22, ``bench/png_encoder.py --positions 300``, the same pictures
    quantized to the same palette, load about 1.5): Pillow's own ``save(format="PNG",
    compress_level=1)`` takes 1.17 (ring), 1.03 (backgammon) and 1.35 (space) times as long. Its
    files are smaller, though (filters): 3 %, 35 % and 8 % less (backgammon 50 KB against 78 KB).
    """

    def __init__(self, background: Image.Image, palette: Image.Image) -> None:
        if background.mode != "RGB":
            raise ValueError("the background must be an RGB image")
        self.size = background.size
        self.palette = palette
        entries = palette.getpalette() or []
        self._index0 = cast(RGB, tuple(entries[:3]))
        probe = Image.new("RGB", (1, 1), self._index0).quantize(palette=palette, dither=Image.Dither.NONE)
        if probe.tobytes() != b"\x00":
            raise ValueError("the palette's first colour does not map to index 0")
        wide = Image.new("RGB", (self.size[0] + 1, self.size[1]), self._index0)
        wide.paste(background, (0, 0))
        self.background = wide
        self._row = self.size[0] + 1
        self._band_bytes = self._row * PNG_BAND
        data = self._data(wide)
        self._bands = [data[i : i + self._band_bytes] for i in range(0, len(data), self._band_bytes)]
        self._compressed = [self._deflate(b) for b in self._bands]
        self._adlers = [zlib.adler32(b) for b in self._bands]
        self._recent: dict[tuple[int, int], tuple[bytes, bytes]] = {}
        # A band's raw bytes and its compressed bytes (never more than the raw ones at level 1 with
        # Z_RLE, for this kind of picture, plus a few bytes): so many bands fit in the budget.
        self._recent_kept = max(1, RECENT_BANDS_BYTES // (2 * self._band_bytes + 64))
        width, height = self.size
        header = _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
        self._head = b"\x89PNG\r\n\x1a\n" + header + _chunk(b"PLTE", bytes(entries))

    def new_image(self) -> Image.Image:
        """A fresh copy of the (wide) background to draw on."""
        return self.background.copy()

    def _data(self, wide: Image.Image) -> bytes:
        raw = wide.quantize(palette=self.palette, dither=Image.Dither.NONE).tobytes()
        return b"\x00" + raw[:-1]

    @staticmethod
    def _deflate(band: bytes) -> bytes:
        squeeze = zlib.compressobj(1, zlib.DEFLATED, -15, 8, zlib.Z_RLE)
        return squeeze.compress(band) + squeeze.flush(zlib.Z_FULL_FLUSH)

    def _deflated(self, index: int, adler: int, band: bytes) -> bytes:
        """``_deflate(band)`` for band ``index``, remembered: consecutive pictures of a game differ in
        a few spaces, so a band often equals one of a recent picture (a third of the drawn bands of
        ``bench/render.py``). Its checksum finds it and its bytes are compared, so a hit is exact.

        No lock (a render pool forks workers while the parent may draw): each step is one atomic
        operation on a dict, and a race between threads costs at most a miss."""
        key = (index, adler)
        found = self._recent.pop(key, None)
        if found is None or found[0] != band:
            found = (band, self._deflate(band))
        self._recent[key] = found  # newest last: the dict's order is the order of use
        while len(self._recent) > self._recent_kept:
            try:
                del self._recent[next(iter(self._recent))]
            except (KeyError, RuntimeError, StopIteration):
                break
        return found[1]

    def size_in_bytes(self) -> int:
        """What this canvas holds: its background, its bands raw and compressed, its recent bands."""
        width, height = self.background.size
        held = sum(len(b) for b in self._bands) + sum(len(c) for c in self._compressed)
        return width * height * 3 + held + RECENT_BANDS_BYTES

    def encode(self, image: Image.Image) -> bytes:
        """PNG bytes of ``image`` (a canvas from ``new_image``), cropped to the picture's size."""
        if image.size != self.background.size:
            raise ValueError("the image was not made by this canvas")
        image.paste(self._index0, (self.size[0], 0, self.size[0] + 1, self.size[1]))
        # The image data is a 0 (the first row's filter byte) and then the indices but their last
        # byte: each band is sliced from the indices straight away, not from a copy of them all.
        raw = image.quantize(palette=self.palette, dither=Image.Dither.NONE).tobytes()
        step = self._band_bytes
        parts = list(self._compressed)
        checksum = 1
        for i, known in enumerate(self._bands):
            band = (
                b"\x00" + raw[: step - 1] if i == 0 else raw[i * step - 1 : min((i + 1) * step, len(raw)) - 1]
            )
            if band == known:
                adler = self._adlers[i]
            else:
                adler = zlib.adler32(band)
                parts[i] = self._deflated(i, adler, band)
            checksum = _adler32_combine(checksum, adler, len(band))
        stream = b"".join([b"\x78\x01", *parts, b"\x03\x00", struct.pack(">I", checksum)])
        return self._head + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def palette_module(game: str, entries: list[RGB]) -> str:
    """The text of the module ``render/<game>_palette.py`` holding the fixed palette ``entries``."""
    data = bytes(v for c in entries for v in c).hex()
    lines = [f'    "{data[i : i + 96]}"' for i in range(0, len(data), 96)]
    return (
        f'"""The fixed palette of the {game} pictures, written by ``python -m render palette --game {game}``\n'
        f'from ``render.{game}.PICTURE.build_palette()``: do not edit by hand."""\n\n'
        "PALETTE_HEX = (\n" + "\n".join(lines) + "\n)\n"
    )
