"""Every text of the space board reads on a phone: its digits and capitals at least ``PHONE_MIN``
pixels high once the picture is shown ``PHONE_WIDTH`` pixels wide.

What is measured is the ink, not the font's nominal size: the height of "0" and of "H" drawn in the
very font the text was drawn with (digits and capitals are about three quarters of a font's size,
so a 16 pixel font's digits are about 12 pixels high). The fonts are taken where every text of a picture becomes pixels: Pillow's
``FreeTypeFont.getmask2``, which ``ImageDraw.text`` calls for each line whichever helper drew it
(labels, numbers on counters, badges, the header). Every cache of the pictures is emptied first, so
nothing drawn earlier is pasted without being drawn again; and the texts the views must show are
checked to be among those recorded, so a label left out (a number that did not fit on its counter)
fails too.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from dataclasses import replace
from typing import NamedTuple

import pytest
from PIL import Image, ImageFont

from engine.memo import CACHES
from engine.protocol import Outcome
from engine.space import cards as C
from engine.space.board import (
    EARTH,
    FORCE,
    PLANET_NAMES,
    PLANET_X,
    PLANETS,
    SECTORS,
    units_of,
)
from engine.space.game import Phase, SpaceState, SpaceView
from render import space, theme
from render.space_geometry import NAMES, Placed, counter_places
from render.theme import Caption, Point
from tests.engine.space_helpers import make_state, play
from tests.render.test_space_render import four_moves
from tests.render.written import Rasterised, Written, record_labels, record_rasterised

PHONE_WIDTH = 400
PHONE_MIN = 10
CAPTION = Caption(names=("Alice Liddell", "bob"))


def ink_height(face: ImageFont.FreeTypeFont) -> int:
    """How many pixels high ``face`` draws a digit or a capital (the lower of "0" and "H")."""
    heights = []
    for glyph in ("0", "H"):
        _, top, _, bottom = face.getbbox(glyph)
        heights.append(bottom - top)
    return min(heights)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[Rasterised]:
    """The (font, text) of every text rasterised while the test runs, all caches emptied."""
    for cache in CACHES:
        cache.cache_clear()
    yield record_rasterised(monkeypatch)
    for cache in CACHES:
        # Sprites drawn while recording are correct; emptied anyway so no test depends on the order.
        cache.cache_clear()


def shown(state: SpaceState) -> list[SpaceView]:
    """The public view and both sides' own views: the board picture of each."""
    return [state.view(None), state.view(0), state.view(1)]


def fight_states() -> list[SpaceState]:
    """A full sector fought over (four units a side, the cards' additions), then its result."""
    where = {"E1": 10, "E2": 10, "E4": 10, "E7": 10, "T1": 10, "T2": 10, "T4": 10, "T12": 10, "T3": 1}
    attacking = make_state(where, phase=Phase.ATTACK, dice=(3, 4), fight_sector=10)
    defending = replace(
        make_state(where, phase=Phase.DEFEND, fight_sector=10), attack_bonus=3, defense_bonus=2
    )
    settled = play(attacking, "pass", "pass")
    return [attacking, defending, settled, play(settled, f"keep {settled_keep(settled)}")]


def settled_keep(state: SpaceState) -> str:
    """A unit the fight's winner may keep (the first the engine offers)."""
    actions = [a.notation for a in state.legal_actions()]
    return next(a for a in actions if a.startswith("keep ")).removeprefix("keep ")


def card_states() -> list[SpaceState]:
    """Cards played on the roll (a gold "+2"), a third die, jammed units, every move an arrow."""
    rolled = make_state(
        home=["E1", "T1"], hands=((C.WARP_OVERDRIVE,), ()), phase=Phase.ROLL_CARDS, dice=(4, 1)
    )
    moving, moved = four_moves()
    jammed = replace(make_state({"E2": 20, "E5": 12}, home=["T1"], dice=(2, 5)), jammed=(1, 4))
    return [rolled, play(rolled, "play warp-overdrive on 4"), moving, moved, jammed]


def crowded_state() -> SpaceState:
    """Every unit on the board, stacked (the x-counts), the scrap heaps empty; then most scrapped
    (a long heap of each force)."""
    return make_state(
        {f"E{n}": PLANET_X - (n % 5) for n in range(1, 16)}
        | {f"T{n}": EARTH + (n % 5) for n in range(1, 16)},
        dice=(6, 6),
    )


def representative_views() -> list[SpaceView]:
    start = space.playout_states(1)[0]
    scrapped = make_state({"E1": 14, "E2": 14, "T1": 2, "T5": 2}, dice=(2, 3), turn=1)
    won = replace(scrapped, result=Outcome(0, "all-planets", "Evil Empire took every planet"))
    states = [start, scrapped, won, crowded_state(), *fight_states(), *card_states()]
    views = [v for s in states for v in shown(s)]
    # And positions of a random game as they come, from the first roll to the end.
    game = space.playout_states(3)
    views += [s.view(seat) for s in game[:: max(1, len(game) // 40)] for seat in (None, 0, 1)]
    return views


def test_every_text_is_drawn_at_least_ten_pixels_high_on_a_phone(drawn: Rasterised) -> None:
    for seen in representative_views():
        space.render(seen, CAPTION)
    assert drawn, "no text recorded: the recording no longer sees the texts"
    inks = {(ink_height(face), text) for face, text in drawn}
    small = sorted((ink, text) for ink, text in inks if ink * PHONE_WIDTH / space.WIDTH < PHONE_MIN)
    assert not small, f"texts under {PHONE_MIN} px at {PHONE_WIDTH} px wide: {small[:12]}"


def test_the_texts_a_player_needs_are_all_drawn(drawn: Rasterised) -> None:
    """The recording is complete: each label the issue names is among the texts recorded."""
    fight, _, settled, _ = fight_states()
    for state in (crowded_state(), fight, settled, *card_states()):
        for seen in shown(state):
            space.render(seen, CAPTION)
    texts = {text for _, text in drawn}
    assert {"x3", "scrap", "in hand", "the Empire's roll", "hyper", "+2", "jam: 12, 20"} <= texts
    line = space.fight_line(fight.view(None))
    assert line is not None and {line[0], line[1]} <= texts
    # Every sector's number round the ring.
    assert {str(n) for n in range(1, SECTORS + 1)} <= texts


@pytest.mark.parametrize("radius", [space.COUNTER_R, space.HEAP_R])
def test_every_force_total_fits_on_its_counter(radius: int) -> None:
    """A total that does not fit is left off the counter (``numbered_stack_sprite`` gives None):
    every total one side can have in a sector is written, on every size of counter."""
    most = sum(FORCE[u] for u in units_of(0))
    for total in range(1, most + 1):
        for layers in (1, 4):
            plain = theme.stack_sprite(space.SEATS[0], radius, layers)
            assert space._counter(0, layers, str(total), radius).tobytes() != plain.tobytes(), (total, radius)


Box = tuple[float, float, float, float]


class Stack(NamedTuple):
    """The pixels a stack of counters covers, as ``theme.stack_sprite`` draws it: the top face and
    the layers under it. A square counter covers its ``box``; a disc, every point within ``radius``
    of the vertical segment from its top face's middle down to its bottom counter's."""

    box: Box
    radius: float
    """0 for a square counter."""


def counter_shape(place: Placed) -> Stack:
    x, y = place.face
    r = space.COUNTER_R
    depth = r * 0.16 + r * theme.STACK_STEP * (place.layers - 1)
    if space.SEATS[place.seat].shape == "square":
        half = r * 0.9
        return Stack((x - half, y - half, x + half, y + half + depth), 0)
    return Stack((x, y, x, y + depth), r)


def text_shape(text: str, at: Point, anchor: str = "mm") -> Stack:
    """The ink of ``text`` drawn outlined in the board's smallest size at ``at`` (centred on it
    unless ``anchor`` says otherwise)."""
    left, top, right, bottom = theme.font(space.TEXT_MIN).getbbox(text, anchor=anchor, stroke_width=2)
    return Stack((at[0] + left, at[1] + top, at[0] + right, at[1] + bottom), 0)


def count_shape(place: Placed) -> Stack:
    """A unit count ("x3") where it is drawn."""
    return text_shape(place.count_text, place.count_at)


def name_shape(world: int) -> Stack:
    """A planet's name, where the empty board writes it."""
    at, anchor = NAMES[world]
    return text_shape(PLANET_NAMES[world].upper(), at, anchor)


def overlaps(a: Stack, b: Stack) -> bool:
    """Whether two shapes share pixels: the gap between their boxes (a disc's is its segment) is
    less than their radii together."""
    dx = max(a.box[0] - b.box[2], b.box[0] - a.box[2], 0)
    dy = max(a.box[1] - b.box[3], b.box[1] - a.box[3], 0)
    if a.radius == b.radius == 0:
        return dx == dy == 0
    return math.hypot(dx, dy) < a.radius + b.radius


def crowded_around(sector: int) -> SpaceState:
    """Four units a side in ``sector``, four-unit stacks of either side in the sectors either side
    of it, and two sectors on another shared sector (three and two units)."""
    before, after, further = ((sector + k - 1) % SECTORS + 1 for k in (-1, 1, 2))
    where = {f"E{n}": sector for n in range(1, 5)} | {f"T{n}": sector for n in range(1, 5)}
    where |= {f"E{n}": further for n in range(5, 8)} | {f"T{n}": further for n in range(5, 7)}
    where |= {f"E{n}": before for n in range(8, 12)} | {f"T{n}": after for n in range(7, 11)}
    return make_state(where, dice=(3, 4))


def test_no_counter_or_unit_count_covers_another() -> None:
    """However the sides share and crowd the sectors, no stack of counters covers another, and no
    unit count ("x3") or planet name covers a counter or another of them."""
    crowded = [crowded_around(sector).view(None) for sector in range(1, SECTORS + 1)]
    for view in crowded + representative_views():
        positions = view.positions
        places = counter_places_of(positions)
        boxes = [(counter_shape(p), f"counter {p}") for p in places]
        boxes += [(count_shape(p), f"count {p}") for p in places if p.count_text]
        boxes += [(name_shape(world), f"name of {world}") for world in PLANETS]
        for i, (a, what) in enumerate(boxes):
            for b, other in boxes[i + 1 :]:
                assert not overlaps(a, b), (what, other)


def counter_places_of(positions: tuple[int, ...]) -> list[Placed]:
    places = counter_places(positions)
    assert sum(p.layers for p in places) >= 1, "no counters placed"
    return places


def test_a_won_game_says_who_won_in_the_title_and_how_under_it_without_cutting_either() -> None:
    """The final board's title is the winner, whole ("Terran Defense Force wins", never "Terran
    Defense Force has no…"), and how they won is the line under it, for both ways to win (random
    games 2 and 26 end each way)."""
    from engine.space.board import SIDES
    from render.space import TEXT_MIN, WIDTH
    from render.text import font, split_title, text_length
    from tests.engine.space_helpers import random_playout

    found = {}
    for seed in (2, 26):
        state, _ = random_playout(seed)
        outcome = state.outcome()
        assert outcome is not None
        found[outcome.reason.value] = split_title(state.view(None).phase_text.rstrip("."))
    assert found == {
        "no-units": ("Evil Empire wins", "Terran Defense Force has no unit left"),
        "all-planets": ("Terran Defense Force wins", "All four planets held"),
    }
    # The longer title and a three-digit turn number fit beside the winner's token (74 px from the
    # left, 28 px margins, 22 px between), so nothing is elided.
    longest = max(text_length(font(32), f"{side} wins") for side in SIDES)
    assert 74 + longest + 28 + text_length(font(TEXT_MIN, bold=False), "turn 999") + 22 <= WIDTH


NEAR = 72
"""How far at most a planet's name is from its planet's disc: the unit count between them (issue
33: the names were written round the dice, a hundred pixels and more from their planets)."""
MIDDLE_GAP = 16
"""The least gap between a planet's name and the ink of the dice, whose roll it is and the phase
word (or the winner's words), so that the name is read as its planet's, not as one of them."""


@pytest.fixture
def labels(monkeypatch: pytest.MonkeyPatch) -> Iterator[Written]:
    """Every label the space picture writes while the test runs (its caches emptied, so the empty
    board is drawn again too)."""
    for cache in CACHES:
        cache.cache_clear()
    yield record_labels(monkeypatch)
    for cache in CACHES:
        cache.cache_clear()


def name_boxes(seen: Written) -> dict[int, Box]:
    """Where each planet's name was written."""
    return {world: box for world in PLANETS for box, text in seen if text == PLANET_NAMES[world].upper()}


def whole(box: Box) -> tuple[int, int, int, int]:
    return (round(box[0]), round(box[1]), round(box[2]), round(box[3]))


def gap_to_disc(box: Box, center: Point, radius: float) -> float:
    """How far ``box`` is from the disc of ``radius`` round ``center`` (0 if they touch)."""
    dx = max(box[0] - center[0], 0, center[0] - box[2])
    dy = max(box[1] - center[1], 0, center[1] - box[3])
    return max(0.0, math.hypot(dx, dy) - radius)


def in_quarter(box: Box, world: int) -> bool:
    """Whether all of ``box`` lies in ``world``'s quarter of the board: between the diagonals through
    the ring's centre on its planet's side (so it is nearer that planet than any other)."""
    cx, cy = space.CENTER
    px, py = space.position(world)
    corners = [(x - cx, y - cy) for x in (box[0], box[2]) for y in (box[1], box[3])]
    if abs(px - cx) > abs(py - cy):  # Nimrod or Cygnus-7: left or right
        return all(abs(dx) > abs(dy) and dx * (px - cx) > 0 for dx, dy in corners)
    return all(abs(dy) > abs(dx) and dy * (py - cy) > 0 for dx, dy in corners)


def name_views() -> list[SpaceView]:
    """Every planet and its neighbours crowded, fights, cards, three dice, a won game."""
    around = [(w + k - 1) % SECTORS + 1 for w in PLANETS for k in (-1, 0, 1)]
    crowded = [crowded_around(sector).view(None) for sector in around]
    scrapped = make_state({"E1": 14, "E2": 14, "T1": 2, "T5": 2}, dice=(2, 3), turn=1)
    won = replace(scrapped, result=Outcome(0, "all-planets", "Evil Empire took every planet"))
    states = [space.playout_states(1)[0], scrapped, won, *fight_states(), *card_states()]
    return crowded + [s.view(None) for s in states]


def test_each_planet_name_is_beside_its_own_sector_and_clear_of_the_dice_and_phase(labels: Written) -> None:
    """Each planet's name, where the picture writes it, is within ``NEAR`` pixels of its own planet,
    in that planet's quarter of the board, and ``MIDDLE_GAP`` pixels or more from every pixel of the
    middle: the dice, whose roll it is, the phase word, a winner's words."""
    views = name_views()
    space.render(views[0], CAPTION)
    boxes = name_boxes(labels)  # on the empty board, the same under every view
    assert set(boxes) == set(PLANETS), "a planet's name is not written"
    for seen in views:
        image = Image.open(io.BytesIO(space.render(seen, CAPTION))).convert("RGB")
        for world, box in boxes.items():
            # Its ink is there: the name in its planet's tint inside its box.
            colours = image.crop(whole(box)).getcolors(1 << 16) or []
            assert space.PLANET_INK[world] in {c for _, c in colours}, world
            assert gap_to_disc(box, space.position(world), space.PLANET_R) <= NEAR, (world, box)
            assert in_quarter(box, world), (world, box)
        middle, corner = space.middle_of(seen)
        for world, box in boxes.items():
            # The middle's ink near the name: none within the gap.
            near = (box[0] - MIDDLE_GAP - corner[0], box[1] - MIDDLE_GAP - corner[1])
            far = (box[2] + MIDDLE_GAP - corner[0], box[3] + MIDDLE_GAP - corner[1])
            alpha = middle.getchannel("A").crop(whole((*near, *far)))
            assert alpha.getbbox() is None, (world, box, seen.phase)


def test_the_names_are_written_where_the_layout_says(labels: Written) -> None:
    """The overlap test above reads the names' places from the layout (``NAMES``): they are where the
    picture writes them."""
    space.render(crowded_state().view(None), CAPTION)
    boxes = name_boxes(labels)
    assert set(boxes) == set(PLANETS)
    for world, box in boxes.items():
        assert box == pytest.approx(name_shape(world).box, abs=1), world
