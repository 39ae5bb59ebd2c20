"""Board pictures: ``render_board(state, viewer)`` returns a PNG of any registered game's position.

One module per game draws it; ``RENDERERS`` maps each game's key to its drawing function. A renderer
receives the seat looking at the board (``None`` for the public board shown in a channel) and never
draws what that viewer may not see.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.protocol import GameState
from render import ring


class NoRendererError(LookupError):
    """There is no board picture for this game."""


RENDERERS: dict[str, Callable[[GameState, int | None], bytes]] = {
    "ring": ring.render,
}


def render_board(state: GameState, viewer: int | None = None) -> bytes:
    """The board of ``state`` as PNG bytes, as seen by seat ``viewer`` (``None``: everyone)."""
    key = state.variant_key
    try:
        renderer = RENDERERS[key]
    except KeyError:
        known = ", ".join(sorted(RENDERERS))
        raise NoRendererError(
            f"there is no board picture for the game {key!r}; pictures exist for: {known}"
        ) from None
    return renderer(state, viewer)


__all__ = ["RENDERERS", "NoRendererError", "render_board"]
