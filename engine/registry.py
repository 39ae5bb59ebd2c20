"""The games' rules by key, derived from the kits (``kits.KITS``): no game is named here."""

from __future__ import annotations

from collections.abc import Mapping

from engine.errors import UnknownVariantError
from engine.protocol import Variant
from kits import KITS, KitTable

VARIANTS: Mapping[str, Variant] = KitTable(KITS, lambda kit: kit.variant)


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
