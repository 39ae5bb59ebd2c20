"""The answer to a control of an earlier position: the player whose turn is in progress gets its
private panel; a board that is behind what is saved is shown now; a player who clicked an older
private panel of theirs finds that message turned into their live panel (``cogs.live_panels``); anyone
else is pointed to the latest board."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.session import Session, turn_in_progress
from cogs.board import private_reply
from cogs.origin import board_link, is_private
from cogs.outcomes import note
from cogs.replies import reply_privately
from cogs.turn_panels import send_private

if TYPE_CHECKING:
    from cogs.match_controls import MatchControls


class StaleClicks:
    def __init__(self, controls: MatchControls) -> None:
        self.controls = controls

    async def answer(self, interaction: discord.Interaction[Any], match_id: int, refusal: str) -> None:
        """A control from an earlier position: the player whose turn is in progress gets its private
        panel; a board that is behind what is saved is shown now; a player who clicked an older private
        panel of theirs finds it turned into their live panel; anyone else is pointed to the board."""
        session = await self.controls.play.bot.sessions.get(match_id)
        seat = session.seat_of(interaction.user.id)
        if seat is not None and turn_in_progress(session, seat):
            await self._turn_in_progress(interaction, session, seat)
            return
        if session.record.behind:
            await interaction.response.defer(ephemeral=True, thinking=True)
            shown = await self.controls.play.publisher.show(match_id)
            text = (
                f"That board was behind: match #{match_id} is up to date now{board_link(session.record)}."
                if shown
                else f"Match #{match_id}'s board cannot be posted right now; it is tried again shortly."
            )
            await interaction.followup.send(text, ephemeral=True)
            return
        if seat is not None and is_private(interaction) and session.record.status == "active":
            await self._current_panel(interaction, session, seat)
            return
        await reply_privately(interaction, refusal.rstrip(".") + f"{board_link(session.record)}.")

    async def _turn_in_progress(
        self, interaction: discord.Interaction[Any], session: Session, seat: int
    ) -> None:
        """``seat``'s turn in progress, where they carry on: the private panel they clicked, turned
        into it (so no older panel of theirs keeps controls), or a new private reply."""
        said = "You have a turn in progress: carry on here.\n"
        if is_private(interaction):
            await interaction.response.defer()
            reply = await self.controls.turns.reply(session, seat)
            await interaction.edit_original_response(
                content=(said + reply.content)[:2000],
                embed=reply.embed,
                attachments=[reply.file] if reply.file else [],
                view=reply.view,
            )
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        reply = await self.controls.turns.reply(session, seat)
        await send_private(interaction, reply, said)

    async def _current_panel(
        self, interaction: discord.Interaction[Any], session: Session, seat: int
    ) -> None:
        """A click on an older private panel of ``seat``'s: that message becomes their panel as the
        match stands now (and their live one), instead of a refusal that sends them elsewhere."""
        note(interaction, "refused")  # nothing was done with the click itself
        reply = private_reply(session, seat)
        board = board_link(session.record)
        said = f"That panel was out of date; here is the match as it stands now (the board{board})."
        await interaction.response.edit_message(
            content=f"{said}\n{reply.content}"[:2000], embed=None, attachments=[], view=reply.view
        )
        self.controls.play.publisher.panels.keep(session, interaction)
