"""A finished match as an animated GIF (``/replay``): a frame per action, with that action's text.

``replay_match`` makes it from what is saved of the match (``SavedMatch``): the
bot runs it in a heavy worker process, so neither replaying the log nor drawing hundreds of frames
happens in the bot's process.

Each frame is the public board (``render_board`` of the position after the action, as the channel saw
it; every board picture writes the last action's text under the board, "White rolled 6-4: 24/14")
with a strip under it counting the actions ("Action 12 of 97") and a bar of the match's progress. Discord takes
attachments up to ``GIF_LIMIT`` bytes: a long match shows every k-th action (always the first and
the last), and if the file is still too large the frames get fewer and smaller until it fits
(``ATTEMPTS``). The frames are palette images sharing one palette, so the GIF encoder stores only
what changed from one frame to the next.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from engine import find_variant, replay_states
from engine.protocol import GameView, Outcome
from render import render_board
from render.theme import BACKGROUND, MUTED, TEXT, Caption, font

GIF_LIMIT = 8_000_000
"""The largest GIF made, in bytes (Discord's attachment limit for a server without boosts is 8 MB)."""
ATTEMPTS: tuple[tuple[int, float], ...] = (
    (240, 1.0),
    (160, 1.0),
    (160, 0.6),
    (100, 0.5),
    (60, 0.4),
    (30, 0.35),
)
"""(most frames, scale of the board) tried in order until the GIF fits ``GIF_LIMIT``. At full size the
frames keep the board picture's own palette (sharp and quick); smaller ones are resampled."""
FRAME_MS = 900
"""How long each action is shown."""
FIRST_MS = 1500
LAST_MS = 6000
"""The start and the final position stay longer."""
STRIP = 0.06
"""The counting strip's height as a share of the board's height."""


class ReplayTooLarge(ValueError):
    """Even the fewest, smallest frames make a GIF over the limit (never seen in practice)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One picture of the replay: the public view after an action and the caption (names, an
    ending off the board) drawn in the header."""

    view: GameView
    caption: Caption


@dataclass(frozen=True, slots=True)
class ReplayGif:
    data: bytes
    shown: int
    """How many of the frames are in the GIF."""
    total: int
    """How many frames the match has (one per action, plus the start)."""


def chosen_frames(total: int, most: int) -> list[int]:
    """Indices of at most ``most`` frames out of ``total``, evenly spread, the first and last always."""
    if total <= most:
        return list(range(total))
    if most < 2:
        return [total - 1]
    step = (total - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def replay_gif(frames: Sequence[Frame], limit: int = GIF_LIMIT) -> ReplayGif:
    """The GIF of ``frames`` (in order), under ``limit`` bytes."""
    if not frames:
        raise ValueError("a replay needs at least one frame")
    boards: dict[int, Image.Image] = {}
    for most, scale in ATTEMPTS:
        indices = chosen_frames(len(frames), most)
        for i in indices:
            if i not in boards:
                boards[i] = Image.open(io.BytesIO(render_board(frames[i].view, frames[i].caption)))
        data = _encode([(boards[i], i, len(frames) - 1) for i in indices], scale)
        if len(data) <= limit:
            return ReplayGif(data=data, shown=len(indices), total=len(frames))
    raise ReplayTooLarge(f"the replay does not fit in {limit} bytes even with {ATTEMPTS[-1][0]} frames")


@dataclass(frozen=True, slots=True)
class SavedMatch:
    """What is saved of a finished match, all a replay needs: its game, options and action log, the
    players' names, and how it ended when play did not end it (a resignation, a timeout)."""

    game: str
    options: Mapping[str, Any] | None
    log: tuple[str, ...]
    names: tuple[str, str]
    ending: Outcome | None = None


def replay_match(match: SavedMatch, limit: int = GIF_LIMIT) -> ReplayGif:
    """The GIF of a finished match (a ``GameError`` if its log does not replay), its ending drawn on
    the last frame when play did not end it."""
    states = list(replay_states(find_variant(match.game), match.options, match.log))
    last = len(states) - 1
    frames = [
        Frame(
            view=state.view(None),
            caption=Caption(
                names=match.names, ending=match.ending if i == last and state.outcome() is None else None
            ),
        )
        for i, state in enumerate(states)
    ]
    return replay_gif(frames, limit)


def _label(index: int, actions: int) -> str:
    return "Start" if index == 0 else f"Action {index} of {actions}"


def _encode(pictures: Sequence[tuple[Image.Image, int, int]], scale: float) -> bytes:
    """The GIF of (board, action number, number of actions) pictures, boards scaled by ``scale``."""
    first = pictures[0][0]
    width = max(1, round(first.width * scale))
    strip = max(18, round(first.height * scale * STRIP))
    palette = _palette_of(first, resampled=scale != 1.0)
    frames = [_frame(board, index, actions, width, strip, palette) for board, index, actions in pictures]
    durations = [FRAME_MS] * len(frames)
    durations[0] = FIRST_MS
    durations[-1] = LAST_MS
    out = io.BytesIO()
    frames[0].save(
        out,
        format="GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations if len(frames) > 1 else LAST_MS,
        loop=0,
        disposal=1,
    )
    return out.getvalue()


def _palette_of(board: Image.Image, resampled: bool) -> Image.Image:
    """A palette image for the frames: the board's own palette (a board picture is a palette image
    holding the theme's flat colours), or for resampled frames one made of its colours and the
    strip's."""
    if board.mode == "P" and not resampled:
        return board
    rgb = board.convert("RGB")
    holder = Image.new("RGB", (rgb.width, rgb.height + 3))
    holder.paste(rgb, (0, 0))
    for x, colour in enumerate((BACKGROUND, TEXT, MUTED)):
        holder.paste(colour, (x * 10, rgb.height, x * 10 + 10, rgb.height + 3))
    return holder.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


def _index(palette: Image.Image, colour: tuple[int, int, int]) -> int:
    """The palette entry nearest to ``colour``."""
    entries = palette.getpalette() or []
    best, best_distance = 0, 1 << 30
    for i in range(len(entries) // 3):
        r, g, b = entries[3 * i : 3 * i + 3]
        distance = (r - colour[0]) ** 2 + (g - colour[1]) ** 2 + (b - colour[2]) ** 2
        if distance < best_distance:
            best, best_distance = i, distance
    return best


def _frame(
    board: Image.Image, index: int, actions: int, width: int, strip: int, palette: Image.Image
) -> Image.Image:
    height = round(board.height * width / board.width)
    if width == board.width and board.mode == "P" and palette is board:
        canvas = Image.new("P", (width, height + strip), _index(palette, BACKGROUND))
        canvas.putpalette(board.getpalette() or [])
        canvas.paste(board, (0, 0))
        ink: int | tuple[int, int, int] = _index(palette, TEXT)
        dim: int | tuple[int, int, int] = _index(palette, MUTED)
    else:
        canvas = Image.new("RGB", (width, height + strip), BACKGROUND)
        canvas.paste(board.convert("RGB").resize((width, height), Image.Resampling.LANCZOS), (0, 0))
        ink, dim = TEXT, MUTED
    draw = ImageDraw.Draw(canvas)
    size = max(9, round(strip * 0.5))
    face = font(size, bold=False)
    margin = round(size * 1.2)
    middle = height + strip / 2
    label = _label(index, actions)
    draw.text((margin, middle), label, font=face, fill=ink, anchor="lm")
    left = margin * 2 + face.getlength(f"Action {actions} of {actions}")
    right = width - margin
    if right - left > 20:
        bar = max(2, strip // 8)
        draw.rectangle((left, middle - bar / 2, right, middle + bar / 2), fill=dim)
        done = left + (right - left) * (index / actions if actions else 1)
        draw.rectangle((left, middle - bar, done, middle + bar), fill=ink)
    if canvas.mode == "P":
        return canvas
    return canvas.quantize(palette=palette, dither=Image.Dither.NONE)
