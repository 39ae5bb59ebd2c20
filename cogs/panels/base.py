"""What a game's panel describes: the controls a player sees, as plain data, and what a choice means.

A panel never decides a rule: it reads the engine's legal actions and lays them out. Choices that
only narrow the menu (pick a stack, then how many tokens) are "navigation" and stay in the custom
id, so they survive a restart; a complete choice is the action's notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

from engine import GameState

ROLL = "roll"
"""A control value that asks the session manager to roll for the player."""


def act(notation: str) -> str:
    """A control value that plays the action with this notation."""
    return f"a:{notation}"


def nav(selection: str) -> str:
    """A control value that redraws the panel with a narrower selection."""
    return f"n:{selection}"


class Style(Enum):
    PRIMARY = "primary"
    SECONDARY = "secondary"
    SUCCESS = "success"
    DANGER = "danger"


@dataclass(frozen=True, slots=True)
class ButtonSpec:
    label: str
    value: str
    style: Style = Style.SECONDARY
    emoji: str | None = None
    disabled: bool = False


@dataclass(frozen=True, slots=True)
class OptionSpec:
    label: str
    value: str
    description: str | None = None


@dataclass(frozen=True, slots=True)
class SelectSpec:
    placeholder: str
    options: tuple[OptionSpec, ...]


Row = tuple[ButtonSpec, ...] | SelectSpec


@dataclass(frozen=True, slots=True)
class PanelSpec:
    """Rows of controls for the seat on turn, and notes on choices that were made automatically."""

    rows: tuple[Row, ...] = ()
    notes: tuple[str, ...] = field(default=())


class Panel(Protocol):
    def controls(self, state: GameState, selection: str) -> PanelSpec:
        """The controls for the deciding seat of ``state`` after narrowing to ``selection``."""
        ...


def chunk(buttons: Sequence[ButtonSpec], size: int = 5) -> tuple[tuple[ButtonSpec, ...], ...]:
    return tuple(tuple(buttons[i : i + size]) for i in range(0, len(buttons), size))
