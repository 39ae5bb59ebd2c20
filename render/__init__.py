"""Board pictures: ``render_board(view)`` returns a PNG of what one viewer may see of a position.

One module per game draws it; ``RENDERERS`` maps each game's key to its drawing function and
``SEAT_STYLES`` to the look of its two seats (``SEATS`` in the game's module), which everything else
shown per seat (an embed's colour) takes too. A renderer receives a view (``state.view(None)`` for
the public board shown in a channel), never the state, so it cannot draw what that viewer may not see.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.protocol import GameView
from render import ring
from render.theme import SeatStyle


class NoRendererError(LookupError):
    """There is no board picture for this game."""


RENDERERS: dict[str, Callable[[GameView], bytes]] = {
    "ring": ring.render,
}

SEAT_STYLES: dict[str, tuple[SeatStyle, SeatStyle]] = {
    "ring": ring.SEATS,
}


def seat_style(game: str, seat: int) -> SeatStyle:
    """How seat ``seat`` of ``game`` is drawn; ``NoRendererError`` for a game without pictures."""
    try:
        return SEAT_STYLES[game][seat]
    except KeyError:
        raise NoRendererError(f"there is no seat style for the game {game!r}") from None


def render_board(view: GameView) -> bytes:
    """The board as PNG bytes, as ``view`` shows it (``state.view(None)``: the public board)."""
    key = view.variant_key
    try:
        renderer = RENDERERS[key]
    except KeyError:
        known = ", ".join(sorted(RENDERERS))
        raise NoRendererError(
            f"there is no board picture for the game {key!r}; pictures exist for: {known}"
        ) from None
    return renderer(view)


__all__ = ["RENDERERS", "SEAT_STYLES", "NoRendererError", "SeatStyle", "render_board", "seat_style"]
