"""One mapping between rows and records, by column name, for every kind of record.

A record's field takes the column of the same name. The few columns stored in another form than the
field holds (JSON text, 0/1 for a flag) are listed once, in ``CODECS``, for reading and for writing.
A NULL column gives the field's default when it has one, so a settings row with gaps reads as the
defaults.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


def canonical(data: Any) -> str:
    """Canonical JSON text: the same data is always stored as the same text."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class Codec:
    decode: Callable[[Any], Any]
    encode: Callable[[Any], Any]


def _games(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


# Columns whose stored value is not the field's value, by column name (the same in every table).
CODECS: dict[str, Codec] = {
    "options": Codec(json.loads, canonical),
    "allowed_games": Codec(_games, lambda games: canonical(list(games))),
    "rated": Codec(bool, int),
    "use_threads": Codec(bool, int),
    "tournament_rated": Codec(bool, int),
    "new_board": Codec(bool, int),
    "redraw": Codec(bool, int),
    "board_steps": Codec(lambda text: tuple(json.loads(text)), lambda steps: canonical(list(steps))),
    "turn_steps": Codec(lambda text: tuple(json.loads(text)), lambda steps: canonical(list(steps))),
    "always_pass": Codec(
        lambda bits: (bool(bits & 1), bool(bits & 2)), lambda seats: int(seats[0]) | int(seats[1]) << 1
    ),
    "draft": Codec(lambda text: tuple(json.loads(text)), lambda draft: canonical(list(draft))),
}


def encode(column: str, value: Any) -> Any:
    """The value to store in ``column`` for a field's ``value`` (NULL stays NULL)."""
    codec = CODECS.get(column)
    return value if value is None or codec is None else codec.encode(value)


_FIELDS: dict[type, tuple[tuple[str, Callable[[], Any] | None], ...]] = {}


def _fields(cls: type) -> tuple[tuple[str, Callable[[], Any] | None], ...]:
    """Each field's name and how to make its default (None when it has none), once per record type."""
    found = _FIELDS.get(cls)
    if found is None:
        found = tuple((field.name, _default(field)) for field in dataclasses.fields(cls))
        _FIELDS[cls] = found
    return found


def _default(field: dataclasses.Field[Any]) -> Callable[[], Any] | None:
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory
    if field.default is not dataclasses.MISSING:
        value = field.default
        return lambda: value
    return None


def from_row(cls: type[T], row: sqlite3.Row, **given: Any) -> T:
    """A ``cls`` record from ``row``: each field from its column, unless ``given`` (a computed value).

    Raises ``IndexError`` if the row has no column for a field that is not given.
    """
    values: dict[str, Any] = {}
    for name, default in _fields(cls):
        if name in given:
            values[name] = given[name]
            continue
        value = row[name]
        if value is None:
            values[name] = default() if default is not None else None
            continue
        codec = CODECS.get(name)
        values[name] = codec.decode(value) if codec is not None else value
    return cls(**values)
