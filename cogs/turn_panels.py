"""The private panel of a turn in progress (with the picture of its position, which only its player
sees until the turn is complete), and what a deferred click's saved change shows: that panel, the
player's private panel, or the public board."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.session import Played, Session, Step
from cogs.board import PrivateMessage, player_names, private_reply, turn_picture
from cogs.origin import is_private
from cogs.tutor import tutor_view, tutor_words
from engine.ai.coaching import TutorNote

if TYPE_CHECKING:
    from cogs.play import Play


class TurnPanels:
    def __init__(self, play: Play) -> None:
        self.play = play

    async def reply(
        self, session: Session, seat: int, steps: Sequence[Step] = (), selection: str = ""
    ) -> PrivateMessage:
        """The private panel of ``seat``'s turn in progress, with the picture of its position."""
        names = await player_names(self.play.bot, session)
        drawn = turn_picture(session, seat, names, self.play.bot.clock.now())
        picture = await self.play.publisher.picture(*drawn)
        return private_reply(session, seat, steps, selection, picture, turn=True)

    async def show_result(self, interaction: discord.Interaction[Any], played: Played) -> None:
        """Show the result of a deferred click. A step of a turn in progress goes to its player's
        private panel (the opponent sees the turn when it is complete); anything else is shown on
        the public board by the publisher (edited in place while the same player decides, a new
        message mentioning the next player otherwise)."""
        session = played.session
        seat = session.seat_of(interaction.user.id)
        assert seat is not None
        if played.tutor is not None:
            await self.show_tutor(interaction, played, played.tutor, seat)
            return
        if played.draft:
            reply = await self.reply(session, seat)
            kwargs: dict[str, Any] = dict(
                content=reply.content,
                embed=reply.embed,
                attachments=[reply.file] if reply.file else [],
                view=reply.view,
            )
            if is_private(interaction):
                await interaction.edit_original_response(**kwargs)
            else:
                await send_private(interaction, reply)
            return
        if is_private(interaction):
            reply = private_reply(session, seat, played.steps)
            await interaction.edit_original_response(
                content=reply.content, embed=None, attachments=[], view=reply.view
            )
            self.play.publisher.panels.keep(session, interaction)
            await self.play.publisher.show(session.id, panel_of=interaction.user.id)
            return
        await self.play.publisher.show(session.id, interaction=interaction)

    async def show_tutor(
        self, interaction: discord.Interaction[Any], played: Played, note: TutorNote, seat: int
    ) -> None:
        """The tutor held the decision back (``cogs.tutor``): the player's private panel of the turn,
        with the warning and Undo / Confirm anyway for controls. The public board stays as it was."""
        session = played.session
        reply = await self.reply(session, seat)
        said = tutor_words(note) + "\n"
        view = tutor_view(session, played)
        if is_private(interaction):
            await interaction.edit_original_response(
                content=(said + reply.content)[:2000],
                embed=reply.embed,
                attachments=[reply.file] if reply.file else [],
                view=view,
            )
            return
        await send_private(interaction, PrivateMessage(reply.content, view, reply.embed, reply.file), said)


async def send_private(interaction: discord.Interaction[Any], reply: PrivateMessage, said: str = "") -> None:
    """``reply`` (after the words ``said``) as a new private message answering ``interaction``."""
    await interaction.followup.send(
        (said + reply.content)[:2000],
        embed=reply.embed or discord.utils.MISSING,
        file=reply.file or discord.utils.MISSING,
        view=reply.view or discord.utils.MISSING,
        ephemeral=True,
    )
