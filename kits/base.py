"""``GameKit``: everything the platform needs of one game, declared once.

A kit names its parts lazily (``Part("render.ring:render")``), so each layer resolves only the parts
it may import: the engine's tools read ``variant`` and ``players`` without importing Pillow or
discord.py, the bot reads ``renderer`` and ``panel``. A part may also be the object itself
(``Part(duel.VARIANT)``), for a kit built at run time such as the tests' toy game.

Adding a game: the recipe is ``docs/architecture.md`` ("Adding a game"), its only copy; which fields a
kit must fill and which it may leave out is said on each field below. ``tests/test_registries.py``
checks every registered kit, and ``tests/test_new_game_recipe.py`` follows the recipe for a new game.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

    from cogs.panels.base import Panel
    from engine.ai.arena import Benchmark
    from engine.ai.coaches import AnalysisFunction, HintFunction, RollJudge, TutorFunction
    from engine.ai.players import ComputerPlayer
    from engine.ai.rollouts import RolloutKit
    from engine.commands import GameCommands
    from engine.protocol import GameView, Variant
    from render.samples import SampleSet
    from render.theme import Caption, SeatStyle

T = TypeVar("T")


class Part(Generic[T]):
    """One part of a kit: the object, or ``"package.module:attribute"`` imported on first use."""

    __slots__ = ("_reference", "_resolved", "_value")

    def __init__(self, reference: str | T) -> None:
        self._reference = reference
        self._resolved = not isinstance(reference, str)
        self._value: Any = None if isinstance(reference, str) else reference

    def get(self) -> T:
        if not self._resolved:
            assert isinstance(self._reference, str)
            module_name, _, attribute = self._reference.partition(":")
            value: Any = importlib.import_module(module_name)
            for name in attribute.split("."):
                value = getattr(value, name)
            self._value, self._resolved = value, True
        result: T = self._value
        return result

    def __repr__(self) -> str:
        return f"Part({self._reference!r})"


@dataclass(frozen=True)
class Coach:
    """Hints during play and the analysis of a finished match (optional per game)."""

    hint: Part[HintFunction]
    analysis: Part[AnalysisFunction]
    roll_judge: Part[RollJudge] | None = None
    """Whether a double (raising the stakes before a roll) is clearly wrong in a view, cheaply: the
    ``auto_roll`` preference rolls on then (``GameState.roll_on``)."""
    tutor: Part[TutorFunction] | None = None
    """What a decision about to be final loses, when it is an error (the tutor: ``bot.tutor``)."""
    rollout: Part[RolloutKit] | None = None
    """The game's rollouts (``/rollout``, ``engine.ai.rollouts``), if it has them."""


@dataclass(frozen=True)
class GameKit:
    """One game, as every layer sees it. ``key`` is the name players type (``/challenge ... ring``).

    The fields without a default are required; the others are optional parts a game may leave out
    (no palette: each picture's palette is built on first use; no levels: ``/challenge level:`` offers
    none and the computer plays ``bot_player``; no coach, rules sheets, benchmark or commands).

    What the platform plays by itself, whatever the kit says (``bot.turn_driver.next_automatic``):
    chance steps whose ``ChanceSpec.prompt_seat`` is ``None`` (a seat's Roll button waits for that
    seat), and a decision with exactly one legal action, unless answering it at once would tell the
    opponent something of a secret hand (``bot.turn_driver.tells_nothing``). A game that wants a
    click where the rules leave one choice (a lone Roll) asks for it with a chance step's
    ``prompt_seat``, not a one-action decision.
    """

    key: str
    variant: Part[Variant]
    """The rules (``engine.protocol.Variant``)."""
    players: Part[Mapping[str, ComputerPlayer]]
    """Every computer player by the name the arena takes: ``random`` at least, then any of the levels
    ``easy``, ``medium``, ``hard`` and ``expert`` the game has (``/challenge level:`` offers those; none is fine),
    and any others (``greedy``)."""
    bot_player: str
    """Which of ``players`` plays a computer match saved without a level."""
    renderer: Part[Callable[[GameView, Caption], bytes]]
    """The board picture of a view, PNG bytes."""
    seats: Part[tuple[SeatStyle, SeatStyle]]
    """How each seat is drawn (and coloured in embeds)."""
    panel: Part[Panel]
    """The buttons and selects of a decision."""
    samples: Part[SampleSet]
    """The sample pictures (``python -m render sample``) and the positions rules pictures use."""
    rules_page: str
    """The rules for players: a file of ``cogs/rules/``."""
    palette: Part[Callable[[], Path]] | None = None
    """Rebuilds the picture's fixed palette file (``python -m render palette``), if it ships one: a
    ``render.picture.BoardPicture`` without ``palette_hex`` builds its palette when first drawn."""
    rules_sheets: Part[tuple[Any, ...]] | None = None
    """The sheets of small boards on the rules pages (``python -m render rules``), if any."""
    coach: Coach | None = None
    benchmark: Part[Benchmark] | None = None
    """How the arena seats the game's players (options, points, a player's benchmark form)."""
    commands: Part[GameCommands] | None = None
    """The game's own commands of ``python -m engine`` (and options of ``move``), if any."""


@dataclass
class KitRegistry(Mapping[str, GameKit]):
    """The registered games by key, in the order registered."""

    kits: dict[str, GameKit] = field(default_factory=dict)

    def register_module(self, module: str) -> GameKit:
        """Register the ``KIT`` that ``module`` declares: a game's one line in ``kits/__init__.py``,
        ``KITS.register_module("kits.ring")``."""
        kit = importlib.import_module(module).KIT
        if not isinstance(kit, GameKit):
            raise TypeError(f"{module}.KIT is not a GameKit")
        return self.register(kit)

    def register(self, kit: GameKit) -> GameKit:
        if kit.key in self.kits:
            raise ValueError(f"a game called {kit.key!r} is registered already")
        self.kits[kit.key] = kit
        return kit

    def __getitem__(self, key: str) -> GameKit:
        return self.kits[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.kits)

    def __len__(self) -> int:
        return len(self.kits)


class KitTable(Mapping[str, T]):
    """A table keyed by game, derived from the kits: ``KitTable(KITS, lambda kit: kit.panel)``.

    Lookups read the registry each time, so a game registered later (a test's toy game) is in every
    table at once; a kit whose part is ``None`` is not in the table."""

    def __init__(self, registry: Mapping[str, GameKit], part: Callable[[GameKit], Part[T] | None]) -> None:
        self._registry = registry
        self._part = part

    def __getitem__(self, key: str) -> T:
        kit = self._registry[key]
        part = self._part(kit)
        if part is None:
            raise KeyError(key)
        return part.get()

    def __iter__(self) -> Iterator[str]:
        return (key for key, kit in self._registry.items() if self._part(kit) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"KitTable({sorted(self)})"
