"""The shared look of every board picture: palette, fonts and drawing helpers.

Shapes are drawn at ``SCALE`` times their size and reduced, which gives smooth edges that Pillow's
own drawing lacks; every such sprite is cached, so a board picture mostly pastes ready images and
draws a little text. Seat colours never stand alone: each seat's ``SeatStyle`` has a shape as well
(ring: Red tokens round, Blue tokens square), and text names the seat wherever it matters, so the
picture reads for colour-blind players too. The theme holds no seat of its own: each game's renderer
module declares its two ``SeatStyle`` values (``SEATS``), registered in ``render.SEAT_STYLES``.
"""

from __future__ import annotations

from PIL import Image

from render.look import (
    BACKGROUND,
    BOARD,
    CELL,
    CELL_EDGE,
    CONFIRM_OR_UNDO,
    HIGHLIGHT,
    MUTED,
    NO_CAPTION,
    RGB,
    SCALE,
    SHADOW,
    TEXT,
    TRACK,
    Caption,
    Point,
    SeatStyle,
    header_view,
)
from render.png import (
    PNG_BAND,
    RECENT_BANDS_BYTES,
    PaletteCanvas,
    canvas_bytes,
    encode_png,
    palette_entries,
    palette_image,
    palette_module,
)
from render.sprites import (
    STACK_STEP,
    DieStyle,
    arc_arrow_sprite,
    arrow_points,
    badge_sprite,
    circle_sprite,
    cross_sprite,
    die_colours,
    die_sprite,
    draw_die,
    draw_stack,
    faded,
    label,
    number,
    numbered_stack_sprite,
    paste,
    sentence_sprite,
    stack_sprite,
    supersampled,
    supersampled_mask,
    text_sprite,
    tinted,
)
from render.text import (
    FONT_GLYPHS,
    NAME_SIZE,
    drawable,
    elide,
    font,
    font_bytes,
    picture_bytes,
    split_title,
    text_length,
    wrap,
)

# -- header --------------------------------------------------------------------------------------

MAX_NAME_WIDTH = 190
"""The most width one player's name takes on the header: about 14 letters."""
MIN_NAME_WIDTH = 60
"""The least width a name is drawn in (about 4 letters and "…")."""


def draw_header(
    image: Image.Image,
    seats: tuple[SeatStyle, SeatStyle],
    seat: int | None,
    phase_text: str,
    turn_number: int | str,
    caption: Caption = NO_CAPTION,
    width: int = 0,
    text_size: int = NAME_SIZE,
) -> None:
    """The top of every board picture, 100 pixels high, across ``width`` (0: the image's width).
    ``text_size`` is the font size of everything but the title (a picture shown smaller on a phone,
    such as space's, asks for more).

    First line: a token of the seat concerned and the title (whose turn, or who won), and on the
    right "turn N" (the number the message shows too; a text instead of a number is shown as it is,
    a game's own count such as backgammon's "game 2 · move 7"). Second line: the rest of ``phase_text`` (what
    to do, or how the game was won) and on the right each player's name beside a token of their
    seat (after the title instead when the second line has no room). An
    ending in ``caption`` (a resignation, a timeout) replaces the phase: "Blue wins" / "Red resigned".
    A turn that waits for its player's Confirm (``caption.turn_start``; the renderer passes the phase
    and seat of that turn's start, ``header_view``) keeps the title and says "Confirm or undo" under it.
    """
    width = width or image.width
    if caption.ending is not None:
        seat = caption.ending.winner
        phase_text = caption.ending.description
    elif caption.turn_start is not None:
        phase_text = f"{split_title(phase_text.rstrip('.'))[0]}: {CONFIRM_OR_UNDO}"
    title, subtitle = split_title(phase_text.rstrip("."))
    x = 28.0
    if seat is not None:
        draw_stack(image, (44, 40), seats[seat], 1, 17)
        x = 74
    colour = seats[seat].text if seat is not None else TEXT
    title_face = font(32)
    turn_text = turn_number if isinstance(turn_number, str) else f"turn {turn_number}" if turn_number else ""
    turn_room = text_length(font(text_size, bold=False), turn_text) + 22 if turn_text else 0
    title = elide(title, title_face, width - x - 28 - turn_room)
    label(image, (x, 40), title, 32, colour, anchor="lm")
    # The right side, drawn from the right edge leftwards, as far as the title leaves room.
    room_left = x + text_length(title_face, title) + 28
    right = width - 28.0
    if turn_text:
        label(image, (right, 40), turn_text, text_size, MUTED, anchor="rm", bold=False)
        right -= text_length(font(text_size, bold=False), turn_text) + 22
    face = font(text_size)
    names = [(s, drawable(n, text_size)) for s, n in ((1, caption.names[1]), (0, caption.names[0]))]
    names = [(s, n) for s, n in names if n]
    icon = 28 + 18  # a token, its gap before the name and the gap after it

    def each(room: float) -> float:
        return min(MAX_NAME_WIDTH, room / max(1, len(names)) - icon)

    # The names go to the right of the second line, after the subtitle (which they never cut
    # short), while each keeps about 8 letters there; else where they have more room, that line or
    # after the title; with too little room on both, they are left out (the message names them).
    sub_face = font(text_size, bold=False)
    subtitle = elide(subtitle, sub_face, width - 56)
    second = width - 28.0 - (text_length(sub_face, subtitle) + 28 if subtitle else 0) - 28
    y = 80 if each(second) >= min(MAX_NAME_WIDTH, 110) or each(second) >= each(right - room_left) else 40
    fit = each(right - room_left) if y == 40 else each(second)
    if y == 80:
        right = width - 28.0
    if names and fit >= MIN_NAME_WIDTH:
        for s, name in names:
            text = elide(name, face, fit)
            label(image, (right, y), text, text_size, seats[s].text, anchor="rm")
            right -= text_length(face, text) + 8
            draw_stack(image, (right - 11, y), seats[s], 1, 12)
            right -= icon
    if subtitle:
        label(image, (28, 80), subtitle, text_size, TEXT, anchor="lm", bold=False)


__all__ = [
    "BACKGROUND",
    "BOARD",
    "CELL",
    "CELL_EDGE",
    "CONFIRM_OR_UNDO",
    "FONT_GLYPHS",
    "HIGHLIGHT",
    "MAX_NAME_WIDTH",
    "MIN_NAME_WIDTH",
    "MUTED",
    "NAME_SIZE",
    "NO_CAPTION",
    "PNG_BAND",
    "RECENT_BANDS_BYTES",
    "RGB",
    "SCALE",
    "SHADOW",
    "STACK_STEP",
    "TEXT",
    "TRACK",
    "Caption",
    "DieStyle",
    "PaletteCanvas",
    "Point",
    "SeatStyle",
    "arc_arrow_sprite",
    "arrow_points",
    "badge_sprite",
    "canvas_bytes",
    "circle_sprite",
    "cross_sprite",
    "die_colours",
    "die_sprite",
    "draw_die",
    "draw_header",
    "draw_stack",
    "drawable",
    "elide",
    "encode_png",
    "faded",
    "font",
    "font_bytes",
    "header_view",
    "label",
    "number",
    "numbered_stack_sprite",
    "palette_entries",
    "palette_image",
    "palette_module",
    "paste",
    "picture_bytes",
    "sentence_sprite",
    "split_title",
    "stack_sprite",
    "supersampled",
    "supersampled_mask",
    "text_length",
    "text_sprite",
    "tinted",
    "wrap",
]
