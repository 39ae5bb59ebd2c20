"""Backgammon pictures of issue 24's rough edges: the take/pass board from the side it asks, the
cube out of play in the Crawford game, the post-Crawford mark, the previous play on the board that
hands the turn over."""

from __future__ import annotations

import io

from PIL import Image

from engine.backgammon.game import BackgammonState
from engine.backgammon.variant import VARIANT
from render import render_board
from render.backgammon import CUBE, CUBE_X, MID_Y, bottom_seat, match_lines


def played(state: BackgammonState, *texts: str) -> BackgammonState:
    for text in texts:
        after = state.apply(VARIANT.parse_action(state, text))
        assert isinstance(after, BackgammonState)
        state = after
    return state


def cube_pixels(state: BackgammonState) -> set[tuple[int, int, int]]:
    picture = Image.open(io.BytesIO(render_board(state.view(None)))).convert("RGB")
    half = CUBE // 2
    box = (round(CUBE_X - half), round(MID_Y - half), round(CUBE_X + half), round(MID_Y + half))
    return {p for p in picture.crop(box).getdata()}  # type: ignore[misc]


def test_take_pass_board_is_drawn_from_the_side_of_the_player_asked() -> None:
    doubled = played(VARIANT.new_game({"length": 5}), "opening 3-1", "8/5 6/5", "double")
    assert doubled.turn_seat == 1  # Black doubles: White is asked
    assert bottom_seat(doubled) == 0
    # A player's own picture still puts that player at the bottom.
    assert bottom_seat(doubled.view(1)) == 1


def test_crawford_game_cube_is_drawn_out_of_play_and_post_crawford_is_marked() -> None:
    start = VARIANT.new_game({"length": 5})
    crawford = played(start.but(score=(4, 1), crawford=True, crawford_done=True), "opening 3-1")
    normal = played(start.but(score=(3, 1)), "opening 3-1")
    face = (244, 241, 232)  # the cube's ivory face, showing 64
    assert face in cube_pixels(normal) and face not in cube_pixels(crawford)
    assert any(text == "Crawford game" for text, _ in match_lines(crawford))
    after = played(start.but(score=(4, 2), crawford_done=True), "opening 3-1")
    assert after.post_crawford and not crawford.post_crawford and not normal.post_crawford
    assert [text for text, _ in match_lines(after)] == ["5-point match", "post-Crawford"]
    assert "post-Crawford" in after.score_text and "post-Crawford" not in normal.score_text
