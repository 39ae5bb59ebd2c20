"""Persistent controls: every custom id carries what is needed to act on it after a restart.

Game controls: ``g:<match>:<version>:<value>`` for buttons, ``g:<match>:<version>:s<row>`` for
selects (the chosen option's value says what to do). The version makes a control from an earlier
position harmless: the session manager refuses it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

import discord

from cogs.panels.base import ButtonSpec, SelectSpec
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
#: What the rules pages' buttons match (cogs/help.py); listed here so that a malformed one is answered.
RULES_TEMPLATE = r"rules:(?P<game>[a-z0-9_-]{1,40}):(?P<page>\d{1,4})"
OPEN_RULES_TEMPLATE = r"rules:(?P<game>[a-z0-9_-]{1,40})"


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
    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str
    ) -> None: ...


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
    """What answers the match picker of ``/hint`` (the ``Coach`` cog)."""

    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str
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
        await reply_privately(interaction, NOT_RUNNING)
    return handler


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"g:(?P<mid>{ID}):(?P<ver>{ID}):(?P<value>roll|undo|confirm|a:.+|n:.*)",
):
    def __init__(self, match_id: int, version: int, value: str, button: discord.ui.Button[Any]) -> None:
        super().__init__(button)
        self.match_id = match_id
        self.version = version
        self.value = value

    @classmethod
    def build(
        cls, match_id: int, version: int, spec: ButtonSpec, style: discord.ButtonStyle, row: int
    ) -> GameButton:
        custom_id = f"g:{match_id}:{version}:{spec.value}"
        if len(custom_id) > CUSTOM_ID_LIMIT:
            raise ValueError(f"custom id too long: {custom_id!r}")
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=spec.label[:80],
            style=style,
            custom_id=custom_id,
            emoji=spec.emoji,
            disabled=spec.disabled,
            row=row,
        )
        return cls(match_id, version, spec.value, button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), int(match["ver"]), match["value"], item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).game):
            await handler.on_control(interaction, self.match_id, self.version, self.value)


class GameSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=rf"g:(?P<mid>{ID}):(?P<ver>{ID}):s(?P<row>\d)"
):
    def __init__(self, match_id: int, version: int, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.match_id = match_id
        self.version = version

    @classmethod
    def build(cls, match_id: int, version: int, row: int, spec: SelectSpec) -> GameSelect:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"g:{match_id}:{version}:s{row}",
            placeholder=spec.placeholder[:150],
            options=[
                discord.SelectOption(
                    label=o.label[:100], value=o.value[:100], description=(o.description or None)
                )
                for o in spec.options[:25]
            ],
            row=row,
        )
        return cls(match_id, version, select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> GameSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["mid"]), int(match["ver"]), item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values:
            await interaction.response.send_message("Choose one of the options.", ephemeral=True)
            return
        if handler := await ready(interaction, controls(interaction.client).game):
            await handler.on_control(interaction, self.match_id, self.version, values[0])


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"ch:(?P<cid>{ID}):(?P<op>accept|decline|cancel)",
):
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.danger),
        "cancel": ("Cancel", discord.ButtonStyle.secondary),
    }

    def __init__(self, challenge_id: int, op: str, button: discord.ui.Button[Any] | None = None) -> None:
        label, style = self.LABELS[op]
        super().__init__(
            button or discord.ui.Button(label=label, style=style, custom_id=f"ch:{challenge_id}:{op}")
        )
        self.challenge_id = challenge_id
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ChallengeButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["cid"]), match["op"], item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).challenge):
            await handler.on_challenge_button(interaction, self.challenge_id, self.op)


class ResignButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"rs:(?P<mid>{ID}):(?P<op>yes|no)"
):
    def __init__(self, match_id: int, op: str, button: discord.ui.Button[Any] | None = None) -> None:
        label, style = (
            ("Resign", discord.ButtonStyle.danger)
            if op == "yes"
            else ("Keep playing", discord.ButtonStyle.secondary)
        )
        super().__init__(
            button or discord.ui.Button(label=label, style=style, custom_id=f"rs:{match_id}:{op}")
        )
        self.match_id = match_id
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ResignButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), match["op"], item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).game):
            await handler.on_resign_button(interaction, self.match_id, self.op)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"hand:(?P<mid>{ID})"):
    """ "My hand" on a public board: a fresh private reply with the clicker's own view and, when it is
    their decision, its private controls. It carries no version: it always shows the present."""

    def __init__(self, match_id: int, button: discord.ui.Button[Any] | None = None) -> None:
        super().__init__(
            button
            or discord.ui.Button(
                label="My hand", emoji="🂠", style=discord.ButtonStyle.primary, custom_id=f"hand:{match_id}"
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HandButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).game):
            await handler.on_hand(interaction, self.match_id)


class StandingAnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"sa:(?P<mid>{ID}):(?P<ver>{ID}):(?P<op>pass|ask)",
):
    """A player's standing answer to response windows in one match, in their private reply: "Always
    pass in this match" (``pass``: the window open now passes, and every later one as it opens) or
    "Ask me in windows" (``ask``: back to being asked). It carries the match version its reply was
    drawn for, so a stale "Always pass" passes nothing."""

    LABELS: ClassVar[dict[str, str]] = {"pass": "Always pass in this match", "ask": "Ask me in windows"}

    def __init__(
        self, match_id: int, version: int, op: str, button: discord.ui.Button[Any] | None = None
    ) -> None:
        super().__init__(
            button
            or discord.ui.Button(
                label=self.LABELS[op],
                emoji="⏩" if op == "pass" else "✋",
                style=discord.ButtonStyle.secondary,
                custom_id=f"sa:{match_id}:{version}:{op}",
            )
        )
        self.match_id = match_id
        self.version = version
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> StandingAnswerButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), int(match["ver"]), match["op"], item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).game):
            await handler.on_standing_answer(interaction, self.match_id, self.version, self.op)


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"rm:(?P<mid>{ID})"):
    def __init__(self, match_id: int, button: discord.ui.Button[Any] | None = None) -> None:
        super().__init__(
            button
            or discord.ui.Button(
                label="Rematch", emoji="🔁", style=discord.ButtonStyle.primary, custom_id=f"rm:{match_id}"
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> RematchButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), item)

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).challenge):
            await handler.on_rematch(interaction, self.match_id)


class ResignAskButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=rf"rsk:(?P<mid>{ID})"):
    """Resign on a board message: a private confirmation (Resign / Keep playing) for the clicker."""

    def __init__(self, match_id: int, button: discord.ui.Button[Any] | None = None) -> None:
        super().__init__(
            button
            or discord.ui.Button(
                label="Resign", emoji="🏳️", style=discord.ButtonStyle.secondary, custom_id=f"rsk:{match_id}"
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ResignAskButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        if handler := await ready(interaction, controls(interaction.client).game):
            await handler.on_resign_ask(interaction, self.match_id)


PICK_ARG_LIMIT = CUSTOM_ID_LIMIT - len("pick:move:")
"""The longest text a match picker can carry for its command (``/move``'s notation)."""


class MatchPicker(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=rf"pick:(?P<op>board|resign|position|move|hint)(?::(?P<arg>.{{1,{PICK_ARG_LIMIT}}}))?",
):
    """/board, /resign, /position, /move or /hint with several matches in one place: choose the match.
    ``arg`` is what the command was given (``/move``'s notation), carried in the custom id so the
    choice needs nothing kept in memory."""

    def __init__(self, op: str, select: discord.ui.Select[Any], arg: str = "") -> None:
        super().__init__(select)
        self.op = op
        self.arg = arg

    @classmethod
    def build(cls, op: str, choices: list[tuple[int, str]], arg: str = "") -> MatchPicker:
        if len(arg) > PICK_ARG_LIMIT:
            raise ValueError(f"a picker carries at most {PICK_ARG_LIMIT} characters")
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"pick:{op}:{arg}" if arg else f"pick:{op}",
            placeholder="Which match?",
            options=[discord.SelectOption(label=label[:100], value=str(mid)) for mid, label in choices[:25]],
        )
        return cls(op, select, arg)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MatchPicker:
        assert isinstance(item, discord.ui.Select)
        return cls(match["op"], item, match["arg"] or "")

    @answers_write_failures
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values or not values[0].isdigit():
            await interaction.response.send_message("Choose one of the matches.", ephemeral=True)
            return
        table = controls(interaction.client)
        picker: GameControls | HintControls | None = table.hint if self.op == "hint" else table.game
        if handler := await ready(interaction, picker):
            await handler.on_pick(interaction, self.op, int(values[0]), self.arg)


_KNOWN = (
    GameButton,
    GameSelect,
    ChallengeButton,
    ResignButton,
    RematchButton,
    HandButton,
    ResignAskButton,
    MatchPicker,
    StandingAnswerButton,
)


def _anonymous(template: str) -> str:
    return re.sub(r"\(\?P<\w+>", "(?:", template)


#: A custom id of one of the bot's kinds that none of them accepts (an id too long or beyond 64 bits,
#: an unknown operation, a page out of range): matched by nothing else, so it gets its own answer.
_MALFORMED = (
    r"(?=(?:g|ch|rs|rsk|hand|rm|rules|pick|sa):)(?!(?:"
    + "|".join(_anonymous(item.__discord_ui_compiled_template__.pattern) for item in _KNOWN)
    + "|"
    + _anonymous(RULES_TEMPLATE)
    + "|"
    + _anonymous(OPEN_RULES_TEMPLATE)
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
        text = "That control is not valid (it was not made by this bot); nothing was changed."
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (*_KNOWN, MalformedControl)
