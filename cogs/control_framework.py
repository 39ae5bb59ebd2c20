"""The framework of the persistent controls: every custom id carries what is needed to act on it after
a restart. The controls themselves are declared in ``cogs.control_kinds``.

Every kind of control is a ``Control``: a declaration of its custom id (``id_format`` with named
``fields``, each with its pattern), of who answers it (``answer = GAME.calls(GameControls.on_control)``:
the role of the handler, registered in ``ControlHandlers``, and the method of that handler's type that
is called) and of its look (``build``). The base makes the template discord.py matches, the custom id,
the parsing and the dispatch, so a new kind is a declaration and nothing else. The method is a
reference the type checker follows: "go to definition" on a kind's ``answer`` lands on the handler
type's declaration of the method (its implementation is the registered handler's method of that name),
and a method of another handler type, or one that does not take the interaction, is a type error; a
kind whose fields are not the method's parameters fails as it is declared (``_check_answers``).

A custom id is data a modified client can forge: a kind answers only the component type it makes
(a button kind refuses a select, and the other way round), its fields match only values the bot
makes (a select's row 0..4, ids within 64 bits), and the handlers check what the ids name (it exists,
it belongs to the message clicked). A click on a control its message no longer carries (a client that
has not shown an edit yet) is answered too: ``cogs.removed_controls``, through ``Control.on_removed``.
A custom id with one of the bot's prefixes that no kind accepts is answered by a ``RefusedControl``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Concatenate, Generic, TypeVar, get_args, get_origin

import discord

from cogs.outcomes import note
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


# -- who answers -----------------------------------------------------------------------------------

H = TypeVar("H")


class Answerer(Generic[H]):
    """One role among the handlers of controls (the matches', the challenges'...): the key its handler
    is registered under in ``ControlHandlers``, typed with what that handler answers
    (``Answerer[GameControls]``), so that registering an object that lacks a method is a type error."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Answerer({self.name!r})"

    def calls(
        self, method: Callable[Concatenate[H, discord.Interaction[Any], ...], Awaitable[None]]
    ) -> Answer[H]:
        """The answer of this role's handler through ``method`` (``GAME.calls(GameControls.on_control)``):
        a method of another type than the role's is a type error (made here, where the role fixes the
        type, and not in ``Answer(...)``, which a declaration's ``Answer[Any]`` would let through)."""
        return Answer(self, method)


@dataclass(frozen=True, slots=True)
class Answer(Generic[H]):
    """Who answers a kind of control: the handler registered as ``by``, through ``method``, a method of
    that handler's type (``GameControls.on_control``), called with the interaction and the arguments
    (the control's fields in the custom id's order, unless the kind reads them otherwise)."""

    by: Answerer[H]
    method: Callable[Concatenate[H, discord.Interaction[Any], ...], Awaitable[None]]

    def bound_to(self, handler: H) -> Callable[..., Awaitable[None]]:
        """``method`` as ``handler`` implements it: ``method`` is the handler type's declaration (a
        protocol's), which names the method; the handler's own is the one called."""
        bound: Callable[..., Awaitable[None]] = getattr(handler, self.method.__name__)
        return bound

    def parameters(self) -> list[str]:
        """The names of what ``method`` takes after the handler and the interaction."""
        return list(inspect.signature(self.method).parameters)[2:]


@dataclass(slots=True)
class ControlHandlers:
    """Who answers each kind of control, registered by the cogs as they load (``cog_load``) and removed
    as they unload: a control reaches its handler through this, never by looking a cog up by name and
    class (a cog module imported twice would make that class check fail). A role with no handler
    registered is not running."""

    _handlers: dict[Answerer[Any], Any] = field(default_factory=dict)

    def register(self, role: Answerer[H], handler: H) -> None:
        self._handlers[role] = handler

    def unregister(self, role: Answerer[H], handler: H) -> None:
        """Remove ``handler`` from ``role`` if it is the one registered there."""
        if self._handlers.get(role) is handler:
            del self._handlers[role]

    def get(self, role: Answerer[H]) -> H | None:
        """The handler registered as ``role`` (None: not running)."""
        found: H | None = self._handlers.get(role)
        return found


NOT_RUNNING = (
    "That control cannot be answered right now (the bot is starting up or shutting down); nothing was "
    "changed. Please try again in a moment."
)


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


# -- custom ids --------------------------------------------------------------------------------------


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
    """The base of every persistent control; a subclass declares ``id_format``, ``fields`` and
    ``answer`` (and ``build``, its look). ``[...]`` in ``id_format`` is a tail
    written only when its field has a value (the match picker's ``/move`` notation)."""

    id_format: ClassVar[str]
    fields: ClassVar[Mapping[str, Field]]
    answer: ClassVar[Answer[Any]]
    """Who answers a click on it: the handler's role and the method called with the interaction and
    ``arguments`` (by default the fields, in the id's order: the method's parameters are named so)."""
    kinds: ClassVar[list[type[Control[Any]]]] = []
    """Every kind declared, in order (what the bot registers with discord.py)."""
    _parts: ClassVar[tuple[tuple[bool, Pieces], ...]]
    """``id_format`` read once: each custom id is written from it."""
    kind: ClassVar[str]
    """The class's name in snake case (``game_button``): the ``kind`` label of the metrics."""
    component_type: ClassVar[discord.ComponentType]
    """The type of component this kind is made as (from ``ItemT``): the only one it answers."""
    answer_when_removed: ClassVar[Answer[Any] | None] = None
    """What answers a click on this control after its message stopped carrying it (``on_removed``);
    None: ``answer``, as any click."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        cls._parts = _parts(cls.id_format)
        cls.kind = re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower()
        cls.component_type = _component_type(cls)
        _check_answers(cls)
        super().__init_subclass__(template=cls._template())
        Control.kinds.append(cls)

    @classmethod
    def field_order(cls) -> list[str]:
        """The names of the fields as the custom id writes them."""
        return [name for _, pieces in cls._parts for _, name in pieces if name]

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
        return tuple(self.values[name] for name in self.field_order())

    def answer_for(self) -> Answer[Any]:
        """Who answers this control (a kind whose fields decide it says so here)."""
        return self.answer

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await self._dispatch(interaction, self.answer_for())

    @answers_write_failures
    async def on_removed(self, interaction: discord.Interaction[Any]) -> None:
        """A click on this control from a copy of its message that the bot has edited since (the
        interaction's message no longer carries it): answered by ``answer_when_removed``, else as any
        click."""
        await self._dispatch(interaction, self.answer_when_removed or self.answer_for())

    async def _dispatch(self, interaction: discord.Interaction[Any], answer: Answer[Any]) -> None:
        arguments = (
            NOT_VALID if clicked_type(interaction) != self.component_type else self.arguments(interaction)
        )
        if isinstance(arguments, str):
            note(interaction, "refused")
            await interaction.response.send_message(arguments, ephemeral=True)
            return
        if handler := await ready(interaction, controls(interaction.client).get(answer.by)):
            await answer.bound_to(handler)(interaction, *arguments)


NOT_VALID = "That control is not valid (it was not made by this bot); nothing was changed."


def _check_answers(kind: type[Control[Any]]) -> None:
    """A kind whose arguments are its fields answers through methods whose parameters are named as
    its fields, in the custom id's order: a declaration that would pass them to the wrong parameters
    fails as it is made, not on a click."""
    if kind.arguments is not Control.arguments:
        return  # the kind reads its own arguments (a select's choice)
    for answer in (kind.answer, kind.answer_when_removed):
        if answer is not None and answer.parameters() != kind.field_order():
            raise TypeError(
                f"{kind.__name__}'s fields {kind.field_order()} are not what "
                f"{answer.method.__qualname__} takes: {answer.parameters()}"
            )


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


# -- custom ids no kind accepts ------------------------------------------------------------------------


def _anonymous(template: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", template)


def malformed_template(kinds: Iterable[type[Control[Any]]]) -> str:
    """The template of a custom id with one of ``kinds``' prefixes that none of them accepts (an id too
    long or beyond 64 bits, an unknown operation, a page out of range): matched by none of them."""
    known = tuple(kinds)
    prefixes = sorted({kind.id_format.split(":")[0] for kind in known})
    return (
        rf"(?=(?:{'|'.join(prefixes)}):)(?!(?:"
        + "|".join(_anonymous(kind.__discord_ui_compiled_template__.pattern) for kind in known)
        + r")\Z).{1,100}"
    )


class RefusedControl(discord.ui.DynamicItem[discord.ui.Item[Any]], template=r"(?!)"):
    """Answers, privately, a control whose custom id this bot did not make: never silence. A subclass
    names the ids it takes (``malformed_template``)."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RefusedControl:
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
