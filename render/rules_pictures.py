"""The pictures of the rules pages: sheets of small board pictures, each with a caption.

``python -m render rules --game ring --out cogs/rules`` redraws them (the same files every time: the
boards come from the seeded sample search of ``python -m render sample``).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.protocol import GameState
from render import render_board, theme

SHEET_WIDTH = 800
GAP = 14
CAPTION = 50
DETAIL = 30
DETAIL_SIZE = 22
CAPTION_SIZE = 27
CROP = (0, 100, 800, 818)
"""The ring of a board picture (its header and footer line are left out: the caption says it)."""


@dataclass(frozen=True, slots=True)
class Panel:
    """One small board: a sample's name and the caption shown above it."""

    sample: str
    caption: str


@dataclass(frozen=True, slots=True)
class Sheet:
    """A rules picture: its file name (``<game>-<name>.png``) and its panels, two per row."""

    name: str
    panels: tuple[Panel, ...]
    dice: bool = False
    """Whether each caption has a second line with the roll shown ("rolled 5-5-5")."""
    crop: tuple[int, int, int, int] = CROP
    """The part of each board picture shown (the game's ring, without its header and footer)."""


def _panel(
    board: bytes, caption: str, detail: str, width: int, crop: tuple[int, int, int, int] = CROP
) -> Image.Image:
    picture = Image.open(io.BytesIO(board)).convert("RGB").crop(crop)
    height = round(picture.height * width / picture.width)
    picture = picture.resize((width, height), Image.Resampling.LANCZOS)
    top = CAPTION + (DETAIL if detail else 0)
    panel = Image.new("RGB", (width, top + height), theme.BACKGROUND)
    draw = ImageDraw.Draw(panel)
    draw.text((width / 2, CAPTION / 2), caption, font=theme.font(CAPTION_SIZE), fill=theme.TEXT, anchor="mm")
    if detail:
        draw.text(
            (width / 2, CAPTION + DETAIL / 2 - 6),
            detail,
            font=theme.font(DETAIL_SIZE, bold=False),
            fill=theme.TEXT,
            anchor="mm",
        )
    panel.paste(picture, (0, top))
    return panel


def dice_text(state: GameState) -> str:
    """ "rolled 5-5-2" for a state that shows a roll, else nothing."""
    dice = getattr(state, "dice", None)
    return f"rolled {'-'.join(str(d) for d in dice)}" if dice else ""


def draw_sheet(boards: Sequence[tuple[bytes, str, str]], crop: tuple[int, int, int, int] = CROP) -> bytes:
    """Small pictures of ``boards`` (PNG bytes, caption, second line or ""), two per row, as one PNG."""
    width = (SHEET_WIDTH - 3 * GAP) // 2
    panels = [_panel(board, caption, detail, width, crop) for board, caption, detail in boards]
    height = panels[0].height
    rows = (len(panels) + 1) // 2
    sheet = Image.new("RGB", (SHEET_WIDTH, GAP + rows * (height + GAP)), theme.BACKGROUND)
    for index, panel in enumerate(panels):
        column, row = index % 2, index // 2
        sheet.paste(panel, (GAP + column * (width + GAP), GAP + row * (height + GAP)))
    return theme.encode_png(sheet)


def rules_pictures(
    sheets: Sequence[Sheet], find: Callable[[int, frozenset[str]], list[tuple[str, GameState]]], seed: int
) -> dict[str, bytes]:
    """Each sheet's PNG bytes by name, drawn from the sample search ``find``."""
    wanted = frozenset(p.sample for s in sheets for p in s.panels)
    states = dict(find(seed, wanted))
    missing = sorted(wanted - set(states))
    if missing:
        raise ValueError(f"{', '.join(missing)} did not occur in the seeded random games")
    return {
        sheet.name: draw_sheet(
            [
                (
                    render_board(states[p.sample].view(None)),
                    p.caption,
                    dice_text(states[p.sample]) if sheet.dice else "",
                )
                for p in sheet.panels
            ],
            sheet.crop,
        )
        for sheet in sheets
    }
