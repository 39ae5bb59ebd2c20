"""The space board: the 28-sector ring, the four planets, the counters, dice, cards and scrap heaps.

Sector 1 (Earth, the Terran homeworld) sits at the bottom and numbers grow clockwise, so Planet X
(15) is at the top, Nimrod (8) on the left and Cygnus-7 (22) on the right; "clockwise" on the
picture is clockwise in the rules. Each occupied sector holds a counter per side (red discs for the
Evil Empire, blue squares for the Terran Defense Force), as many layers as units (up to three), the
side's force total written on top and the number of units ("x3") under it. A planet is a larger
coloured circle, ringed in the colour of the side that controls it, with its name beside it in a
tint of its colour (``render.space_geometry.NAMES``): Planet X's over its number at the top and
Earth's under its number at the bottom, outside the ring; Nimrod's and Cygnus-7's inside the ring,
level with the planet, just past the arrows and its unit count (outside, the picture's edge leaves
no room for a word).

Inside the ring, along it: every move since the last roll (``SpaceView.turn_moves``: the turn
being played, or the whole turn just ended until the next player rolls) as a gold arrow numbered in
the order played (the units of one Strategic Move share one; Space Combat Tactics runs backwards;
Defend the Homeworld is dashed, the short way home), in lanes where arrows would lie on each other;
the unit counts; where both sides share a sector (before its fight) the Terrans' counter one
counter further in than the Empire's, both full size. In the middle (``middle_of``): the dice as
rolled (used ones dimmed; a card's addition is a gold "+2" badge on its die) above the side
planets' names, whose roll it is and the current phase word (draw, roll, build, move or fight)
under them. ``render.space_geometry`` holds where the counters, counts and names go, which the
tests read to check that nothing covers anything. The deck and vortex counts are in the bottom
corners.

Under the ring, full width: the current fight or the last fight's result (sector, winner, both
totals, then each side's losses on a line of its own; its sector ringed, dashed, in the winner's
colour), each side's panel (its name and hand size, never the cards: the picture is the same for
every viewer; the sectors of its jammed units; under them its scrap heap as counters grouped by
force), and the footer with the last
action in everyone's words (``SpaceView.public_last``), so every viewer's picture of a position is
the same.

Every text's digits and capitals are at least 20 pixels high (``TEXT_MIN``, a 27 pixel font: 10
pixels once the picture is shown 400 pixels wide, as on a phone; ``tests/render/test_space_text_size.py``
measures it). That is why the picture is taller than wide (phones scroll; the width is what scales)
and why most of the words live under the ring rather than in it.

The fixed palette (``render/space_palette.py``) is written by ``write_palette()``.

Registered in ``render.RENDERERS`` like every game.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path
from typing import NamedTuple, cast

from PIL import Image, ImageDraw

from engine.ai.selfplay import random_states
from engine.memo import MB, bytes_lru
from engine.protocol import Outcome
from engine.space.board import (
    DIRECTION,
    FORCE,
    PLANET_NAMES,
    PLANETS,
    SCRAP,
    SECTORS,
    SHORT,
    owner,
    sector_name,
    unit_label,
    units_of,
)
from engine.space.game import Phase, SpaceState, SpaceView
from engine.space.variant import VARIANT
from render import theme
from render.picture import BoardPicture
from render.space_geometry import (
    CENTER,
    COUNTER_R,
    EARTH_ROOM,
    FACE_R,
    HEADER,
    HEIGHT,
    LABEL_R,
    NAMES,
    PLANET_R,
    RING_R,
    SECTOR_R,
    WIDTH,
    angle,
    counter_places,
    position,
    sector_forces,
)
from render.space_palette import PALETTE_HEX
from render.theme import HIGHLIGHT, MUTED, TEXT, Caption, DieStyle, Point, SeatStyle

ARROW_R = RING_R - PLANET_R - 10
MIDDLE_R = 150
"""The dice, whose roll it is and the phase word are within this distance of the centre, across;
outside it, the unit counts of shared sectors have the room."""
DIE = 54

PHONE_WIDTH = 400
TEXT_MIN = 27
"""The smallest font size of any text on the board: its digits and capitals are 20 pixels high,
10 once the picture is shown ``PHONE_WIDTH`` wide (a phone's chat column), the least that reads
there."""
BIG = 30
"""The size of the words that lead: the current phase, a fight's title, the planets' numbers."""

EMPIRE = SeatStyle(
    fill=(214, 64, 64), dark=(120, 28, 36), light=(255, 150, 140), text=(255, 118, 108), shape="disc"
)
TERRANS = SeatStyle(
    fill=(52, 122, 222), dark=(22, 58, 128), light=(150, 196, 255), text=(116, 174, 255), shape="square"
)
SEATS: tuple[SeatStyle, SeatStyle] = (EMPIRE, TERRANS)
"""Seat 0 (the Evil Empire, red discs) and seat 1 (the Terran Defense Force, blue squares)."""

PLANET_COLOURS: dict[int, theme.RGB] = {
    1: (46, 104, 92),  # Earth
    8: (112, 92, 46),  # Nimrod
    15: (92, 50, 96),  # Planet X
    22: (44, 86, 112),  # Cygnus-7
}
PLANET_INK: dict[int, theme.RGB] = {
    1: (150, 222, 204),
    8: (232, 206, 140),
    15: (222, 172, 230),
    22: (150, 206, 240),
}
"""Each planet's name in a light tint of its colour: the side planets' names share the centre's
line, and their colours keep them apart and tie each to its planet."""
CARD: theme.RGB = (226, 220, 200)
CARD_INK: theme.RGB = theme.die_colours(DieStyle.WHITE)[1]

PHASE_STEPS = ("draw", "roll", "build", "move", "fight")
"""The turn's steps; the picture names the current one only (five words across would not fit
at a size a phone reads)."""
_STEP_OF: dict[Phase, int] = {
    Phase.SHUFFLE: 0,
    Phase.DISCARD: 0,
    Phase.ESPIONAGE: 0,
    Phase.ROLL: 1,
    Phase.DICE: 1,
    Phase.ROLL_CARDS: 1,
    Phase.REROLL: 1,
    Phase.BUILD: 2,
    Phase.JAM: 3,
    Phase.MOVE: 3,
    Phase.ATTACK: 4,
    Phase.DEFEND: 4,
    Phase.FIGHT_DIE: 4,
    Phase.KEEP: 4,
}
ROLLED_BY = ("the Empire's roll", "the Terrans' roll")
FIGHT_PHASES = frozenset({Phase.ATTACK, Phase.DEFEND, Phase.FIGHT_DIE, Phase.KEEP})


# -- the fixed palette -----------------------------------------------------------------------------


def base_colours() -> list[theme.RGB]:
    """The flat colours of every space picture, kept exact by the palette (background first)."""
    base: list[theme.RGB] = [
        theme.BACKGROUND,
        theme.BOARD,
        theme.TRACK,
        theme.CELL,
        theme.CELL_EDGE,
        TEXT,
        MUTED,
        theme.SHADOW,
        HIGHLIGHT,
        (255, 255, 255),
        CARD,
        CARD_INK,
        *PLANET_COLOURS.values(),
        *PLANET_INK.values(),
    ]
    for seat in SEATS:
        base += [seat.fill, seat.dark, seat.light, seat.text]
    base += list(theme.die_colours(DieStyle.WHITE))
    return list(dict.fromkeys(base))


# -- the static board ------------------------------------------------------------------------------

DECK_X = 64
VORTEX_X = WIDTH - 64
CARDS_Y = CENTER[1] + 270
"""The deck and the vortex sit in the bottom corners, outside the ring."""
BELOW = round(CENTER[1] + FACE_R) + EARTH_ROOM + 8
"""Under the ring and Earth's name, full width: the fight's lines, then the sides' panels, then the
footer."""
FIGHT_Y = BELOW + 24
LINE_DY = 36
"""From one line of text under the ring to the next."""
PANEL_Y = (FIGHT_Y + 3 * LINE_DY + 24, FIGHT_Y + 5 * LINE_DY + 34)
"""Each side's panel, two rows (its name and hand; its scrap heap): the first row's middle."""
PANEL_X = 24
HEAP_R = 18
"""The radius of the counters of a scrap heap, each with its force written on it."""


@bytes_lru(4 * MB, theme.picture_bytes)
def _background() -> Image.Image:
    """The board face, the track, the 28 sectors, the planets, their numbers and names, and the
    static words of the panels."""
    image = Image.new("RGB", (WIDTH, HEIGHT), theme.BACKGROUND)

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        cx, cy = CENTER[0] * s, CENTER[1] * s
        face = FACE_R * s
        draw.ellipse((cx - face, cy - face, cx + face, cy + face), fill=theme.BOARD)
        outer, inner = (RING_R + 9) * s, (RING_R - 9) * s
        draw.ellipse((cx - outer, cy - outer, cx + outer, cy + outer), fill=theme.TRACK)
        draw.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), fill=theme.BOARD)
        for sector in range(1, SECTORS + 1):
            x, y = position(sector)
            planet = sector in PLANETS
            r = (PLANET_R if planet else SECTOR_R) * s
            draw.ellipse(
                (x * s - r, y * s - r, x * s + r, y * s + r),
                fill=PLANET_COLOURS[sector] if planet else theme.CELL,
                outline=theme.CELL_EDGE,
                width=3 * s,
            )
        for x in (DECK_X, VORTEX_X):
            _card_shape(draw, s, (x, CARDS_Y), 50, 66, CARD if x == DECK_X else (70, 60, 90))

    board = theme.supersampled((WIDTH, HEIGHT), paint)
    image.paste(board, (0, 0), board)
    for sector in range(1, SECTORS + 1):
        planet = sector in PLANETS
        radius = LABEL_R + 2 if planet else RING_R + SECTOR_R + 20
        theme.label(
            image,
            position(sector, radius),
            str(sector),
            BIG if planet else TEXT_MIN,
            TEXT if planet else MUTED,
            anchor="mm",
            stroke=0,
        )
    for world, name in PLANET_NAMES.items():
        at, anchor = NAMES[world]
        theme.label(image, at, name.upper(), TEXT_MIN, PLANET_INK[world], anchor=anchor, stroke=2)
    for x, word in ((DECK_X, "deck"), (VORTEX_X, "vortex")):
        theme.label(image, (x, CARDS_Y + 54), word, TEXT_MIN, MUTED, anchor="mm", stroke=0)
    return image


def _card_shape(
    draw: ImageDraw.ImageDraw, s: int, center: Point, w: float, h: float, fill: theme.RGB
) -> None:
    x, y = center
    draw.rounded_rectangle(
        ((x - w / 2) * s, (y - h / 2) * s, (x + w / 2) * s, (y + h / 2) * s),
        radius=6 * s,
        fill=fill,
        outline=theme.SHADOW,
        width=2 * s,
    )


@bytes_lru(1 * MB, theme.picture_bytes)
def _card_icon(w: int, h: int) -> Image.Image:
    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        _card_shape(draw, s, (w / 2 + 2, h / 2 + 2), w, h, CARD)

    return theme.supersampled((w + 4, h + 4), paint)


# -- painting --------------------------------------------------------------------------------------


def _paint(image: Image.Image, view: SpaceView, caption: Caption) -> None:
    _draw_planet_control(image, view)
    arrows = turn_arrows(view)
    _draw_moves(image, arrows)
    # The panels' words over the arrows that cross them, the moves' numbers over both.
    _draw_panels(image, view)
    _draw_move_numbers(image, arrows)
    _draw_counters(image, view)
    _draw_centre(image, view, caption.ending)
    _draw_header(image, view, caption)
    _draw_footer(image, view.public_last or "")


def _draw_planet_control(image: Image.Image, view: SpaceView) -> None:
    """A ring in the controller's colour round each controlled planet; gold round the fight."""
    forces = sector_forces(view.positions)
    for planet in PLANETS:
        sides = forces.get(planet)
        if sides is None:
            continue
        present = [seat for seat in (0, 1) if sides[seat][0]]
        if len(present) == 1:
            theme.paste(image, theme.circle_sprite(PLANET_R + 3, 5, SEATS[present[0]].fill), position(planet))
    if view.fight_sector and view.phase in FIGHT_PHASES:
        r = (PLANET_R if view.fight_sector in PLANETS else SECTOR_R) + 6
        theme.paste(image, theme.circle_sprite(r, 5, HIGHLIGHT), position(view.fight_sector))
    elif view.last_fight is not None:
        # Where the last fight was, dashed in the winner's colour.
        fight = view.last_fight
        r = (PLANET_R if fight.sector in PLANETS else SECTOR_R) + 6
        theme.paste(
            image, theme.circle_sprite(r, 4, SEATS[fight.winner].fill, dashes=12), position(fight.sector)
        )


@bytes_lru(2 * MB, theme.picture_bytes)
def _counter(seat: int, layers: int, text: str, radius: int) -> Image.Image:
    """A stack of ``layers`` counters of ``seat`` with ``text`` (the force total) on the top one."""
    style = SEATS[seat]
    sprite = theme.stack_sprite(style, radius, layers)
    counted = theme.numbered_stack_sprite(style, radius, layers, text, TEXT_MIN, sprite.width // 2)
    return counted if counted is not None else sprite


def _draw_counters(image: Image.Image, view: SpaceView) -> None:
    places = counter_places(view.positions)
    for place in places:
        sprite = _counter(place.seat, place.layers, str(place.total), COUNTER_R)
        # The stack grows downwards from its top face: the face is where a single counter's is.
        x, y = place.face
        theme.paste(image, sprite, (x, y - COUNTER_R - 4 + sprite.height / 2 - 2))
    for place in places:
        if place.count_text:
            theme.label(
                image, place.count_at, place.count_text, TEXT_MIN, SEATS[place.seat].text, anchor="mm"
            )


PANEL_BOX = (WIDTH - 2 * PANEL_X, 84)
"""A side's panel under the ring: its width and height (two rows)."""
HAND_X = 250
"""Where a panel's card with the hand size sits, from the panel's left edge."""
JAM_X = 420
"""Where a panel's "jam: 9, 12" starts (the sectors of its units that Jam Transmission holds)."""


def _draw_panels(image: Image.Image, view: SpaceView) -> None:
    """Per side: its name, the hand size (a card with the count) and the scrap heap grouped by
    force, each panel drawn once per content and pasted whole (a dozen small pastes fewer per
    picture)."""
    for seat in (0, 1):
        scrapped = Counter(FORCE[u] for u in units_of(seat) if view.positions[u] == SCRAP)
        heap = tuple(sorted(scrapped.items(), reverse=True))
        jammed = tuple(sorted({view.positions[u] for u in view.jammed if owner(u) == seat} - {SCRAP}))
        sprite = _panel(seat, view.hand_sizes[seat], heap, jammed)
        image.paste(sprite, (PANEL_X, PANEL_Y[seat] - PANEL_BOX[1] // 4), sprite)


@bytes_lru(4 * MB, theme.picture_bytes)
def _panel(seat: int, hand: int, heap: tuple[tuple[int, int], ...], jammed: tuple[int, ...]) -> Image.Image:
    """A side's panel on a clear ground: the side's token and name, its hand (a card with the
    count, "in hand"), the sectors of its jammed units ("jam: 9, 12", in gold; on the ring a word
    per unit would not fit beside the counts), and under them its scrap heap (a counter per force,
    "x2" beside it)."""
    strip = Image.new("RGBA", PANEL_BOX, (0, 0, 0, 0))
    style = SEATS[seat]
    y = PANEL_BOX[1] / 4
    _put(strip, theme.stack_sprite(style, 14, 1), (16, y))
    theme.label(strip, (40, y), SHORT[seat].upper(), TEXT_MIN, style.text, anchor="lm")
    _put(strip, _card_icon(30, 40), (HAND_X, y))
    theme.number(strip, (HAND_X, y), str(hand), TEXT_MIN, TEXT)
    theme.label(strip, (HAND_X + 24, y), "in hand", TEXT_MIN, MUTED, anchor="lm")
    if jammed:
        text = "jam: " + ", ".join(map(str, jammed))
        theme.label(strip, (JAM_X, y), text, TEXT_MIN, HIGHLIGHT, anchor="lm", cache=False)
    sy = PANEL_BOX[1] * 3 / 4
    theme.label(strip, (2, sy), "scrap", TEXT_MIN, MUTED, anchor="lm")
    sx = 100.0
    if not heap:
        theme.label(strip, (sx, sy), "empty", TEXT_MIN, MUTED, anchor="lm")
    for force, n in heap:
        _put(strip, _counter(seat, 1, str(force), HEAP_R), (sx + HEAP_R, sy + 1))
        sx += 2 * HEAP_R + 8
        if n > 1:
            theme.label(strip, (sx - 4, sy), f"x{n}", TEXT_MIN, TEXT, anchor="lm")
            sx += 52
    return strip


def _put(strip: Image.Image, sprite: Image.Image, center: Point) -> None:
    """``sprite`` over the clear ``strip``, centred on ``center``, its edges kept soft."""
    strip.alpha_composite(sprite, (round(center[0] - sprite.width / 2), round(center[1] - sprite.height / 2)))


def _draw_centre(image: Image.Image, view: SpaceView, ending: Outcome | None) -> None:
    cx = CENTER[0]
    theme.number(image, (DECK_X, CARDS_Y), str(view.deck_size), TEXT_MIN, TEXT)
    theme.number(image, (VORTEX_X, CARDS_Y), str(len(view.vortex)), TEXT_MIN, TEXT)
    strip, corner = middle_of(view, ending)
    image.paste(strip, corner, strip)
    line = fight_line(view) if (view.result or ending) is None else None
    if line:
        # Under the ring, full width: the title, then each side's part ("Empire lost E1 (force 5)")
        # on a line of its own (both on one line would not fit at a size a phone reads).
        title, text, colour = line
        theme.label(image, (cx, FIGHT_Y), title, BIG, colour, anchor="mm", stroke=2, cache=False)
        for i, part in enumerate(text.split(LINE_BREAK), start=1):
            theme.label(
                image, (cx, FIGHT_Y + LINE_DY * i), part, TEXT_MIN, colour, anchor="mm", stroke=2, cache=False
            )


def middle_of(view: SpaceView, ending: Outcome | None = None) -> tuple[Image.Image, tuple[int, int]]:
    """The middle of the ring, on a clear ground, and the canvas position of its top-left corner:
    the dice, whose roll it is and the phase word, or at the end who won and how."""
    corner = (round(CENTER[0]) + MIDDLE_BOX[0], round(CENTER[1]) + MIDDLE_BOX[1])
    result = view.result or ending
    if result is not None:
        return _winner(result.winner, result.reason.replace("-", " ")), corner
    rolled = view.rolled or view.dice
    bonus = view.die_bonus or (0,) * len(rolled)
    return _middle(_STEP_OF.get(view.phase, -1), rolled, bonus, _used(view), _roller(view)), corner


MIDDLE_BOX = (-MIDDLE_R, -112, MIDDLE_R, 116)
"""The phase word, the dice and the roll's owner round the centre: left, top, right, bottom
offsets."""


DICE_Y = CENTER[1] - 64
"""The dice's middle: above the side planets' names, which are level with the centre."""
ROLLER_Y = CENTER[1] + 54
PHASE_Y = CENTER[1] + 93
"""Under the side planets' names, whose roll it is, then the phase word."""


def _clear_middle() -> Image.Image:
    return Image.new("RGBA", (MIDDLE_BOX[2] - MIDDLE_BOX[0], MIDDLE_BOX[3] - MIDDLE_BOX[1]), (0, 0, 0, 0))


def _used(view: SpaceView) -> tuple[bool, ...]:
    """Per die, whether it is used up in this move phase."""
    return view.dice_used or (False,) * len(view.dice)


def _roller(view: SpaceView) -> int | None:
    return None if view.phase in (Phase.ROLL, Phase.DICE) else view.turn_seat


@bytes_lru(6 * MB, theme.picture_bytes)
def _middle(
    current: int, dice: tuple[int, ...], bonus: tuple[int, ...], used: tuple[bool, ...], roller: int | None
) -> Image.Image:
    """The current step (in gold), the dice as rolled (used ones dimmed), each card addition a gold
    "+N" badge on its die, and whose roll it is; drawn once per content on a clear ground (the
    arrows along the ring pass behind its corners) and pasted whole."""
    cx, cy = CENTER
    left, top = round(cx) + MIDDLE_BOX[0], round(cy) + MIDDLE_BOX[1]
    strip = _clear_middle()
    cx = cx - left
    if current >= 0:
        theme.label(strip, (cx, PHASE_Y - top), PHASE_STEPS[current], BIG, HIGHLIGHT, anchor="mm")
    y = DICE_Y - top
    if not dice:
        theme.label(strip, (cx, y), "no roll yet", TEXT_MIN, MUTED, anchor="mm")
        return strip
    gap = 12
    x0 = cx - (len(dice) * DIE + (len(dice) - 1) * gap) / 2 + DIE / 2
    if len(dice) == 3:
        x0 -= HYPER_ROOM / 2  # the row with its "hyper" label centred
    for i, (value, extra, spent) in enumerate(zip(dice, bonus, used, strict=True)):
        x = x0 + i * (DIE + gap)
        opacity = 0.3 if spent else 1.0
        _put(strip, theme.die_sprite(value, DIE, DieStyle.WHITE, round(opacity, 2)), (x, y))
        if extra:
            # The card addition: "+2" on the die's top right corner ("4+2": a 6 to move by).
            badge = _bonus_badge(extra) if not spent else theme.faded(_bonus_badge(extra), 0.45)
            _put(strip, badge, (x + DIE / 2 - 4, y - DIE / 2 + 2))
    if len(dice) == 3:
        # Only Hyper Jump gives a third die (the engine adds it after the two normal ones).
        x = x0 + 2 * (DIE + gap)
        theme.label(strip, (x + DIE / 2 + 4, y), "hyper", TEXT_MIN, HIGHLIGHT, anchor="lm")
    if roller is not None:
        theme.label(strip, (cx, ROLLER_Y - top), ROLLED_BY[roller], TEXT_MIN, SEATS[roller].text, anchor="mm")
    return strip


HYPER_ROOM = 90
"""The width the "hyper" label after a third die takes."""


@bytes_lru(1 * MB, theme.picture_bytes)
def _bonus_badge(extra: int) -> Image.Image:
    return theme.badge_sprite(f"+{extra}", TEXT_MIN, HIGHLIGHT, theme.SHADOW)


LINE_BREAK = " · "
"""Between the two sides' losses in ``fight_line``'s text; the picture puts each on a line."""


def fight_line(view: SpaceView) -> tuple[str, str, theme.RGB] | None:
    """The current fight's totals (units plus cards so far) while it is fought, otherwise the last
    fight's result: where, who won with both totals, and the units each side lost."""
    fight = view.last_fight
    if fight is not None and not (view.phase in FIGHT_PHASES and view.fight_sector != fight.sector):
        a, d = fight.attacker, 1 - fight.attacker
        title = (
            f"Fight in {sector_name(fight.sector)}: {SHORT[fight.winner]} win "
            f"{max(fight.attack, fight.defense)}-{min(fight.attack, fight.defense)}"
        )
        losses = [
            f"{SHORT[seat]} lost {_losses(fight.destroyed_of(seat))}"
            for seat in (a, d)
            if fight.destroyed_of(seat)
        ]
        return title, LINE_BREAK.join(losses) or "nothing lost", SEATS[fight.winner].text
    if view.fight_sector and view.phase in FIGHT_PHASES:
        sector = view.fight_sector
        attacker = view.turn_seat
        totals = [0, 0]
        for u, where in enumerate(view.positions):
            if where == sector:
                totals[owner(u)] += FORCE[u]
        bonus = {attacker: view.attack_bonus, 1 - attacker: view.defense_bonus}
        parts = []
        for seat in (attacker, 1 - attacker):
            extra = f"+{bonus[seat]}" if bonus[seat] else ""
            parts.append(f"{SHORT[seat]} {totals[seat]}{extra}")
        return f"Fight in sector {sector}", f"{parts[0]} against {parts[1]}", HIGHLIGHT
    return None


def _losses(units: tuple[int, ...]) -> str:
    """ "T2, T12 (force 5)": the units lost and their force together."""
    return f"{', '.join(unit_label(u) for u in units)} (force {sum(FORCE[u] for u in units)})"


class Arrow(NamedTuple):
    """One numbered arrow of the turn: a move (the units of a Strategic Move together)."""

    number: int
    source: int
    target: int
    direction: int
    """+1 clockwise, -1 counterclockwise (along the ring the way the units went)."""
    jump: bool
    """Defend the Homeworld: straight home, drawn dashed the short way."""


def turn_arrows(view: SpaceView) -> list[Arrow]:
    """The arrows of the moves since the last roll, in the order played (one per move number)."""
    arrows: dict[int, Arrow] = {}
    for move in view.turn_moves:
        if move.number in arrows:
            continue
        forwards = DIRECTION[owner(move.unit)]
        if move.how == "defend-the-homeworld":
            clockwise = (move.target - move.source) % SECTORS <= SECTORS // 2
            arrows[move.number] = Arrow(move.number, move.source, move.target, 1 if clockwise else -1, True)
        else:
            direction = -forwards if move.how == "space-combat-tactics" else forwards
            arrows[move.number] = Arrow(move.number, move.source, move.target, direction, False)
    return [a for _, a in sorted(arrows.items())]


def _span(arrow: Arrow) -> tuple[float, float]:
    """The angles (degrees clockwise from twelve o'clock) an arrow covers, low to high."""
    steps = (arrow.target - arrow.source) * arrow.direction % SECTORS or SECTORS
    start = angle(arrow.source)
    end = start + arrow.direction * steps * 360 / SECTORS
    return (min(start, end), max(start, end))


def arrow_lanes(arrows: list[Arrow]) -> list[int]:
    """A lane per arrow (0 along the ring, 1 and 2 further in) so that arrows covering the same part
    of the ring lie side by side rather than on each other."""
    lanes: list[int] = []
    placed: list[tuple[float, float, int]] = []
    for arrow in arrows:
        lo, hi = _span(arrow)
        taken = set()
        for plo, phi, lane in placed:
            for shift in (-360.0, 0.0, 360.0):
                if lo < phi + shift - 1 and plo + shift + 1 < hi:
                    taken.add(lane)
        lane = next(n for n in range(len(arrows) + 1) if n not in taken)
        lane = min(lane, MAX_LANE)
        lanes.append(lane)
        placed.append((lo, hi, lane))
    return lanes


MAX_LANE = 2
ARROW_LANE = 16


def _draw_moves(image: Image.Image, arrows: list[Arrow]) -> None:
    """Every move since the last roll: a ring round each sector left (dashed) and reached (solid),
    and an arrow per move."""
    for arrow in arrows:
        theme.paste(
            image,
            theme.circle_sprite(_radius(arrow.source) + 4, 3, HIGHLIGHT, dashes=10),
            position(arrow.source),
        )
    for arrow in arrows:
        theme.paste(
            image, theme.circle_sprite(_radius(arrow.target) + 4, 4, HIGHLIGHT), position(arrow.target)
        )
    lanes = arrow_lanes(arrows)
    for arrow, lane in zip(arrows, lanes, strict=True):
        sprite, corner = _move_arrow(arrow.source, arrow.target, arrow.direction, lane, arrow.jump)
        image.paste(sprite, corner, sprite)


def _draw_move_numbers(image: Image.Image, arrows: list[Arrow]) -> None:
    """Each move's number on its arrow, in the order played."""
    for arrow, lane in zip(arrows, arrow_lanes(arrows), strict=True):
        lo, hi = _span(arrow)
        a = math.radians((lo + hi) / 2)
        radius = ARROW_R - lane * ARROW_LANE
        theme.paste(
            image,
            _step_badge(arrow.number),
            (CENTER[0] + radius * math.sin(a), CENTER[1] - radius * math.cos(a)),
        )


@bytes_lru(1 * MB, theme.picture_bytes)
def _step_badge(n: int) -> Image.Image:
    """The number of a move in its turn: dark on gold, like the arrow it sits on."""
    return theme.badge_sprite(str(n), TEXT_MIN, HIGHLIGHT, theme.SHADOW)


def _radius(sector: int) -> int:
    """How far out a mark round ``sector`` sits (round a planet: outside its control ring)."""
    return PLANET_R + 6 if sector in PLANETS else SECTOR_R


@bytes_lru(6 * MB, theme.picture_bytes)
def _move_arrow(
    source: int, target: int, direction: int, lane: int = 0, dashed: bool = False
) -> tuple[Image.Image, tuple[int, int]]:
    steps = (target - source) * direction % SECTORS or SECTORS
    start = angle(source)
    end = start + direction * steps * 360 / SECTORS
    radius = ARROW_R - lane * ARROW_LANE
    return theme.arc_arrow_sprite(CENTER, radius, start, end, HIGHLIGHT, 6, dashed=dashed)


@bytes_lru(1 * MB, theme.picture_bytes)
def _winner(winner: int | None, how: str) -> Image.Image:
    """The middle at the end, where the phase word and the dice were: who won, their counter, how."""
    left, top = round(CENTER[0]) + MIDDLE_BOX[0], round(CENTER[1]) + MIDDLE_BOX[1]
    strip = _clear_middle()
    cx = CENTER[0] - left
    if winner is None:
        theme.label(strip, (cx, DICE_Y - top), "Draw", 44, TEXT, anchor="mm")
        return strip
    style = SEATS[winner]
    _put(strip, theme.stack_sprite(style, 22, 1), (cx, PHASE_Y - top))
    theme.label(strip, (cx, DICE_Y - top), f"{SHORT[winner]} win", 40, style.text, anchor="mm")
    theme.label(strip, (cx, ROLLER_Y - top), how, TEXT_MIN, HIGHLIGHT, anchor="mm")
    return strip


# -- text ------------------------------------------------------------------------------------------


def _draw_header(image: Image.Image, view: SpaceView, caption: Caption) -> None:
    view = theme.header_view(view, caption)
    seat = view.result.winner if view.result is not None else view.turn_seat
    if view.result is None and view.deciding in (0, 1):
        # The seat asked to decide, in its colour: a response window's "<seat> may play ...", or the
        # fight's winner choosing what it keeps ("<winner> won in sector N").
        seat = view.deciding
    image.paste(_header(seat, view.phase_text, view.turn_number, caption), (0, 0))


@bytes_lru(3 * MB, theme.picture_bytes)
def _header(seat: int | None, phase_text: str, turn_number: int, caption: Caption) -> Image.Image:
    strip = _background().crop((0, 0, WIDTH, HEADER))
    theme.draw_header(strip, SEATS, seat, phase_text, turn_number, caption, WIDTH, text_size=TEXT_MIN)
    return strip


def _draw_footer(image: Image.Image, text: str) -> None:
    if not text:
        return
    face = theme.font(TEXT_MIN, bold=False)
    lines = theme.wrap(text, face, WIDTH - 32, max_lines=2)
    y = HEIGHT - 62 if len(lines) > 1 else HEIGHT - 40
    for i, line in enumerate(lines):
        theme.label(
            image,
            (WIDTH / 2, y + i * LINE_DY),
            line,
            TEXT_MIN,
            MUTED,
            anchor="mm",
            bold=False,
            stroke=0,
            cache=False,
        )


# -- positions for samples, the benchmark and the tests --------------------------------------------


def playout_states(seed: int) -> list[SpaceState]:
    """Every state of a random game (``engine.ai.selfplay.random_states`` seeded with ``seed``)."""
    states = list(random_states(VARIANT, random.Random(seed)))
    assert all(isinstance(s, SpaceState) for s in states)
    return cast(list[SpaceState], states)


def samples(out_dir: str | Path, seed: int = 1) -> list[Path]:
    """Write named situations of seeded random games as PNGs in ``out_dir``; their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    wanted: dict[str, SpaceState] = {}
    states = [s for g in range(seed, seed + 4) for s in playout_states(g)]
    wanted["start"] = states[0]
    for state in states:
        last = state.last_text or ""
        arrows = len({m.number for m in state.turn_moves})
        checks = {
            "move": state.phase is Phase.MOVE and " moved " in last,
            "moves": arrows >= 3,
            "fight": state.phase is Phase.DEFEND,
            "fight-result": state.last_fight is not None and state.last_fight.settled,
            "dice-modifiers": any(state.bonus) and state.phase is Phase.MOVE,
            "three-dice": len(state.dice) == 3,
            "strategic-move": any(m.how == "strategic-move" for m in state.turn_moves),
            "late": state.turn_number >= 30 and state.phase is Phase.MOVE,
            "over": state.result is not None,
        }
        for name, hit in checks.items():
            if hit and name not in wanted:
                wanted[name] = state
    caption = Caption(names=("Alice Liddell", "bob"))
    paths = []
    for name, state in wanted.items():
        path = out / f"space-{name}.png"
        path.write_bytes(PICTURE.render(state.view(None), caption))
        paths.append(path)
    return paths


def _palette_views() -> list[SpaceView]:
    return [s.view(None) for seed in (1, 2, 3) for s in playout_states(seed)[::25]]


# The game, what it draws, its empty board and painter, its palette (see ``render.picture``).
PICTURE = BoardPicture(
    "space", SpaceView, "space views", _background, _paint, base_colours, PALETTE_HEX, _palette_views
)
render = PICTURE.render
