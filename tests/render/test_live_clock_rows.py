"""The live clock on the backgammon picture: each player's reserve in their row, the running one on
a highlighted tag; nothing else of the picture changes."""

from __future__ import annotations

import io

from PIL import Image, ImageChops

from engine.backgammon.variant import VARIANT
from render import backgammon, theme
from render.theme import Caption


def _picture(caption: Caption) -> Image.Image:
    state = VARIANT.new_game({"length": 3})
    return Image.open(io.BytesIO(backgammon.render(state.view(None), caption))).convert("RGB")


def _changed_rows(before: Image.Image, after: Image.Image) -> tuple[int, int] | None:
    box = ImageChops.difference(before, after).getbbox()
    return None if box is None else (box[1], box[3])


def test_the_reserves_are_drawn_in_the_players_rows_and_the_running_one_stands_out() -> None:
    names = ("Alice", "Bob")
    plain = _picture(Caption(names=names))
    idle = _picture(Caption(names=names, clocks=("1:48", "2:00")))
    running = _picture(Caption(names=names, clocks=("1:48", "2:00"), clock_running=0))
    changed = _changed_rows(plain, idle)
    assert changed is not None
    # Only the two rows beside the board change (their strips are 36 px high around each row's y).
    assert changed[0] >= backgammon.TOP_ROW_Y - 18 and changed[1] <= backgammon.BOTTOM_ROW_Y + 18
    assert _changed_rows(_rows_cut(plain), _rows_cut(idle)) is None
    # The running reserve is on a highlighted tag; idle ones are not.
    assert theme.HIGHLIGHT in _row_colours(running) and theme.HIGHLIGHT not in _row_colours(idle)


def _strips(image: Image.Image) -> list[Image.Image]:
    return [
        image.crop((0, y - 18, image.width, y + 18)) for y in (backgammon.TOP_ROW_Y, backgammon.BOTTOM_ROW_Y)
    ]


def _row_colours(image: Image.Image) -> set[tuple[int, int, int]]:
    return {colour for strip in _strips(image) for _, colour in strip.getcolors(1 << 16) or ()}


def _rows_cut(image: Image.Image) -> Image.Image:
    """The picture without its two rows (painted over)."""
    cut = image.copy()
    for y in (backgammon.TOP_ROW_Y, backgammon.BOTTOM_ROW_Y):
        cut.paste((0, 0, 0), (0, y - 18, image.width, y + 18))
    return cut
