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
    check_readable,
    check_turn,
)
from bot.store import MatchRecord
from bot.turn_driver import board_waits
from cogs.board import (
    match_label,
)
from cogs.control_kinds import GAME, PICK_ARG_LIMIT, MatchPicker, ResignButton
from cogs.match_controls import MatchControls
from cogs.match_notices import MatchNotices
from cogs.origin import board_link
from cogs.publisher import REPOST_HEADLINE, BoardPublisher
from cogs.replies import reply_privately
from cogs.turn_panels import send_private
from engine import NotationError

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

    async def _own_live_match(
        self, interaction: discord.Interaction[Any], match_id: int, stranger: str
    ) -> Session | None:
        """The clicker's live match ``match_id``; otherwise a private answer (``stranger`` for someone
        not playing in it) and None."""
        try:
            session = await self.bot.sessions.get(match_id)
            if session.seat_of(interaction.user.id) is None:
                raise UserError(stranger)
            if session.record.status != "active":
                raise UserError(f"Match #{match_id} is already over.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return None
        return session

    @app_commands.command(name="board", description="Show the current position of your match here again.")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        try:
            session = await self._match_here(interaction, "board")
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self._show_board(interaction, session)

    async def _show_board(self, interaction: discord.Interaction[Any], session: Session) -> None:
        """Post the match's board again at the bottom of its channel: through the publisher, like
        every board (one live board, the one the store knows); the asker is told privately."""
        try:
            check_readable(session)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if session.record.channel_id != interaction.channel_id:
            await reply_privately(
                interaction, f"Match #{session.id} is played in <#{session.record.channel_id}>."
            )
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        shown = await self.publisher.show(session.id, repost=True, headline=REPOST_HEADLINE)
        if not shown:
            text = f"Match #{session.id}'s board cannot be posted right now; it is tried again shortly."
        elif board_waits(await self.bot.sessions.get(session.id)):
            text = (
                f"Match #{session.id}'s board is posted again below as soon as the player on turn "
                "finishes the private steps of their turn."
            )
        else:
            text = f"Match #{session.id}'s board is posted again below{board_link(session.record)}."
        await interaction.followup.send(text, ephemeral=True)

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
        await self._play_typed(interaction, session.id, text)

    async def _play_typed(self, interaction: discord.Interaction[Any], match_id: int, text: str) -> None:
        """A move typed with /move: the path of a click on the board's controls (the same checks in
        memory, then acknowledged, saved, drawn and shown, a step of a turn in progress answered by
        the private panel), every refusal private and changing nothing. Typing the roll control's
        label ("roll") rolls, as its button does."""
        sessions = self.bot.sessions
        try:
            session = await sessions.get(match_id)
            if session.record.status == "active" and session.record.channel_id != interaction.channel_id:
                raise UserError(f"Match #{match_id} is played in <#{session.record.channel_id}>.")
            seat = check_turn(session, interaction.user.id, None)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        assert session.state is not None
        spec = session.state.chance()
        roll = spec is not None and not session.draft and text.casefold() == spec.label.casefold()
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            if roll:
                played = await sessions.roll(match_id, interaction.user.id, None)
            else:
                played = await sessions.act(match_id, interaction.user.id, None, text)
        except UserError as exc:
            await reply_privately(interaction, self._move_refusal(session, exc))
            return
        if played.draft:
            reply = await self.controls.turns.reply(played.session, seat)
            await send_private(interaction, reply)
            return
        shown = await self.publisher.show(played.session.id)
        board = (
            f"the board is updated{board_link(played.session.record)}"
            if shown
            else "the board cannot be posted right now; it is tried again shortly"
        )
        await interaction.followup.send(f"Played `{text}` in match #{match_id}: {board}.", ephemeral=True)

    @staticmethod
    def _move_refusal(session: Session, exc: UserError) -> str:
        """Why a typed move was refused: the game's own message, and for a text it could not read at
        all, how its moves are written (``Variant.notation_help``)."""
        text = str(exc)
        hint = session.variant.notation_help
        if hint and isinstance(exc.__cause__, NotationError) and hint not in text:
            text += f"\n{hint}"
        return text + "\nNothing was changed."

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
        await self._show_position(interaction, session)

    async def _show_position(self, interaction: discord.Interaction[Any], session: Session) -> None:
        """The position codes of the match's committed position (a turn in progress is not in it: its
        steps are not final), privately, one code block each so they copy easily on a phone."""
        try:
            state = check_readable(session)
            if session.record.status != "active":
                raise UserError(f"Match #{session.id} is already over.")
            if session.record.channel_id != interaction.channel_id:
                raise UserError(f"Match #{session.id} is played in <#{session.record.channel_id}>.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        title = session.variant.title
        codes = session.variant.position_codes(state)
        if not codes:
            text = f"{title} has no position codes to export; /board shows the position."
        else:
            # The place as the game's players count it, as the board's footer says it.
            place = state.view(None).turn_label
            turn = place[0].lower() + place[1:] if place else "before the first turn"
            lines = [f"**{title} · match #{session.id}**, {turn} (the position on the board)"]
            for label, code in codes:
                lines += [f"{label}:", f"```\n{code}\n```"]
            note = session.variant.position_codes_note(state)
            if note:
                lines.append(f"⚠️ {note}")
            text = "\n".join(lines)
        await reply_privately(interaction, text)

    @app_commands.command(name="resign", description="Resign your match here (asks for confirmation).")
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        try:
            session = await self._match_here(interaction, "resign")
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self._ask_resign(interaction, session)

    async def _ask_resign(self, interaction: discord.Interaction[Any], session: Session) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(ResignButton.build(session.id, "yes"))
        view.add_item(ResignButton.build(session.id, "no"))
        what = (
            "This match's saved position is damaged: resigning abandons it, unrated."
            if session.state is None
            else f"Resign match #{session.id}? It counts as a loss."
        )
        await interaction.response.send_message(what, view=view, ephemeral=True)


#: The custom ids that name a match: game controls, My hand, Resign, Rematch, standing answers.
