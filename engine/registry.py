"""The one table of games: adding a game means one line here."""

from __future__ import annotations

from engine import ring
from engine.errors import UnknownVariantError
from engine.protocol import Variant

VARIANTS: dict[str, Variant] = {
    ring.VARIANT.key: ring.VARIANT,
}


def find_variant(name: str) -> Variant:
    """The registered game called ``name`` (case and surrounding spaces ignored)."""
    key = name.strip().lower()
    try:
        return VARIANTS[key]
    except KeyError:
        known = ", ".join(sorted(VARIANTS))
        raise UnknownVariantError(f"there is no game called {name!r}; the games are: {known}") from None
