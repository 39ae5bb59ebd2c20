"""The tutor's warning on a player's private panel (``bot.tutor`` decides; this shows it) and the
answers to its buttons: **Undo** (the turn goes on: a checker play's last step taken back, a cube
decision left unmade) and **Confirm anyway** (the decision made final as it was).

Only the player deciding ever sees a warning: it is the private panel, edited in place, or a private
reply to a click on the public board, which stays as it was. A button of a warning that is no longer
current (the decision confirmed, taken back, or the turn gone) is answered with ``STALE`` and changes
nothing (the version in its custom id, checked as every control's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.session import Played, Session, StaleControl, UserError
from cogs.control_framework import NOT_RUNNING
from cogs.control_kinds import GAME, TUTOR, GameButton, TutorButton
from cogs.panels.base import AND_THEN, UNDO, ButtonSpec, Style, act, notations
from cogs.replies import reply_privately
from engine.ai.coaching import TutorNote

if TYPE_CHECKING:
    from app.client import RingsideBot

STALE = "This tutor warning is for an earlier position (the decision was confirmed or taken back): nothing was changed."
"""The answer to a tutor's button once its warning is no longer current."""


def tutor_words(note: TutorNote) -> str:
    """The warning's lines: ``"⚠️ **Tutor: this play loses 0.083 against 13/7 8/7**"`` and the details."""
    return (
        f"⚠️ **{note.text()}**\n"
        f"You chose {note.chosen}; the engine ({note.level}) prefers {note.better}, by {note.loss:.3f} "
        "in equity. **Undo** to choose again, or **Confirm anyway**."
    )


def held_back(session: Session, played: Played) -> bool:
    """Whether the tutor held back a complete checker play as the turn's draft (else a decision that
    was not played at all: a cube action, a play typed whole)."""
    return bool(session.draft) and session.awaiting_confirmation


def tutor_view(session: Session, played: Played) -> discord.ui.View:
    """Undo and Confirm anyway, at the match's version: a held-back play's Undo is the turn's own
    (its last step taken back); a decision not played is played by Confirm anyway, or left by Undo."""
    view = discord.ui.View(timeout=None)
    if held_back(session, played):
        undo = ButtonSpec("Undo", UNDO, Style.SECONDARY, emoji="↩️")
        view.add_item(GameButton.build(session.id, session.version, undo, discord.ButtonStyle.secondary, 0))
        view.add_item(TutorButton.build(session.id, session.version, "confirm"))
    else:
        view.add_item(TutorButton.build(session.id, session.version, "back"))
        chosen = act(AND_THEN.join(step.notation for step in played.steps))
        view.add_item(TutorButton.build(session.id, session.version, chosen))
    return view


class Tutoring(commands.Cog):
    """Answers the tutor's buttons (``TutorButton``), through the same services as a click on the
    board, the decision then shown by the game's controls (``publish_saved``)."""

    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.controls.register(TUTOR, self)

    async def cog_unload(self) -> None:
        self.bot.controls.unregister(TUTOR, self)

    async def on_tutor(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, op: str
    ) -> None:
        game = self.bot.controls.get(GAME)
        if game is None:
            await reply_privately(interaction, NOT_RUNNING)
            return
        sessions = self.bot.sessions
        user_id = interaction.user.id
        try:
            session = await sessions.current(match_id, version)
            if session.version != version or session.seat_of(user_id) is None:
                raise StaleControl(STALE)
            await interaction.response.defer()
            if op == "back":
                played = Played(session, session.state, (), draft=True)
            elif op == "confirm":
                played = await sessions.drafts.confirm(match_id, user_id, version, anyway=True)
            else:
                played = await sessions.act(match_id, user_id, version, *notations(op), anyway=True)
        except StaleControl:
            await reply_privately(interaction, STALE)
            return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await game.publish_saved(interaction, played)
