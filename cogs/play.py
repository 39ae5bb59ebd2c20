"""Playing: the game controls, ``/board`` and ``/resign``. Thin: the session manager decides."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.sessions import Played, Session, UserError, deciding_seat
from cogs.board import board_message, build_view, disabled_copy, in_brackets, options_text, panel_for
from cogs.components import ResignButton
from cogs.replies import reply_privately
from engine import Outcome

if TYPE_CHECKING:
    from bot.client import RingsideBot

log = logging.getLogger(__name__)


class Play(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    # -- game controls ---------------------------------------------------------------------------

    async def on_control(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, value: str
    ) -> None:
        sessions = self.bot.sessions
        try:
            if value.startswith("n:"):
                session = await sessions.get(match_id)
                sessions.check_turn(session, interaction.user.id, version)
                # Only the controls change: no new picture is drawn.
                await interaction.response.edit_message(
                    view=build_view(session, panel_for(session, value[2:]))
                )
                return
            if value == "roll":
                played = await sessions.roll(match_id, interaction.user.id, version)
            elif value.startswith("a:"):
                played = await sessions.act(match_id, interaction.user.id, version, value[2:])
            else:
                raise UserError("That control is not understood by this version of the bot.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.publish(interaction, played)

    async def publish(self, interaction: discord.Interaction[Any], played: Played) -> None:
        """Show the result of an action: same message within a turn, a new message for a new turn."""
        session = played.session
        if not played.turn_changed and not played.finished:
            message = board_message(session, played.steps)
            await interaction.response.edit_message(
                content=message.content,
                embed=message.embed,
                attachments=[message.file],
                view=message.view,
                allowed_mentions=message.mentions,
            )
            return
        # Answer first (greying out the old controls), then draw and post the new turn's board.
        await interaction.response.edit_message(view=disabled_copy(interaction.message))
        outcome = await self.bot.sessions.result_of(session.id) if played.finished else None
        changes = await self.bot.store.ratings.changes(session.id) if played.finished else []
        message = board_message(session, played.steps, outcome=outcome, rating_changes=changes)
        channel = interaction.channel
        await self.post_board(
            session, message, channel if isinstance(channel, discord.abc.Messageable) else None
        )
        if played.finished and outcome is not None:
            await self.announce(session, outcome)

    async def announce(self, session: Session, outcome: Outcome) -> None:
        """Post a finished match's result in the server's results channel, if it has one."""
        settings = await self.bot.settings.get(session.record.guild_id)
        channel_id = settings.results_channel
        if channel_id is None or channel_id in (session.record.channel_id, session.record.parent_id):
            return
        where = ""
        if session.record.guild_id is not None:
            where = f" https://discord.com/channels/{session.record.guild_id}/{session.record.channel_id}"
        options = options_text(session)
        if outcome.winner is None:
            game = f"{session.variant.title}{', ' if options else ''}{options}"
            text = f"Match #{session.id} ({game}) was drawn. {outcome.description}{where}"
        else:
            winner, loser = session.user_of(outcome.winner), session.user_of(1 - outcome.winner)
            text = (
                f"🏆 <@{winner}> beat <@{loser}> at {session.variant.title}"
                f"{in_brackets(options, f'match #{session.id}')}. {outcome.description}{where}"
            )
        try:
            await self.bot.get_partial_messageable(channel_id).send(
                text[:2000], allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as exc:
            log.info("could not announce match %s in channel %s: %s", session.id, channel_id, exc)

    # -- the turn clock ---------------------------------------------------------------------------

    async def remind_due(self) -> int:
        """Remind each player whose reminder time has come, once."""
        sent = 0
        now = self.bot.clock.now()
        for record in await self.bot.store.deadlines.due_reminders(now):
            session = await self.bot.sessions.claim_reminder(record)
            if session is None or session.state is None:
                continue
            seat = deciding_seat(session.state)
            if seat is None:
                continue
            left = max(0.0, (record.timeout_at or now) - now)
            board = ""
            if session.record.message_id is not None and session.record.guild_id is not None:
                board = (
                    f" https://discord.com/channels/{session.record.guild_id}/{session.record.channel_id}/"
                    f"{session.record.message_id}"
                )
            text = (
                f"⏰ <@{session.user_of(seat)}>, it is your turn in match #{session.id} "
                f"({session.variant.title}).{board} Play within {_duration(left)}, or the match is lost on time."
            )
            try:
                await self.bot.get_partial_messageable(session.record.channel_id).send(
                    text, allowed_mentions=discord.AllowedMentions(users=True, roles=False, everyone=False)
                )
                sent += 1
            except discord.HTTPException as exc:
                log.info("could not remind match %s: %s", session.id, exc)
        return sent

    async def timeout_due(self) -> int:
        """End every match whose player on turn has run out of time."""
        ended = 0
        for record in await self.bot.store.deadlines.due_timeouts(self.bot.clock.now()):
            played = await self.bot.sessions.timeout(record.id)
            if played is None:
                continue
            ended += 1
            session = played.session
            outcome = await self.bot.sessions.result_of(session.id)
            await self.post_board(
                session,
                board_message(
                    session,
                    played.steps,
                    outcome=outcome,
                    rating_changes=await self.bot.store.ratings.changes(session.id),
                ),
            )
            await self.retire_message(session, played.previous_message_id)
            if outcome is not None:
                await self.announce(session, outcome)
        return ended

    async def post_board(
        self, session: Session, message: Any, channel: discord.abc.Messageable | None = None
    ) -> discord.Message:
        """Post a new board message and make it the match's live one."""
        target = channel or self.bot.get_partial_messageable(session.record.channel_id)
        sent = await target.send(
            content=message.content,
            embed=message.embed,
            file=message.file,
            view=message.view,
            allowed_mentions=message.mentions,
        )
        await self.bot.sessions.set_message(
            session.id, sent.id if session.record.status == "active" else None
        )
        return sent

    async def retire_message(self, session: Session, message_id: int | None) -> None:
        """Take the controls off an older board message (it keeps its picture)."""
        if message_id is None:
            return
        try:
            await (
                self.bot.get_partial_messageable(session.record.channel_id)
                .get_partial_message(message_id)
                .edit(view=None)
            )
        except discord.HTTPException as exc:
            log.info("could not retire board message %s of match %s: %s", message_id, session.id, exc)

    # -- commands ------------------------------------------------------------------------------------

    async def _match_here(self, interaction: discord.Interaction[Any]) -> Session:
        channel_id = interaction.channel_id
        matches = await self.bot.sessions.matches_of(interaction.user.id, channel_id)
        if not matches:
            raise UserError("You have no match in progress here. Start one with /challenge.")
        if len(matches) > 1:
            ids = ", ".join(f"#{m.id}" for m in matches)
            raise UserError(
                f"You have several matches here ({ids}); use the board message of the one you mean."
            )
        return await self.bot.sessions.get(matches[0].id)

    @app_commands.command(name="board", description="Show the current position of your match here again.")
    async def board(self, interaction: discord.Interaction[Any]) -> None:
        try:
            session = await self._match_here(interaction)
            self.bot.sessions.check_readable(session)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        old = session.record.message_id
        message = board_message(session, headline="The board, as it stands:")
        await interaction.response.send_message(
            content=message.content,
            embed=message.embed,
            file=message.file,
            view=message.view or discord.utils.MISSING,
            allowed_mentions=message.mentions,
        )
        sent = await interaction.original_response()
        await self.bot.sessions.set_message(session.id, sent.id)
        await self.retire_message(session, old)

    @app_commands.command(name="resign", description="Resign your match here (asks for confirmation).")
    async def resign(self, interaction: discord.Interaction[Any]) -> None:
        try:
            session = await self._match_here(interaction)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        view = discord.ui.View(timeout=None)
        view.add_item(ResignButton(session.id, "yes"))
        view.add_item(ResignButton(session.id, "no"))
        what = (
            "This match's saved position is damaged: resigning abandons it, unrated."
            if session.state is None
            else f"Resign match #{session.id}? It counts as a loss."
        )
        await interaction.response.send_message(what, view=view, ephemeral=True)

    async def on_resign_button(self, interaction: discord.Interaction[Any], match_id: int, op: str) -> None:
        if op == "no":
            await interaction.response.edit_message(content="Good luck: the match goes on.", view=None)
            return
        try:
            played = await self.bot.sessions.resign(match_id, interaction.user.id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        session = played.session
        if session.record.status == "abandoned":
            await interaction.response.edit_message(content=f"Match #{match_id} was abandoned.", view=None)
            await self.bot.get_partial_messageable(session.record.channel_id).send(
                f"Match #{match_id} was abandoned by <@{interaction.user.id}>: its saved position was damaged.",
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await self.retire_message(session, played.previous_message_id)
            return
        await interaction.response.edit_message(content="You resigned.", view=None)
        outcome = await self.bot.sessions.result_of(match_id)
        message = board_message(
            session,
            played.steps,
            outcome=outcome,
            rating_changes=await self.bot.store.ratings.changes(session.id),
        )
        await self.post_board(session, message)
        await self.retire_message(session, played.previous_message_id)
        if outcome is not None:
            await self.announce(session, outcome)


def _duration(seconds: float) -> str:
    hours = seconds / 3600
    if hours >= 1.5:
        return f"{round(hours)} hours"
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


async def setup(bot: RingsideBot) -> None:
    await bot.add_cog(Play(bot))
