"""A finished match as an animated GIF (``/replay``): a frame per whole turn, with its place and text.

``replay_match`` makes it from what is saved of the match (``SavedMatch``): the
bot runs it in a heavy worker process, so neither replaying the log nor drawing hundreds of frames
happens in the bot's process. It notes how many frames it has drawn in a small file the bot reads
(``write_progress``/``read_progress``), so the asker sees "Making the replay… 40 of 212 frames".

A frame is the public board after an action, always from the first player's side
(``GameState.public_view_from(0)``): the board never turns round. A turn made of several actions
(a backgammon play, checker by checker) is one frame once it is whole (``GameView.mid_turn``); an
action that says nothing (a roll chosen before the dice) has none. Under the board a strip says where
the frame is as players count it and what happened ("Game 2, move 7 · White rolled 6-4: 24/18
13/9"), over a bar of the match's progress. Discord takes attachments up to ``GIF_LIMIT`` bytes: a
long match shows every k-th frame (whole turns, never part of one; always the first and the last),
and if the file is still too large the frames get fewer and smaller until it fits (``ATTEMPTS``).
The frames are palette images sharing one palette, so the GIF encoder stores only what changed from
one frame to the next.
"""

from __future__ import annotations

import io
import os
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
    label: str = ""
    """Where the frame is and what happened, for the strip under the board ("Start" on the first)."""


@dataclass(frozen=True, slots=True)
class ReplayGif:
    data: bytes
    shown: int
    """How many of the frames are in the GIF."""
    total: int
    """How many frames the match has (one per whole turn and per cube action, plus the start)."""


def chosen_frames(total: int, most: int) -> list[int]:
    """Indices of at most ``most`` frames out of ``total``, evenly spread, the first and last always."""
    if total <= most:
        return list(range(total))
    if most < 2:
        return [total - 1]
    step = (total - 1) / (most - 1)
    return sorted({round(i * step) for i in range(most)})


def replay_gif(frames: Sequence[Frame], limit: int = GIF_LIMIT, progress: str | None = None) -> ReplayGif:
    """The GIF of ``frames`` (in order), under ``limit`` bytes; the frames drawn so far are noted in
    the file ``progress`` (``write_progress``) when one is named."""
    if not frames:
        raise ValueError("a replay needs at least one frame")
    boards: dict[int, Image.Image] = {}
    for most, scale in ATTEMPTS:
        indices = chosen_frames(len(frames), most)
        missing = [i for i in indices if i not in boards]
        for done, i in enumerate(missing):
            if progress is not None and done % PROGRESS_EVERY == 0:
                write_progress(progress, done, len(missing))
            boards[i] = Image.open(io.BytesIO(render_board(frames[i].view, frames[i].caption)))
        if progress is not None:
            write_progress(progress, len(missing), len(missing))
        pictures = [(boards[i], frames[i].label, i, len(frames) - 1) for i in indices]
        data = _encode(pictures, scale)
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


def replay_match(match: SavedMatch, limit: int = GIF_LIMIT, progress: str | None = None) -> ReplayGif:
    """The GIF of a finished match (a ``GameError`` if its log does not replay), its ending drawn on
    the last frame when play did not end it; ``progress`` as in ``replay_gif``."""
    return replay_gif(match_frames(match), limit, progress)


def match_frames(match: SavedMatch) -> list[Frame]:
    """The frames of a match: its start, then the position after each whole turn or cube action,
    from the first player's side, each labelled with the place of its last action."""
    states = list(replay_states(find_variant(match.game), match.options, match.log))
    last = len(states) - 1
    frames = [Frame(states[0].public_view_from(0), Caption(names=match.names), "Start")]
    for i in range(1, len(states)):
        view = states[i].public_view_from(0)
        if i != last and (view.mid_turn or not view.last_text):
            continue
        ending = match.ending if i == last and states[i].outcome() is None else None
        # The place is the one the action was made at: the position before it.
        place = states[i - 1].view(None).turn_label
        label = " · ".join(part for part in (place, view.last_text or "") if part)
        frames.append(Frame(view, Caption(names=match.names, ending=ending), label))
    return frames


PROGRESS_EVERY = 5
"""Frames drawn between two notes of progress (each note is a small file written and renamed)."""


def write_progress(path: str, done: int, total: int) -> None:
    """Note in the file ``path`` that ``done`` of ``total`` frames are drawn (renamed into place, so a
    reader never sees half of it)."""
    partial = f"{path}.part"
    with open(partial, "w", encoding="ascii") as out:
        out.write(f"{done} {total}")
    os.replace(partial, path)


def read_progress(path: str) -> tuple[int, int] | None:
    """``(done, total)`` as last noted in ``path``, None before the first note."""
    try:
        with open(path, encoding="ascii") as noted:
            done, total = (int(n) for n in noted.read().split())
    except (OSError, ValueError):
        return None
    return done, total


def _encode(pictures: Sequence[tuple[Image.Image, str, int, int]], scale: float) -> bytes:
    """The GIF of (board, label, frame number, last frame number) pictures, boards scaled by ``scale``."""
    first = pictures[0][0]
    width = max(1, round(first.width * scale))
    strip = max(18, round(first.height * scale * STRIP))
    palette = _palette_of(first, resampled=scale != 1.0)
    frames = [
        _frame(board, text, index, last, width, strip, palette) for board, text, index, last in pictures
    ]
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
    board: Image.Image, text: str, index: int, last: int, width: int, strip: int, palette: Image.Image
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
    # The match's progress as a thin bar across the top of the strip, the frame's words under it.
    bar = max(2, strip // 10)
    draw.rectangle((0, height, width, height + bar), fill=dim)
    draw.rectangle((0, height, width * (index / last if last else 1), height + bar), fill=ink)
    size = max(9, round(strip * 0.45))
    face = font(size, bold=False)
    margin = round(size * 0.8)
    while size > 9 and face.getlength(text) > width - 2 * margin:
        size -= 1
        face = font(size, bold=False)
    draw.text((margin, height + bar + (strip - bar) / 2), text, font=face, fill=ink, anchor="lm")
    if canvas.mode == "P":
        return canvas
    return canvas.quantize(palette=palette, dither=Image.Dither.NONE)
