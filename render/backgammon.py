"""The backgammon board: 24 points, the bar, the borne-off trays, the cube, the dice and the last play.

Layout (800 x 898): the shared header, then a row for the player at the top (colour, pip count,
match score as players say it: "2 points · 3-away"), the point numbers 13-24, the board, the numbers
12-1, the row of the player at the bottom, the match's line ("5-point match · Crawford game ·
Nackgammon": its length or "money game", the Crawford game, a rule set other than standard) and
the latest action in words. The match's line is under the board, not in its middle, where the
arrows of plays that cross the board ran through it.

- Perspective: the seat on turn (``state.turn_seat``; seat 0 before the first turn) sits at the
  bottom of the public board (a player's own picture, ``state.view(seat)``, has that seat there), so the dice in the picture are always that player's. While a double waits
  for the answer the player asked (take or pass) is at the bottom; while a resignation waits the
  resigner stays there. The points are numbered from the bottom player's view: 1 at the
  bottom right (home board bottom right), 12 bottom left, 13 top left, 24 top right.
- Checkers: up to five per point, the fifth carrying the point's count when there are more.
- The bar between the halves: a hit checker waits in the half of the bar on the side where it must
  come in (the opponent's home board), as GNU Backgammon draws it: the bottom player's in the upper
  half, the top player's in the lower half, each stacked from the middle outwards.
- Borne-off checkers stand on edge in the tray at the right, the top player's in the upper tray and
  the bottom player's in the lower, with their count.
- The cube at the left edge: in the middle when nobody owns it (showing 64, as on a real cube), at
  its owner's end otherwise, hidden when the match has no cube, greyed and crossed out in the
  Crawford game (no doubling); the match's line says "Crawford game" or, after it,
  "post-Crawford". An offered double is shown in the
  bottom player's half (the doubler's), outlined in gold, at its new value.
- The middle gap: the dice on the right (used dice faded; doubles as four dice), or the winner
  across the board.
- The last play (or, while a play is in progress, the moves made so far) in gold: a dashed ring where
  each checker left, an arrow to where it arrived (numbered in order when there are several), a red
  "hit" badge beside a checker that hit. The public board that hands the turn over with the next
  player's forced part already played shows the opponent's play before it too, whole, in blue-grey.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from PIL import Image, ImageDraw

from engine.ai.random_player import random_action
from engine.backgammon.board import BAR, BAR_POINT, CHECKERS, OFF_POINT, RuleSet
from engine.backgammon.game import COLOURS, LEVELS, BackgammonState, Phase
from engine.backgammon.plays import Move
from engine.backgammon.variant import VARIANT
from engine.backgammon.words import move_label, post_crawford
from engine.memo import MB, bytes_lru
from engine.protocol import Forfeit, Outcome
from render import theme
from render.backgammon_palette import PALETTE_HEX
from render.backgammon_pieces import (
    HIT_RED,
    PREVIOUS_COLOUR,
    USED,
    cube_sprite,
    die_opacities,
    previous_moves,
    shown_moves,
    unavailable_cube_sprite,
)
from render.backgammon_words import WINS as _WINS
from render.backgammon_words import header_seat, header_text, row_score
from render.picture import BoardPicture
from render.theme import HIGHLIGHT, MUTED, TEXT, Caption, DieStyle, Point, SeatStyle

WIDTH, HEIGHT = 800, 898
HEADER = 100

POINT_W = 50
"""The width of a point; a checker is ``2 * CHECKER_R`` across."""
CHECKER_R = 23
STEP = 2 * CHECKER_R
SHOWN = 5
"""Checkers drawn on a point at most; the last of them carries the count."""
POINT_LEN = SHOWN * STEP

BOARD_LEFT, BOARD_RIGHT = 62, 730
BOARD_TOP, BOARD_BOTTOM = 162, 722
FRAME = 8
INNER_LEFT, INNER_RIGHT = BOARD_LEFT + FRAME, BOARD_RIGHT - FRAME
INNER_TOP, INNER_BOTTOM = BOARD_TOP + FRAME, BOARD_BOTTOM - FRAME
BAR_LEFT = INNER_LEFT + 6 * POINT_W
BAR_RIGHT = INNER_RIGHT - 6 * POINT_W
BAR_X = (BAR_LEFT + BAR_RIGHT) / 2
GAP_TOP = INNER_TOP + POINT_LEN
GAP_BOTTOM = INNER_BOTTOM - POINT_LEN
MID_Y = (GAP_TOP + GAP_BOTTOM) / 2
TRAY_X = (BOARD_RIGHT + WIDTH) / 2
CUBE_X = BOARD_LEFT / 2
CUBE = 44

TOP_ROW_Y = 122
TOP_NUMBERS_Y = BOARD_TOP - 14
BOTTOM_NUMBERS_Y = BOARD_BOTTOM + 15
BOTTOM_ROW_Y = 770
MATCH_Y = 808
"""The match's line ("5-point match · Crawford game"), under the board and its rows, where no
arrow of a play reaches (in the middle of the board, the arrows of plays that cross it did)."""
FOOTER_Y = 842

NUMBER_SIZE = 22
COUNT_SIZE = 28
ROW_SIZE = 24

FELT: theme.RGB = (30, 52, 46)
FRAME_COLOUR: theme.RGB = (74, 56, 42)
POINT_LIGHT: theme.RGB = (150, 160, 178)
POINT_DARK: theme.RGB = (176, 92, 72)
TRAY: theme.RGB = (22, 36, 32)

WHITE = SeatStyle(
    fill=(238, 230, 208), dark=(150, 138, 112), light=(255, 252, 240), text=(246, 236, 206), shape="disc"
)
BLACK = SeatStyle(
    fill=(44, 44, 52), dark=(12, 12, 16), light=(176, 182, 196), text=(178, 190, 212), shape="ringed"
)
SEATS: tuple[SeatStyle, SeatStyle] = (WHITE, BLACK)
"""Seat 0 (White: ivory discs) and seat 1 (Black: dark discs with a light double ring), named by
``engine.backgammon.game.COLOURS``."""

DICE: tuple[DieStyle, DieStyle] = (DieStyle.WHITE, DieStyle.BLACK)
"""Each seat's dice: ivory with dark pips for White, black with white pips for Black."""

RULE_NAMES = {RuleSet.NACKGAMMON: "Nackgammon", RuleSet.OLDENGLISH: "Old English rules"}


def pip_count_text(pips: int) -> str:
    """A side's pip count as its row reads it: "1 pip", "167 pips"."""
    return f"{pips} pip{'' if pips == 1 else 's'}"


def _paint(image: Image.Image, state: BackgammonState, caption: Caption) -> None:
    """Everything of ``state`` over the static board (``image`` may be wider than ``WIDTH``)."""
    bottom = bottom_seat(state)
    _draw_checkers(image, state, bottom)
    _draw_cube(image, state, bottom)
    result = state.result or caption.ending
    if result is None:
        _draw_gap(image, state, bottom, theme.header_view(state, caption))
    _draw_play(image, state, bottom)
    _draw_counts(image, state, bottom)
    if result is not None:
        _draw_winner(image, state, result)
    _draw_rows(image, state, bottom, caption)
    _draw_header(image, state, caption)
    _draw_footer(image, state)


# -- palette ---------------------------------------------------------------------------------------

PALETTE_MATCHES = (1, 2, 3)
"""Seeded random 5-point matches (one per rule set) whose pictures give the palette its edge colours."""


def base_colours() -> list[theme.RGB]:
    """The flat colours of every backgammon picture, kept exact by the palette (background first)."""
    base: list[theme.RGB] = [
        theme.BACKGROUND,
        FELT,
        FRAME_COLOUR,
        POINT_LIGHT,
        POINT_DARK,
        TRAY,
        TEXT,
        MUTED,
        theme.SHADOW,
        HIGHLIGHT,
        HIT_RED,
        (255, 255, 255),
    ]
    for seat in SEATS:
        base += [seat.fill, seat.dark, seat.light, seat.text]
    for style in DieStyle:
        base += list(theme.die_colours(style))
    return list(dict.fromkeys(base))


def random_match(seed: int, length: int = 5, rules: RuleSet = RuleSet.STANDARD) -> list[BackgammonState]:
    """Every state of one seeded random match, start to finish."""
    rng = random.Random(seed)
    state = VARIANT.new_game({"length": length, "rules": rules.value})
    states = [state]
    while state.outcome() is None:
        nxt = state.apply(random_action(state, rng))
        assert isinstance(nxt, BackgammonState)
        state = nxt
        states.append(state)
    return states


def _palette_states() -> list[BackgammonState]:
    states: list[BackgammonState] = []
    for seed, rules in zip(PALETTE_MATCHES, RuleSet, strict=False):
        played = random_match(seed, 5, rules)
        states += [*played[::15], played[-1]]
    return states


# -- geometry --------------------------------------------------------------------------------------


def bottom_seat(state: BackgammonState) -> int:
    """The seat drawn at the bottom: the viewer of a player's own picture (a turn in progress), else
    the seat on turn (seat 0 before the first turn)."""
    if state.viewer is not None:
        return state.viewer
    if state.phase is Phase.TAKE:
        # The take/pass board is seen from the side of the player it asks.
        return 1 - (state.turn_seat or 0)
    return state.turn_seat or 0


def point_x(point: int) -> float:
    """The middle of point ``point`` (1-24, the bottom player's numbering) across the board."""
    if point <= 6:
        return INNER_RIGHT - POINT_W / 2 - (point - 1) * POINT_W
    if point <= 12:
        return BAR_LEFT - POINT_W / 2 - (point - 7) * POINT_W
    if point <= 18:
        return INNER_LEFT + POINT_W / 2 + (point - 13) * POINT_W
    return BAR_RIGHT + POINT_W / 2 + (point - 19) * POINT_W


def slot(point: int, index: int) -> Point:
    """Where the ``index``-th checker (0: at the edge of the board) of ``point`` is drawn."""
    if point <= 12:
        return (point_x(point), INNER_BOTTOM - CHECKER_R - index * STEP)
    return (point_x(point), INNER_TOP + CHECKER_R + index * STEP)


def bar_slot(top_half: bool, index: int) -> Point:
    """The ``index``-th checker on the bar, from the middle outwards, in the upper or lower half."""
    if top_half:
        return (BAR_X, GAP_TOP - CHECKER_R - 4 - index * STEP)
    return (BAR_X, GAP_BOTTOM + CHECKER_R + 4 + index * STEP)


SLAB_H = 12
SLAB_STEP = 14


def tray_end(top: bool, count: int) -> float:
    """The inner end (toward the middle) of a tray holding ``count`` borne-off checkers."""
    return INNER_TOP + count * SLAB_STEP if top else INNER_BOTTOM - count * SLAB_STEP


def on_screen(seat: int, bottom: int, point: int) -> int:
    """Point ``point`` of ``seat``'s numbering (1-24) as the bottom player numbers it."""
    return point if seat == bottom else 25 - point


def counts(state: BackgammonState, bottom: int) -> list[tuple[int | None, int]]:
    """For points 1-24 of the bottom player (index 0 unused): (seat, checkers) on it."""
    mine, theirs = state.sides[bottom], state.sides[1 - bottom]
    out: list[tuple[int | None, int]] = [(None, 0)]
    for p in range(1, 25):
        if mine[p - 1]:
            out.append((bottom, mine[p - 1]))
        elif theirs[24 - p]:
            out.append((1 - bottom, theirs[24 - p]))
        else:
            out.append((None, 0))
    return out


# -- the static board ------------------------------------------------------------------------------


@bytes_lru(4 * MB, theme.picture_bytes)
def _background() -> Image.Image:
    """Everything that never changes: the frame, the felt, the 24 points, their numbers, the trays."""
    image = Image.new("RGB", (WIDTH, HEIGHT), theme.BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((BOARD_LEFT, BOARD_TOP, BOARD_RIGHT, BOARD_BOTTOM), radius=8, fill=FRAME_COLOUR)
    draw.rectangle((INNER_LEFT, INNER_TOP, BAR_LEFT - 1, INNER_BOTTOM), fill=FELT)
    draw.rectangle((BAR_RIGHT, INNER_TOP, INNER_RIGHT, INNER_BOTTOM), fill=FELT)
    tray = (BOARD_RIGHT + 4, BOARD_TOP, WIDTH - 4, BOARD_BOTTOM)
    draw.rounded_rectangle(tray, radius=8, fill=FRAME_COLOUR)
    for top in (True, False):
        y0, y1 = (INNER_TOP, GAP_TOP) if top else (GAP_BOTTOM, INNER_BOTTOM)
        draw.rectangle((tray[0] + FRAME, y0, tray[2] - FRAME, y1), fill=TRAY)

    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        half = POINT_W / 2 - 2
        for point in range(1, 25):
            x = point_x(point)
            base = INNER_BOTTOM if point <= 12 else INNER_TOP
            tip = base - POINT_LEN + 8 if point <= 12 else base + POINT_LEN - 8
            colour = POINT_DARK if point % 2 else POINT_LIGHT
            d.polygon([((x - half) * s, base * s), ((x + half) * s, base * s), (x * s, tip * s)], fill=colour)

    points = theme.supersampled((WIDTH, HEIGHT), paint)
    image.paste(points, (0, 0), points)
    for point in range(1, 25):
        y = BOTTOM_NUMBERS_Y if point <= 12 else TOP_NUMBERS_Y
        colour = TEXT if point in (1, 6, 7, 12, 13, 18, 19, 24) else MUTED
        theme.label(image, (point_x(point), y), str(point), NUMBER_SIZE, colour, anchor="mm", stroke=0)
    theme.label(image, (TRAY_X, MID_Y), "OFF", 18, MUTED, anchor="mm", stroke=0)
    return image


# -- checkers --------------------------------------------------------------------------------------


@bytes_lru(1 * MB, theme.picture_bytes)
def checker_sprite(seat: int, r: int = CHECKER_R) -> Image.Image:
    """A checker of radius ``r`` seen from above: White a plain ivory disc, Black a dark disc with a
    light double ring."""
    style = SEATS[seat]
    size = 2 * r + 4

    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        c = size / 2 * s

        def circle(radius: float) -> tuple[float, float, float, float]:
            return (c - radius * s, c - radius * s, c + radius * s, c + radius * s)

        d.ellipse(circle(r + 1), fill=theme.SHADOW)
        rim = style.dark if seat == 0 else style.light
        d.ellipse(circle(r - 0.5), fill=style.fill, outline=rim, width=round(2 * s))
        if style.shape == "ringed":
            d.ellipse(circle(r * 0.68), outline=style.light, width=round(2.5 * s))
            d.ellipse(circle(r * 0.3), outline=style.light, width=round(2 * s))
        else:
            d.ellipse(circle(r * 0.68), outline=style.dark, width=round(1.5 * s))

    return theme.supersampled((size, size), paint)


@bytes_lru(1 * MB, theme.picture_bytes)
def slab_sprite(seat: int) -> Image.Image:
    """A borne-off checker standing on edge in the tray."""
    style = SEATS[seat]
    width = round(TRAY_INNER_W)
    rim = style.dark if seat == 0 else style.light

    def paint(d: ImageDraw.ImageDraw, s: int) -> None:
        d.rounded_rectangle(
            (0, 0, width * s - 1, SLAB_H * s - 1), radius=4 * s, fill=style.fill, outline=rim, width=s
        )

    return theme.supersampled((width, SLAB_H), paint)


TRAY_INNER_W = (WIDTH - 4 - FRAME) - (BOARD_RIGHT + 4 + FRAME) - 6


def _draw_checkers(image: Image.Image, state: BackgammonState, bottom: int) -> None:
    for point, (seat, count) in enumerate(counts(state, bottom)):
        if seat is None:
            continue
        sprite = checker_sprite(seat)
        for i in range(min(count, SHOWN)):
            theme.paste(image, sprite, slot(point, i))
    for seat in (bottom, 1 - bottom):
        on_bar = state.sides[seat][BAR]
        sprite = checker_sprite(seat)
        for i in range(min(on_bar, 4)):
            theme.paste(image, sprite, bar_slot(seat == bottom, i))
        off = CHECKERS - sum(state.sides[seat])
        top = seat != bottom
        slab = slab_sprite(seat)
        for i in range(off):
            y = INNER_TOP + i * SLAB_STEP if top else INNER_BOTTOM - SLAB_H - i * SLAB_STEP
            image.paste(slab, (round(TRAY_X - slab.width / 2), round(y + 1 if top else y - 1)), slab)


def _draw_counts(image: Image.Image, state: BackgammonState, bottom: int) -> None:
    """The count of each point holding more than it shows, of the bar and of the trays: over the
    arrows, so an arrow never hides a count."""
    for point, (seat, count) in enumerate(counts(state, bottom)):
        if seat is not None and count > SHOWN:
            theme.number(image, slot(point, SHOWN - 1), str(count), COUNT_SIZE, _ink(seat))
    for seat in (bottom, 1 - bottom):
        on_bar = state.sides[seat][BAR]
        if on_bar > 1:
            theme.number(
                image, bar_slot(seat == bottom, min(on_bar, 4) - 1), str(on_bar), COUNT_SIZE, _ink(seat)
            )
        off = CHECKERS - sum(state.sides[seat])
        if off:
            top = seat != bottom
            end = tray_end(top, off)
            y = end + 14 if top else end - 14
            theme.number(image, (TRAY_X, y), str(off), 24, SEATS[seat].text)


def _ink(seat: int) -> theme.RGB:
    """The colour of a count written on a checker of ``seat`` (outlined dark either way)."""
    return TEXT if seat == 1 else (255, 255, 255)


# -- the play --------------------------------------------------------------------------------------


def _place(state: BackgammonState, bottom: int, seat: int, where: int, leaving: bool) -> Point:
    """Where a move of ``seat`` starts (``leaving``: the first free slot) or ends (the top checker)."""
    if where == BAR_POINT:
        on_bar = state.sides[seat][BAR]
        return bar_slot(seat == bottom, min(on_bar, 3) if leaving else max(0, min(on_bar, 4) - 1))
    if where == OFF_POINT:
        top = seat != bottom
        off = CHECKERS - sum(state.sides[seat])
        end = tray_end(top, max(0, off - 1))
        return (TRAY_X, end + SLAB_H / 2 if top else end - SLAB_H / 2)
    point = on_screen(seat, bottom, where)
    _, count = counts(state, bottom)[point]
    index = min(count, SHOWN - 1) if leaving else max(0, min(count, SHOWN) - 1)
    return slot(point, index)


def _draw_play(image: Image.Image, state: BackgammonState, bottom: int) -> None:
    before = previous_moves(state)
    if before is not None:
        _draw_moves(image, state, bottom, *before, PREVIOUS_COLOUR)
    shown = shown_moves(state)
    if shown is not None:
        _draw_moves(image, state, bottom, *shown, HIGHLIGHT)


def _draw_moves(
    image: Image.Image,
    state: BackgammonState,
    bottom: int,
    seat: int,
    moves: tuple[Move, ...],
    colour: theme.RGB,
) -> None:
    ghost = theme.circle_sprite(CHECKER_R - 2, 3, colour, dashes=10)
    paths: list[tuple[Point, Point]] = []
    for move in moves:
        start = _place(state, bottom, seat, move.src, leaving=True)
        end = _place(state, bottom, seat, move.dst, leaving=False)
        paths.append((start, end))
        if move.src != BAR_POINT:
            theme.paste(image, ghost, start)
    for start, end in paths:
        sprite, corner = arrow_sprite(_key(start), _key(end), colour)
        image.paste(sprite, corner, sprite)
    for move, (_start, end) in zip(moves, paths, strict=True):
        if move.hit:
            dy = -CHECKER_R - 6 if end[1] > MID_Y else CHECKER_R + 6
            theme.paste(image, theme.badge_sprite("hit", 18, HIT_RED, (255, 255, 255)), (end[0], end[1] + dy))
    if len(moves) > 1:
        seen: dict[tuple[Point, Point], int] = {}
        for n, (start, end) in enumerate(paths, start=1):
            again = seen.get((start, end), 0)
            seen[(start, end)] = again + 1
            t = 0.5 + (0.2 if again % 2 else -0.2) * ((again + 1) // 2)
            theme.paste(image, theme.badge_sprite(str(n), 20, colour, theme.SHADOW), _bezier(start, end, t))


def _key(p: Point) -> tuple[int, int]:
    return (round(p[0]), round(p[1]))


def _control(start: Point, end: Point) -> Point:
    """The control point of a move's curve: bowed toward the middle of the board, so that arrows
    along a row arch over the checkers rather than run through them."""
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    dx, dy = end[0] - start[0], end[1] - start[1]
    length = math.hypot(dx, dy) or 1.0
    nx, ny = -dy / length, dx / length
    if (BAR_X - mx) * nx + (MID_Y - my) * ny < 0:
        nx, ny = -nx, -ny
    bow = min(90.0, 0.3 * length)
    return (mx + nx * bow, my + ny * bow)


def _bezier(start: Point, end: Point, t: float) -> Point:
    c = _control(start, end)
    u = 1 - t
    return (
        u * u * start[0] + 2 * u * t * c[0] + t * t * end[0],
        u * u * start[1] + 2 * u * t * c[1] + t * t * end[1],
    )


ARROW_W = 6


@bytes_lru(6 * MB, theme.picture_bytes)
def arrow_sprite(
    start: tuple[int, int], end: tuple[int, int], colour: theme.RGB = HIGHLIGHT
) -> tuple[Image.Image, tuple[int, int]]:
    """An arrow of ``colour`` (gold), outlined in dark, on a curve from ``start`` to the edge of the checker at
    ``end``; the sprite and the canvas position of its top-left corner."""
    samples = [_bezier(start, end, i / 16) for i in range(17)]
    # Stop at the edge of the checker arrived at: drop the points inside it.
    cut = CHECKER_R - 2
    inside = [p for p in samples if math.hypot(p[0] - end[0], p[1] - end[1]) < cut]
    points = samples[: len(samples) - len(inside)] if len(inside) < len(samples) - 2 else samples[:2]
    tip = points[-1]
    before = points[-2]
    head = ARROW_W * 3.0
    dx, dy = tip[0] - before[0], tip[1] - before[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    base = (tip[0] - ux * head, tip[1] - uy * head)
    # The body ends inside the head.
    body = [p for p in points if (p[0] - tip[0]) * ux + (p[1] - tip[1]) * uy < -head * 0.5] or points[:1]
    body.append((tip[0] - ux * head * 0.6, tip[1] - uy * head * 0.6))
    margin = head + ARROW_W + 6
    left = math.floor(min(p[0] for p in samples) - margin)
    top = math.floor(min(p[1] for p in samples) - margin)
    right = math.ceil(max(p[0] for p in samples) + margin)
    bottom = math.ceil(max(p[1] for p in samples) + margin)

    def layer(w: float) -> Callable[[ImageDraw.ImageDraw, int], None]:
        grow = (w - ARROW_W) / 2

        def paint(d: ImageDraw.ImageDraw, s: int) -> None:
            def at(p: Point) -> tuple[float, float]:
                return ((p[0] - left) * s, (p[1] - top) * s)

            d.line([at(p) for p in body], fill=255, width=round(w * s), joint="curve")
            r = w / 2 * s
            x, y = at(body[0])
            d.ellipse((x - r, y - r, x + r, y + r), fill=255)
            wing = head * 0.6 + grow
            tip_g = (tip[0] + ux * grow, tip[1] + uy * grow)
            back = (base[0] - ux * grow, base[1] - uy * grow)
            d.polygon(
                [
                    at(tip_g),
                    at((back[0] - uy * wing, back[1] + ux * wing)),
                    at((back[0] + uy * wing, back[1] - ux * wing)),
                ],
                fill=255,
            )

        return paint

    size = (right - left, bottom - top)
    sprite = theme.tinted(
        [
            (theme.SHADOW, theme.supersampled_mask(size, layer(ARROW_W + 4))),
            (colour, theme.supersampled_mask(size, layer(ARROW_W))),
        ]
    )
    return sprite, (left, top)


# -- the cube, the dice and the middle of the board ------------------------------------------------


def _draw_cube(image: Image.Image, state: BackgammonState, bottom: int) -> None:
    if not state.uses_cube or state.phase is Phase.TAKE:
        return
    if state.cube_owner is None:
        y = MID_Y
    elif state.cube_owner == bottom:
        y = INNER_BOTTOM - CUBE / 2 - 6
    else:
        y = INNER_TOP + CUBE / 2 + 6
    if state.crawford:
        # No doubling in the Crawford game: the cube is shown out of play, not as a 64 to turn.
        theme.paste(image, unavailable_cube_sprite(CUBE), (CUBE_X, y))
        return
    text = "64" if state.cube_owner is None and state.cube == 1 else str(state.cube)
    theme.paste(image, cube_sprite(text, CUBE, False), (CUBE_X, y))


RIGHT_GAP_X = (BAR_RIGHT + INNER_RIGHT) / 2
DIE = 54
SMALL_DIE = 46


def _draw_gap(image: Image.Image, state: BackgammonState, bottom: int, start: BackgammonState) -> None:
    """The middle of the board while the match goes on: the dice (or the double offered, or the
    resignation offered) on the right; the match's line under the board. ``_draw_winner`` covers
    the middle at the end. A complete play that waits for its Confirm (``start``: where it began)
    shows its dice, all used, not the next player's turn."""
    _draw_match(image, state)
    if start is not state and start.dice is not None:
        d1, d2 = start.dice
        _draw_dice(image, start.dice, DICE[start.turn_seat or 0], [USED] * (4 if d1 == d2 else 2))
        return
    mover = state.turn_seat or 0  # the dice, the double and the offer are the seat on turn's
    style = DICE[mover]
    if state.dice is not None and state.phase is not Phase.OPENING:
        _draw_dice(image, state.dice, style, die_opacities(state))
    elif state.phase is Phase.TAKE:
        theme.paste(image, cube_sprite(str(state.cube * 2), 52, True), (RIGHT_GAP_X - 70, MID_Y))
        theme.label(
            image,
            (RIGHT_GAP_X - 34, MID_Y - 13),
            f"{COLOURS[mover]} doubles",
            22,
            SEATS[mover].text,
            anchor="lm",
        )
        # Three answers need a smaller size to stay clear of the tray.
        question, size = ("take, beaver, pass?", 18) if state.may_beaver() else ("take or pass?", 22)
        theme.label(image, (RIGHT_GAP_X - 34, MID_Y + 14), question, size, HIGHLIGHT, anchor="lm")
    elif state.phase is Phase.RESIGN:
        kind = LEVELS[state.offer - 1].value
        theme.label(
            image,
            (RIGHT_GAP_X, MID_Y - 13),
            f"{COLOURS[mover]} resigns",
            22,
            SEATS[mover].text,
            anchor="mm",
        )
        theme.label(image, (RIGHT_GAP_X, MID_Y + 14), f"a {kind}: accept?", 22, HIGHLIGHT, anchor="mm")
    elif state.phase in (Phase.DECIDE, Phase.ROLL):
        words = "to roll or double" if state.phase is Phase.DECIDE else "to roll"
        theme.label(
            image, (RIGHT_GAP_X, MID_Y), f"{COLOURS[mover]} {words}", 22, SEATS[mover].text, anchor="mm"
        )
    elif state.phase is Phase.OPENING:
        theme.label(image, (RIGHT_GAP_X, MID_Y), "Roll to start", 24, TEXT, anchor="mm")


def _draw_dice(image: Image.Image, dice: tuple[int, int], style: DieStyle, opacities: list[float]) -> None:
    """The roll on the right of the middle (doubles as four dice), each die as opaque as said."""
    d1, d2 = dice
    values = [d1] * 4 if d1 == d2 else [d1, d2]
    size = SMALL_DIE if d1 == d2 else DIE
    gap = 10 if d1 == d2 else 16
    x0 = RIGHT_GAP_X - (len(values) * size + (len(values) - 1) * gap) / 2 + size / 2
    for i, (value, opacity) in enumerate(zip(values, opacities, strict=True)):
        theme.draw_die(image, (x0 + i * (size + gap), MID_Y), value, size, style, opacity)


def match_lines(state: BackgammonState) -> list[tuple[str, theme.RGB]]:
    """What the match's line under the board says, part by part: its length (or "money game", with
    "last game" once a player stops the session), the Crawford game, the rules."""
    lines: list[tuple[str, theme.RGB]] = []
    if state.is_money:
        lines.append(("money game", TEXT))
        if state.stopping is not None and state.result is None:
            lines.append(("last game", HIGHLIGHT))
    if state.length > 1:
        lines.append((f"{state.length}-point match", TEXT))
    if state.crawford:
        lines.append(("Crawford game", HIGHLIGHT))
    elif post_crawford(state):
        lines.append(("post-Crawford", HIGHLIGHT))
    if state.rules in RULE_NAMES:
        lines.append((RULE_NAMES[state.rules], MUTED))
    return lines


MATCH_SIZE = 22
MATCH_GAP = " · "


def _draw_match(image: Image.Image, state: BackgammonState) -> None:
    """The match's line, centred under the board: its parts one after the other, each in its colour."""
    parts = match_lines(state)
    face = theme.font(MATCH_SIZE)
    gap = theme.text_length(face, MATCH_GAP)
    x = (WIDTH - sum(theme.text_length(face, text) for text, _ in parts) - gap * (len(parts) - 1)) / 2
    for i, (text, colour) in enumerate(parts):
        if i:
            theme.label(image, (x, MATCH_Y), MATCH_GAP, MATCH_SIZE, MUTED, anchor="lm", stroke=0)
            x += gap
        theme.label(image, (x, MATCH_Y), text, MATCH_SIZE, colour, anchor="lm", stroke=0)
        x += theme.text_length(face, text)


_REASONS: dict[str, str] = {
    Forfeit.RESIGNATION: "by resignation",
    Forfeit.TIMEOUT: "on time",
}


def _draw_winner(image: Image.Image, state: BackgammonState, result: Outcome) -> None:
    box = (INNER_LEFT + 20, GAP_TOP + 4, INNER_RIGHT - 20, GAP_BOTTOM - 4)
    ImageDraw.Draw(image).rounded_rectangle(box, radius=12, fill=theme.SHADOW, outline=HIGHLIGHT, width=3)
    if result.winner is None:
        theme.label(image, (BAR_X, MID_Y), "Level" if state.is_money else "Draw", 36, TEXT, anchor="mm")
        return
    style = SEATS[result.winner]
    title = f"{COLOURS[result.winner]} wins"
    if state.length > 1 and result.reason not in _REASONS:
        title += f" the match {state.score[result.winner]}-{state.score[1 - result.winner]}"
    if state.is_money:
        # The session's result is its points: "White wins +3", "final score 5-2 in points".
        won, lost = state.score[result.winner], state.score[1 - result.winner]
        title += f" +{result.points}"
        points_line = f"money game, {won}-{lost} in points"
        theme.paste(image, checker_sprite(result.winner), (box[0] + 40, MID_Y))
        theme.label(image, (BAR_X + 20, MID_Y - 12), title, 30, style.text, anchor="mm")
        theme.label(
            image, (BAR_X + 20, MID_Y + 20), points_line, 20, HIGHLIGHT, anchor="mm", bold=False, stroke=0
        )
        return
    theme.paste(image, checker_sprite(result.winner), (box[0] + 40, MID_Y))
    theme.label(image, (BAR_X + 20, MID_Y - 12), title, 30, style.text, anchor="mm")
    reason = _REASONS.get(result.reason) or _WINS.get(result.reason, "")
    if reason and state.length > 1 and result.reason not in _REASONS:
        reason = f"last game: {reason}"
    if reason:
        theme.label(
            image,
            (BAR_X + 20, MID_Y + 20),
            reason,
            20,
            HIGHLIGHT,
            anchor="mm",
            bold=False,
            stroke=0,
            cache=False,
        )


# -- the players' rows, the header and the footer --------------------------------------------------


def _draw_rows(image: Image.Image, state: BackgammonState, bottom: int, caption: Caption) -> None:
    """Each player's row beside their half: colour, pip count, (in a match) points scored and the
    reserve of a live clock, the running one marked."""
    for seat, y in ((1 - bottom, TOP_ROW_Y), (bottom, BOTTOM_ROW_Y)):
        running = caption.clock_running == seat
        image.paste(*_row(seat, state.pips(seat), row_score(state, seat), y, caption.clocks[seat], running))


@bytes_lru(4 * MB, theme.picture_bytes)
def _row(
    seat: int, pips: int, score: str, y: int, clock: str = "", running: bool = False
) -> tuple[Image.Image, tuple[int, int]]:
    """One player's row as a strip over the empty background, drawn once per text."""
    top = y - 18
    strip = _background().crop((0, top, WIDTH, top + 36))
    style = SEATS[seat]
    theme.paste(strip, checker_sprite(seat, 15), (BOARD_LEFT + 16, 18))
    face = theme.font(ROW_SIZE)
    name = COLOURS[seat]
    x: float = BOARD_LEFT + 16 + 15 + 12
    theme.label(strip, (x, 18), name, ROW_SIZE, style.text, anchor="lm")
    x += theme.text_length(face, name) + 18
    theme.label(strip, (x, 18), pip_count_text(pips), ROW_SIZE, TEXT, anchor="lm", bold=False, stroke=0)
    right: float = BOARD_RIGHT
    if score:
        theme.label(strip, (right, 18), score, ROW_SIZE, style.text, anchor="rm")
        right -= theme.text_length(face, score) + 28
    if clock:
        _draw_clock(strip, right, clock, running)
    return strip, (0, top)


def _draw_clock(strip: Image.Image, right: float, reserve: str, running: bool) -> None:
    """A live clock's reserve ending at ``right``: the running one on a highlighted tag."""
    face = theme.font(ROW_SIZE)
    width = theme.text_length(face, reserve)
    if running:
        ImageDraw.Draw(strip).rounded_rectangle((right - width - 20, 2, right, 34), radius=8, fill=HIGHLIGHT)
        theme.label(strip, (right - 10, 18), reserve, ROW_SIZE, theme.BACKGROUND, anchor="rm", stroke=0)
    else:
        theme.label(strip, (right - 10, 18), reserve, ROW_SIZE, MUTED, anchor="rm", bold=False, stroke=0)


def _draw_header(image: Image.Image, state: BackgammonState, caption: Caption) -> None:
    # The footer of the message says the same place (``turn_label``), as players count it. A complete
    # play that waits for its Confirm is titled as it began ("White to play 6-4").
    state = theme.header_view(state, caption)
    image.paste(_header(header_seat(state), header_text(state), move_label(state), caption), (0, 0))


@bytes_lru(3 * MB, theme.picture_bytes)
def _header(seat: int | None, text: str, place: str, caption: Caption) -> Image.Image:
    strip = _background().crop((0, 0, WIDTH, HEADER))
    theme.draw_header(strip, SEATS, seat, text, place, caption, WIDTH)
    return strip


def _draw_footer(image: Image.Image, state: BackgammonState) -> None:
    """The latest action in words."""
    text = state.last_text
    if not text:
        return
    face = theme.font(22, bold=False)
    lines = theme.wrap(text, face, WIDTH - 40, max_lines=2)
    y = FOOTER_Y if len(lines) > 1 else FOOTER_Y + 14
    for i, line in enumerate(lines):
        theme.label(
            image, (WIDTH / 2, y + i * 28), line, 22, MUTED, anchor="mm", bold=False, stroke=0, cache=False
        )


# The game, what it draws, its empty board and painter, its palette (see ``render.picture``).
PICTURE = BoardPicture(
    "backgammon",
    BackgammonState,
    "backgammon states",
    _background,
    _paint,
    base_colours,
    PALETTE_HEX,
    _palette_states,
)
render = PICTURE.render
