"""What a game's panel describes: the controls a player sees, as plain data, and what a choice means.

A panel never decides a rule: it reads the engine's legal actions and lays them out. Choices that
only narrow the menu (pick a stack, then how many tokens) are "navigation" and stay in the custom
id, so they survive a restart; a complete choice is the action's notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol, runtime_checkable

from engine import GameView

ROLL = "roll"
"""A control value that asks the session manager to roll for the player."""
UNDO = "undo"
"""A control value that takes back the latest step of the player's turn in progress."""
CONFIRM = "confirm"
"""A control value that makes the player's complete turn final."""


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
    """Rows of controls for the deciding seat, and notes on choices that were made automatically.

    ``stop_after_game`` is not the deciding seat's alone: either player may press it.

    ``private`` controls reveal a secret of that seat (the cards in its hand): they are shown only in
    a private reply that the player opens from the public board, never on the board itself.
    """

    rows: tuple[Row, ...] = ()
    notes: tuple[str, ...] = field(default=())
    private: bool = False
    stop_after_game: bool = False
    """The public board offers **Stop after this game** to both players (a backgammon money session)."""


class Panel(Protocol):
    def controls(self, view: GameView, selection: str) -> PanelSpec:
        """The controls for the deciding seat, from its own ``view``, narrowed to ``selection``."""
        ...


@runtime_checkable
class HandPanel(Protocol):
    """A panel of a game with secret hands: it can say what a seat holds, for that seat's eyes only."""

    def controls(self, view: GameView, selection: str) -> PanelSpec: ...

    def hand_text(self, view: GameView) -> str:
        """What the seat of ``view`` holds, in words ("Your hand: ...")."""
        ...


def chunk(buttons: Sequence[ButtonSpec], size: int = 5) -> tuple[tuple[ButtonSpec, ...], ...]:
    return tuple(tuple(buttons[i : i + size]) for i in range(0, len(buttons), size))
