"""What ``/board``, ``/move``, ``/position`` and ``/resign`` do once their match is known: asked from the
command (the player's one match here) or from the match picker (``MatchPicker``, when they have
several). Every refusal is private and changes nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.session import Session, UserError, check_readable, check_turn
from bot.turn_driver import board_waits
from cogs.control_kinds import ResignButton
from cogs.origin import board_link
from cogs.publisher import REPOST_HEADLINE
from cogs.replies import reply_privately
from cogs.turn_panels import send_private
from engine import NotationError

if TYPE_CHECKING:
    from cogs.play import Play


class MatchRequests:
    def __init__(self, play: Play) -> None:
        self.play = play

    async def show_board(self, interaction: discord.Interaction[Any], session: Session) -> None:
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
        shown = await self.play.publisher.show(session.id, repost=True, headline=REPOST_HEADLINE)
        if not shown:
            text = f"Match #{session.id}'s board cannot be posted right now; it is tried again shortly."
        elif board_waits(await self.play.bot.sessions.get(session.id)):
            text = (
                f"Match #{session.id}'s board is posted again below as soon as the player on turn "
                "finishes the private steps of their turn."
            )
        else:
            text = f"Match #{session.id}'s board is posted again below{board_link(session.record)}."
        await interaction.followup.send(text, ephemeral=True)

    async def play_typed(self, interaction: discord.Interaction[Any], match_id: int, text: str) -> None:
        """A move typed with /move: the path of a click on the board's controls (the same checks in
        memory, then acknowledged, saved, drawn and shown, a step of a turn in progress answered by
        the private panel), every refusal private and changing nothing. Typing the roll control's
        label ("roll") rolls, as its button does."""
        sessions = self.play.bot.sessions
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
            reply = await self.play.controls.turns.reply(played.session, seat)
            await send_private(interaction, reply)
            return
        shown = await self.play.publisher.show(played.session.id)
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

    async def show_position(self, interaction: discord.Interaction[Any], session: Session) -> None:
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

    async def ask_resign(self, interaction: discord.Interaction[Any], session: Session) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(ResignButton.build(session.id, "yes"))
        view.add_item(ResignButton.build(session.id, "no"))
        what = (
            "This match's saved position is damaged: resigning abandons it, unrated."
            if session.state is None
            else f"Resign match #{session.id}? It counts as a loss."
        )
        await interaction.response.send_message(what, view=view, ephemeral=True)
