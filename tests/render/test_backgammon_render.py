"""The backgammon board picture: valid, deterministic PNGs of every phase and rule set, seen from the
seat on turn, with the checkers, counts, cube, dice and last play where the picture claims them."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest
from PIL import Image, ImageChops

from engine.backgammon.board import BAR_POINT, OFF_POINT, RuleSet, side_from, starting_board
from engine.backgammon.game import BackgammonState, OfferResignation, Phase
from engine.backgammon.plays import Move
from engine.backgammon.variant import VARIANT
from engine.protocol import Forfeit, GameView, Outcome
from render import RENDERERS, SEAT_STYLES, backgammon, render_board, theme
from render.__main__ import SAMPLES
from render.__main__ import main as render_main
from tests.render.written import record_labels

ROOT = Path(__file__).resolve().parents[2]
MAX_BYTES = 150 * 1024
CUBE_BODY = (244, 241, 232)


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
def matches() -> list[list[BackgammonState]]:
    """Seeded random 5-point matches, two per rule set."""
    rule_sets = (RuleSet.STANDARD, RuleSet.NACKGAMMON, RuleSet.OLDENGLISH)
    return [backgammon.random_match(seed, 5, rule_sets[seed % 3]) for seed in range(1, 7)]


def find(matches: list[list[BackgammonState]], test: Callable[[BackgammonState], bool]) -> BackgammonState:
    for states in matches:
        for state in states:
            if test(state):
                return state
    raise AssertionError("no such position in the seeded matches")


def start(turn_seat: int | None = None) -> BackgammonState:
    state = VARIANT.new_game({"length": 5})
    return replace(state, turn_seat=turn_seat, phase=Phase.ROLL) if turn_seat is not None else state


# -- the picture --------------------------------------------------------------------------------


def test_the_start_is_a_png_of_the_board_size() -> None:
    image = open_png(render_board(start()))
    assert image.size == (backgammon.WIDTH, backgammon.HEIGHT)
    assert image.mode == "P"


def test_backgammon_is_registered_with_the_renderers_and_seat_styles() -> None:
    assert RENDERERS["backgammon"] is backgammon.render
    white, black = SEAT_STYLES["backgammon"]
    assert white.fill != black.fill and white.shape != black.shape
    assert "backgammon" in SAMPLES


def test_the_renderer_refuses_other_states() -> None:
    class Other:
        variant_key = "backgammon"

    with pytest.raises(TypeError, match="backgammon states"):
        backgammon.render(cast(GameView, Other()))


def test_every_phase_of_random_matches_in_every_rule_set_renders_small_enough(
    matches: list[list[BackgammonState]],
) -> None:
    phases: set[Phase] = set()
    rules: set[RuleSet] = set()
    in_progress = 0
    caption = theme.Caption(names=("Alice Liddell", "bob"))
    for states in matches:
        for i, state in enumerate(states):
            if (
                state.phase not in phases
                or i % 23 == 0
                or state.result is not None
                or (state.played and i % 5 == 0)
            ):
                data = render_board(state, caption)
                assert open_png(data).size == (backgammon.WIDTH, backgammon.HEIGHT)
                assert len(data) <= MAX_BYTES
                phases.add(state.phase)
                rules.add(state.rules)
                in_progress += bool(state.played)
    resign = find(matches, lambda s: s.phase is Phase.DECIDE).apply(OfferResignation(2))
    assert open_png(render_board(resign)).size == (backgammon.WIDTH, backgammon.HEIGHT)
    phases.add(resign.phase)
    assert phases == set(Phase)
    assert rules == set(RuleSet)
    assert in_progress >= 10


def test_the_same_state_gives_the_same_bytes(matches: list[list[BackgammonState]]) -> None:
    state = matches[0][len(matches[0]) // 2]
    again = VARIANT.from_json(state.to_json())
    assert render_board(state) == render_board(state) == render_board(again)
    seat = state.turn_seat or 0
    assert backgammon.render(state) == render_board(state.view(None))
    # The mover's own picture is the public one, but for the opponent's play before a forced part,
    # which only the board handing the turn over shows.
    if backgammon.previous_moves(state) is None:
        assert render_board(state.view(None)) == render_board(state.view(seat))
    # A player's own picture (a turn in progress) has that player's side at the bottom.
    assert render_board(state.view(1 - seat)) != render_board(state)


def test_the_png_holds_exactly_the_drawn_picture_in_the_fixed_palette(
    matches: list[list[BackgammonState]],
) -> None:
    caption = theme.Caption(names=("Alice", "Bob"))
    for state in [*matches[1][::40], matches[1][-1]]:
        png = open_png(backgammon.render(state, caption))
        drawn = backgammon.PICTURE.draw(state, caption).quantize(
            palette=backgammon.PICTURE.palette(), dither=Image.Dither.NONE
        )
        assert png.convert("RGB").tobytes() == drawn.convert("RGB").tobytes()


def test_the_fixed_palette_keeps_the_flat_colours_exact() -> None:
    data = render_board(start())
    assert pixel(data, (5, 5)) == theme.BACKGROUND
    assert pixel(data, (backgammon.point_x(14), backgammon.INNER_TOP + 2)) == backgammon.POINT_LIGHT
    assert pixel(data, (backgammon.point_x(15), backgammon.INNER_TOP + 2)) == backgammon.POINT_DARK


# -- perspective and checkers ---------------------------------------------------------------------


def test_the_seat_on_turn_sits_at_the_bottom_with_its_back_checkers_on_the_top_right() -> None:
    """At the start each side has two checkers on its own 24-point: top right, seen by the seat on turn."""
    white_turn, black_turn = start(0), start(1)
    assert render_board(white_turn) != render_board(black_turn)
    at_24 = backgammon.slot(24, 0)
    at_1 = backgammon.slot(1, 0)
    assert pixel(render_board(white_turn), at_24) == backgammon.WHITE.fill
    assert pixel(render_board(white_turn), at_1) == backgammon.BLACK.fill
    assert pixel(render_board(black_turn), at_24) == backgammon.BLACK.fill
    assert pixel(render_board(black_turn), at_1) == backgammon.WHITE.fill
    # Before the first turn seat 0 (White) is at the bottom.
    assert pixel(render_board(start()), at_24) == backgammon.WHITE.fill


def test_points_are_numbered_from_the_bottom_right() -> None:
    assert backgammon.point_x(1) > backgammon.point_x(6) > backgammon.BAR_X > backgammon.point_x(7)
    assert backgammon.point_x(13) < backgammon.point_x(18) < backgammon.BAR_X < backgammon.point_x(19)
    assert backgammon.point_x(24) == backgammon.point_x(1)
    assert backgammon.slot(1, 0)[1] > backgammon.MID_Y > backgammon.slot(24, 0)[1]


def tall(count: int) -> BackgammonState:
    sides = (side_from({6: count, 8: 15 - count}), starting_board(RuleSet.STANDARD)[1])
    return BackgammonState(sides=sides, length=5, turn_seat=0, phase=Phase.ROLL, turn_number=3)


def test_a_point_with_more_than_five_checkers_shows_its_count_on_the_fifth() -> None:
    five, nine, ten = (render_board(tall(n)) for n in (5, 9, 10))
    assert nine != ten  # only the count differs: five checkers are drawn either way
    # The fifth checker's centre: White's face on five, the count's outlined digits on more.
    fifth = backgammon.slot(6, 4)
    assert pixel(five, fifth) == backgammon.WHITE.fill
    assert pixel(nine, fifth) != backgammon.WHITE.fill
    assert pixel(nine, backgammon.slot(6, 5)) == pixel(five, backgammon.slot(6, 5))  # no sixth checker


def test_checkers_on_the_bar_and_borne_off_are_drawn() -> None:
    sides = (side_from({6: 5, 25: 2}), side_from({1: 1, 2: 2}))  # White 8 off, Black 12 off
    state = BackgammonState(sides=sides, length=5, turn_seat=0, phase=Phase.ROLL, turn_number=30)
    data = render_board(state)
    # White's (bottom) bar checkers wait in the upper half of the bar, where they come in.
    assert pixel(data, backgammon.bar_slot(True, 0)) == backgammon.WHITE.fill
    # White's borne-off checkers lie in the lower tray, Black's in the upper one.
    lower = (backgammon.TRAY_X, backgammon.INNER_BOTTOM - backgammon.SLAB_H / 2 - 1)
    upper = (backgammon.TRAY_X, backgammon.INNER_TOP + backgammon.SLAB_H / 2 + 1)
    assert near(pixel(data, lower), backgammon.WHITE.fill)
    assert near(pixel(data, upper), backgammon.BLACK.fill)


# -- cube and dice --------------------------------------------------------------------------------


def test_the_cube_sits_by_its_owner_and_in_the_middle_when_centred() -> None:
    middle = (backgammon.CUBE_X, backgammon.MID_Y - 14)
    top = (backgammon.CUBE_X, backgammon.INNER_TOP + backgammon.CUBE / 2 + 6 - 14)
    bottom = (backgammon.CUBE_X, backgammon.INNER_BOTTOM - backgammon.CUBE / 2 - 6 - 14)
    centred = render_board(start(0))
    assert pixel(centred, middle) == CUBE_BODY
    black_owns = render_board(replace(start(0), cube=2, cube_owner=1))
    assert pixel(black_owns, top) == CUBE_BODY and pixel(black_owns, middle) != CUBE_BODY
    white_owns = render_board(replace(start(0), cube=4, cube_owner=0))
    assert pixel(white_owns, bottom) == CUBE_BODY
    # Seen from Black, White's cube is at the top.
    assert pixel(render_board(replace(start(1), cube=4, cube_owner=0)), top) == CUBE_BODY


def test_no_cube_in_old_english_or_a_single_game() -> None:
    middle = (backgammon.CUBE_X, backgammon.MID_Y - 14)
    old = VARIANT.new_game({"length": 5, "rules": "oldenglish"})
    single = VARIANT.new_game({"length": 1})
    assert pixel(render_board(old), middle) == theme.BACKGROUND
    assert pixel(render_board(single), middle) == theme.BACKGROUND


def test_a_double_offered_shows_the_new_value_in_the_doublers_half() -> None:
    deciding = replace(start(0), phase=Phase.DECIDE)
    offered = deciding.apply(VARIANT.parse_action(deciding, "double"))
    assert isinstance(offered, BackgammonState) and offered.phase is Phase.TAKE
    data = render_board(offered)
    cube_at = (backgammon.RIGHT_GAP_X - 70, backgammon.MID_Y - 18)
    assert pixel(data, cube_at) == CUBE_BODY
    assert pixel(data, (backgammon.CUBE_X, backgammon.MID_Y - 14)) != CUBE_BODY  # not left centred
    assert backgammon.header_text(offered) == "Black to take or pass: White doubles to 2"
    assert backgammon.header_seat(offered) == 1


def test_used_dice_are_faded_and_doubles_are_four_dice() -> None:
    state = VARIANT.new_game({"length": 5})
    state = state.apply(state.chance_action((6, 4)))  # White starts with 6-4
    assert backgammon.die_opacities(state) == [1.0, 1.0]
    moved = state.apply(VARIANT.parse_action(state, "move 24/18"))
    assert isinstance(moved, BackgammonState)
    assert backgammon.die_opacities(moved) == [0.3, 1.0]
    double = replace(state, dice=(3, 3), dice_left=(3, 3, 3))
    assert backgammon.die_opacities(double) == [0.3, 1.0, 1.0, 1.0]


# -- the last play --------------------------------------------------------------------------------


def test_a_play_in_progress_is_drawn_as_arrows_instead_of_the_last_play() -> None:
    state = VARIANT.new_game({"length": 5})
    state = state.apply(state.chance_action((6, 4)))
    moved = state.apply(VARIANT.parse_action(state, "move 24/18"))
    assert isinstance(moved, BackgammonState)
    shown = backgammon.shown_moves(moved)
    assert shown is not None and shown[0] == 0 and [(m.src, m.dst) for m in shown[1]] == [(24, 18)]
    data = render_board(moved)
    assert data != render_board(replace(moved, played=()))
    # The gold arrow runs from the 24-point's empty slot to the checker on 18.
    start_at = backgammon.slot(24, 1)
    end_at = backgammon.slot(18, 0)
    assert near(pixel(data, backgammon._bezier(start_at, end_at, 0.5)), theme.HIGHLIGHT, 40)
    assert not near(
        pixel(render_board(state), backgammon._bezier(start_at, end_at, 0.5)), theme.HIGHLIGHT, 40
    )


def test_the_opponents_last_play_is_mirrored_and_its_hits_marked(
    matches: list[list[BackgammonState]],
) -> None:
    hit = find(
        matches,
        lambda s: s.phase is Phase.ROLL and s.last_play is not None and any(m.hit for m in s.last_play.moves),
    )
    assert hit.last_play is not None and hit.last_play.seat != hit.turn_seat
    data = render_board(hit)
    assert data != render_board(replace(hit, last_play=None))
    move = next(m for m in hit.last_play.moves if m.hit)
    point = backgammon.on_screen(hit.last_play.seat, hit.turn_seat or 0, move.dst)
    assert point == 25 - move.dst
    reds = [
        pixel(data, (backgammon.point_x(point) + dx, y))
        for y in range(
            round(backgammon.slot(point, 0)[1]) - 160, round(backgammon.slot(point, 0)[1]) + 160, 3
        )
        for dx in (-12, 0, 12)
        if 0 <= y < backgammon.HEIGHT
    ]
    assert any(near(p, backgammon.HIT_RED, 30) for p in reds)


# -- words ----------------------------------------------------------------------------------------


def test_the_match_line_names_the_length_crawford_and_the_rule_set() -> None:
    crawford = replace(VARIANT.new_game({"length": 7, "rules": "nackgammon"}), crawford=True)
    assert [text for text, _ in backgammon.match_lines(crawford)] == [
        "7-point match",
        "Crawford game",
        "Nackgammon",
    ]
    assert backgammon.match_lines(VARIANT.new_game({"length": 1})) == []
    assert render_board(crawford) != render_board(replace(crawford, crawford=False))


def test_a_won_match_and_an_ending_off_the_board_are_shown(matches: list[list[BackgammonState]]) -> None:
    won = matches[0][-1]
    assert won.result is not None
    assert backgammon.header_seat(won) == won.result.winner
    assert render_board(won) != render_board(replace(won, result=None, phase=Phase.ROLL))
    going = matches[0][40]
    ending = Outcome(winner=1, reason=Forfeit.TIMEOUT, description="Black wins on time")
    assert render_board(going, theme.Caption(ending=ending)) != render_board(going)


def test_sample_command_writes_every_backgammon_situation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert render_main(["sample", "--game", "backgammon", "--out", str(tmp_path)]) == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    expected = sorted(f"backgammon-{name}.png" for name in SAMPLES["backgammon"].names)
    assert written == expected
    for name in written:
        assert open_png((tmp_path / name).read_bytes()).size == (backgammon.WIDTH, backgammon.HEIGHT)


@pytest.mark.slow
def test_the_shipped_palette_is_the_one_the_samples_give() -> None:
    """render/backgammon_palette.py is current: after a change of the look, `python -m render palette
    --game backgammon` writes it again."""
    expected = backgammon.PICTURE.palette_module(backgammon.PICTURE.build_palette())
    assert (ROOT / "render" / "backgammon_palette.py").read_text() == expected


# -- the match's words and the arrows ------------------------------------------------------------


def long_moves(matches: list[list[BackgammonState]]) -> dict[str, list[BackgammonState]]:
    """Positions of the seeded matches whose shown play (a play in progress, or the last one) has a
    move of each kind that crosses the board: from the far half to the near one, along a row over
    the bar, in from the bar, off to the tray, and six points or more at once."""
    kinds: dict[str, Callable[[Move], bool]] = {
        "across the halves": lambda m: m.src >= 13 > m.dst >= 1,
        "over the bar": lambda m: m.src >= 19 > m.dst >= 13 or (7 <= m.src <= 12 and 1 <= m.dst <= 6),
        "in from the bar": lambda m: m.src == BAR_POINT,
        "off to the tray": lambda m: m.dst == OFF_POINT,
        "six or more": lambda m: m.src != BAR_POINT and m.dst != OFF_POINT and m.src - m.dst >= 6,
    }
    found: dict[str, list[BackgammonState]] = {kind: [] for kind in kinds}
    for states in matches:
        for state in states:
            shown = [backgammon.shown_moves(state), backgammon.previous_moves(state)]
            moves = [m for found_moves in shown if found_moves for m in found_moves[1]]
            if state.result is not None or not backgammon.match_lines(state):
                continue
            for kind, test in kinds.items():
                if any(test(m) for m in moves) and len(found[kind]) < 8:
                    found[kind].append(state)
    return found


def test_the_arrows_of_a_play_never_cross_the_match_s_words(
    matches: list[list[BackgammonState]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 33: the arrows of the last play crossed "3-point match". For plays with long moves of
    every kind, no pixel the play's marks draw (arrows, their numbers, rings, "hit") is inside the
    box of the match's words ("5-point match", "Crawford game", the rule set)."""
    written = record_labels(monkeypatch)
    found = long_moves(matches)
    assert all(found.values()), {kind: len(states) for kind, states in found.items()}
    draw_play = backgammon._draw_play
    for kind, states in found.items():
        for state in states:
            written.clear()
            monkeypatch.setattr(backgammon, "_draw_play", draw_play)
            drawn = open_png(render_board(state)).convert("RGB")
            words = {text for text, _ in backgammon.match_lines(state)}
            boxes = [box for box, text in written if text in words]
            assert len(boxes) == len(words), (kind, written)
            monkeypatch.setattr(backgammon, "_draw_play", lambda *args: None)
            bare = open_png(render_board(state)).convert("RGB")
            marks = ImageChops.difference(drawn, bare).convert("L")
            assert marks.getbbox() is not None, kind  # the play is drawn
            for box in boxes:
                assert marks.crop(box).getbbox() is None, (kind, box, state.last_text)
