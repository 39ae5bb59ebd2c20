"""Persistent controls: every custom id carries what is needed to act on it after a restart.

Game controls: ``g:<match>:<version>:<value>`` for buttons, ``g:<match>:<version>:s<row>`` for
selects (the chosen option's value says what to do). The version makes a control from an earlier
position harmless: the session manager refuses it.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Protocol, cast

import discord

from cogs.panels.base import ButtonSpec, SelectSpec

CUSTOM_ID_LIMIT = 100


class ControlHandler(Protocol):
    async def on_control(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, value: str
    ) -> None: ...


def _handler(interaction: discord.Interaction[Any]) -> ControlHandler:
    cog = interaction.client.get_cog("Play")
    assert cog is not None, "the Play cog handles game controls"
    return cast(ControlHandler, cog)


class GameButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"g:(?P<mid>\d+):(?P<ver>\d+):(?P<value>roll|a:.+|n:.*)",
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

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _handler(interaction).on_control(interaction, self.match_id, self.version, self.value)


class GameSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"g:(?P<mid>\d+):(?P<ver>\d+):s(?P<row>\d)$"
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

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values:
            await interaction.response.send_message("Choose one of the options.", ephemeral=True)
            return
        await _handler(interaction).on_control(interaction, self.match_id, self.version, values[0])


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"ch:(?P<cid>\d+):(?P<op>accept|decline|cancel)"
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

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Challenge")
        assert cog is not None
        await cog.on_challenge_button(interaction, self.challenge_id, self.op)


class ResignButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"rs:(?P<mid>\d+):(?P<op>yes|no)"
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

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Play")
        assert cog is not None
        await cog.on_resign_button(interaction, self.match_id, self.op)


class HandButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"hand:(?P<mid>\d{1,20})"):
    """ "Your hand" on a public board: a fresh private reply with the clicker's own view and, when it is
    their decision, its private controls. It carries no version: it always shows the present."""

    def __init__(self, match_id: int, button: discord.ui.Button[Any] | None = None) -> None:
        super().__init__(
            button
            or discord.ui.Button(
                label="Your hand", emoji="🂠", style=discord.ButtonStyle.primary, custom_id=f"hand:{match_id}"
            )
        )
        self.match_id = match_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HandButton:
        assert isinstance(item, discord.ui.Button)
        return cls(int(match["mid"]), item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Play")
        assert cog is not None
        await cog.on_hand(interaction, self.match_id)


class RematchButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"rm:(?P<mid>\d+)"):
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

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Challenge")
        assert cog is not None
        await cog.on_rematch(interaction, self.match_id)


class ResignAskButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"rsk:(?P<mid>\d{1,20})"):
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
        cog = interaction.client.get_cog("Play")
        assert cog is not None
        await cog.on_resign_ask(interaction, self.match_id)


class MatchPicker(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"pick:(?P<op>board|resign)"):
    """/board or /resign with several of the player's matches in one place: choose the match."""

    def __init__(self, op: str, select: discord.ui.Select[Any]) -> None:
        super().__init__(select)
        self.op = op

    @classmethod
    def build(cls, op: str, choices: list[tuple[int, str]]) -> MatchPicker:
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"pick:{op}",
            placeholder="Which match?",
            options=[discord.SelectOption(label=label[:100], value=str(mid)) for mid, label in choices[:25]],
        )
        return cls(op, select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> MatchPicker:
        assert isinstance(item, discord.ui.Select)
        return cls(match["op"], item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        if not values or not values[0].isdigit():
            await interaction.response.send_message("Choose one of the matches.", ephemeral=True)
            return
        cog = interaction.client.get_cog("Play")
        assert cog is not None
        await cog.on_pick(interaction, self.op, int(values[0]))


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    GameButton,
    GameSelect,
    ChallengeButton,
    ResignButton,
    RematchButton,
    HandButton,
    ResignAskButton,
    MatchPicker,
)
