"""The ring board: 12 spaces on a clock face, stacks, piles, the three dice and the turn's actions.

Space 12 sits at the top and numbers grow clockwise, like the hours of a clock, so "clockwise"
on the picture is clockwise in the rules. The centre holds the dice (or the winner), the bottom
corners the two piles, the top line says whose turn it is, the bottom line what just happened.
Every action of the current turn is drawn on the board in gold (so the picture that hands the turn
over shows the whole previous turn): an arrow along the inside of the ring for each move, from the
space it left to the space it reached, numbered 1, 2 in the order played (an arrow that would lie on
an earlier one runs a lane further in), a dashed double arrow for a swap, a cross for a knock-out,
and "+N" / "−N" badges in the colour of the tokens that arrived or left.
"""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw

from engine.ai.random_player import random_action
from engine.memo import MB, bytes_lru
from engine.protocol import Forfeit, Outcome
from engine.ring import (
    COLOURS,
    FIVE_MASKS,
    QUARTERS,
    SPACES,
    VARIANT,
    LastEvent,
    MarkKind,
    Phase,
    RingState,
    RingWin,
)
from render import theme
from render.picture import BoardPicture
from render.ring_palette import PALETTE_HEX
from render.theme import HIGHLIGHT, MUTED, TEXT, Caption, DieStyle, Point, SeatStyle

WIDTH, HEIGHT = 800, 900
HEADER = 100
CENTER: Point = (WIDTH / 2, HEADER + 358)
FACE_R = 356
RING_R = 252
SPACE_R = 54
TOKEN_R = 38
LABEL_R = RING_R + SPACE_R + 24
ARROW_R = RING_R - SPACE_R - 21
DIE = 62
COUNT_SIZE = 36
LABEL_SIZE = 28
PILE_TOKEN_R = 33

RED = SeatStyle(
    fill=(222, 72, 72), dark=(128, 30, 38), light=(255, 150, 140), text=(255, 116, 108), shape="disc"
)
BLUE = SeatStyle(
    fill=(58, 128, 226), dark=(24, 62, 132), light=(150, 196, 255), text=(112, 172, 255), shape="square"
)
SEATS: tuple[SeatStyle, SeatStyle] = (RED, BLUE)
"""Seat 0 (Red) and seat 1 (Blue), named by ``engine.ring.COLOURS``."""

MINUS = "\u2212"
QUARTER_CORNERS = (3, 6, 9, 12)


def _style(seat: int) -> SeatStyle:
    return SEATS[seat]


PALETTE_GAMES = (1, 2, 3, 4)
"""Seeded random games whose pictures give the fixed palette its edge colours."""


def base_colours() -> list[theme.RGB]:
    """The flat colours of every ring picture, which the palette keeps exact (the background first:
    ``theme.PaletteCanvas`` needs it at index 0)."""
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
    ]
    for seat in SEATS:
        base += [seat.fill, seat.dark, seat.light, seat.text]
    for style in theme.DieStyle:
        base += list(theme.die_colours(style))
    return list(dict.fromkeys(base))


def _palette_states() -> list[RingState]:
    states: list[RingState] = []
    for seed in PALETTE_GAMES:
        rng = random.Random(seed)
        state = VARIANT.new_game()
        played = [state]
        while state.result is None:
            state = state.apply(random_action(state, rng))
            played.append(state)
        states += [*played[::12], played[-1]]
    return states


def _paint(image: Image.Image, state: RingState, caption: Caption) -> None:
    """Everything of ``state`` over the static board (``image`` may be wider than ``WIDTH``)."""
    winning = winning_spaces(state)
    _draw_space_marks(image, state, winning)
    _draw_stacks(image, state)
    _draw_badges(image, state)
    _draw_centre(image, state, caption.ending)
    _draw_piles(image, state)
    _draw_header(image, state, caption)
    _draw_footer(image, state)


# -- geometry --------------------------------------------------------------------------------------


def angle(space: int) -> float:
    """Degrees clockwise from twelve o'clock."""
    return (space % SPACES) * 360 / SPACES


def position(space: int, radius: float = RING_R) -> Point:
    a = math.radians(angle(space))
    return (CENTER[0] + radius * math.sin(a), CENTER[1] - radius * math.cos(a))


# -- the static board ------------------------------------------------------------------------------


@bytes_lru(4 * MB, theme.picture_bytes)
def _background() -> Image.Image:
    """Everything that never changes: the board face, the track, the 12 empty spaces and their numbers."""
    image = Image.new("RGB", (WIDTH, HEIGHT), theme.BACKGROUND)

    def paint(draw: ImageDraw.ImageDraw, s: int) -> None:
        cx, cy = CENTER[0] * s, CENTER[1] * s
        face = FACE_R * s
        draw.ellipse((cx - face, cy - face, cx + face, cy + face), fill=theme.BOARD)
        outer, inner = (RING_R + 11) * s, (RING_R - 11) * s
        draw.ellipse((cx - outer, cy - outer, cx + outer, cy + outer), fill=theme.TRACK)
        draw.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), fill=theme.BOARD)
        for space in range(1, SPACES + 1):
            x, y = position(space)
            r = SPACE_R * s
            draw.ellipse(
                (x * s - r, y * s - r, x * s + r, y * s + r),
                fill=theme.CELL,
                outline=theme.CELL_EDGE,
                width=3 * s,
            )

    board = theme.supersampled((WIDTH, HEIGHT), paint)
    image.paste(board, (0, 0), board)
    for space in range(1, SPACES + 1):
        colour = TEXT if space in QUARTER_CORNERS else MUTED
        theme.label(image, position(space, LABEL_R), str(space), LABEL_SIZE, colour, anchor="mm", stroke=0)
    return image


# -- the turn's actions and the winner -------------------------------------------------------------


def turn_events(state: RingState) -> tuple[LastEvent, ...]:
    """The actions the picture marks: every action of the current turn, in order (the roll, then each
    step), so the picture that hands the turn over shows the whole previous turn. A state whose
    ``last`` is not the end of its ``turn_events`` (one made by hand) shows its last action alone."""
    last = state.last
    if last is None:
        return ()
    events = state.turn_events
    return events if events and events[-1] == last else (last,)


def moves(events: tuple[LastEvent, ...]) -> list[tuple[int, int]]:
    """(source, target) of every move among ``events``, in order."""
    found: list[tuple[int, int]] = []
    for event in events:
        source = next((m.space for m in event.marks if m.kind is MarkKind.FROM), None)
        target = next((m.space for m in event.marks if m.kind is MarkKind.TO), None)
        if source is not None and target is not None:
            found.append((source, target))
    return found


def winning_spaces(state: RingState) -> frozenset[int]:
    """The spaces that won the game, to highlight: the quarter, the run of five, or all of them."""
    result = state.result
    if result is None or result.winner is None:
        return frozenset()
    mine = frozenset(state.stacks_of(result.winner))
    for quarter in QUARTERS:
        if result.reason == quarter.key:
            return frozenset(s for s in range(1, SPACES + 1) if quarter.mask >> (s - 1) & 1)
    if result.reason is RingWin.FIVE_IN_A_ROW:
        # The engine names the first run it finds in this order; find the same one.
        for mask, _start in FIVE_MASKS:
            run = frozenset(s for s in range(1, SPACES + 1) if mask >> (s - 1) & 1)
            if run <= mine:
                return run
        return frozenset()
    if result.reason in (RingWin.NINE_SPACES, RingWin.ALL_CAPTURED):
        return mine
    return frozenset()


def blocked_placement(state: RingState) -> int | None:
    """The space where this turn's doubles or triples could not be placed for enemy tokens.

    The engine leaves no mark for it (only words), so it is read from the turn's roll and the board.
    """
    roll = next((e for e in turn_events(state) if e.notation.startswith("roll ")), None)
    if roll is None or roll.seat is None or state.dice is None:
        return None
    w1, w2, _ = state.dice
    if w1 != w2 or any(m.kind is MarkKind.PLACE for m in roll.marks) or state.piles[roll.seat] == 0:
        return None
    owner, count = state.stack(w1)
    return w1 if owner == 1 - roll.seat and count >= 2 else None


ARROW_LANE = 26
"""How much further inside a move arrow is drawn when it would lie on an earlier arrow of the turn."""


def arrow_lanes(steps: list[tuple[int, int]]) -> list[int]:
    """For each move in order, its lane (0: on ``ARROW_R``, 1: ``ARROW_LANE`` further in): the first
    lane where it shares no stretch of the ring with an earlier move's arrow."""
    taken: list[set[int]] = []  # per lane, the stretches (space n to n + 1) its arrows cover
    lanes: list[int] = []
    for source, target in steps:
        stretch = {(source - 1 + i) % SPACES for i in range((target - source) % SPACES or SPACES)}
        lane = next((i for i, used in enumerate(taken) if not used & stretch), len(taken))
        if lane == len(taken):
            taken.append(set())
        taken[lane] |= stretch
        lanes.append(lane)
    return lanes


def _draw_space_marks(image: Image.Image, state: RingState, winning: frozenset[int]) -> None:
    """Gold rings round the spaces of the turn's actions or of the win, and the move/swap arrows."""
    draw = ImageDraw.Draw(image)
    solid = theme.circle_sprite(SPACE_R + 4, 6, HIGHLIGHT)
    dashed = theme.circle_sprite(SPACE_R + 4, 4, HIGHLIGHT, dashes=12)
    if winning:
        for space in sorted(winning):
            theme.paste(image, solid, position(space))
            x, y = position(space, LABEL_R)
            draw.ellipse((x - 22, y - 22, x + 22, y + 22), fill=HIGHLIGHT)
            theme.label(image, (x, y), str(space), LABEL_SIZE, theme.SHADOW, anchor="mm", stroke=0)
        return
    events = turn_events(state)
    marks = [m for event in events for m in event.marks]
    # One ring per space, as its latest action left it: dashed where tokens left (a stack that moved
    # on again), solid where they arrived, were placed, swapped or knocked out.
    rings: dict[int, Image.Image] = {}
    for mark in marks:
        if mark.kind is MarkKind.FROM:
            rings[mark.space] = dashed
        elif mark.kind in (MarkKind.TO, MarkKind.PLACE, MarkKind.SWAP, MarkKind.KNOCK):
            rings[mark.space] = solid
    blocked = blocked_placement(state)
    if blocked is not None:
        rings.setdefault(blocked, dashed)
    for space, sprite in rings.items():
        theme.paste(image, sprite, position(space))
    for event in events:
        swaps = [m.space for m in event.marks if m.kind is MarkKind.SWAP]
        if len(swaps) == 2:
            sprite, corner = _swap_arrow(min(swaps), max(swaps))
            image.paste(sprite, corner, sprite)
    steps = moves(events)
    lanes = arrow_lanes(steps)
    for (source, target), lane in zip(steps, lanes, strict=True):
        sprite, corner = _move_arrow(source, target, lane)
        image.paste(sprite, corner, sprite)
    # Each move's number in the turn on its arrow, over every arrow: in the middle, or with arrows in
    # two lanes at a third and two thirds of the way, so side by side arrows keep their numbers apart.
    shares = len(set(lanes)) + 1
    for n, ((source, target), lane) in enumerate(zip(steps, lanes, strict=True), start=1):
        theme.paste(image, _step_badge(n), _along_arrow(source, target, lane, (lane + 1) / shares))


def _along_arrow(source: int, target: int, lane: int, fraction: float) -> Point:
    """The point ``fraction`` of the way along the move arrow from ``source`` to ``target``."""
    steps = (target - source) % SPACES or SPACES
    middle = angle(source) + steps * 360 / SPACES * fraction
    a = math.radians(middle)
    radius = ARROW_R - lane * ARROW_LANE
    return (CENTER[0] + radius * math.sin(a), CENTER[1] - radius * math.cos(a))


def _step_badge(n: int) -> Image.Image:
    """The number of a move in its turn: dark on gold, like the arrow it sits on."""
    return theme.badge_sprite(str(n), 26, HIGHLIGHT, theme.SHADOW)


@bytes_lru(6 * MB, theme.picture_bytes)
def _move_arrow(source: int, target: int, lane: int = 0) -> tuple[Image.Image, tuple[int, int]]:
    """An arrow along the inside of the ring, clockwise from ``source`` to ``target``."""
    steps = (target - source) % SPACES or SPACES
    start = angle(source)
    radius = ARROW_R - lane * ARROW_LANE
    return theme.arc_arrow_sprite(CENTER, radius, start, start + steps * 360 / SPACES, HIGHLIGHT, 7)


@bytes_lru(4 * MB, theme.picture_bytes)
def _swap_arrow(a: int, b: int) -> tuple[Image.Image, tuple[int, int]]:
    """A dashed double arrow between two swapped spaces, the short way round the inside."""
    steps = (b - a) % SPACES
    start = angle(a)
    end = start + steps * 360 / SPACES if steps <= SPACES // 2 else start - (SPACES - steps) * 360 / SPACES
    return theme.arc_arrow_sprite(CENTER, ARROW_R, start, end, HIGHLIGHT, 6, heads=(True, True), dashed=True)


def _draw_badges(image: Image.Image, state: RingState) -> None:
    """Badges: "+N" for tokens placed, "−N" for tokens captured or knocked out, in their colour,
    for every action of the turn."""
    events = [e for e in turn_events(state) if e.seat is not None]
    per_space: dict[int, list[tuple[str, theme.RGB]]] = {}
    for event in events:
        assert event.seat is not None
        mover = _style(event.seat)
        enemy = _style(1 - event.seat)
        for mark in event.marks:
            if mark.kind is MarkKind.PLACE:
                per_space.setdefault(mark.space, []).append((f"+{mark.count}", mover.fill))
            elif mark.kind in (MarkKind.CAPTURE, MarkKind.KNOCK):
                per_space.setdefault(mark.space, []).append((f"{MINUS}{mark.count}", enemy.fill))
            if mark.kind is MarkKind.KNOCK:
                theme.paste(image, theme.cross_sprite(44, enemy.text, 9), position(mark.space))
    blocked = blocked_placement(state)
    if blocked is not None:
        per_space.setdefault(blocked, []).append(("blocked", HIGHLIGHT))
    for space, badges in per_space.items():
        x, y = position(space)
        for i, (text, fill) in enumerate(badges):
            dx = (i - (len(badges) - 1) / 2) * 50
            ink = theme.SHADOW if fill == HIGHLIGHT else TEXT
            theme.paste(image, theme.badge_sprite(text, 26, fill, ink), (x + dx, y + SPACE_R - 6))


# -- tokens ----------------------------------------------------------------------------------------


def _draw_stacks(image: Image.Image, state: RingState) -> None:
    for space in range(1, SPACES + 1):
        owner, count = state.stack(space)
        if owner is None:
            continue
        x, y = position(space)
        theme.draw_stack(image, (x, y - 2), SEATS[owner], count, TOKEN_R, COUNT_SIZE)


def _draw_piles(image: Image.Image, state: RingState) -> None:
    """Each player's pile in a bottom corner: Red left, Blue right."""
    for seat, x in ((0, 74), (1, WIDTH - 74)):
        style = _style(seat)
        y = 770
        theme.label(image, (x, y - 62), f"{COLOURS[seat]} pile".upper(), 22, style.text, anchor="mm")
        count = state.piles[seat]
        if count:
            theme.draw_stack(image, (x, y), style, count, PILE_TOKEN_R, 32, max_layers=3)
        else:
            theme.paste(image, theme.circle_sprite(PILE_TOKEN_R, 2, MUTED, dashes=10), (x, y))
            theme.number(image, (x, y), "0", 32, MUTED)


# -- dice and the centre ---------------------------------------------------------------------------


def _draw_centre(image: Image.Image, state: RingState, ending: Outcome | None = None) -> None:
    cx, cy = CENTER
    result = state.result or ending
    if result is not None:
        _draw_winner(image, result)
        return
    if state.dice is None:
        _draw_opening(image, state)
        return
    w1, w2, black = state.dice
    white_opacity = [1.0, 1.0]
    black_opacity = 1.0
    if state.phase is Phase.MOVE:
        # Which white dice are still to play: match the values left to the dice, first die first.
        left = list(state.dice_left)
        for i, value in enumerate((w1, w2)):
            if value in left:
                left.remove(value)
            else:
                white_opacity[i] = 0.3
        black_opacity = 0.3  # the modifier die is set aside after the roll (ruling 7)
    # The two white dice side by side, the black one a little apart.
    gap, apart = 14, 32
    x0 = cx - (3 * DIE + gap + apart) / 2
    xs = (x0 + DIE / 2, x0 + DIE * 1.5 + gap, x0 + DIE * 2.5 + gap + apart)
    y = cy - 12
    theme.draw_die(image, (xs[0], y), w1, DIE, DieStyle.WHITE, white_opacity[0])
    theme.draw_die(image, (xs[1], y), w2, DIE, DieStyle.WHITE, white_opacity[1])
    theme.draw_die(image, (xs[2], y), black, DIE, DieStyle.BLACK, black_opacity)
    roller = (
        state.turn if state.phase is not Phase.ROLL else (1 - state.turn if state.turn is not None else None)
    )
    if roller is not None:
        style = _style(roller)
        theme.label(image, (cx, y + DIE / 2 + 30), f"{COLOURS[roller]}'s roll", 24, style.text, anchor="mm")


def _draw_opening(image: Image.Image, state: RingState) -> None:
    """Before the first roll: each player's opening die in the player's colour."""
    cx, cy = CENTER
    values = state.opening or (0, 0)
    y = cy - 16
    for seat, dx in ((0, -48), (1, 48)):
        style = _style(seat)
        theme.draw_die(image, (cx + dx, y), values[seat], DIE, style)
        if not values[seat]:
            theme.number(image, (cx + dx, y), "?", 36)
        theme.label(image, (cx + dx, y - DIE / 2 - 22), COLOURS[seat], 22, style.text, anchor="mm")
    if state.opening is None:
        caption = "Roll to start"
    elif state.phase is Phase.OPENING:
        caption = "A tie: roll again"
    else:
        caption = f"{COLOURS[state.turn]} starts" if state.turn is not None else ""
    theme.label(image, (cx, y + DIE / 2 + 30), caption, 24, TEXT, anchor="mm")


_REASONS: dict[str, str] = {
    RingWin.ALL_CAPTURED: "all captured",
    RingWin.NINE_SPACES: "nine spaces",
    RingWin.FIVE_IN_A_ROW: "five in a row",
    Forfeit.RESIGNATION: "by resignation",
    Forfeit.TIMEOUT: "on time",
    **{q.key: "spaces " + q.key.removeprefix("spaces-").replace("-", ", ") for q in QUARTERS},
}


def _draw_winner(image: Image.Image, result: Outcome) -> None:
    cx, cy = CENTER
    if result.winner is None:
        theme.label(image, (cx, cy), "Draw", 48, TEXT, anchor="mm")
        return
    style = _style(result.winner)
    theme.draw_stack(image, (cx, cy - 62), style, 1, 26)
    theme.label(image, (cx, cy + 4), f"{COLOURS[result.winner]} wins", 50, style.text, anchor="mm")
    reason = _REASONS.get(result.reason, result.reason.replace("-", " "))
    theme.label(image, (cx, cy + 52), reason, 26, HIGHLIGHT, anchor="mm")


# -- text ------------------------------------------------------------------------------------------


def _draw_header(image: Image.Image, state: RingState, caption: Caption) -> None:
    """Whose turn or who won, what to do, the players and the turn: the shared header (of the turn's
    start while a complete turn waits for its Confirm)."""
    state = theme.header_view(state, caption)
    seat = state.result.winner if state.result is not None else state.turn
    image.paste(_header(seat, state.phase_text, state.turn_number, caption), (0, 0))


@bytes_lru(3 * MB, theme.picture_bytes)
def _header(seat: int | None, phase_text: str, turn_number: int, caption: Caption) -> Image.Image:
    """The header strip over the empty background, drawn once per text: pasting it whole is several
    times faster than its tokens and texts one by one. Nothing else reaches above the board face."""
    strip = _background().crop((0, 0, WIDTH, HEADER))
    theme.draw_header(strip, SEATS, seat, phase_text, turn_number, caption, WIDTH)
    return strip


def _draw_footer(image: Image.Image, state: RingState) -> None:
    """The latest action in words, for the record (the marks on the board show the whole turn)."""
    text = state.last_text
    if not text:
        return
    face = theme.font(24, bold=False)
    lines = theme.wrap(text, face, WIDTH - 48, max_lines=2)
    y = HEIGHT - 60 if len(lines) > 1 else HEIGHT - 44
    for i, line in enumerate(lines):
        theme.label(
            image, (WIDTH / 2, y + i * 30), line, 24, MUTED, anchor="mm", bold=False, stroke=0, cache=False
        )


# The game, what it draws, its empty board and painter, its palette (see ``render.picture``).
PICTURE = BoardPicture(
    "ring", RingState, "ring states", _background, _paint, base_colours, PALETTE_HEX, _palette_states
)
render = PICTURE.render
