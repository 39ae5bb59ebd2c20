"""Board pictures: ``render_board(view)`` returns a PNG of what one viewer may see of a position.

One module per game draws it; ``RENDERERS`` maps each game's key to its drawing function and
``SEAT_STYLES`` to the look of its two seats (``SEATS`` in the game's module), which everything else
shown per seat (an embed's colour) takes too. A renderer receives a view (``state.view(None)`` for
the public board shown in a channel), never the state, so it cannot draw what that viewer may not see.
A ``Caption`` brings what is not in the position (the players' display names, as plain strings, and
how a match ended off the board); the shared header (``theme.draw_header``) draws it.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.protocol import GameView
from render import backgammon, ring, space
from render.theme import NO_CAPTION, Caption, SeatStyle


class NoRendererError(LookupError):
    """There is no board picture for this game."""


RENDERERS: dict[str, Callable[[GameView, Caption], bytes]] = {
    "ring": ring.render,
    "backgammon": backgammon.render,
    "space": space.render,
}

SEAT_STYLES: dict[str, tuple[SeatStyle, SeatStyle]] = {
    "ring": ring.SEATS,
    "backgammon": backgammon.SEATS,
    "space": space.SEATS,
}


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
