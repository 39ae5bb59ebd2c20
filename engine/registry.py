"""The one table of games: adding a game means one line here."""

from __future__ import annotations

from engine import ring
from engine.backgammon import variant as backgammon
from engine.errors import UnknownVariantError
from engine.protocol import Variant
from engine.space import variant as space

VARIANTS: dict[str, Variant] = {
    ring.VARIANT.key: ring.VARIANT,
    backgammon.VARIANT.key: backgammon.VARIANT,
    space.VARIANT.key: space.VARIANT,
}


def find_variant(name: str) -> Variant:
    """The registered game called ``name`` (case and surrounding spaces ignored)."""
    key = name.strip().lower()
    try:
        return VARIANTS[key]
    except KeyError:
        raise UnknownVariantError(unknown_game_text(name)) from None


def unknown_game_text(name: str) -> str:
    """The one sentence for a game name that is none of ours, wherever a player typed it."""
    known = ", ".join(f"{v.title} ({key})" for key, v in sorted(VARIANTS.items()))
    shown = " ".join(name.split())[:50]
    return f"There is no game called “{shown}”. The games are: {known}."
