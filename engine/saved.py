"""Reading a saved state back: one set of typed field readers for every game.

A saved state comes from the database, which a person, a bug or a disk may have changed: each field
is checked for its type and range, and anything impossible is a ``CorruptStateError`` whose message
says which game and which field (the bot shows it when it refuses to play a damaged match)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from engine.errors import CorruptStateError

T = TypeVar("T")

MALFORMED = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What reading a malformed saved form raises besides ``CorruptStateError`` (a missing key, a list
where a number belongs ...)."""


class SavedReader:
    """The readers of one game's saved form; ``noun`` names it in messages ("the saved ring game")."""

    def __init__(self, noun: str) -> None:
        self.noun = noun

    def read(self, reader: Callable[[Mapping[str, Any]], T], data: Mapping[str, Any]) -> T:
        """``reader(data)``, with any malformation said as a ``CorruptStateError``."""
        try:
            return reader(data)
        except CorruptStateError:
            raise
        except MALFORMED as exc:
            raise CorruptStateError(f"{self.noun} cannot be read ({exc.__class__.__name__}: {exc})") from exc

    def number(self, value: Any, low: int, high: int, what: str) -> int:
        """An integer from ``low`` to ``high`` (not a boolean)."""
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            raise CorruptStateError(f"{self.noun} has an impossible {what}: {value!r}")
        return value

    def numbers(self, values: Any, low: int, high: int, what: str) -> tuple[int, ...]:
        """A list of such integers, as a tuple."""
        if not isinstance(values, list):
            raise CorruptStateError(f"{self.noun}'s {what} is not a list")
        return tuple(self.number(v, low, high, what) for v in values)

    def flag(self, value: Any, what: str) -> bool:
        if not isinstance(value, bool):
            raise CorruptStateError(f"{self.noun}'s {what} is not true or false")
        return value

    def seat(self, value: Any, what: str) -> int | None:
        """Seat 0 or 1, or None."""
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value not in (0, 1)
        ):
            raise CorruptStateError(f"{what} must be 0, 1 or null")
        return value
