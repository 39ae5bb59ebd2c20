"""A game's own part of ``python -m engine``: commands only it has, and its way of answering ``move``.

A game's kit names its ``GameCommands`` (``GameKit.commands``); ``engine/__main__.py`` adds them and
never names a game. A game without one answers ``move`` from a saved state (``--state FILE``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Protocol

Command = Callable[[argparse.Namespace], int]
"""A subcommand's handler: the parsed arguments in, the exit status out."""


class Subcommands(Protocol):
    """Where a game adds its subcommands: what ``ArgumentParser.add_subparsers()`` returns, as far
    as a game uses it."""

    def add_parser(
        self, name: str, *, help: str | None = ..., description: str | None = ...
    ) -> argparse.ArgumentParser:
        """A new subcommand ``name`` and its parser."""
        ...


class GameCommands(Protocol):
    move_options: tuple[tuple[str, str], ...]
    """The options this game adds to ``move``, as (attribute, flag): ``("dice", "--dice")``."""
    move_help: str
    """How this game's ``move`` is asked, for the description of ``move``."""
    move_by_default: bool
    """Whether ``move`` without ``--game`` (or with one of ``move_options``) is this game's."""

    def add_commands(self, commands: Subcommands) -> dict[str, Command]:
        """Add the game's own subcommands; their handlers by name."""
        ...

    def add_move_options(self, move: argparse.ArgumentParser) -> None:
        """Add ``move_options`` to the ``move`` parser (each documented as this game's only)."""
        ...

    def move(self, args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
        """Answer ``move`` for this game."""
        ...


def spoken_list(words: list[str]) -> str:
    """``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"
