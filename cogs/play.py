"""Playing: the game controls, ``/board``, ``/resign``, ``/move`` and ``/position``. Thin: the session
manager decides."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.sessions import Played, Reminder, Session, StaleControl, Step, UserError, turn_in_progress
from bot.store import MatchRecord
from cogs.board import (
    PrivateMessage,
    build_view,
    drafting,
    match_label,
    panel_for,
    player_names,
    private_reply,
    rematch_view,
    turn_picture,
)
from cogs.components import PICK_ARG_LIMIT, MatchPicker, ResignButton
from cogs.panels.base import CONFIRM, UNDO
from cogs.publisher import REPOST_HEADLINE, BoardPublisher
from cogs.replies import reply_privately
from engine import NotationError

if TYPE_CHECKING:
    from bot.client import RingsideBot

log = logging.getLogger(__name__)

MOVE_LIMIT = 200
"""The longest text /move takes (Discord's client enforces it too)."""


class Play(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self.publisher = BoardPublisher(bot)

    async def _session_for(self, interaction: discord.Interaction[Any], match_id: int) -> Session:
        """The match of a control clicked on ``interaction``'s message, checked to be clicked where it
        belongs (``check_origin``). A click on a board posted a moment ago, whose id is not noted yet,
        waits for that show to end and is checked again, rather than refused."""
        session = await self.bot.sessions.get(match_id)
        try:
            check_origin(interaction, session)
        except UserError:
            if not await self.publisher.settled(match_id):
                raise
            session = await self.bot.sessions.get(match_id)
            check_origin(interaction, session)
        return session

    # -- game controls ---------------------------------------------------------------------------

    async def on_control(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, value: str
    ) -> None:
        """A game control. The cheap checks answer at once; a change is acknowledged first (the click
        is deferred) and then saved, drawn and shown, so Discord's 3 seconds never run out.

        A public board's controls carry the committed version, nothing of a turn in progress: a click
        on them during one sends its player the private panel and adds nothing to the draft."""
        sessions = self.bot.sessions
        public = not _is_private(interaction)
        try:
            session = await self._session_for(interaction, match_id)
            seat = sessions.check_turn(session, interaction.user.id, version, committed=public)
        except StaleControl as exc:
            await self.on_stale(interaction, match_id, str(exc))
            return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if public and turn_in_progress(session, seat):
            await self.on_stale(interaction, match_id, "")
            return
        if value.startswith("n:"):
            # Only the controls change: no new picture is drawn.
            if public:
                await interaction.response.edit_message(
                    view=build_view(session, panel_for(session, value[2:]), public=True)
                )
            else:
                reply = private_reply(session, seat, selection=value[2:], turn=drafting(session, seat))
                await interaction.response.edit_message(content=reply.content, view=reply.view)
            return
        await interaction.response.defer()
        try:
            if value == "roll":
                played = await sessions.roll(match_id, interaction.user.id, version)
            elif value == UNDO:
                played = await sessions.undo(match_id, interaction.user.id, version)
            elif value == CONFIRM:
                played = await sessions.confirm(match_id, interaction.user.id, version)
            elif value.startswith("a:"):
                played = await sessions.act(match_id, interaction.user.id, version, value[2:])
            else:
                raise UserError("That control is not understood by this version of the bot.")
        except UserError as exc:
            await interaction.followup.send(str(exc), ephemeral=True)
            return
        await self.publish(interaction, played)

    async def on_stale(self, interaction: discord.Interaction[Any], match_id: int, refusal: str) -> None:
        """A control from an earlier position: the player whose turn is in progress gets its private
        panel; a board that is behind what is saved is shown now; anyone else is pointed to the board."""
        sessions = self.bot.sessions
        session = await sessions.get(match_id)
        seat = session.seat_of(interaction.user.id)
        if seat is not None and turn_in_progress(session, seat):
            await interaction.response.defer(ephemeral=True, thinking=True)
            reply = await self.turn_reply(session, seat)
            await interaction.followup.send(
                "You have a turn in progress: carry on here.\n" + reply.content,
                embed=reply.embed or discord.utils.MISSING,
                file=reply.file or discord.utils.MISSING,
                view=reply.view or discord.utils.MISSING,
                ephemeral=True,
            )
            return
        if session.record.behind:
            await interaction.response.defer(ephemeral=True, thinking=True)
            shown = await self.publisher.show(match_id)
            text = (
                f"That board was behind: match #{match_id} is up to date now{self._link(session)}."
                if shown
                else f"Match #{match_id}'s board cannot be posted right now; it is tried again shortly."
            )
            await interaction.followup.send(text, ephemeral=True)
            return
        await reply_privately(interaction, refusal.rstrip(".") + f"{self._link(session)}.")

    def _link(self, session: Session) -> str:
        record = session.record
        if record.message_id is None or record.guild_id is None:
            return ""
        return f": https://discord.com/channels/{record.guild_id}/{record.channel_id}/{record.message_id}"

    async def turn_reply(
        self, session: Session, seat: int, steps: Sequence[Step] = (), selection: str = ""
    ) -> PrivateMessage:
        """The private panel of ``seat``'s turn in progress, with the picture of its position."""
        names = await player_names(self.bot, session)
        picture = await self.publisher.picture(*turn_picture(session, seat, names))
        return private_reply(session, seat, steps, selection, picture, turn=True)

    async def on_hand(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """ "My hand": a fresh private reply each time, so it works after restarts and after Discord's
        15 minutes for private messages."""
        try:
            session = await self._session_for(interaction, match_id)
            self.bot.sessions.check_readable(session)
            seat = session.seat_of(interaction.user.id)
            if seat is None:
                raise UserError("You are not playing in this match: its hands are secret.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        reply = private_reply(session, seat)
        await interaction.response.send_message(
            reply.content, view=reply.view or discord.utils.MISSING, ephemeral=True
        )

    async def on_standing_answer(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, op: str
    ) -> None:
        """A player's standing answer to response windows, from their private reply: "Always pass in
        this match" passes the window open now (answered like a click on the panel's pass) and every
        later one as it opens; "Ask me in windows" goes back to being asked. Refused privately, with
        nothing changed, for anyone not playing, a stale control or a match that is over."""
        sessions = self.bot.sessions
        user_id = interaction.user.id
        try:
            session = await self._session_for(interaction, match_id)
            if session.seat_of(user_id) is None:
                raise UserError("You are not playing in this match; nothing was changed.")
            if op == "pass":
                sessions.check_turn(session, user_id, version)
        except StaleControl as exc:
            await self.on_stale(interaction, match_id, str(exc))
            return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if op == "ask":
            try:
                session = await sessions.ask_in_windows(match_id, user_id)
            except UserError as exc:
                await reply_privately(interaction, str(exc))
                return
            seat = session.seat_of(user_id)
            assert seat is not None
            reply = private_reply(session, seat)
            text = f"From now on you are asked in every response window of this match.\n{reply.content}"
            if _is_private(interaction):
                await interaction.response.edit_message(content=text[:2000], view=reply.view)
            else:
                await interaction.response.send_message(
                    text[:2000], view=reply.view or discord.utils.MISSING, ephemeral=True
                )
            return
        await interaction.response.defer()
        try:
            played = await sessions.always_pass(match_id, user_id, version)
        except UserError as exc:
            await interaction.followup.send(str(exc), ephemeral=True)
            return
        await self.publish(interaction, played)

    async def publish(self, interaction: discord.Interaction[Any], played: Played) -> None:
        """Show the result of a deferred click. A step of a turn in progress goes to its player's
        private panel (the opponent sees the turn when it is complete); anything else is shown on
        the public board by the publisher (edited in place while the same player decides, a new
        message mentioning the next player otherwise)."""
        session = played.session
        seat = session.seat_of(interaction.user.id)
        assert seat is not None
        if played.draft:
            reply = await self.turn_reply(session, seat)
            kwargs: dict[str, Any] = dict(
                content=reply.content,
                embed=reply.embed,
                attachments=[reply.file] if reply.file else [],
                view=reply.view,
            )
            if _is_private(interaction):
                await interaction.edit_original_response(**kwargs)
            else:
                await interaction.followup.send(
                    reply.content,
                    embed=reply.embed or discord.utils.MISSING,
                    file=reply.file or discord.utils.MISSING,
                    view=reply.view or discord.utils.MISSING,
                    ephemeral=True,
                )
            return
        if _is_private(interaction):
            reply = private_reply(session, seat, played.steps)
            await interaction.edit_original_response(
                content=reply.content, embed=None, attachments=[], view=reply.view
            )
            await self.publisher.show(session.id)
            return
        await self.publisher.show(session.id, interaction=interaction)

    # -- the turn clock ---------------------------------------------------------------------------

    async def cog_load(self) -> None:
        self.bot.publishers.matches = self
        self.bot.controls.game = self

    async def cog_unload(self) -> None:
        if self.bot.publishers.matches is self:
            self.bot.publishers.matches = None
        if self.bot.controls.game is self:
            self.bot.controls.game = None
        await self.publisher.close()

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
        """Show a match that ended by timeout: its final board, the old one retired, the announcement."""
        await self.publisher.show(played.session.id)

    async def show(self, match_id: int, *, headline: str | None = None) -> bool:
        """Bring the match's public board up to date with what is saved."""
        return await self.publisher.show(match_id, headline=headline)

    async def show_behind(self, *, everything: bool = False) -> int:
        """Show every board that is behind what is saved and due (start-up, each round of the
        scheduler; ``everything``, due or not: when stopping)."""
        return await self.publisher.show_behind(everything=everything)

    async def rematch_expired(self, record: MatchRecord) -> None:
        """Grey out the Rematch button of a finished match whose time for a rematch has run out."""
        if record.result_message_id is None:
            return
        try:
            await (
                self.bot.get_partial_messageable(record.channel_id)
                .get_partial_message(record.result_message_id)
                .edit(view=rematch_view(record.id, record.game, disabled=True))
            )
        except discord.HTTPException as exc:
            log.info("could not grey out the Rematch button of match %s: %s", record.id, exc)

    # -- commands ------------------------------------------------------------------------------------

    async def _match_here(
        self, interaction: discord.Interaction[Any], op: str, arg: str = ""
    ) -> Session | None:
        """The player's one match here; with several, a private picker is sent instead (None)."""
        channel_id = interaction.channel_id
        matches = await self.bot.sessions.matches_of(interaction.user.id, channel_id)
        if not matches:
            raise UserError("You have no match in progress here. Start one with /challenge.")
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

    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str = ""
    ) -> None:
        """A match chosen in the picker of /board, /resign, /position or /move (``arg``: its notation)."""
        if op == "move":
            await self._play_typed(interaction, match_id, arg)
            return
        if op == "position":
            try:
                picked = await self.bot.sessions.get(match_id)
            except UserError as exc:
                await reply_privately(interaction, str(exc))
                return
            await self._show_position(interaction, picked)
            return
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
        """Post the match's board again at the bottom of its channel: through the publisher, like
        every board (one live board, the one the store knows); the asker is told privately."""
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
        await interaction.response.defer(ephemeral=True, thinking=True)
        shown = await self.publisher.show(session.id, repost=True, headline=REPOST_HEADLINE)
        text = (
            f"Match #{session.id}'s board is posted again below{self._link(session)}."
            if shown
            else f"Match #{session.id}'s board cannot be posted right now; it is tried again shortly."
        )
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
            seat = sessions.check_turn(session, interaction.user.id, None)
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
            await interaction.followup.send(self._move_refusal(session, exc)[:2000], ephemeral=True)
            return
        if played.draft:
            reply = await self.turn_reply(played.session, seat)
            await interaction.followup.send(
                reply.content,
                embed=reply.embed or discord.utils.MISSING,
                file=reply.file or discord.utils.MISSING,
                view=reply.view or discord.utils.MISSING,
                ephemeral=True,
            )
            return
        shown = await self.publisher.show(played.session.id)
        board = (
            f"the board is updated{self._link(played.session)}"
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
            matches = await self.bot.sessions.matches_of(interaction.user.id, channel_id)
            if not matches and channel_id is not None:
                matches = await self.bot.store.matches.active(channel_id=channel_id)
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
            state = self.bot.sessions.check_readable(session)
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
            turn = f"turn {state.turn_number}" if state.turn_number else "before the first turn"
            lines = [f"**{title} · match #{session.id}**, {turn} (the position on the board)"]
            for label, code in codes:
                lines += [f"{label}:", f"```\n{code}\n```"]
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

    async def on_resign_button(self, interaction: discord.Interaction[Any], match_id: int, op: str) -> None:
        try:
            await self._session_for(interaction, match_id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        message = interaction.message
        if message is None or not message.flags.ephemeral:
            # Resign / Keep playing answer the private confirmation they were sent in; sent from a
            # public message (a modified client can), they would overwrite that message.
            await reply_privately(
                interaction,
                "Resign on the board first: it asks you privately to confirm. Nothing was changed.",
            )
            return
        if op == "no":
            await interaction.response.edit_message(content="Good luck: the match goes on.", view=None)
            return
        try:
            played = await self.bot.sessions.resign(match_id, interaction.user.id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        done = "abandoned" if played.session.record.status == "abandoned" else "resigned"
        await interaction.response.edit_message(
            content=f"You {done} match #{match_id}." if done == "abandoned" else "You resigned.", view=None
        )
        await self.publisher.show(match_id)


#: The custom ids that name a match: game controls, My hand, Resign, Rematch, standing answers.
_MATCH_ID = re.compile(r"(?:g|hand|rs|rm|sa):(\d+)")


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
