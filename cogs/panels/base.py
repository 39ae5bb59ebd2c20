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


AND_THEN = "|"
"""Between the notations of a control value that plays several actions in order (a select of several
choices: ``a:discard nova-bomb|discard jam-transmission``); no notation contains it."""
COPY = "#"
"""Before the copy number that tells apart the options of a select that play the same action (two
copies of a card to discard: ``a:discard nova-bomb`` and ``a:discard nova-bomb#2``)."""


def notations(value: str) -> list[str]:
    """The notations of the actions a control value ``a:...`` plays, in order (``AND_THEN``)."""
    return value[2:].split(AND_THEN)


def act_copy(notation: str, copy: int) -> str:
    """The option value of the ``copy``-th (from 1) of several options that play ``notation``."""
    return act(notation) if copy <= 1 else f"{act(notation)}{COPY}{copy}"


def acts_chosen(values: Sequence[str]) -> str:
    """The control value of the options chosen in a select of several (``SelectSpec.max_values``):
    their actions in the order given. A value that is not an action (a page to open) is only ever
    chosen alone."""
    if not all(value.startswith("a:") for value in values):
        return values[0]
    return act(AND_THEN.join(value[2:].split(COPY, 1)[0] for value in values))


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
    min_values: int = 1
    max_values: int = 1
    """How many options are chosen at once: more than one plays each chosen option's action in
    order (``acts_chosen``), as one click."""


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
