"""The ring board picture: valid, deterministic PNGs for every phase, with the last action drawn."""

from __future__ import annotations

import io
import random
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest
from PIL import Image

from engine import VARIANTS, find_variant
from engine.ai.random_player import random_action
from engine.protocol import GameView, Outcome
from engine.ring import LastEvent, Mark, MarkKind, Move, Opening, Phase, RingState, Roll
from render import RENDERERS, NoRendererError, png, render_board, ring, theme
from render.__main__ import main as sample_main

ROOT = Path(__file__).resolve().parents[2]


def new_game() -> RingState:
    state = find_variant("ring").new_game()
    assert isinstance(state, RingState)
    return state


def play(seed: int) -> list[RingState]:
    """Every state of one seeded random game, start to finish."""
    rng = random.Random(seed)
    state = new_game()
    states = [state]
    while state.outcome() is None:
        nxt = state.apply(random_action(state, rng))
        assert isinstance(nxt, RingState)
        state = nxt
        states.append(state)
    return states


def open_png(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


def pixel(data: bytes, xy: tuple[float, float]) -> tuple[int, int, int]:
    rgb = open_png(data).convert("RGB")
    r, g, b = cast(tuple[int, int, int], rgb.getpixel((round(xy[0]), round(xy[1]))))
    return (r, g, b)


def near(a: tuple[int, int, int], b: tuple[int, int, int], tolerance: int = 24) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def games() -> list[list[RingState]]:
    return [play(seed) for seed in range(1, 31)]


def first(games: list[list[RingState]], test: Callable[[RingState], bool]) -> RingState:
    for states in games:
        for state in states:
            if test(state):
                return state
    raise AssertionError("no such position in the seeded games")


# -- the picture --------------------------------------------------------------------------------


def test_start_is_a_png_of_the_board_size() -> None:
    image = open_png(render_board(new_game()))
    assert image.size == (ring.WIDTH, ring.HEIGHT)


def test_same_state_same_bytes(games: list[list[RingState]]) -> None:
    state = games[0][len(games[0]) // 2]
    again = find_variant("ring").from_json(state.to_json())
    assert render_board(state) == render_board(state) == render_board(again)


def test_unknown_game_is_a_clear_error() -> None:
    class Other:
        variant_key = "no-such-game"

    with pytest.raises(NoRendererError, match=r"no-such-game.*ring"):
        render_board(cast(GameView, Other()))


def test_every_registered_game_has_a_renderer() -> None:
    assert set(VARIANTS) <= set(RENDERERS)


def test_ring_renderer_refuses_other_states() -> None:
    class Other:
        variant_key = "ring"

    with pytest.raises(TypeError, match="ring states"):
        ring.render(cast(GameView, Other()))


def test_ring_has_no_secrets_every_seat_sees_the_public_board(games: list[list[RingState]]) -> None:
    state = games[1][10]
    assert state.view(0) is state and state.view(None) is state and not state.secret_decision()
    public = render_board(state)
    assert render_board(state.view(None)) == public
    assert render_board(state.view(0)) == public
    assert render_board(state.view(1)) == public
    assert RENDERERS["ring"](state.view(0)) == public


@pytest.mark.slow
def test_every_phase_and_every_finish_renders(games: list[list[RingState]]) -> None:
    phases: set[Phase] = set()
    rendered = 0
    for states in games:
        for i, state in enumerate(states):
            new_phase = state.phase not in phases
            if new_phase or i % 9 == 0 or state.result is not None:
                image = open_png(render_board(state))
                assert image.size == (ring.WIDTH, ring.HEIGHT)
                phases.add(state.phase)
                rendered += 1
        assert states[-1].result is not None
    assert phases == set(Phase)
    assert rendered > 150


# -- the last action ------------------------------------------------------------------------------


def test_the_last_action_is_drawn(games: list[list[RingState]]) -> None:
    moved = first(games, lambda s: MarkKind.FROM in {m.kind for m in s.last.marks} if s.last else False)
    assert moved.last is not None
    plain = replace(moved, last=None)
    assert render_board(moved) != render_board(plain)
    target = next(m.space for m in moved.last.marks if m.kind is MarkKind.TO)
    # The gold ring round the target space, at its top.
    x, y = ring.position(target)
    ring_top = (x, y - ring.SPACE_R - 4)
    assert near(pixel(render_board(moved), ring_top), theme.HIGHLIGHT)
    assert not near(pixel(render_board(plain), ring_top), theme.HIGHLIGHT)


def test_different_last_actions_give_different_pictures(games: list[list[RingState]]) -> None:
    state = games[2][20]
    marks = {
        "move": (Mark(MarkKind.FROM, 1, 1), Mark(MarkKind.TO, 4, 1)),
        "other move": (Mark(MarkKind.FROM, 2, 1), Mark(MarkKind.TO, 4, 1)),
        "capture": (Mark(MarkKind.FROM, 1, 1), Mark(MarkKind.TO, 4, 1), Mark(MarkKind.CAPTURE, 4, 2)),
        "place": (Mark(MarkKind.PLACE, 5, 2),),
        "swap": (Mark(MarkKind.SWAP, 3, 1), Mark(MarkKind.SWAP, 9, 2)),
        "knock": (Mark(MarkKind.KNOCK, 6, 3),),
        "none": (),
    }
    pictures = {
        name: render_board(replace(state, last=LastEvent(seat=0, notation="x", text="t", marks=m)))
        for name, m in marks.items()
    }
    assert len(set(pictures.values())) == len(pictures)


def test_a_blocked_placement_is_marked(games: list[list[RingState]]) -> None:
    blocked = first(games, lambda s: s.last is not None and "is blocked by" in s.last.text)
    assert blocked.dice is not None
    assert ring.blocked_placement(blocked) == blocked.dice[0]
    placed = first(games, lambda s: MarkKind.PLACE in {m.kind for m in s.last.marks} if s.last else False)
    assert ring.blocked_placement(placed) is None


# -- the end of the game --------------------------------------------------------------------------


def finished(board: list[int], reason: str, winner: int = 0) -> RingState:
    red = sum(v for v in board if v > 0)
    blue = -sum(v for v in board if v < 0)
    return replace(
        new_game(),
        board=tuple(board),
        piles=(12 - red, 12 - blue),
        phase=Phase.OVER,
        turn_seat=winner,
        turn_number=30,
        result=Outcome(
            winner=winner,
            reason=find_variant("ring").read_reason(reason),
            description=f"{('Red', 'Blue')[winner]} wins: ...",
        ),
    )


def test_winning_spaces_of_each_way_to_win() -> None:
    #        1  2  3  4  5  6  7  8  9 10 11 12
    five = [0, -1, 1, 2, 1, 1, 1, 0, -2, 0, 0, 0]
    assert ring.winning_spaces(finished(five, "five-in-a-row")) == {3, 4, 5, 6, 7}
    quarter = [1, 1, 1, 0, -1, 0, 0, 0, 0, -1, 0, 2]
    assert ring.winning_spaces(finished(quarter, "spaces-12-1-2-3")) == {12, 1, 2, 3}
    nine = [1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, -1]
    assert ring.winning_spaces(finished(nine, "nine-spaces")) == {1, 2, 3, 5, 6, 7, 9, 10, 11}
    alone = [0, 0, -3, 0, 0, 0, 0, -1, 0, 0, 0, 0]
    assert ring.winning_spaces(finished(alone, "all-captured", winner=1)) == {3, 8}
    assert ring.winning_spaces(finished(five, "resignation")) == frozenset()


def test_a_finished_game_highlights_the_winner(games: list[list[RingState]]) -> None:
    five = [0, -1, 1, 2, 1, 1, 1, 0, -2, 0, 0, 0]
    state = finished(five, "five-in-a-row")
    data = render_board(state)
    open_png(data)
    for space in (3, 7):
        x, y = ring.position(space)
        assert near(pixel(data, (x, y - ring.SPACE_R - 4)), theme.HIGHLIGHT)
    x, y = ring.position(9)
    assert not near(pixel(data, (x, y - ring.SPACE_R - 4)), theme.HIGHLIGHT)
    for states in games[:5]:
        open_png(render_board(states[-1]))


def test_tall_stacks_and_empty_piles_render() -> None:
    board = [12, 0, 0, 0, 0, 0, -12, 0, 0, 0, 0, 0]
    state = replace(
        new_game(), board=tuple(board), piles=(0, 0), phase=Phase.ROLL, turn_seat=0, turn_number=9
    )
    assert open_png(render_board(state)).size == (ring.WIDTH, ring.HEIGHT)


# -- theme helpers ---------------------------------------------------------------------------------


def test_fonts_ship_with_the_package_and_load_once() -> None:
    fonts = ROOT / "render" / "fonts"
    assert (fonts / "DejaVuSans.ttf").is_file()
    assert (fonts / "DejaVuSans-Bold.ttf").is_file()
    assert "Bitstream" in (fonts / "LICENSE-DejaVu.txt").read_text()
    assert theme.font(30) is theme.font(30)
    assert theme.font(30, bold=False) is not theme.font(30)


def test_text_helpers() -> None:
    assert theme.split_title("Red to move: 3 and 5 to play") == ("Red to move", "3 and 5 to play")
    assert theme.split_title("Blue to roll") == ("Blue to roll", "")
    face = theme.font(24, bold=False)
    lines = theme.wrap("word " * 100, face, 300, max_lines=2)
    assert len(lines) == 2
    assert lines[-1].endswith("…")
    assert all(face.getlength(line) <= 300 for line in lines)


def test_the_modifier_die_looks_unlike_a_white_die() -> None:
    white = theme.die_sprite(3, 60, theme.DieStyle.WHITE).convert("RGB")
    black = theme.die_sprite(3, 60, theme.DieStyle.BLACK).convert("RGB")
    centre = (white.width // 4, white.height // 2)  # body, away from the pips
    assert sum(cast(tuple[int, int, int], white.getpixel(centre))) > 600
    assert sum(cast(tuple[int, int, int], black.getpixel(centre))) < 120


# -- the sample command ----------------------------------------------------------------------------


def test_sample_command_writes_named_pictures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = sample_main(["sample", "--game", "ring", "--out", str(tmp_path), "--only", "start,move-capture"])
    assert code == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["ring-move-capture.png", "ring-start.png"]
    assert capsys.readouterr().out.count(".png") == 2
    assert open_png((tmp_path / "ring-start.png").read_bytes()).size == (ring.WIDTH, ring.HEIGHT)


@pytest.mark.parametrize(
    "args",
    [
        ["sample", "--game", "chess", "--out", "OUT"],
        ["sample", "--game", "ring", "--out", "OUT", "--only", "nothing-like-this"],
        ["sample", "--game", "ring"],
        ["bogus"],
    ],
)
def test_sample_command_bad_arguments_give_one_line(tmp_path: Path, args: list[str]) -> None:
    args = [str(tmp_path) if a == "OUT" else a for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "render", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "error" in done.stderr


# -- the fast PNG output ---------------------------------------------------------------------------


def test_the_png_holds_exactly_the_drawn_picture_in_the_fixed_palette(games: list[list[RingState]]) -> None:
    """The band-wise writer (untouched bands kept from the background) gives the very pixels of the
    drawn picture mapped to the fixed palette, for positions of every kind."""
    caption = theme.Caption(names=("Alice", "Bob"))
    for state in [*games[3][::9], games[4][-1]]:
        png = open_png(ring.render(state, caption))
        assert png.mode == "P" and png.size == (ring.WIDTH, ring.HEIGHT)
        drawn = ring.PICTURE.draw(state, caption).quantize(
            palette=ring.PICTURE.palette(), dither=Image.Dither.NONE
        )
        assert png.convert("RGB").tobytes() == drawn.convert("RGB").tobytes()


def idat(png: bytes) -> bytes:
    """The image data of ``png``: its IDAT chunks joined."""
    data, at = b"", 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        if png[at + 4 : at + 8] == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    return data


def test_the_png_data_passes_zlibs_own_checks(games: list[list[RingState]]) -> None:
    """The checksum at the end of the image data, put together band by band, is the one zlib
    computes (``zlib.decompress`` checks it), and the data is each row's filter byte and indices."""
    for state in [games[5][0], *games[5][1::11], games[5][-1]]:
        raw = zlib.decompress(idat(ring.render(state)))
        row = ring.WIDTH + 1
        assert len(raw) == row * ring.HEIGHT
        assert all(raw[y * row] == 0 for y in range(ring.HEIGHT))


def test_bands_remembered_from_recent_pictures_give_the_same_png(
    games: list[list[RingState]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A band taken from a recent picture (however few are kept) gives the very bytes a fresh
    compression gives."""
    states = games[6][:40]
    fresh = theme.PaletteCanvas(ring._background(), ring.PICTURE.palette())
    monkeypatch.setattr(fresh, "_deflated", lambda index, adler, band: fresh._deflate(band))
    expected = []
    for state in states:
        image = fresh.new_image()
        ring._paint(image, state, theme.NO_CAPTION)
        expected.append(fresh.encode(image))
    canvas = theme.PaletteCanvas(ring._background(), ring.PICTURE.palette())
    monkeypatch.setattr(canvas, "_recent_kept", 5)
    for _ in range(2):
        for state, picture in zip(states, expected, strict=True):
            image = canvas.new_image()
            ring._paint(image, state, theme.NO_CAPTION)
            assert canvas.encode(image) == picture
    assert len(canvas._recent) == 5


def test_adler32_of_joined_pieces() -> None:
    rng = random.Random(5)
    for size in (0, 1, 5, 65520, 65521, 65522, 200_000):
        first = rng.randbytes(rng.randrange(0, 3000))
        second = bytes([255]) * size if size % 2 else rng.randbytes(size)
        combined = png._adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
        assert combined == zlib.adler32(first + second)


def test_the_fixed_palette_keeps_the_flat_colours_exact() -> None:
    data = render_board(new_game())
    assert pixel(data, (5, 5)) == theme.BACKGROUND
    assert pixel(data, ring.CENTER) == theme.BOARD
    x, y = ring.position(6)
    assert pixel(data, (x, y)) == theme.CELL
    colours = (open_png(data).getpalette() or [])[: 3 * 10]
    assert tuple(colours[:3]) == theme.BACKGROUND


# -- the whole turn ---------------------------------------------------------------------------------


def two_step_turn() -> RingState:
    """Red rolls 4-6-1, moves 7 -> 11 (onto its own token), then that stack 11 -> 5: Blue to roll."""
    state = new_game().apply(Opening(5, 2)).apply(Roll(4, 6, 1)).apply(Move(7, 1, 4)).apply(Move(11, 2, 6))
    assert isinstance(state, RingState) and state.phase is Phase.ROLL and state.turn == 1
    return state


def test_a_two_step_turn_draws_both_arrows_with_their_numbers() -> None:
    done = two_step_turn()
    assert ring.moves(ring.turn_events(done)) == [(7, 11), (11, 5)]
    last_only = replace(done, turn_events=(done.turn_events[-1],))
    full, partial = render_board(done), render_board(last_only)
    assert full != partial
    # Arrow 1 runs from 7 to 11 (a quarter of the way along it: no badge there) only in the full turn.
    on_first_arrow = ring.position(8, ring.ARROW_R)
    assert near(pixel(full, on_first_arrow), theme.HIGHLIGHT)
    assert not near(pixel(partial, on_first_arrow), theme.HIGHLIGHT)
    # The numbered badges sit in the middle of each arrow (spaces 9 and 2); just inside the arrow's
    # line the gold there is the badge's alone.
    badge_1, badge_2 = ring.position(9, ring.ARROW_R - 12), ring.position(2, ring.ARROW_R - 12)
    assert near(pixel(full, badge_1), theme.HIGHLIGHT) and near(pixel(full, badge_2), theme.HIGHLIGHT)
    assert not near(pixel(partial, badge_1), theme.HIGHLIGHT)
    # The last step's arrow is numbered 2 in the whole turn, 1 when it is drawn alone.
    x, y = badge_2
    box = (round(x) - 20, round(y) - 20, round(x) + 20, round(y) + 20)
    assert (
        open_png(full).convert("RGB").crop(box).tobytes()
        != open_png(partial).convert("RGB").crop(box).tobytes()
    )


def test_arrows_that_would_lie_on_each_other_take_two_lanes() -> None:
    assert ring.arrow_lanes([(7, 11), (11, 5)]) == [0, 0]
    assert ring.arrow_lanes([(3, 5), (3, 5)]) == [0, 1]
    assert ring.arrow_lanes([(3, 6), (5, 7)]) == [0, 1]
    assert ring.arrow_lanes([(11, 1), (1, 3)]) == [0, 0]


def test_the_next_roll_clears_the_previous_turns_arrows() -> None:
    done = two_step_turn()
    rolled = done.apply(Roll(2, 3, 6))
    assert isinstance(rolled, RingState)
    assert ring.moves(ring.turn_events(rolled)) == []
    assert not near(pixel(render_board(rolled), ring.position(8, ring.ARROW_R)), theme.HIGHLIGHT)


@pytest.mark.slow
def test_the_shipped_palette_is_the_one_the_samples_give() -> None:
    """render/ring_palette.py is current: after a change of the look, `python -m render palette
    --game ring` writes it again."""
    shipped = ring.PICTURE.palette().getpalette() or []
    rebuilt = [v for colour in ring.PICTURE.build_palette() for v in colour]
    assert shipped[: len(rebuilt)] == rebuilt
    assert (ROOT / "render" / "ring_palette.py").read_text() == ring.PICTURE.palette_module(
        ring.PICTURE.build_palette()
    )
