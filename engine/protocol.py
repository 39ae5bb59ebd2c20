"""The one protocol every game implements.

Modelled on OpenSpiel's Game/State: a game is a pure function of its action log. Whoever decides
next is a seat (0 or 1) or chance; chance steps describe their possible outcomes and the caller
supplies one, so the engine itself never draws a random number.

States are immutable: ``apply`` returns a new state and leaves the old one untouched, which lets a
caller validate, persist and only then publish a new position.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import TYPE_CHECKING, Any, ClassVar

from engine.errors import BadOptionsError, CorruptStateError, IllegalActionError, NotationError

if TYPE_CHECKING:
    from engine.ai.coaching import Analysis

CHANCE = -1
"""The value of ``GameState.to_move()`` when the next step is a chance outcome."""

JSONDict = dict[str, Any]


class ChanceKind(Enum):
    """What sort of random outcome a chance step needs."""

    DICE = "dice"
    """``count`` dice with ``sides`` faces; the outcome is a tuple of ``count`` ints in 1..sides."""
    SHUFFLE = "shuffle"
    """A permutation of ``range(count)``; the outcome is a tuple holding each index once."""


@dataclass(frozen=True, slots=True)
class ChanceSpec:
    """The chance step a state waits for.

    ``prompt_seat`` is the seat whose explicit request (a Roll button) should trigger the outcome,
    or ``None`` when the driver resolves it at once (an opening roll, a shuffle).
    """

    kind: ChanceKind
    count: int
    sides: int = 0
    prompt_seat: int | None = None
    label: str = "Roll"

    def check(self, outcome: Sequence[int]) -> tuple[int, ...]:
        """Return ``outcome`` as a tuple if it fits this spec, else raise ``NotationError``."""
        values = tuple(outcome)
        if len(values) != self.count:
            raise NotationError(f"expected {self.count} values for this chance step, got {len(values)}")
        if self.kind is ChanceKind.DICE:
            for v in values:
                if not 1 <= v <= self.sides:
                    raise NotationError(f"a die shows 1 to {self.sides}, not {v}")
        elif sorted(values) != list(range(self.count)):
            raise NotationError("a shuffle must list every position exactly once")
        return values


class Action(ABC):
    """A move, a choice or a chance outcome. Subclasses are frozen dataclasses."""

    __slots__ = ()

    @property
    @abstractmethod
    def notation(self) -> str:
        """The canonical text form, read back by ``Variant.parse_action``."""

    def __str__(self) -> str:
        return self.notation


class WordAction(Action):
    """An action without arguments, written as one word: a subclass (a frozen dataclass) names it in
    ``word``, e.g. ``pass``."""

    __slots__ = ()
    word: ClassVar[str] = ""

    @property
    def notation(self) -> str:
        return self.word


class EndReason(StrEnum):
    """How a game ended, as a stable key saved with the result. Empty: every game derives its own
    enum of the ways it is won (``Variant.win_reasons``), and ``Forfeit`` ends any game."""


class Forfeit(EndReason):
    """The ways any game ends without being played out."""

    RESIGNATION = "resignation"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game or match ended.

    ``winner`` is a seat or ``None`` for a draw. ``points`` is what the winner scored (1 in games
    without scoring). ``reason`` says how (a ``Forfeit`` or one of the game's ``win_reasons``),
    ``description`` the sentence shown to players. ``length`` is the match length the result
    counts for in ratings (1 for games without match play).
    """

    winner: int | None
    reason: EndReason
    description: str
    points: int = 1
    length: int = 1

    def to_json(self) -> JSONDict:
        return {
            "winner": self.winner,
            "reason": str(self.reason),
            "description": self.description,
            "points": self.points,
            "length": self.length,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], variant: Variant) -> Outcome:
        """Read a saved outcome of a ``variant`` game; its reason must be one of the game's."""
        winner = data["winner"]
        if winner not in (0, 1, None):
            raise ValueError("winner must be 0, 1 or null")
        return cls(
            winner=winner,
            reason=variant.read_reason(str(data["reason"])),
            description=str(data["description"]),
            points=int(data["points"]),
            length=int(data["length"]),
        )


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option a game accepts when created (``match length``, ``rule set``).

    ``choice_labels`` gives players a label per choice, in the order of ``choices`` ("Old English (at
    most five checkers on a point)"); an explanation in parentheses at its end is left out where space
    is short (``short_label``). ``summary`` is how ``Variant.describe_options`` names a value other than
    the default, a format with ``{name}``, ``{value}`` and ``{label}`` ("{value}-point match",
    "{label} rules"); empty means "{name} {label}".
    """

    name: str
    description: str
    default: str | int | bool
    choices: tuple[str | int | bool, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    choice_labels: tuple[str, ...] = ()
    summary: str = ""

    def __post_init__(self) -> None:
        if self.choice_labels and len(self.choice_labels) != len(self.choices):
            raise ValueError(f"option {self.name}: one label per choice ({len(self.choices)} choices)")

    def label(self, value: object) -> str:
        """The players' label of ``value``: its choice label, else the value itself."""
        if self.choice_labels and value in self.choices:
            return self.choice_labels[self.choices.index(value)]
        return str(value)

    def short_label(self, value: object) -> str:
        """``label`` without an explanation in parentheses at its end ("Old English")."""
        text = self.label(value)
        if text.endswith(")") and " (" in text:
            return text[: text.rindex(" (")]
        return text


class GameView(ABC):
    """What one viewer may see of a position: all that a picture, a text or a computer player reads.

    ``viewer`` is a seat, or ``None`` for a spectator (the public board in a channel). A game without
    secrets lets its state class inherit this too and ``GameState.view`` returns the state itself; a
    game with secrets has a separate view class that leaves out what the viewer may not see.
    """

    __slots__ = ()

    variant_key: ClassVar[str]
    turn_number: int

    @property
    def viewer(self) -> int | None:
        """The seat this view is for, ``None`` for a spectator."""
        return None

    @abstractmethod
    def to_move(self) -> int:
        """The seat that decides next, or ``CHANCE``."""

    @property
    @abstractmethod
    def turn(self) -> int | None:
        """The seat whose turn it is, ``None`` before the first turn."""

    @abstractmethod
    def legal_actions(self) -> tuple[Action, ...]:
        """The actions of the deciding seat, if the viewer may know them (always when it decides)."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""

    @property
    @abstractmethod
    def last_text(self) -> str | None:
        """What the last applied action did, in words this viewer may read."""

    @property
    def last_continues(self) -> bool:
        """Whether ``last_text`` continues the text of the action before it and so replaces it (a
        play told so far, now with one more checker): a list of a turn's texts shows only the latest
        of such a run."""
        return False

    @property
    @abstractmethod
    def phase_text(self) -> str:
        """Where the game stands now, in words this viewer may read."""

    @property
    def turn_label(self) -> str:
        """The turn as the game's players count it, for the board's footer and header ("Turn 7"; a
        game may count otherwise); empty before the first turn."""
        return f"Turn {self.turn_number}" if self.turn_number else ""

    @property
    def mid_turn(self) -> bool:
        """Whether a turn is under way with more of it to come (a backgammon play half made): a
        replay shows the turn once it is whole."""
        return False


class GameState(ABC):
    """A position of one game, immutable. Seats are 0 and 1, never users."""

    __slots__ = ()

    variant_key: ClassVar[str]
    turn_number: int
    """How many turns have started (0 before the first); for clocks and statistics."""
    one_board_per_turn: ClassVar[bool] = False
    """Whether the other seat's decisions inside a turn (a fight's defender choosing what to keep) are
    told on the turn's one board, as its response windows are: that board then mentions a player at
    most once a turn. Off where each seat's decisions make turns of their own (a backgammon take)."""

    @abstractmethod
    def to_move(self) -> int:
        """The seat that decides next, or ``CHANCE``. Meaningless once terminal."""

    @property
    @abstractmethod
    def turn(self) -> int | None:
        """The seat whose turn it is (for display and turn clocks), ``None`` before the first turn."""

    @abstractmethod
    def chance(self) -> ChanceSpec | None:
        """The chance step this state waits for, or ``None`` when a seat decides."""

    @abstractmethod
    def chance_action(self, outcome: Sequence[int]) -> Action:
        """The action that applies a chance outcome to this state."""

    @abstractmethod
    def legal_actions(self) -> tuple[Action, ...]:
        """Every action the deciding seat may take; empty at chance steps and at the end.

        Offers that end a game by agreement (a backgammon resignation offer) are not moves of the
        game and are left out: a game lists them itself, so a forced move stays forced."""

    @abstractmethod
    def apply(self, action: Action) -> GameState:
        """The state after ``action``; raises an ``engine.errors.GameError`` if it is not allowed."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""

    def is_terminal(self) -> bool:
        return self.outcome() is not None

    @abstractmethod
    def to_json(self) -> JSONDict:
        """The canonical, complete JSON form (with ``schema`` and ``game``); secrets included."""

    def view(self, viewer: int | None) -> GameView:
        """What seat ``viewer`` (``None``: a spectator, the public board) may see of this position.

        Pictures, texts and computer players read a view, never the state itself, so a secret (a hand
        of cards, the order of the deck) cannot reach someone who may not see it. A game without
        secrets is its own view (see ``GameView``).
        """
        if isinstance(self, GameView):
            return self
        raise NotImplementedError(f"{type(self).__name__} has secrets and must say what each seat sees")

    def public_view_from(self, seat: int) -> GameView:
        """The public view drawn from ``seat``'s side, where a game's pictures turn the board to the
        viewer (a replay keeps one side throughout); no secret of that seat is in it."""
        return self.view(None)

    def secret_decision(self) -> bool:
        """Whether the deciding seat's choice depends on what only that seat knows (its hand).

        Such a decision is made privately (its controls never appear on the public board) and is
        not played by itself where anyone could see when it is answered, even when only one answer
        is legal: answering at once would tell the opponent that the hand holds nothing else (a
        response window, the first step after the board changed hands). In the seat's own turn the
        bot holds the public board while such steps follow one another, and there it does play a
        one-answer step by itself; elsewhere only when ``holds_nothing`` (the bot's turn driver).
        """
        return False

    def holds_nothing(self) -> bool:
        """Whether everyone can see that the deciding seat's secret is empty (a hand of no cards,
        whose size is public): a secret decision of its own turn with one answer then tells nothing,
        and is played by itself even where the public board is not held."""
        return False

    def window_pass(self) -> Action | None:
        """In a response window, the action that lets the window go by; ``None`` elsewhere.

        A response window is a decision by the seat *not* on turn that the rules let it decline (a
        defence card, Espionage, taking an unblocked strike). Windows are opened whether or not that
        seat holds a card for them, so their opening tells nothing about the hand. The bot plays this
        action for the seat when the window's time runs out (a per-server wait, not the turn clock's
        forfeit) or at once when the player's standing answer is to pass.
        """
        return None

    def roll_on(self) -> Action | None:
        """When the deciding seat may raise the stakes before its roll (backgammon's Roll or Double),
        the action that rolls without raising them; ``None`` elsewhere. The bot plays it at once for a
        player who asked it to (the ``auto_roll`` preference) when the coach finds raising the stakes
        clearly wrong."""
        return None

    @abstractmethod
    def describe(self, action: Action) -> str:
        """A short sentence for ``action`` played from this state ("move 2 of your 3 tokens ...")."""

    @property
    @abstractmethod
    def last_text(self) -> str | None:
        """What the last applied action did, in words ("Blue rolled 5-5-5: ..."), if anything."""

    @property
    @abstractmethod
    def phase_text(self) -> str:
        """Where the game stands now ("Red to roll", "Blue: move 1 of 2 dice")."""

    def canonical(self) -> str:
        """The JSON form as one canonical string (sorted keys, no spaces): equal states, equal text."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


class TurnConfirmation(Enum):
    """How a player's steps within one turn become final (shown to the opponent).

    ``EACH_STEP``: every action is final at once. ``LAST_STEP``: the steps of a turn may be taken
    back until the step that completes the turn, which makes the whole turn final. ``CONFIRM``: the
    completed turn still waits for the player's Confirm (and may be taken back until then). Only a
    player's own decisions are ever taken back: a roll, a draw or anything the opponent saw is final.
    """

    EACH_STEP = "each-step"
    LAST_STEP = "last-step"
    CONFIRM = "confirm"


@dataclass(frozen=True, slots=True)
class MatchFile:
    """A finished match written out in a format other programs read (``Variant.export_match``).

    ``filename`` is what the file is called when downloaded ("match-12.mat"), ``data`` its bytes and
    ``description`` a short line saying what it is ("The match in Jellyfish .mat format").
    """

    filename: str
    data: bytes
    description: str


@dataclass(frozen=True, slots=True)
class ImportedMatch:
    """A match played elsewhere, read from its file (``Variant.import_match``): the players' names as
    the file gives them, in seat order, and the options and action log of the same match here."""

    names: tuple[str, str]
    options: dict[str, Any]
    log: tuple[str, ...]


class Variant(ABC):
    """A game as registered: creates states, reads saved ones, parses action notation."""

    key: ClassVar[str]
    title: ClassVar[str]
    seat_names: ClassVar[tuple[str, str]]
    win_reasons: ClassVar[type[EndReason]]
    """How this game ends when played out: its own ``EndReason`` enum (``Forfeit`` is added to it)."""
    schema_version: ClassVar[int]
    options: ClassVar[tuple[OptionSpec, ...]] = ()
    turn_confirmation: ClassVar[TurnConfirmation] = TurnConfirmation.EACH_STEP
    """Whether the steps of a turn can be taken back before the opponent sees them (``TurnConfirmation``)."""
    notation_help: ClassVar[str] = ""
    """How moves are written, for players typing them (``/move``): one short sentence with an example;
    empty when the game has nothing to add to its own error messages."""

    def confirmation_of(self, state: GameState, action: Action) -> TurnConfirmation:
        """How ``action``, taken by the deciding seat in ``state``, becomes final: by default the
        game's ``turn_confirmation``; a game whose turns mix steps that may be taken back with
        decisions the opponent must see at once (a double) answers per action."""
        return self.turn_confirmation

    @abstractmethod
    def new_game(self, options: Mapping[str, Any] | None = None) -> GameState:
        """A new game; raises ``BadOptionsError`` for unknown or invalid options."""

    @abstractmethod
    def from_json(self, data: Mapping[str, Any]) -> GameState:
        """Read a saved state; raises ``CorruptStateError`` if it is not a valid state of this game."""

    @abstractmethod
    def parse_action(self, state: GameState, text: str) -> Action:
        """Read an action's notation in the context of ``state``; raises ``NotationError``."""

    def position_codes(self, state: GameState) -> tuple[tuple[str, str], ...]:
        """The position as labelled interchange codes other programs read, e.g.
        ``(("GNUBG ID", "4HPwATDgc/ABMA:cIkqAAAAAAAA"), ("XGID", "XGID=..."))``; none by default.

        Anyone in the match's channel may ask for them, so they must hold only what the public board
        shows (never a secret hand or the order of a deck).
        """
        return ()

    def position_codes_note(self, state: GameState) -> str | None:
        """What a player must know before pasting ``position_codes`` into another program (a rule of
        this match those programs do not know), or None."""
        return None

    def export_match(
        self,
        options: Mapping[str, Any],
        log: Sequence[str],
        names: tuple[str, str],
        ending: Outcome | None = None,
    ) -> MatchFile | None:
        """The finished match as a file other programs read, or ``None`` (the default: no format).

        ``options`` are the match's resolved options, ``log`` its action notations in the order they
        were played (what ``replay`` reads; a match that ended by resignation or timeout stops where
        play stopped), ``names`` the players' display names in seat order ("" for one unknown),
        ``ending`` how the match ended when play did not end it (a resignation, a timeout), if known.
        """
        return None

    def export_analysis(
        self,
        options: Mapping[str, Any],
        log: Sequence[str],
        names: tuple[str, str],
        analysis: Analysis,
        ending: Outcome | None = None,
    ) -> MatchFile | None:
        """The analysed match as a file another program opens with ``analysis`` in it (backgammon: GNU
        Backgammon's ``.sgf``), or ``None`` (the default: no such format). The arguments are those of
        ``export_match``, with the match's analysis."""
        return None

    def stop_after_game(self, state: GameState, seat: int) -> Action:
        """The action by which ``seat``, on turn or not, asks to end a session of games when the game
        in progress ends (a backgammon money session); ``IllegalActionError`` in a game without
        sessions (the default)."""
        raise IllegalActionError(f"{self.title} has no session to stop after a game")

    def speaks_for(self, action: Action) -> int | None:
        """The seat an action names as the one taking it, when it names one (a stop after this game
        is "stop white"): only that seat may take it, even on its turn. None by default."""
        return None

    def counts_for_rating(self, options: Mapping[str, Any]) -> bool:
        """Whether a game with these resolved ``options`` may be rated (a rated challenge of one that
        may not is played unrated); yes by default."""
        return True

    match_file_suffix: ClassVar[str] = ""
    """The file name ending of the match files of other programs that ``import_match`` reads ("" none)."""

    def import_match(self, data: bytes) -> ImportedMatch:
        """A match played elsewhere, from its file; ``NotationError`` saying where and why when the
        file cannot be read or its play is not allowed here."""
        raise NotationError(f"{self.title} has no match files to read.")

    def forfeit(self, state: GameState, loser: int, reason: Forfeit, description: str) -> Outcome:
        """The outcome when ``loser`` resigns or runs out of time. Games with scoring override it."""
        return Outcome(winner=1 - loser, reason=reason, description=description)

    @property
    def end_reasons(self) -> tuple[EndReason, ...]:
        """Every way a game of this variant can end: its own ways first, then ``Forfeit``."""
        return (*self.win_reasons, *Forfeit)

    def read_reason(self, key: str) -> EndReason:
        """A saved reason key as this game's ``EndReason``; ``CorruptStateError`` if it is none of them."""
        for reason in self.end_reasons:
            if reason.value == key:
                return reason
        known = ", ".join(r.value for r in self.end_reasons)
        raise CorruptStateError(f"{key!r} is not a way a {self.title} game ends (known: {known})")

    def resolve_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fill defaults and check every option against ``self.options``."""
        given = dict(options or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            accepted = f"options: {', '.join(sorted(known))}" if known else "it takes no options"
            raise BadOptionsError(f"{self.title} has no option {', '.join(unknown)} ({accepted})")
        resolved: dict[str, Any] = {}
        for spec in self.options:
            value = given.get(spec.name, spec.default)
            if spec.choices and value not in spec.choices:
                allowed = ", ".join(str(c) for c in spec.choices)
                raise BadOptionsError(f"{spec.name} must be one of {allowed}, not {value!r}")
            if isinstance(spec.default, int) and not isinstance(spec.default, bool):
                if not isinstance(value, int) or isinstance(value, bool):
                    raise BadOptionsError(f"{spec.name} must be a whole number, not {value!r}")
                if spec.minimum is not None and value < spec.minimum:
                    raise BadOptionsError(f"{spec.name} must be at least {spec.minimum}")
                if spec.maximum is not None and value > spec.maximum:
                    raise BadOptionsError(f"{spec.name} must be at most {spec.maximum}")
            resolved[spec.name] = value
        return resolved

    def starts_from_set_position(self, options: Mapping[str, Any]) -> bool:
        """Whether a match with these (resolved) options starts from a position a player gave
        rather than the game's own start (such a match is practice: it is not rated)."""
        return False

    def describe_options(self, resolved: Mapping[str, Any]) -> str:
        """A short phrase naming the options that differ from their defaults ("5-point match, Old
        English rules"); empty when every option has its default."""
        phrases = []
        for spec in self.options:
            value = resolved.get(spec.name, spec.default)
            if value == spec.default:
                continue
            template = spec.summary or "{name} {label}"
            phrases.append(template.format(name=spec.name, value=value, label=spec.short_label(value)))
        return ", ".join(phrases)


def replay_states(
    variant: Variant, options: Mapping[str, Any] | None, log: Sequence[str]
) -> Iterator[GameState]:
    """The new game, then the state after each action of ``log`` in turn (a replay's frames)."""
    state = variant.new_game(options)
    yield state
    for text in log:
        state = state.apply(variant.parse_action(state, text))
        yield state


def replay(variant: Variant, options: Mapping[str, Any] | None, log: Sequence[str]) -> GameState:
    """Play ``log`` (action notations) from a new game and return the final state."""
    state = variant.new_game(options)
    for text in log:
        state = state.apply(variant.parse_action(state, text))
    return state
