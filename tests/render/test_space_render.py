"""The space board picture (render/space.py): valid, small, deterministic PNGs
for every state of a few random games, the same public picture whatever the hands hold, and the
planets, counters and cards where the layout puts them."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from engine.space import cards as C
from engine.space.board import CYGNUS, EARTH, NIMROD, PLANET_X, PLANETS
from engine.space.game import WINDOW_PHASES, Phase, SpaceState, SpaceView
from render import RENDERERS, SEAT_STYLES, space, theme
from render.space_geometry import NAMES
from render.theme import Caption
from tests.engine.space_helpers import make_state, play

MAX_BYTES = 150 * 1024
CAPTION = Caption(names=("Alice", "Bob"))


def picture(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def view(state: SpaceState, seat: int | None = None) -> SpaceView:
    return state.view(seat)


@pytest.mark.parametrize("seed", [1, 4])
def test_every_state_of_a_random_game_is_a_small_png_of_the_board_size(seed: int) -> None:
    states = space.playout_states(seed)
    assert states[-1].outcome() is not None
    for state in states:
        png = space.render(state.view(None), CAPTION)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        assert len(png) <= MAX_BYTES
        image = Image.open(io.BytesIO(png))
        assert image.size == (space.WIDTH, space.HEIGHT)
    # The last one decodes completely (a valid stream and checksum).
    picture(png)


def test_the_same_view_gives_the_same_bytes() -> None:
    states = space.playout_states(2)[:120]
    first = [space.render(s.view(None), CAPTION) for s in states]
    again = [space.render(s.view(None), CAPTION) for s in reversed(states)]
    assert first == list(reversed(again))
    # ``draw`` gives the same picture before the palette: the board size, in RGB.
    assert space.PICTURE.draw(states[-1].view(None), CAPTION).size == (space.WIDTH, space.HEIGHT)


def test_hands_are_never_drawn_the_public_picture_ignores_the_cards() -> None:
    where = {"E1": 10, "E2": 15, "T1": 1, "T5": 12}
    a = make_state(where, hands=((C.NOVA_BOMB, C.ION_THRUSTERS), (C.AMBUSH, C.PLASTEEL_ARMOR)), dice=(3, 5))
    b = make_state(where, hands=((C.NOVA_BOMB, C.ION_THRUSTERS), (C.ESPIONAGE, C.HYPER_JUMP)), dice=(3, 5))
    assert a.hands != b.hands and a.hands[0] == b.hands[0]
    public = space.render(a.view(None), CAPTION)
    assert space.render(b.view(None), CAPTION) == public
    # A player's own view shows the same board picture: the hand is for the private message.
    assert space.render(a.view(0), CAPTION) == public
    assert space.render(b.view(1), CAPTION) == public
    assert space.render(a.view(1), CAPTION) == public


def test_a_fight_and_hand_sizes_are_drawn_from_the_view() -> None:
    state = make_state(
        {"E1": 10, "T1": 10, "T2": 1}, hands=((C.NOVA_BOMB,), ()), phase=Phase.DEFEND, fight_sector=10
    )
    line = space.fight_line(state.view(None))
    assert line is not None and line[0] == "Fight in sector 10"
    assert line[1] == "Empire 5 against Terrans 5"
    boosted = space.fight_line(space_view_with(state, attack_bonus=3))
    assert boosted is not None and boosted[1] == "Empire 5+3 against Terrans 5"


def space_view_with(state: SpaceState, **changes: int) -> SpaceView:
    return replace(state, **changes).view(None)


def four_moves() -> tuple[SpaceState, SpaceState]:
    """An Empire turn with three dice and three movement cards, before and after its four moves."""
    before = make_state(
        {"E2": 20, "E3": 20, "E5": 10, "E6": 6},
        home=["T1"],
        hands=((C.STRATEGIC_MOVE, C.SPACE_COMBAT_TACTICS, C.DEFEND_THE_HOMEWORLD), ()),
        dice=(3, 4, 2),
    )
    after = play(
        before,
        "play strategic-move from 20 by 3",
        "play space-combat-tactics E5 by 4",
        "move E6 by 2",
        "play defend-the-homeworld E6",
    )
    return before, after


def test_every_move_of_the_turn_is_a_numbered_arrow_the_way_the_units_went() -> None:
    _, state = four_moves()
    arrows = space.turn_arrows(state.view(None))
    assert arrows == [
        space.Arrow(1, 20, 17, -1, False),  # the Empire moves counterclockwise; two units, one arrow
        space.Arrow(2, 10, 14, 1, False),  # Space Combat Tactics: backwards
        space.Arrow(3, 6, 4, -1, False),
        space.Arrow(4, 4, PLANET_X, 1, True),  # Defend the Homeworld: the short way home, dashed
    ]
    # Arrows over the same part of the ring lie in different lanes.
    lanes = space.arrow_lanes(arrows)
    assert lanes[2] != lanes[3]
    # Drawn: gold on the ring where the first arrow runs, absent before the moves.
    before = picture(space.render(make_state({"E2": 20}, home=["T1"], dice=(3, 4)).view(None)))
    after = picture(space.render(state.view(None)))
    x, y = space.position(19.3, space.ARROW_R)  # type: ignore[arg-type]
    assert after.getpixel((round(x), round(y))) == theme.HIGHLIGHT != before.getpixel((round(x), round(y)))


def test_the_last_fight_shows_its_sector_winner_totals_and_losses() -> None:
    state = make_state(
        {"E1": 10, "E7": 10, "T2": 10, "T12": 10, "T3": 1}, phase=Phase.ATTACK, dice=(3, 4), fight_sector=10
    )
    state = play(state, "pass", "pass")
    line = space.fight_line(state.view(None))
    assert line == (
        "Fight in 10: Empire win 7-5",
        "Terrans lost T2, T12 (force 5)",
        space.EMPIRE.text,
    )
    state = play(state, "keep E7")
    line = space.fight_line(state.view(None))
    assert line is not None and line[1] == "Empire lost E1 (force 5) · Terrans lost T2, T12 (force 5)"


def test_a_die_raised_by_a_card_shows_the_roll_and_the_addition() -> None:
    base = make_state(home=["E1", "T1"], hands=((C.WARP_OVERDRIVE,), ()), phase=Phase.ROLL_CARDS, dice=(4, 1))
    raised = play(base, "play warp-overdrive on 4")
    assert raised.view(None).dice == (6, 1)
    a, b = picture(space.render(base.view(None))), picture(space.render(raised.view(None)))
    # The die keeps its rolled face (4 pips); a gold "+2" badge sits on its corner.
    x0 = space.CENTER[0] - (2 * space.DIE + 12) / 2 + space.DIE / 2
    corner = (round(x0 + space.DIE / 2 - 4), round(space.DICE_Y - space.DIE / 2 + 2))
    assert b.getpixel(corner) == theme.HIGHLIGHT != a.getpixel(corner)
    assert a.getpixel((round(x0), round(space.DICE_Y))) == b.getpixel((round(x0), round(space.DICE_Y)))


def test_planets_are_marked_named_and_ringed_by_their_controller() -> None:
    # Nimrod held by the Terrans, the other planets empty.
    state = make_state({"T3": NIMROD, "E1": 20})
    image = picture(space.render(state.view(None)))
    for planet in (EARTH, PLANET_X, CYGNUS):
        x, y = space.position(planet)
        assert image.getpixel((round(x), round(y))) == space.PLANET_COLOURS[planet]
        # Its name is written beside it (outside the ring at the top and the bottom, inside it at
        # the sides), in a light tint of its colour.
        (nx, ny), anchor = NAMES[planet]
        nx += {"lm": 40, "rm": -40}.get(anchor, 0)
        box = image.crop((round(nx) - 40, round(ny) - 10, round(nx) + 40, round(ny) + 10))
        assert space.PLANET_INK[planet] in {c for _, c in box.getcolors(1 << 16) or ()}
    # Nimrod: a Terran ring round the planet, a Terran counter on it.
    x, y = space.position(NIMROD)
    ring = space.position(NIMROD, space.RING_R + space.PLANET_R + 3)
    assert image.getpixel((round(ring[0]), round(ring[1]))) == space.TERRANS.fill
    assert image.getpixel((round(x), round(y) - 12)) != space.PLANET_COLOURS[NIMROD]
    # An empty deep-space sector stays empty.
    x, y = space.position(5)
    assert image.getpixel((round(x), round(y))) == theme.CELL
    assert len(PLANETS) == 4


def test_seats_are_two_distinct_looks_and_space_is_registered() -> None:
    empire, terrans = space.SEATS
    assert empire.fill != terrans.fill and empire.shape != terrans.shape
    assert RENDERERS["space"] is space.render and SEAT_STYLES["space"] is space.SEATS


def test_samples_are_written(tmp_path: Path) -> None:
    paths = space.samples(tmp_path)
    names = {p.name for p in paths}
    assert {"space-start.png", "space-move.png", "space-fight.png", "space-over.png"} <= names
    for path in paths:
        assert len(path.read_bytes()) <= MAX_BYTES


def test_the_header_is_in_the_colour_of_the_seat_asked_to_decide(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a response window the opponent decides ("Terran Defense Force may play Espionage"): the
    header's marker is theirs, not the colour of the seat on turn."""
    seats: list[int | None] = []
    header = space._header
    monkeypatch.setattr(space, "_header", lambda seat, *rest: seats.append(seat) or header(seat, *rest))
    states = space.playout_states(1)
    windows = [s for s in states if s.phase in WINDOW_PHASES and s.outcome() is None]
    assert windows
    for state in windows[:5]:
        seen = state.view(None)
        assert seen.deciding != seen.turn_seat
        space.render(seen, CAPTION)
        assert seats[-1] == seen.deciding
    on_turn = next(s for s in states if s.phase is Phase.MOVE)
    space.render(on_turn.view(None), CAPTION)
    assert seats[-1] == on_turn.view(None).turn_seat


def test_other_views_are_refused() -> None:
    with pytest.raises(TypeError):
        space.render(object())  # type: ignore[arg-type]


def test_the_benchmark_draws_space_positions() -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, str(root / "bench" / "render.py"), "--game", "space", "--positions", "5"],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    )
    figures = json.loads(out.stdout)
    assert figures["game"] == "space" and figures["positions"] == 5
    assert figures["max_kb"] <= MAX_BYTES / 1024


@pytest.mark.slow
def test_the_shipped_palette_is_the_one_the_samples_give() -> None:
    """render/space_palette.py is current: after a change of the look (the larger texts of a phone),
    `python -m render palette --game space` writes it again."""
    expected = space.PICTURE.palette_module(space.PICTURE.build_palette())
    assert (Path(__file__).resolve().parents[2] / "render" / "space_palette.py").read_text() == expected
