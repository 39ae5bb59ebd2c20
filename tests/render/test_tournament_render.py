"""The tournament pictures (render/tournament.py): pages that fit a phone, winners marked, the
asker's own standing, names cut to fit."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from engine.tournament import Result, Tournament
from engine.tournament.simulate import everyone, field, play_out, play_round
from render.look import HIGHLIGHT
from render.tournament import (
    COLUMN_TOP,
    LEFT_X,
    ROW,
    ROWS_PER_PAGE,
    STANDING_ROW,
    TABLE_TOP,
    WIDTH,
    bracket_page_of,
    bracket_pages,
    draw_bracket,
    draw_standings,
    render_bracket,
    render_standings,
    standings_pages,
)

NAMES = everyone(field(256))


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG")
    return Image.open(io.BytesIO(data)).size


def gold_in(image: Image.Image, box: tuple[int, int, int, int]) -> bool:
    colours = image.crop(box).getcolors(1 << 16) or []
    return any(colour == HIGHLIGHT for _, colour in colours)


@pytest.mark.parametrize(("size", "pages"), [(2, 1), (8, 1), (16, 1), (17, 2), (64, 4), (256, 16)])
def test_a_bracket_page_shows_at_most_sixteen_names(size: int, pages: int) -> None:
    t = Tournament.start("knockout", field(size))
    assert bracket_pages(t) == pages
    width, height = png_size(render_bracket(t, NAMES, page=pages))
    assert width == WIDTH and height <= 1000


def test_the_bracket_shows_the_semi_finals_and_final_once_the_final_is_reached() -> None:
    t = play_out(Tournament.start("knockout", field(64)))
    assert bracket_pages(t) == 1
    assert png_size(render_bracket(t, NAMES, title="Cup"))[1] < 500
    assert bracket_pages(t, round=1) == 4


def test_the_page_of_a_player_holds_their_table() -> None:
    t = Tournament.start("knockout", field(64))
    assert [bracket_page_of(t, p) for p in (1, 2, 3, 4, 64)] == [1, 3, 4, 2, 1]
    assert bracket_page_of(t, 999) == 1


def test_a_winner_is_marked_in_gold() -> None:
    t = Tournament.start("knockout", field(8))
    first_line = (LEFT_X, COLUMN_TOP, LEFT_X + 360, COLUMN_TOP + ROW)
    assert not gold_in(draw_bracket(t, NAMES), first_line)
    assert gold_in(draw_bracket(t.record(Result(1, 1, 1, "played")), NAMES), first_line)
    second_line = (LEFT_X, COLUMN_TOP + ROW, LEFT_X + 360, COLUMN_TOP + 2 * ROW)
    assert not gold_in(draw_bracket(t.record(Result(1, 1, 1, "played")), NAMES), second_line)


@pytest.mark.parametrize(("round", "page"), [(None, 2), (2, 1), (0, 1)])
def test_a_page_or_round_that_does_not_exist_is_refused(round: int | None, page: int) -> None:
    with pytest.raises(ValueError):
        render_bracket(Tournament.start("knockout", field(8)), NAMES, round=round, page=page)


def test_a_swiss_event_has_no_bracket() -> None:
    with pytest.raises(ValueError, match="only a knockout"):
        render_bracket(Tournament.start("swiss", field(8)), NAMES)


def test_the_standings_add_the_asker_s_row_from_another_page() -> None:
    t = play_round(Tournament.start("swiss", field(40)))
    assert standings_pages(t) == 3
    alone = draw_standings(t, NAMES)
    with_own = draw_standings(t, NAMES, player=t.standings()[30].player)
    on_page = draw_standings(t, NAMES, player=t.standings()[3].player)
    assert with_own.height > alone.height == on_page.height
    assert alone.height <= 1000 and alone.width == WIDTH


def test_the_champion_s_row_is_gold() -> None:
    t = Tournament.start("swiss", field(4))
    top_row = (0, TABLE_TOP, WIDTH, TABLE_TOP + STANDING_ROW)
    assert not gold_in(draw_standings(t, NAMES), top_row)
    assert gold_in(draw_standings(play_out(t), NAMES), top_row)


def test_long_and_undrawable_names_are_cut_to_fit() -> None:
    t = play_round(Tournament.start("swiss", field(ROWS_PER_PAGE)))
    names = {p: "\U0001f3b2" * 3 + "Bartholomew " * 8 + str(p) for p in range(1, ROWS_PER_PAGE + 1)}
    names[2] = "\U0001f3b2"
    for picture in (
        render_standings(t, names, title="x" * 300),
        render_bracket(play_out(Tournament.start("knockout", field(4))), names),
    ):
        assert png_size(picture)[0] == WIDTH
