"""Playing: the game controls, ``/board`` and ``/resign``. Thin: the session manager decides."""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.sessions import REMATCH_SECONDS, Played, Reminder, Session, UserError
from bot.store import MatchRecord
from cogs.board import (
    board_message,
    build_view,
    disabled_copy,
    how_won,
    in_brackets,
    options_text,
    panel_for,
    player_names,
    private_reply,
    rematch_view,
    sentence,
)
from cogs.components import MatchPicker, ResignButton
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
            session = await sessions.get(match_id)
            check_origin(interaction, session)
            if value.startswith("n:"):
                seat = sessions.check_turn(session, interaction.user.id, version)
                # Only the controls change: no new picture is drawn.
                if _is_private(interaction):
                    content, view = private_reply(session, seat, selection=value[2:])
                    await interaction.response.edit_message(content=content, view=view)
                else:
                    await interaction.response.edit_message(
                        view=build_view(session, panel_for(session, value[2:]), public=True)
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

    async def on_hand(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """ "Your hand": a fresh private reply each time, so it works after restarts and after Discord's
        15 minutes for private messages."""
        try:
            session = await self.bot.sessions.get(match_id)
            check_origin(interaction, session)
            self.bot.sessions.check_readable(session)
            seat = session.seat_of(interaction.user.id)
            if seat is None:
                raise UserError("You are not playing in this match: its hands are secret.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        content, view = private_reply(session, seat)
        await interaction.response.send_message(content, view=view or discord.utils.MISSING, ephemeral=True)

    async def publish(self, interaction: discord.Interaction[Any], played: Played) -> None:
        """Show the result of an action: the same message while the same seat decides, a new message
        (mentioning the player) when someone else is asked to decide."""
        session = played.session
        if _is_private(interaction):
            await self._publish_from_private(interaction, played)
            return
        if not played.decider_changed and not played.finished:
            message = board_message(session, played.steps, names=await player_names(self.bot, session))
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
        message = board_message(
            session,
            played.steps,
            outcome=outcome,
            rating_changes=changes,
            names=await player_names(self.bot, session),
        )
        channel = interaction.channel
        await self.post_board(
            session, message, channel if isinstance(channel, discord.abc.Messageable) else None
        )
        if played.finished and outcome is not None:
            await self.announce(session, outcome)

    async def _publish_from_private(self, interaction: discord.Interaction[Any], played: Played) -> None:
        """An action taken in a private reply: answer there, then bring the public board up to date by
        its own message id (the interaction belongs to the private message, not to the board)."""
        session = played.session
        seat = session.seat_of(interaction.user.id)
        assert seat is not None
        content, view = private_reply(session, seat, played.steps)
        await interaction.response.edit_message(content=content, view=view)
        if not played.decider_changed and not played.finished:
            message = board_message(session, played.steps, names=await player_names(self.bot, session))
            if session.record.message_id is not None:
                try:
                    await (
                        self.bot.get_partial_messageable(session.record.channel_id)
                        .get_partial_message(session.record.message_id)
                        .edit(
                            content=message.content,
                            embed=message.embed,
                            attachments=[message.file],
                            view=message.view,
                            allowed_mentions=message.mentions,
                        )
                    )
                    return
                except discord.HTTPException as exc:
                    log.info("could not edit the board of match %s: %s", session.id, exc)
            await self.post_board(session, message)
            return
        outcome = await self.bot.sessions.result_of(session.id) if played.finished else None
        changes = await self.bot.store.ratings.changes(session.id) if played.finished else []
        message = board_message(
            session,
            played.steps,
            outcome=outcome,
            rating_changes=changes,
            names=await player_names(self.bot, session),
        )
        await self.post_board(session, message)
        await self.retire_message(session, played.previous_message_id)
        if played.finished and outcome is not None:
            await self.announce(session, outcome)

    async def announce(self, session: Session, outcome: Outcome) -> None:
        """Post a finished match's result in the server's results channel, if it has one."""
        settings = await self.bot.settings.get(session.record.guild_id)
        channel_id = settings.results_channel
        # Matches in threads under the results channel are announced there too; only a match played
        # in that very channel already shows its result there.
        if channel_id is None or channel_id == session.record.channel_id:
            return
        where = ""
        if session.record.guild_id is not None:
            where = f" https://discord.com/channels/{session.record.guild_id}/{session.record.channel_id}"
        options = options_text(session)
        if outcome.winner is None:
            game = f"{session.variant.title}{', ' if options else ''}{options}"
            text = f"Match #{session.id} ({game}) was drawn: {sentence(outcome.description)}{where}"
        else:
            winner, loser = session.user_of(outcome.winner), session.user_of(1 - outcome.winner)
            text = (
                f"🏆 <@{winner}> beat <@{loser}> at {session.variant.title}"
                f"{in_brackets(options, f'match #{session.id}')}: {how_won(session, outcome)}{where}"
            )
        try:
            await self.bot.get_partial_messageable(channel_id).send(
                text[:2000], allowed_mentions=discord.AllowedMentions.none()
            )
        except discord.HTTPException as exc:
            log.info("could not announce match %s in channel %s: %s", session.id, channel_id, exc)

    # -- the turn clock ---------------------------------------------------------------------------

    async def cog_load(self) -> None:
        self.bot.publishers.matches = self

    async def cog_unload(self) -> None:
        if self.bot.publishers.matches is self:
            self.bot.publishers.matches = None

    async def remind(self, reminder: Reminder) -> None:
        """Remind the player on turn in the match's channel, linking its board."""
        session = reminder.session
        board = ""
        if session.record.message_id is not None and session.record.guild_id is not None:
            board = (
                f" https://discord.com/channels/{session.record.guild_id}/{session.record.channel_id}/"
                f"{session.record.message_id}"
            )
        text = (
            f"⏰ <@{session.user_of(reminder.seat)}>, it is your turn in match #{session.id} "
            f"({session.variant.title}).{board} Play within {_duration(reminder.seconds_left)}, "
            "or the match is lost on time."
        )
        try:
            await self.bot.get_partial_messageable(session.record.channel_id).send(
                text, allowed_mentions=discord.AllowedMentions(users=True, roles=False, everyone=False)
            )
        except discord.HTTPException as exc:
            log.info("could not remind match %s: %s", session.id, exc)

    async def match_ended(self, played: Played) -> None:
        """Show a match that ended by timeout: a final board, the old one retired, the announcement."""
        session = played.session
        outcome = await self.bot.sessions.result_of(session.id)
        await self.post_board(
            session,
            board_message(
                session,
                played.steps,
                outcome=outcome,
                rating_changes=await self.bot.store.ratings.changes(session.id),
                names=await player_names(self.bot, session),
            ),
        )
        await self.retire_message(session, played.previous_message_id)
        if outcome is not None:
            await self.announce(session, outcome)

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
        if session.record.status == "finished":
            # Its Rematch button is greyed out by the scheduler when its time runs out.
            await self.bot.store.matches.set_result_message(
                session.id, sent.id, self.bot.clock.now() + REMATCH_SECONDS
            )
        return sent

    async def rematch_expired(self, record: MatchRecord) -> None:
        """Grey out the Rematch button of a finished match whose time for a rematch has run out."""
        if record.result_message_id is None:
            return
        try:
            await (
                self.bot.get_partial_messageable(record.channel_id)
                .get_partial_message(record.result_message_id)
                .edit(view=rematch_view(record.id, disabled=True))
            )
        except discord.HTTPException as exc:
            log.info("could not grey out the Rematch button of match %s: %s", record.id, exc)

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

    async def _match_here(self, interaction: discord.Interaction[Any], op: str) -> Session | None:
        """The player's one match here; with several, a private picker is sent instead (None)."""
        channel_id = interaction.channel_id
        matches = await self.bot.sessions.matches_of(interaction.user.id, channel_id)
        if not matches:
            raise UserError("You have no match in progress here. Start one with /challenge.")
        if len(matches) > 1:
            view = discord.ui.View(timeout=None)
            view.add_item(
                MatchPicker.build(op, [(m.id, self._match_label(m, interaction.user.id)) for m in matches])
            )
            what = "show the board of" if op == "board" else "resign"
            await interaction.response.send_message(
                f"You have several matches here: which one do you want to {what}?", view=view, ephemeral=True
            )
            return None
        return await self.bot.sessions.get(matches[0].id)

    def _match_label(self, record: MatchRecord, user_id: int) -> str:
        other = record.players[1] if record.players[0] == user_id else record.players[0]
        member = self.bot.get_user(other)
        name = (
            "the computer"
            if other in self.bot.sessions.computer_ids
            else (member.display_name if member else f"user {other}")
        )
        return f"#{record.id} · {record.game} vs {name}"

    async def on_pick(self, interaction: discord.Interaction[Any], op: str, match_id: int) -> None:
        """A match chosen in the picker of /board or /resign."""
        session = await self._own_live_match(interaction, match_id, "You are not playing in this match.")
        if session is None:
            return
        if op == "board":
            await self._show_board(interaction, session)
        else:
            await self._ask_resign(interaction, session)

    async def on_resign_ask(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """The Resign button on a board: a private confirmation for the player who clicked."""
        session = await self._own_live_match(
            interaction, match_id, "Only the players of this match can resign it."
        )
        if session is None:
            return
        await self._ask_resign(interaction, session)

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
        try:
            self.bot.sessions.check_readable(session)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if session.record.channel_id != interaction.channel_id:
            await reply_privately(
                interaction, f"Match #{session.id} is played in <#{session.record.channel_id}>."
            )
            return
        old = session.record.message_id
        message = board_message(
            session, headline="The board, as it stands:", names=await player_names(self.bot, session)
        )
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
            session = await self._match_here(interaction, "resign")
            if session is None:
                return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self._ask_resign(interaction, session)

    async def _ask_resign(self, interaction: discord.Interaction[Any], session: Session) -> None:
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
        try:
            check_origin(interaction, await self.bot.sessions.get(match_id))
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
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
            names=await player_names(self.bot, session),
        )
        await self.post_board(session, message)
        await self.retire_message(session, played.previous_message_id)
        if outcome is not None:
            await self.announce(session, outcome)


#: The custom ids that name a match: game controls, Your hand, Resign, Rematch.
_MATCH_ID = re.compile(r"(?:g|hand|rs|rm):(\d+)")


def check_origin(interaction: discord.Interaction[Any], session: Session) -> None:
    """Refuse a control that does not belong to the message and channel it was clicked on.

    A control of an active match acts only from that match's channel and either its live board (the
    stored board message id) or a private reply of that match (an ephemeral message whose controls all
    name this match; the same holds for a board posted but not yet recorded). A custom id of match B delivered on match A's board is refused, so it can
    neither act on B nor overwrite A's board. Finished matches are left to the session manager, which
    refuses every action on them.
    """
    record = session.record
    if record.status != "active":
        return
    message = interaction.message
    refusal = UserError(
        f"That control does not belong to this message; use the latest board of match #{record.id}. "
        "Nothing was changed."
    )
    if message is None or interaction.channel_id != record.channel_id:
        raise refusal
    if message.flags.ephemeral or record.message_id is None:
        # A private reply, or a board just posted whose id is not stored yet (a click can arrive
        # between the post and the write): it must name no other match.
        named = {
            int(m[1])
            for row in message.components
            for c in getattr(row, "children", [row])
            if (m := _MATCH_ID.match(getattr(c, "custom_id", None) or "")) is not None
        }
        if named - {record.id}:
            raise refusal
        return
    if message.id != record.message_id:
        raise refusal


def _is_private(interaction: discord.Interaction[Any]) -> bool:
    """Whether the control clicked sits on a private (ephemeral) reply rather than the public board."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


def _duration(seconds: float) -> str:
    hours = seconds / 3600
    if hours >= 1.5:
        return f"{round(hours)} hours"
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


async def setup(bot: RingsideBot) -> None:
    await bot.add_cog(Play(bot))
