"""Backgammon pictures of issue 24's rough edges: the take/pass board from the side it asks, the
cube out of play in the Crawford game, the post-Crawford mark, the previous play on the board that
hands the turn over."""

from __future__ import annotations

import functools
import io
import itertools
import random

from PIL import Image

from engine.ai.random_player import random_action
from engine.backgammon.game import COLOURS, BackgammonState
from engine.backgammon.variant import VARIANT
from engine.backgammon.words import move_label, post_crawford
from render import render_board
from render.analysis_chart import render_chances, shown_labels
from render.backgammon import (
    CUBE,
    CUBE_X,
    MID_Y,
    SEATS,
    WIDTH,
    bottom_seat,
    header_seat,
    header_text,
    match_lines,
    previous_moves,
    random_match,
    shown_moves,
)
from render.text import font, split_title, text_length
from render.theme import NAME_SIZE


def played(state: BackgammonState, *texts: str) -> BackgammonState:
    after = functools.reduce(lambda s, text: s.apply(VARIANT.parse_action(s, text)), texts, state)
    assert isinstance(after, BackgammonState)
    return after


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
    assert post_crawford(after) and not post_crawford(crawford) and not post_crawford(normal)
    assert [text for text, _ in match_lines(after)] == ["5-point match", "post-Crawford"]
    assert "post-Crawford" in after.score_text and "post-Crawford" not in normal.score_text


def test_the_board_handing_the_turn_over_shows_the_previous_play_whole_beside_the_forced_part() -> None:
    # White plays 3-1; Black's 6-4 has its first checker moved (as a forced part is, by itself).
    state = played(VARIANT.new_game({"length": 1}), "opening 3-1", "8/5 6/5", "roll 6-4", "move 24/18")
    assert state.turn_seat == 1 and state.played
    assert previous_moves(state.view(None)) == (0, state.last_play.moves if state.last_play else ())
    assert shown_moves(state)[1] == (state.played[0].move,)  # type: ignore[index]
    without = state.but(last_play=None)
    assert render_board(state.view(None)) != render_board(without.view(None))
    # Black's own picture of the turn in progress shows only Black's moves.
    assert previous_moves(state.view(1)) is None
    assert render_board(state.view(1)) == render_board(without.view(1))


def test_titles_fit_the_header_beside_the_game_and_move() -> None:
    """No title is cut off ("White wins a backgammon (3…"): every state of random matches of 1, 5 and
    11 points has a header title that fits beside "game G, move M" (the room draw_header leaves)."""
    for seed in range(4):
        for length in (1, 5, 11):
            for state in random_match(seed, length):
                title, _ = split_title(header_text(state).rstrip("."))
                left = 74 if header_seat(state) is not None else 28
                place = text_length(font(NAME_SIZE, bold=False), move_label(state)) + 22
                assert text_length(font(32), title) <= WIDTH - left - 28 - place, (title, move_label(state))


def test_titles_of_money_sessions_with_beavers_fit_too() -> None:
    """A session with beavers asks "take, beaver or pass": the title still fits (the beaver is said
    in the detail line), and so do the session's other titles (its result included)."""
    asked = 0
    for seed in range(3):
        rng = random.Random(seed)
        state = VARIANT.new_game(VARIANT.resolve_options({"length": 0, "beavers": True, "limit": 2}))
        while state.outcome() is None:
            title, detail = split_title(header_text(state).rstrip("."))
            left = 74 if header_seat(state) is not None else 28
            place = text_length(font(NAME_SIZE, bold=False), move_label(state)) + 22
            assert text_length(font(32), title) <= WIDTH - left - 28 - place, title
            if state.may_beaver():
                asked += 1
                assert "may beaver" in detail
            state = state.apply(random_action(state, rng))
    assert asked > 0


def test_a_one_point_match_says_what_it_was_won_by_not_its_points() -> None:
    seen = set()
    for seed in range(6):
        won = random_match(seed, 1)[-1]
        assert won.result is not None and won.result.winner is not None
        how = won.result.description.removeprefix(f"{COLOURS[won.result.winner]} wins the match with ")
        assert how in ("a single game", "a gammon", "a backgammon") and "point" not in won.result.description
        assert header_text(won) == f"{COLOURS[won.result.winner]} wins the match: {how}"
        seen.add(how)
    assert "a gammon" in seen


def test_analysis_chart_game_labels_never_overlap() -> None:
    assert shown_labels([(0, 20), (10, 20), (40, 20), (62, 20)], 8) == [True, False, True, False]
    # Many short games ("G1G2G3" once): each label drawn keeps its room from the one before.
    boxes = [(i * 30.0, 24.0) for i in range(20)]
    drawn = [box for box, shown in zip(boxes, shown_labels(boxes, 8), strict=True) if shown]
    assert all(b[0] >= a[0] + a[1] + 8 for a, b in itertools.pairwise(drawn)) and len(drawn) == 10
    png = render_chances([[0.5]] * 15 + [[0.5, 0.6, 0.4]], 0, "Alice", SEATS)
    assert Image.open(io.BytesIO(png)).size == (800, 420)
