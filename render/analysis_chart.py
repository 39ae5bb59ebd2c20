"""The winning-chances chart of an analysed match: one seat's chance to win the game before each
decision, a point each, the games side by side with a gap and a label ("G1", "G2") under each
where it has room (a short game's label is left out rather than written over its neighbour's).

Drawn for a phone: 800 x 420 pixels, large labels, the 50% line marked, the curve in the seat's
colour over a shaded area, and the other seat's colour where that seat is ahead.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from render.theme import BACKGROUND, BOARD, MUTED, TEXT, TRACK, SeatStyle, elide, encode_png, font

WIDTH, HEIGHT = 800, 420
"""The picture's size in pixels."""
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 58, 46
"""Margins around the plot: the percentages on the left, the title above, the game labels below."""
GAP = 14
"""Pixels between two games."""
SUPERSAMPLE = 2


def render_chances(
    games: Sequence[Sequence[float]],
    seat: int,
    name: str,
    styles: tuple[SeatStyle, SeatStyle],
) -> bytes:
    """PNG of ``games`` (per game, seat 0's chance to win it, 0..1, before each decision), drawn as
    the chance of ``seat`` (named ``name``), in ``styles[seat]``'s colour."""
    k = SUPERSAMPLE
    image = Image.new("RGB", (WIDTH * k, HEIGHT * k), BACKGROUND)
    draw = ImageDraw.Draw(image)
    x0, x1, y0, y1 = LEFT * k, (WIDTH - RIGHT) * k, TOP * k, (HEIGHT - BOTTOM) * k
    draw.rectangle((x0, y0, x1, y1), fill=BOARD)
    title = font(22 * k)
    draw.text(
        (x0, 14 * k),
        elide(f"{name}: chance to win each game", title, (WIDTH - LEFT - RIGHT) * k),
        font=title,
        fill=TEXT,
    )
    small = font(16 * k, bold=False)
    for pct in (0, 25, 50, 75, 100):
        y = y1 - (y1 - y0) * pct / 100
        draw.line((x0, y, x1, y), fill=TRACK if pct != 50 else MUTED, width=(2 if pct == 50 else 1) * k)
        label = f"{pct}%"
        draw.text((x0 - 10 * k - small.getlength(label), y - 10 * k), label, font=small, fill=MUTED)
    curves = [[p if seat == 0 else 1.0 - p for p in game] for game in games if game]
    points = sum(len(c) for c in curves)
    if points:
        # A game of one decision is a short dash of its own width: the others share the rest.
        gaps = GAP * k * (len(curves) - 1) + 4.0 * k * sum(len(c) == 1 for c in curves)
        step = (x1 - x0 - gaps) / max(1, points - len(curves)) if points > len(curves) else 0.0
        x = float(x0)
        labels: list[tuple[str, float]] = []
        mine, theirs = styles[seat], styles[1 - seat]
        shades = (_mix(mine.text, BOARD, 0.4), _mix(theirs.text, BOARD, 0.25))
        for n, curve in enumerate(curves):
            width = step * (len(curve) - 1) if len(curve) > 1 else 4.0 * k
            xs = [x + step * i for i in range(len(curve))] if len(curve) > 1 else [x, x + width]
            ys = [y1 - (y1 - y0) * p for p in curve] if len(curve) > 1 else [y1 - (y1 - y0) * curve[0]] * 2
            mid = (y0 + y1) / 2
            # Shade between the curve and the 50% line: whoever is ahead, in that seat's colour.
            for (xa, ya), (xb, yb) in zip(
                zip(xs, ys, strict=True), zip(xs[1:], ys[1:], strict=True), strict=False
            ):
                colour = shades[0] if (ya + yb) / 2 <= mid else shades[1]
                draw.polygon([(xa, mid), (xa, ya), (xb, yb), (xb, mid)], fill=colour)
            draw.line(list(zip(xs, ys, strict=True)), fill=mine.text, width=3 * k, joint="curve")
            labels.append((f"G{n + 1}", (xs[0] + xs[-1]) / 2))
            x = xs[-1] + GAP * k
            if n + 1 < len(curves):
                sep = x - GAP * k / 2
                draw.line((sep, y0, sep, y1), fill=BACKGROUND, width=4 * k)
        # Centred under its game, but within the plot's width.
        boxes = [
            (min(x1 - small.getlength(text), centre - small.getlength(text) / 2), small.getlength(text))
            for text, centre in labels
        ]
        for (text, _), (left, _), shown in zip(
            labels, boxes, shown_labels(boxes, LABEL_ROOM * k), strict=True
        ):
            if shown:
                draw.text((left, y1 + 10 * k), text, font=small, fill=TEXT)
    else:
        text = "No decision was played."
        draw.text(((x0 + x1) / 2 - small.getlength(text) / 2, (y0 + y1) / 2), text, font=small, fill=MUTED)
    image = image.resize((WIDTH, HEIGHT), Image.Resampling.LANCZOS)
    return encode_png(image, colours=0, compress_level=6)


LABEL_ROOM = 8
"""The least room between two game labels, in pixels."""


def shown_labels(boxes: Sequence[tuple[float, float]], room: float) -> list[bool]:
    """Which labels (each ``(left, width)``, in order) are drawn: each that keeps ``room`` from the
    last one drawn; the first always."""
    shown: list[bool] = []
    end = float("-inf")
    for left, width in boxes:
        fits = left >= end + room
        shown.append(fits)
        if fits:
            end = left + width
    return shown


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], share: float) -> tuple[int, int, int]:
    """``share`` of ``a`` over ``b``."""
    return (
        round(a[0] * share + b[0] * (1 - share)),
        round(a[1] * share + b[1] * (1 - share)),
        round(a[2] * share + b[2] * (1 - share)),
    )
