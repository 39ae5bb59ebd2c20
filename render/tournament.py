"""A tournament's pictures: the knockout bracket and the standings table.

Both are 800 pixels wide with 24-pixel names, like the board pictures, so they read at the 400
pixels a phone shows them. A whole bracket of 64 players cannot: the bracket picture shows two
rounds side by side, the one being played and the one it feeds, at most eight tables of the first
(sixteen names) per page; earlier rounds are summed up in the header (how many are left). The
standings show sixteen rows a page, and the row of one player asked for (the one who asked) is added
under them when it is on another page. Winners are marked by a tick as well as by colour.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from PIL import Image, ImageDraw

from engine.tournament import Pairing, Result, Standing, Tournament
from render import theme
from render.theme import BACKGROUND, BOARD, CELL, CELL_EDGE, HIGHLIGHT, MUTED, RGB, TEXT, TRACK

WIDTH = 800
HEADER = 100
MARGIN = 20
NAME_SIZE, NOTE_SIZE, HEADING_SIZE = 24, 20, 20
TABLES_PER_PAGE = 8
"""Tables of the left-hand round on one bracket page: sixteen names, about 900 pixels high."""
ROWS_PER_PAGE = 16

ROW = 38
"""Height of one player's line in a bracket table."""
CELL_GAP = 16
COLUMN_TOP = HEADER + 46
LEFT_X, RIGHT_X, COLUMN_WIDTH = MARGIN, 430, 350
LOSER: RGB = (120, 130, 148)
TICK = "\u2713"

HOW_WORDS: Mapping[str, str] = {
    "resigned": "resigned",
    "timeout": "out of time",
    "forfeit": "forfeit",
    "both forfeit": "forfeit",
    "organiser": "organiser",
    "withdrew": "left",
}
"""The note beside a loser that says how the table ended when it was not simply played out."""
FOOTER = 76
NO_NAME = "(name not shown)"
"""For a name made only of characters the font cannot draw (emoji), or missing."""


# -- the bracket -------------------------------------------------------------------------------------


def bracket_pages(t: Tournament, round: int | None = None) -> int:
    """How many pages ``render_bracket`` has for ``round`` (None: the one it shows by default)."""
    left = _left_round(t, round)
    return max(1, math.ceil(_positions(t, left) / TABLES_PER_PAGE))


def bracket_page_of(t: Tournament, player: int, round: int | None = None) -> int:
    """The page of the bracket on which ``player``'s table of ``round`` is (1 if they have none)."""
    left = _left_round(t, round)
    for pairing in t.round_pairings(left):
        if player in pairing.players:
            return (pairing.table - 1) // TABLES_PER_PAGE + 1
    return 1


def render_bracket(
    t: Tournament,
    names: Mapping[int, str],
    *,
    title: str = "Tournament",
    round: int | None = None,
    page: int = 1,
) -> bytes:
    """The knockout bracket as PNG bytes: ``round`` (default: the one being played, or the semi-finals
    once the final is reached) and the round after it, ``page`` of ``bracket_pages``."""
    return theme.encode_png(draw_bracket(t, names, title=title, round=round, page=page))


def draw_bracket(
    t: Tournament,
    names: Mapping[int, str],
    *,
    title: str = "Tournament",
    round: int | None = None,
    page: int = 1,
) -> Image.Image:
    left = _left_round(t, round)
    pages = bracket_pages(t, left)
    if not 1 <= page <= pages:
        raise ValueError(f"the bracket of round {left} has pages 1 to {pages}, not {page}")
    first = (page - 1) * TABLES_PER_PAGE + 1
    count = min(TABLES_PER_PAGE, _positions(t, left) - first + 1)
    pitch = 2 * ROW + CELL_GAP
    height = COLUMN_TOP + count * pitch + FOOTER
    image, draw = _canvas(height)
    _header(image, title, t, names, page, pages)
    tables = {p.table: p for p in t.round_pairings(left)}
    tops = [COLUMN_TOP + i * pitch for i in range(count)]
    _heading(image, LEFT_X, _round_name(t, left))
    for offset, top in enumerate(tops):
        _bracket_cell(image, draw, t, names, tables.get(first + offset), (LEFT_X, top))
    if left < t.rounds:
        _heading(image, RIGHT_X, _round_name(t, left + 1))
        later = {p.table: p for p in t.round_pairings(left + 1)}
        for offset in range(0, count, 2):
            upper = tops[offset] + ROW
            lower = tops[min(offset + 1, count - 1)] + ROW
            middle = (upper + lower) / 2
            joint = (LEFT_X + COLUMN_WIDTH + RIGHT_X) / 2
            for y in {upper, lower}:
                draw.line((LEFT_X + COLUMN_WIDTH, y, joint, y), fill=CELL_EDGE, width=3)
            draw.line((joint, upper, joint, lower), fill=CELL_EDGE, width=3)
            draw.line((joint, middle, RIGHT_X, middle), fill=CELL_EDGE, width=3)
            table = (first + offset + 1) // 2
            feeders = (_through(t, left, first + offset), _through(t, left, first + offset + 1))
            _bracket_cell(image, draw, t, names, later.get(table), (RIGHT_X, middle - ROW), True, feeders)
    _footer(image, height, BRACKET_FOOTER)
    return image


def _bracket_cell(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    t: Tournament,
    names: Mapping[int, str],
    pairing: Pairing | None,
    at: tuple[float, float],
    waiting: bool = False,
    feeders: tuple[int | str, int | str] = ("", ""),
) -> None:
    """One table: two lines of seed, name and mark. A table of the next round not yet paired
    (``waiting``) shows who of ``feeders`` is through so far, or words for a line still open."""
    x, y = at
    draw.rounded_rectangle((x, y, x + COLUMN_WIDTH, y + 2 * ROW), radius=8, fill=CELL, outline=TRACK, width=2)
    draw.line((x + 8, y + ROW, x + COLUMN_WIDTH - 8, y + ROW), fill=TRACK, width=1)
    if pairing is None:
        if not waiting:
            theme.label(
                image, (x + 56, y + ROW / 2), "nobody", NOTE_SIZE, MUTED, anchor="lm", bold=False, stroke=0
            )
            return
        for line, through in enumerate(feeders):
            middle = y + line * ROW + ROW / 2
            if isinstance(through, int):
                theme.label(
                    image,
                    (x + 40, middle),
                    str(t.seed(through)),
                    NOTE_SIZE,
                    MUTED,
                    anchor="rm",
                    bold=False,
                    stroke=0,
                )
                _name(image, names, through, (x + 56, middle), COLUMN_WIDTH - 70, TEXT)
            else:
                theme.label(
                    image, (x + 56, middle), through, NOTE_SIZE, MUTED, anchor="lm", bold=False, stroke=0
                )
        return
    result = t.result(pairing.round, pairing.table)
    for line, player in enumerate((pairing.first, pairing.second)):
        _bracket_line(image, t, names, player, result, (x, y + line * ROW + ROW / 2))


def _bracket_line(
    image: Image.Image,
    t: Tournament,
    names: Mapping[int, str],
    player: int | None,
    result: Result | None,
    at: tuple[float, float],
) -> None:
    x, y = at
    if player is None:
        theme.label(image, (x + 56, y), "bye", NOTE_SIZE, MUTED, anchor="lm", bold=False, stroke=0)
        return
    won = result is not None and result.winner == player
    lost = result is not None and not won
    theme.label(image, (x + 40, y), str(t.seed(player)), NOTE_SIZE, MUTED, anchor="rm", bold=False, stroke=0)
    right = x + COLUMN_WIDTH - 12
    if won:
        theme.label(image, (right, y), TICK, NAME_SIZE, HIGHLIGHT, anchor="rm", stroke=0)
        right -= 30
    note = HOW_WORDS.get(result.how, "") if lost and result is not None else ""
    if not note and player in t.withdrawn:
        note = "left"
    if note:
        theme.label(image, (right, y), note, NOTE_SIZE, MUTED, anchor="rm", bold=False, stroke=0)
        right -= theme.text_length(theme.font(NOTE_SIZE, bold=False), note) + 10
    colour = HIGHLIGHT if won else LOSER if lost else TEXT
    _name(image, names, player, (x + 56, y), right - x - 56, colour)


def _through(t: Tournament, round: int, table: int) -> int | str:
    """Who a table sends on, or what to write in their place."""
    if not any(p.table == table for p in t.round_pairings(round)):
        return "nobody"
    result = t.result(round, table)
    if result is None:
        return "to be decided"
    if result.winner is None or result.winner in t.withdrawn:
        return "nobody"
    return result.winner


def _left_round(t: Tournament, round: int | None) -> int:
    if t.format != "knockout":
        raise ValueError("only a knockout has a bracket; a Swiss event has standings")
    if round is None:
        return t.current_round if t.current_round < t.rounds else max(1, t.rounds - 1)
    if not 1 <= round <= t.current_round:
        raise ValueError(f"round {round} has not been paired; rounds 1 to {t.current_round} have")
    return round


def _positions(t: Tournament, round: int) -> int:
    return 1 << (t.rounds - round)


def _round_name(t: Tournament, round: int) -> str:
    from_end = t.rounds - round
    return {0: "Final", 1: "Semi-finals", 2: "Quarter-finals"}.get(from_end, f"Round {round}")


BRACKET_FOOTER = "Seeds by rating. \u2713 won; a player on a bye goes through."


# -- the standings -------------------------------------------------------------------------------------

COLUMNS: tuple[tuple[str, float, str], ...] = (
    ("#", MARGIN + 44, "rm"),
    ("Player", MARGIN + 62, "lm"),
    ("Pts", 520, "rm"),
    ("Bh", 600, "rm"),
    ("SB", 680, "rm"),
    ("W-L", WIDTH - MARGIN - 12, "rm"),
)
"""Heading, x and anchor of each column."""
STANDING_ROW = 40
KNOCKOUT_FOOTER = "Those still in first, then by the round reached and points. Bh (Buchholz): the points of everyone met; SB (Sonneborn-Berger): of everyone beaten."
STANDINGS_FOOTER = "Ranked by points, then Bh (Buchholz: the points of everyone met), then SB (Sonneborn-Berger: the points of everyone beaten), then rating."
TABLE_TOP = HEADER + 56


def standings_pages(t: Tournament) -> int:
    return max(1, math.ceil(len(t.entrants) / ROWS_PER_PAGE))


def render_standings(
    t: Tournament,
    names: Mapping[int, str],
    *,
    title: str = "Tournament",
    page: int = 1,
    player: int | None = None,
) -> bytes:
    """The standings as PNG bytes: ``page`` of ``standings_pages``, and ``player``'s row marked (added
    at the bottom when it is on another page)."""
    return theme.encode_png(draw_standings(t, names, title=title, page=page, player=player))


def draw_standings(
    t: Tournament,
    names: Mapping[int, str],
    *,
    title: str = "Tournament",
    page: int = 1,
    player: int | None = None,
) -> Image.Image:
    pages = standings_pages(t)
    if not 1 <= page <= pages:
        raise ValueError(f"the standings have pages 1 to {pages}, not {page}")
    rows = t.standings()
    shown: list[Standing | None] = list(rows[(page - 1) * ROWS_PER_PAGE : page * ROWS_PER_PAGE])
    own = next((s for s in rows if s.player == player), None)
    if own is not None and own not in shown:
        shown += [None, own]  # None: a gap before the asker's own row
    height = TABLE_TOP + len(shown) * STANDING_ROW + 16 + FOOTER
    image, draw = _canvas(height)
    _header(image, title, t, names, page, pages)
    for heading, x, anchor in COLUMNS:
        theme.label(image, (x, TABLE_TOP - 22), heading, HEADING_SIZE, MUTED, anchor=anchor, stroke=0)
    draw.line((MARGIN, TABLE_TOP - 4, WIDTH - MARGIN, TABLE_TOP - 4), fill=CELL_EDGE, width=2)
    for index, row in enumerate(shown):
        y = TABLE_TOP + index * STANDING_ROW + STANDING_ROW / 2
        if row is None:
            theme.label(image, (WIDTH / 2, y), "\u22ee", NAME_SIZE, MUTED, anchor="mm", stroke=0)
            continue
        _standing_row(image, draw, t, names, row, y, mine=row.player == player)
    _footer(image, height, STANDINGS_FOOTER if t.format == "swiss" else KNOCKOUT_FOOTER)
    return image


def _standing_row(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    t: Tournament,
    names: Mapping[int, str],
    row: Standing,
    y: float,
    mine: bool,
) -> None:
    if mine:
        draw.rounded_rectangle(
            (MARGIN, y - STANDING_ROW / 2 + 2, WIDTH - MARGIN, y + STANDING_ROW / 2 - 2),
            radius=8,
            fill=TRACK,
        )
    champion = t.champion == row.player
    colour = HIGHLIGHT if champion else LOSER if row.out else TEXT
    values = [str(row.rank), "", _points(row.points), _points(row.buchholz), _points(row.sonneborn_berger)]
    values.append(f"{row.wins}-{row.losses}")
    for (_, x, anchor), value in zip(COLUMNS, values, strict=True):
        if value:
            theme.label(image, (x, y), value, NAME_SIZE, colour, anchor=anchor, bold=False, stroke=0)
    note = "champion" if champion else "left" if row.player in t.withdrawn else "out" if row.out else ""
    note += f"{', ' if note else ''}{row.byes} bye" if row.byes else ""
    right = 470.0
    if note:
        theme.label(image, (right, y), note, NOTE_SIZE, MUTED, anchor="rm", bold=False, stroke=0)
        right -= theme.text_length(theme.font(NOTE_SIZE, bold=False), note) + 10
    _name(image, names, row.player, (COLUMNS[1][1], y), right - COLUMNS[1][1], colour)


def _points(value: float) -> str:
    return f"{value:g}"


# -- shared parts --------------------------------------------------------------------------------------

_NO_SEATS = (
    theme.SeatStyle(TEXT, BOARD, TEXT, TEXT, "disc"),
    theme.SeatStyle(TEXT, BOARD, TEXT, TEXT, "disc"),
)
"""The header wants seat styles; a tournament picture names no seat, so none is ever drawn."""


def _canvas(height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((6, HEADER, WIDTH - 6, height - 6), radius=14, fill=BOARD)
    return image, draw


def _heading(image: Image.Image, x: float, text: str) -> None:
    theme.label(image, (x + 4, HEADER + 24), text, HEADING_SIZE, MUTED, anchor="lm", stroke=0)


def _name(
    image: Image.Image,
    names: Mapping[int, str],
    player: int,
    at: tuple[float, float],
    room: float,
    colour: RGB,
) -> None:
    """A player's name, cut with "…" to ``room``; characters the font lacks are dropped."""
    face = theme.font(NAME_SIZE)
    text = theme.elide(theme.drawable(names.get(player, "")) or NO_NAME, face, room)
    theme.label(image, at, text, NAME_SIZE, colour, anchor="lm", stroke=0, cache=False)


def _progress(t: Tournament, names: Mapping[int, str]) -> str:
    """The header's second line: where the event stands, or who won."""
    if t.finished:
        return _champion_words(t, names)
    left = sum(e.player not in t.out for e in t.entrants)
    return f"round {t.current_round} of {t.rounds}, {left} {'players' if t.format == 'swiss' else 'left'}"


def _page_words(page: int, pages: int) -> str:
    return f"page {page} of {pages}" if pages > 1 else ""


def _champion_words(t: Tournament, names: Mapping[int, str]) -> str:
    if t.champion is None:
        return "finished with no champion: nobody is left"
    return f"won by {theme.drawable(names.get(t.champion, '')) or NO_NAME}"


def _footer(image: Image.Image, height: int, text: str) -> None:
    """Up to two lines of small print at the bottom."""
    lines = theme.wrap(text, theme.font(NOTE_SIZE, bold=False), WIDTH - 2 * MARGIN - 16)
    top = height - FOOTER + (FOOTER - 6 - 26 * len(lines)) / 2
    for index, line in enumerate(lines):
        y = top + 26 * index + 13
        theme.label(image, (MARGIN + 8, y), line, NOTE_SIZE, MUTED, anchor="lm", bold=False, stroke=0)


def _header(
    image: Image.Image, title: str, t: Tournament, names: Mapping[int, str], page: int, pages: int
) -> None:
    # The header splits its text at the first ": " into title and second line.
    name = " ".join(title.replace(": ", " - ").split()) or "Tournament"
    theme.draw_header(image, _NO_SEATS, None, f"{name}: {_progress(t, names)}", _page_words(page, pages))
