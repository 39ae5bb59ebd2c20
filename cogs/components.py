"""Persistent controls: every custom id carries what is needed to act on it after a restart.

Every kind of control is a ``Control``: a declaration of its custom id (``id_format`` with named
``fields``, each with its pattern), of who answers it (``handler``, an entry of ``ControlHandlers``,
and its ``method``) and of its look (``build``). The base makes the template discord.py matches, the
custom id, the parsing and the dispatch, so a new kind is a declaration and nothing else.

Game controls: ``g:<match>:<version>:<value>`` for buttons, ``g:<match>:<version>:s<row>`` for
selects (the chosen option's value says what to do). The version makes a control from an earlier
position harmless: the session manager refuses it.

A custom id is data a modified client can forge: a kind answers only the component type it makes
(a button kind refuses a select, and the other way round), its fields match only values the bot
makes (a select's row 0..4, ids within 64 bits), and the handlers check what the ids name (it exists,
it belongs to the message clicked). A click on a control its message no longer carries (a client that
has not shown an edit yet) is answered too: ``cogs.removed_controls``, through ``Control.on_removed``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Protocol, TypeVar, get_args, get_origin

import discord

from bot.session import Played
from cogs.outcomes import note
from cogs.panels.base import ButtonSpec, SelectSpec, acts_chosen
from cogs.replies import answers_write_failures, reply_privately

CUSTOM_ID_LIMIT = 100

#: The largest id a control may carry: ids are Discord snowflakes or SQLite rowids, both signed 64-bit.
MAX_ID = 2**63 - 1


def _bounded_digits(limit: int) -> str:
    """A regular expression matching exactly the decimal numbers 0..``limit`` (no sign, at most as
    many digits as ``limit``), so a custom id that parses can never overflow what it is stored in."""
    top = str(limit)
    parts = [rf"\d{{1,{len(top) - 1}}}"] if len(top) > 1 else []
    for i, digit in enumerate(top):
        if digit != "0":
            below = "0" if digit == "1" else f"[0-{int(digit) - 1}]"
            rest = len(top) - i - 1
            parts.append(top[:i] + below + (rf"\d{{{rest}}}" if rest else ""))
    parts.append(top)
    return "(?:" + "|".join(parts) + ")"


#: One id in a custom id (a match, a challenge): at most 19 digits and within signed 64-bit.
ID = _bounded_digits(MAX_ID)


class GameControls(Protocol):
    """What answers the controls of a match (the ``Play`` cog)."""

    async def on_control(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, value: str
    ) -> None: ...
    async def on_resign_button(
        self, interaction: discord.Interaction[Any], match_id: int, op: str
    ) -> None: ...
    async def on_hand(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...
    async def on_standing_answer(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, op: str
    ) -> None: ...
    async def on_resign_ask(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...
    async def on_question_answered(
        self, interaction: discord.Interaction[Any], match_id: int, op: str
    ) -> None: ...
    async def on_stop_after_game(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...
    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str
    ) -> None: ...
    async def publish_saved(self, interaction: discord.Interaction[Any], played: Played) -> None: ...


class ChallengeControls(Protocol):
    """What answers Accept, Decline, Cancel and Rematch (the ``Challenge`` cog)."""

    async def on_challenge_button(
        self, interaction: discord.Interaction[Any], challenge_id: int, op: str
    ) -> None: ...
    async def on_rematch(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...


class RulesControls(Protocol):
    """What answers **Rules** and the rules pages' Prev / Next (the ``Help`` cog)."""

    async def send_rules(self, interaction: discord.Interaction[Any], game: str) -> None: ...
    async def on_rules_page(self, interaction: discord.Interaction[Any], game: str, page: int) -> None: ...


class HintControls(Protocol):
    """What answers the match picker of ``/hint`` and its **Play this** (the ``Coach`` cog)."""

    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str
    ) -> None: ...
    async def on_play_hint(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, action: str
    ) -> None: ...


class ReviewControls(Protocol):
    """What answers **Review** on an analysis and a review's First / Prev / Next / Last (the ``Review``
    cog)."""

    async def open_review(self, interaction: discord.Interaction[Any], reviewed: Reviewed) -> None: ...
    async def on_review_page(
        self, interaction: discord.Interaction[Any], reviewed: Reviewed, user_id: int, page: int, op: str
    ) -> None: ...


class TournamentControls(Protocol):
    """What answers a tournament announcement's Join, Leave and Start (the ``Tournament`` cog)."""

    async def on_tournament_button(
        self, interaction: discord.Interaction[Any], tournament_id: int, op: str
    ) -> None: ...


@dataclass(slots=True)
class ControlHandlers:
    """Who answers each kind of control, registered by the cogs as they load (``cog_load``) and removed
    as they unload: a control reaches its handler through this, never by looking a cog up by name and
    class (a cog module imported twice would make that class check fail). ``None``: not running."""

    game: GameControls | None = None
    challenge: ChallengeControls | None = None
    rules: RulesControls | None = None
    hint: HintControls | None = None
    review: ReviewControls | None = None
    tournament: TournamentControls | None = None


NOT_RUNNING = (
    "That control cannot be answered right now (the bot is starting up or shutting down); nothing was "
    "changed. Please try again in a moment."
)

H = TypeVar("H")


def controls(client: discord.Client) -> ControlHandlers:
    """The client's registered control handlers (none at all for a client that has no such table)."""
    found = getattr(client, "controls", None)
    return found if isinstance(found, ControlHandlers) else ControlHandlers()


async def ready(interaction: discord.Interaction[Any], handler: H | None) -> H | None:
    """``handler`` if it is registered; else the clicker is told privately and None is returned."""
    if handler is None:
        note(interaction, "refused")
        await reply_privately(interaction, NOT_RUNNING)
    return handler


@dataclass(frozen=True, slots=True)
class Field:
    """One named part of a custom id: what it matches, and how it is read back."""

    pattern: str
    read: Callable[[str], Any] = str


def named(**fields: Field) -> Mapping[str, Field]:
    """A control's fields by name, in the order given."""
    return MappingProxyType(fields)


NUMBER = Field(ID, int)
"""A match's, a challenge's or a version's number."""


@dataclass(frozen=True, slots=True)
class Reviewed:
    """What a review pages through: a match of ours (written ``12`` in a custom id) or a match
    analysed from a file (``f12``, its number among those: ``bot.store.imports``)."""

    id: int
    from_file: bool = False

    def __str__(self) -> str:
        return f"f{self.id}" if self.from_file else str(self.id)

    @classmethod
    def read(cls, text: str) -> Reviewed:
        return cls(int(text.removeprefix("f")), text.startswith("f"))


REVIEWED = Field(f"f?{ID}", Reviewed.read)

ItemT = TypeVar("ItemT", bound=discord.ui.Item[Any])
_OPTIONAL = re.compile(r"\[(.*?)\]")
_NAMED = re.compile(r"\{(\w+)\}")


Pieces = tuple[tuple[str, str], ...]
"""Text cut into (literal, "") and ("", field name) pieces, in order."""


def _pieces(text: str) -> Pieces:
    pieces: list[tuple[str, str]] = []
    last = 0
    for match in _NAMED.finditer(text):
        pieces += [(text[last : match.start()], ""), ("", match[1])]
        last = match.end()
    return (*pieces, (text[last:], ""))


def _parts(id_format: str) -> tuple[tuple[bool, Pieces], ...]:
    """``id_format`` cut into its parts, in order: (optional, pieces); ``[...]`` is optional."""
    parts: list[tuple[bool, Pieces]] = []
    last = 0
    for match in _OPTIONAL.finditer(id_format):
        parts += [(False, _pieces(id_format[last : match.start()])), (True, _pieces(match[1]))]
        last = match.end()
    return (*parts, (False, _pieces(id_format[last:])))


class Control(discord.ui.DynamicItem[ItemT], template=r"(?!)"):
    """The base of every persistent control; a subclass declares ``id_format``, ``fields``,
    ``handler`` and ``method`` (and ``build``, its look). ``[...]`` in ``id_format`` is a tail
    written only when its field has a value (the match picker's ``/move`` notation)."""

    id_format: ClassVar[str]
    fields: ClassVar[Mapping[str, Field]]
    handler: ClassVar[str]
    """Which entry of ``ControlHandlers`` answers it."""
    method: ClassVar[str]
    """The method of that handler called with the interaction and the fields, in the id's order."""
    kinds: ClassVar[list[type[Control[Any]]]] = []
    """Every kind declared, in order (what the bot registers with discord.py)."""
    _parts: ClassVar[tuple[tuple[bool, Pieces], ...]]
    """``id_format`` read once: each custom id is written from it."""
    kind: ClassVar[str]
    """The class's name in snake case (``game_button``): the ``kind`` label of the metrics."""
    component_type: ClassVar[discord.ComponentType]
    """The type of component this kind is made as (from ``ItemT``): the only one it answers."""
    removed_method: ClassVar[str | None] = None
    """The handler's method that answers a click on this control after its message stopped carrying
    it (``on_removed``); None: ``method``, as any click."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        cls._parts = _parts(cls.id_format)
        cls.kind = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        cls.component_type = _component_type(cls)
        super().__init_subclass__(template=cls._template())
        Control.kinds.append(cls)

    @classmethod
    def _template(cls) -> str:
        def fill(pieces: Pieces) -> str:
            return "".join(
                f"(?P<{name}>{cls.fields[name].pattern})" if name else re.escape(literal)
                for literal, name in pieces
            )

        return "".join(
            f"(?:{fill(pieces)})?" if optional else fill(pieces) for optional, pieces in cls._parts
        )

    @classmethod
    def id_for(cls, **values: Any) -> str:
        """The custom id of a control with these ``values`` (``ValueError`` past Discord's limit)."""

        def fill(pieces: Pieces) -> str:
            return "".join(str(values[name]) if name else literal for literal, name in pieces)

        text = "".join(
            fill(pieces)
            for optional, pieces in cls._parts
            if not optional or all(values.get(name) for _, name in pieces if name)
        )
        if len(text) > CUSTOM_ID_LIMIT:
            raise ValueError(f"custom id too long: {text!r}")
        return text

    @classmethod
    def button(cls, label: str, style: discord.ButtonStyle, emoji: str | None = None, **values: Any) -> Any:
        """A control of this kind on a new button with its custom id made from ``values``."""
        made = discord.ui.Button[Any](label=label, style=style, custom_id=cls.id_for(**values), emoji=emoji)
        return cls(made, **values)  # type: ignore[arg-type]  # a button kind

    def __init__(self, item: ItemT, **values: Any) -> None:
        super().__init__(item)
        self.values = values
        for name, value in values.items():
            setattr(self, name, value)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Control[Any]:
        return cls(item, **cls.read_fields(match))  # type: ignore[arg-type]  # the template decides the kind

    @classmethod
    def found_on(cls, message: discord.Message | None) -> list[Mapping[str, Any]]:
        """The fields of every control of this kind that ``message`` carries, in order."""
        found: list[Mapping[str, Any]] = []
        for custom_id in custom_ids_on(message):
            match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)
            if match is not None:
                found.append(cls.read_fields(match))
        return found

    @classmethod
    def read_fields(cls, match: re.Match[str]) -> dict[str, Any]:
        """The fields of a custom id this kind's template matched, read back."""
        return {
            name: field.read(match[name]) if match[name] is not None else ""
            for name, field in cls.fields.items()
        }

    def arguments(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...] | str:
        """What the handler's method gets after the interaction; a string is a private answer instead."""
        return tuple(self.values[name] for _, pieces in self._parts for _, name in pieces if name)

    def handler_name(self) -> str:
        return self.handler

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await self._dispatch(interaction, self.method)

    @answers_write_failures
    async def on_removed(self, interaction: discord.Interaction[Any]) -> None:
        """A click on this control from a copy of its message that the bot has edited since (the
        interaction's message no longer carries it): answered by ``removed_method``, else as any click."""
        await self._dispatch(interaction, self.removed_method or self.method)

    async def _dispatch(self, interaction: discord.Interaction[Any], method: str) -> None:
        arguments = (
            NOT_VALID if clicked_type(interaction) != self.component_type else self.arguments(interaction)
        )
        if isinstance(arguments, str):
            note(interaction, "refused")
            await interaction.response.send_message(arguments, ephemeral=True)
            return
        handler = getattr(controls(interaction.client), self.handler_name())
        if handler := await ready(interaction, handler):
            await getattr(handler, method)(interaction, *arguments)


NOT_VALID = "That control is not valid (it was not made by this bot); nothing was changed."


def _component_type(kind: type[Control[Any]]) -> discord.ComponentType:
    """The component type a kind declares with its ``ItemT`` (``Control[discord.ui.Button[Any]]``)."""
    for base in getattr(kind, "__orig_bases__", ()):
        for argument in get_args(base):
            item = get_origin(argument) or argument
            if isinstance(item, type) and issubclass(item, discord.ui.Select):
                return discord.ComponentType.string_select
            if isinstance(item, type) and issubclass(item, discord.ui.Button):
                return discord.ComponentType.button
    raise TypeError(f"{kind.__name__} declares no button or select: Control[discord.ui.Button[Any]]")


def clicked_type(interaction: discord.Interaction[Any]) -> discord.ComponentType | None:
    """The type of the component the interaction says was used (None: not a component's)."""
    data: Mapping[str, Any] = interaction.data or {}
    value = data.get("component_type")
    try:
        return discord.ComponentType(value) if isinstance(value, int) else None
    except ValueError:
        return None


def chosen_values(interaction: discord.Interaction[Any]) -> list[str]:
    """The options chosen in a select, as the interaction carries them."""
    data: Mapping[str, Any] = interaction.data or {}
    values = data.get("values")
    return [str(v) for v in values] if isinstance(values, list) else []


def custom_ids_on(message: discord.Message | None) -> list[str]:
    """The custom ids of the controls ``message`` carries, in order (its action rows' children)."""
    found: list[str] = []
    for row in message.components if message is not None else ():
        for component in getattr(row, "children", [row]):
            custom_id = getattr(component, "custom_id", None)
            if isinstance(custom_id, str):
                found.append(custom_id)
    return found


class GameButton(Control[discord.ui.Button[Any]]):
    id_format = "g:{match_id}:{version}:{value}"
    fields = named(match_id=NUMBER, version=NUMBER, value=Field("roll|undo|confirm|a:.+|n:.*"))
    handler, method = "game", "on_control"

    @classmethod
    def build(
        cls, match_id: int, version: int, spec: ButtonSpec, style: discord.ButtonStyle, row: int
    ) -> GameButton:
        values = {"match_id": match_id, "version": version, "value": spec.value}
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=spec.label[:80],
            style=style,
            custom_id=cls.id_for(**values),
            emoji=spec.emoji,
            disabled=spec.disabled,
            row=row,
        )
        return cls(button, **values)


class GameSelect(Control[discord.ui.Select[Any]]):
    id_format = "g:{match_id}:{version}:s{row}"
    fields = named(match_id=NUMBER, version=NUMBER, row=Field("[0-4]", int))  # a message's five rows
    handler, method = "game", "on_control"

    @classmethod
    def build(cls, match_id: int, version: int, row: int, spec: SelectSpec) -> GameSelect:
        values = {"match_id": match_id, "version": version, "row": row}
        options = spec.options[:25]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=cls.id_for(**values),
            placeholder=spec.placeholder[:150],
            options=[
                discord.SelectOption(
                    label=o.label[:100], value=o.value[:100], description=(o.description or None)
                )
                for o in options
            ],
            min_values=min(spec.min_values, len(options)),
            max_values=min(spec.max_values, len(options)),
            row=row,
        )
        return cls(select, **values)

    def arguments(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...] | str:
        # The chosen options' values say what to do (several: each in turn).
        values = chosen_values(interaction)
        return (
            (self.values["match_id"], self.values["version"], acts_chosen(values))
            if values
            else "Choose one of the options."
        )


class ChallengeButton(Control[discord.ui.Button[Any]]):
    id_format = "ch:{challenge_id}:{op}"
    fields = named(challenge_id=NUMBER, op=Field("accept|decline|cancel"))
    handler, method = "challenge", "on_challenge_button"
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.danger),
        "cancel": ("Cancel", discord.ButtonStyle.secondary),
    }

    @classmethod
    def build(cls, challenge_id: int, op: str) -> ChallengeButton:
        label, style = cls.LABELS[op]
        made: ChallengeButton = cls.button(label, style, challenge_id=challenge_id, op=op)
        return made


class ResignButton(Control[discord.ui.Button[Any]]):
    """Resign / Keep playing in the private confirmation."""

    id_format = "rs:{match_id}:{op}"
    fields = named(match_id=NUMBER, op=Field("yes|no"))
    handler, method = "game", "on_resign_button"
    # Its message loses it only when the question is answered: an old copy's click changes nothing.
    removed_method = "on_question_answered"

    @classmethod
    def build(cls, match_id: int, op: str) -> ResignButton:
        label, style = (
            ("Resign", discord.ButtonStyle.danger)
            if op == "yes"
            else ("Keep playing", discord.ButtonStyle.secondary)
        )
        made: ResignButton = cls.button(label, style, match_id=match_id, op=op)
        return made


class HandButton(Control[discord.ui.Button[Any]]):
    """ "My hand" on a public board: a fresh private reply with the clicker's own view and, when it is
    their decision, its private controls. It carries no version: it always shows the present."""

    id_format = "hand:{match_id}"
    fields = named(match_id=NUMBER)
    handler, method = "game", "on_hand"

    @classmethod
    def build(cls, match_id: int) -> HandButton:
        made: HandButton = cls.button("My hand", discord.ButtonStyle.primary, "🂠", match_id=match_id)
        return made


class StandingAnswerButton(Control[discord.ui.Button[Any]]):
    """A player's standing answer to response windows in one match, in their private reply: "Always
    pass in this match" (``pass``: the window open now passes, and every later one as it opens) or
    "Ask me in windows" (``ask``: back to being asked). It carries the match version its reply was
    drawn for, so a stale "Always pass" passes nothing."""

    id_format = "sa:{match_id}:{version}:{op}"
    fields = named(match_id=NUMBER, version=NUMBER, op=Field("pass|ask"))
    handler, method = "game", "on_standing_answer"
    LABELS: ClassVar[dict[str, str]] = {"pass": "Always pass in this match", "ask": "Ask me in windows"}

    @classmethod
    def build(cls, match_id: int, version: int, op: str) -> StandingAnswerButton:
        emoji = "⏩" if op == "pass" else "✋"
        made: StandingAnswerButton = cls.button(
            cls.LABELS[op], discord.ButtonStyle.secondary, emoji, match_id=match_id, version=version, op=op
        )
        return made


class RematchButton(Control[discord.ui.Button[Any]]):
    id_format = "rm:{match_id}"
    fields = named(match_id=NUMBER)
    handler, method = "challenge", "on_rematch"

    @classmethod
    def build(cls, match_id: int) -> RematchButton:
        made: RematchButton = cls.button("Rematch", discord.ButtonStyle.primary, "🔁", match_id=match_id)
        return made


class ResignAskButton(Control[discord.ui.Button[Any]]):
    """Resign on a board message: a private confirmation (Resign / Keep playing) for the clicker."""

    id_format = "rsk:{match_id}"
    fields = named(match_id=NUMBER)
    handler, method = "game", "on_resign_ask"

    @classmethod
    def build(cls, match_id: int) -> ResignAskButton:
        made: ResignAskButton = cls.button("Resign", discord.ButtonStyle.secondary, "🏳️", match_id=match_id)
        return made


class StopAfterGameButton(Control[discord.ui.Button[Any]]):
    """**Stop after this game** on the board of a money session: either player ends the session
    when the game in progress ends."""

    id_format = "stop:{match_id}"
    fields = named(match_id=NUMBER)
    handler, method = "game", "on_stop_after_game"

    @classmethod
    def build(cls, match_id: int) -> StopAfterGameButton:
        made: StopAfterGameButton = cls.button(
            "Stop after this game", discord.ButtonStyle.secondary, "⏹️", match_id=match_id
        )
        return made


class PlayHintButton(Control[discord.ui.Button[Any]]):
    """**Play this** on a private hint: plays the hint's best choice (``action``, its notation) for the
    player who asked, if the match is still at the ``version`` the hint was given for."""

    id_format = "hp:{match_id}:{version}:{action}"
    fields = named(match_id=NUMBER, version=NUMBER, action=Field(".{1,57}"))
    handler, method = "hint", "on_play_hint"

    @classmethod
    def build(cls, match_id: int, version: int, action: str) -> PlayHintButton:
        made: PlayHintButton = cls.button(
            "Play this", discord.ButtonStyle.success, "▶️", match_id=match_id, version=version, action=action
        )
        return made


_MATCH_NUMBER = re.compile(ID)

PICK_ARG_LIMIT = CUSTOM_ID_LIMIT - len("pick:move:")
"""The longest text a match picker can carry for its command (``/move``'s notation)."""


class MatchPicker(Control[discord.ui.Select[Any]]):
    """/board, /resign, /position, /move or /hint with several matches in one place: choose the match.
    ``arg`` is what the command was given (``/move``'s notation), carried in the custom id so the
    choice needs nothing kept in memory."""

    id_format = "pick:{op}[:{arg}]"
    fields = named(op=Field("board|resign|position|move|hint"), arg=Field(f".{{1,{PICK_ARG_LIMIT}}}"))
    handler, method = "game", "on_pick"

    @classmethod
    def build(cls, op: str, choices: list[tuple[int, str]], arg: str = "") -> MatchPicker:
        if len(arg) > PICK_ARG_LIMIT:
            raise ValueError(f"a picker carries at most {PICK_ARG_LIMIT} characters")
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=cls.id_for(op=op, arg=arg),
            placeholder="Which match?",
            options=[discord.SelectOption(label=label[:100], value=str(mid)) for mid, label in choices[:25]],
        )
        return cls(select, op=op, arg=arg)

    def handler_name(self) -> str:
        return "hint" if self.values["op"] == "hint" else "game"

    def arguments(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...] | str:
        values = chosen_values(interaction)
        if not values or not _MATCH_NUMBER.fullmatch(values[0]):
            return "Choose one of the matches."
        return (self.values["op"], int(values[0]), self.values["arg"])


GAME_KEY = Field("[a-z0-9_-]{1,40}")


class RulesButton(Control[discord.ui.Button[Any]]):
    """Prev / Next on a rules page: the custom id names the game and the page it shows (1-based)."""

    id_format = "rules:{game}:{page}"
    fields = named(game=GAME_KEY, page=Field(r"\d{1,4}", int))
    handler, method = "rules", "on_rules_page"

    @classmethod
    def build(cls, game: str, page: int, label: str) -> RulesButton:
        made: RulesButton = cls.button(label, discord.ButtonStyle.secondary, game=game, page=page)
        return made


class OpenRulesButton(Control[discord.ui.Button[Any]]):
    """**Rules** on a board message: the game's rules, page 1, in a private reply."""

    id_format = "rules:{game}"
    fields = named(game=GAME_KEY)
    handler, method = "rules", "send_rules"

    @classmethod
    def build(cls, game: str) -> OpenRulesButton:
        made: OpenRulesButton = cls.button("Rules", discord.ButtonStyle.secondary, "📖", game=game)
        return made


class OpenReviewButton(Control[discord.ui.Button[Any]]):
    """**Review** on a match's analysis: the clicker's own review of that match, in a private reply."""

    id_format = "rvo:{reviewed}"
    fields = named(reviewed=REVIEWED)
    handler, method = "review", "open_review"

    @classmethod
    def build(cls, reviewed: Reviewed) -> OpenReviewButton:
        made: OpenReviewButton = cls.button("Review", discord.ButtonStyle.primary, "🔍", reviewed=reviewed)
        return made


class ReviewButton(Control[discord.ui.Button[Any]]):
    """First / Prev / Next / Last in a review: the custom id names what is reviewed (``Reviewed``), who opened the review
    and the page the button leads to (1-based); ``op`` only tells the four apart (two may lead to one
    page, and a message's custom ids must differ)."""

    id_format = "rv:{reviewed}:{user_id}:{page}:{op}"
    fields = named(
        reviewed=REVIEWED, user_id=NUMBER, page=Field(r"\d{1,5}", int), op=Field("first|prev|next|last")
    )
    handler, method = "review", "on_review_page"
    LABELS: ClassVar[dict[str, str]] = {"first": "First", "prev": "Prev", "next": "Next", "last": "Last"}
    EMOJIS: ClassVar[dict[str, str]] = {"first": "⏮️", "prev": "◀️", "next": "▶️", "last": "⏭️"}

    @classmethod
    def build(cls, reviewed: Reviewed, user_id: int, page: int, op: str, disabled: bool) -> ReviewButton:
        values = {"reviewed": reviewed, "user_id": user_id, "page": page, "op": op}
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=cls.LABELS[op],
            style=discord.ButtonStyle.secondary,
            custom_id=cls.id_for(**values),
            emoji=cls.EMOJIS[op],
            disabled=disabled,
        )
        return cls(button, **values)


class TournamentButton(Control[discord.ui.Button[Any]]):
    id_format = "tn:{tournament_id}:{op}"
    fields = named(tournament_id=NUMBER, op=Field("join|leave|start"))
    handler, method = "tournament", "on_tournament_button"
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "start": ("Start", discord.ButtonStyle.primary),
    }

    @classmethod
    def build(cls, tournament_id: int, op: str) -> TournamentButton:
        return cls.button(*cls.LABELS[op], tournament_id=tournament_id, op=op)  # type: ignore[no-any-return]


def _anonymous(template: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", template)


_KNOWN = tuple(Control.kinds)
_PREFIXES = sorted({kind.id_format.split(":")[0] for kind in _KNOWN})

#: A custom id of one of the bot's kinds that none of them accepts (an id too long or beyond 64 bits,
#: an unknown operation, a page out of range): matched by nothing else, so it gets its own answer.
_MALFORMED = (
    rf"(?=(?:{'|'.join(_PREFIXES)}):)(?!(?:"
    + "|".join(_anonymous(kind.__discord_ui_compiled_template__.pattern) for kind in _KNOWN)
    + r")\Z).{1,100}"
)


class MalformedControl(discord.ui.DynamicItem[discord.ui.Item[Any]], template=_MALFORMED):
    """Answers, privately, a control whose custom id this bot did not make: never silence."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MalformedControl:
        return cls(item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        note(interaction, "refused")
        if interaction.response.is_done():
            await interaction.followup.send(NOT_VALID, ephemeral=True)
        else:
            await interaction.response.send_message(NOT_VALID, ephemeral=True)

    async def on_removed(self, interaction: discord.Interaction[Any]) -> None:
        await self.callback(interaction)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (*_KNOWN, MalformedControl)


MALFORMED_KIND = "malformed_control"


def control_kind(custom_id: str) -> str:
    """The kind of control a custom id belongs to (``Control.kind``), ``malformed_control`` for one of
    the bot's prefixes that no kind accepts, ``unknown`` for anything else."""
    for kind in _KNOWN:
        if kind.__discord_ui_compiled_template__.fullmatch(custom_id):
            return kind.kind
    return (
        MALFORMED_KIND
        if MalformedControl.__discord_ui_compiled_template__.fullmatch(custom_id)
        else "unknown"
    )
