"""Board pictures: ``render_board(view)`` returns a PNG of what one viewer may see of a position.

One module per game draws it, named by the game's kit (``kits/``): ``RENDERERS`` maps each game's key
to its drawing function and ``SEAT_STYLES`` to the look of its two seats (``SEATS`` in the game's module), which everything else
shown per seat (an embed's colour) takes too. A renderer receives a view (``state.view(None)`` for
the public board shown in a channel), never the state, so it cannot draw what that viewer may not see.
A ``Caption`` brings what is not in the position (the players' display names, as plain strings, how
a match ended off the board, live clocks, and on a player's own picture of a complete turn that waits
for their Confirm where that turn began, so the header still says they are moving); the shared
header (``theme.draw_header``) draws it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from engine.protocol import GameView
from kits import KITS, KitTable
from render.theme import NO_CAPTION, Caption, SeatStyle


class NoRendererError(LookupError):
    """There is no board picture for this game."""


RENDERERS: Mapping[str, Callable[[GameView, Caption], bytes]] = KitTable(KITS, lambda kit: kit.renderer)
SEAT_STYLES: Mapping[str, tuple[SeatStyle, SeatStyle]] = KitTable(KITS, lambda kit: kit.seats)


def seat_style(game: str, seat: int) -> SeatStyle:
    """How seat ``seat`` of ``game`` is drawn; ``NoRendererError`` for a game without pictures."""
    try:
        return SEAT_STYLES[game][seat]
    except KeyError:
        raise NoRendererError(f"there is no seat style for the game {game!r}") from None


def render_board(view: GameView, caption: Caption = NO_CAPTION) -> bytes:
    """The board as PNG bytes, as ``view`` shows it (``state.view(None)``: the public board).

    ``caption`` adds what the position does not hold: the players' names and an ending off the board
    (a resignation or a timeout), drawn by the shared header of every game.
    """
    key = view.variant_key
    try:
        renderer = RENDERERS[key]
    except KeyError:
        known = ", ".join(sorted(RENDERERS))
        raise NoRendererError(
            f"there is no board picture for the game {key!r}; pictures exist for: {known}"
        ) from None
    return renderer(view, caption)


__all__ = [
    "NO_CAPTION",
    "RENDERERS",
    "SEAT_STYLES",
    "Caption",
    "NoRendererError",
    "SeatStyle",
    "render_board",
    "seat_style",
]
