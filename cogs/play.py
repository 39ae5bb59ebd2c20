"""Playing: the game controls, ``/board``, ``/resign``, ``/move`` and ``/position``. Thin: the session
manager decides."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.session import (
    Session,
    UserError,
)
from bot.store import MatchRecord
from cogs.board import (
    match_label,
)
from cogs.control_kinds import GAME, PICK_ARG_LIMIT, MatchPicker
from cogs.match_controls import MatchControls
from cogs.match_notices import MatchNotices
from cogs.match_requests import MatchRequests
from cogs.publisher import BoardPublisher
from cogs.replies import reply_privately

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

MOVE_LIMIT = 200
"""The longest text /move takes (Discord's client enforces it too)."""


class Play(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self.publisher = BoardPublisher(bot)
        #: the answers to the matches' controls (``bot.controls``, as ``GAME``)
        self.controls = MatchControls(self)
        #: what /board, /move, /position and /resign do once their match is known
        self.requests = MatchRequests(self)
        #: what is shown of a match when the scheduler or another cog asks (``bot.publishers.matches``)
        self.notices = MatchNotices(self)

    # -- game controls ---------------------------------------------------------------------------

    # -- the turn clock ---------------------------------------------------------------------------

    async def cog_load(self) -> None:
        self.bot.publishers.matches = self.notices
        self.bot.controls.register(GAME, self.controls)

    async def cog_unload(self) -> None:
        if self.bot.publishers.matches is self.notices:
            self.bot.publishers.matches = None
        self.bot.controls.unregister(GAME, self.controls)
        await self.publisher.close()

    # -- commands ------------------------------------------------------------------------------------

    async def _match_here(
        self, interaction: discord.Interaction[Any], op: str, arg: str = ""
    ) -> Session | None:
        """The player's one match here; with several, a private picker is sent instead (None); with
        none, a ``UserError`` saying where theirs are (``MatchHistory.in_progress_here``)."""
        matches = await self.bot.sessions.history.in_progress_here(
            interaction.user.id, interaction.channel_id, interaction.guild_id
        )
        return await self._one_of(interaction, op, matches, arg)

    async def _one_of(
        self, interaction: discord.Interaction[Any], op: str, matches: Sequence[MatchRecord], arg: str = ""
    ) -> Session | None:
        """The session of the one match in ``matches``; with several, a private picker of them is sent
        instead (None). ``arg``: what the command was given, carried by the picker."""
        if len(matches) == 1:
            return await self.bot.sessions.get(matches[0].id)
        if len(arg) > PICK_ARG_LIMIT:
            raise UserError(
                f"You have several matches here, and a move of more than {PICK_ARG_LIMIT} characters "
                "cannot be carried to the list of them: play it in the match's own thread, or with the "
                "board's buttons."
            )
        view = discord.ui.View(timeout=None)
        view.add_item(
            MatchPicker.build(
                op,
                [
                    (
                        m.id,
                        await match_label(self.bot, self.bot.sessions.computer_ids, m, interaction.user.id),
                    )
                    for m in matches
                ],
                arg,
            )
        )
        what = {
            "board": "show the board of",
            "resign": "resign",
            "move": f"play `{arg}` in",
            "position": "see the position codes of",
        }[op]
        several = "You have several matches here" if op != "position" else "Several matches are played here"
        await interaction.response.send_message(
            f"{several}: which one do you want to {what}?", view=view, ephemeral=True
        )
        return None

    @app_commands.command(name="board", description="Show the current position of your match here again.")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        try:
            session = await self._match_here(interaction, "board")
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.requests.show_board(interaction, session)

    @app_commands.command(
        name="move", description="Play a move written in the game's notation in your match here."
    )
    @app_commands.describe(notation="Your move in the game's notation, e.g. 24/18 13/11")
    async def move(
        self, interaction: discord.Interaction[Any], notation: app_commands.Range[str, 1, MOVE_LIMIT]
    ) -> None:
        text = " ".join(notation.split())[:MOVE_LIMIT]
        try:
            if not text:
                raise UserError("Write your move after /move, in the game's notation.")
            session = await self._match_here(interaction, "move", text)
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.requests.play_typed(interaction, session.id, text)

    @app_commands.command(
        name="position", description="The position of the match here as codes other programs read."
    )
    async def position(self, interaction: discord.Interaction[Any]) -> None:
        try:
            channel_id = interaction.channel_id
            # Your own matches here first; else any match played here (the board is public anyway).
            matches = await self.bot.sessions.history.matches_of(interaction.user.id, channel_id)
            if not matches and channel_id is not None:
                matches = await self.bot.sessions.history.active_in(channel_id)
            if not matches:
                raise UserError("There is no match in progress here.")
            session = await self._one_of(interaction, "position", matches)
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.requests.show_position(interaction, session)

    @app_commands.command(name="resign", description="Resign your match here (asks for confirmation).")
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        try:
            session = await self._match_here(interaction, "resign")
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.requests.ask_resign(interaction, session)


#: The custom ids that name a match: game controls, My hand, Resign, Rematch, standing answers.
