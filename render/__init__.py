"""Board pictures: ``render_board(view)`` returns a PNG of what one viewer may see of a position.

One module per game draws it; ``RENDERERS`` maps each game's key to its drawing function. A renderer
receives a view (``state.view(None)`` for the public board shown in a channel), never the state, so
it cannot draw what that viewer may not see.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.protocol import GameView
from render import ring


class NoRendererError(LookupError):
    """There is no board picture for this game."""


RENDERERS: dict[str, Callable[[GameView], bytes]] = {
    "ring": ring.render,
}


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


__all__ = ["RENDERERS", "NoRendererError", "render_board"]
