"""The answers to a match's persistent controls (``GameControls``, registered in ``bot.controls`` as
``GAME``): game buttons and selects, My hand, the standing answers to response windows, Resign and its
confirmation, the match picker. Each checks through the services, acknowledges a change at once and
shows its result (a private panel for a turn in progress, the public board otherwise)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.session import (
    Played,
    Session,
    StaleControl,
    UserError,
    check_readable,
    check_turn,
    turn_in_progress,
)
from bot.store import StoreError
from cogs.board import (
    build_view,
    drafting,
    panel_for,
    private_reply,
)
from cogs.origin import board_link, check_origin, is_private
from cogs.panels.base import CONFIRM, UNDO, notations
from cogs.replies import reply_privately
from cogs.stale_clicks import StaleClicks
from cogs.turn_panels import TurnPanels

log = logging.getLogger(__name__)

SAVED_SHOWN_LATER = (
    "That is saved, but the board could not be brought up to date just now (the bot's database went "
    "away for a moment); it will be shortly, by itself. Nothing to do again."
)

if TYPE_CHECKING:
    from cogs.play import Play


class MatchControls:
    def __init__(self, play: Play) -> None:
        self.play = play
        #: the answers to controls of an earlier position
        self.stale = StaleClicks(self)
        #: a turn in progress's private panel, and what a click's saved change shows
        self.turns = TurnPanels(play)

    async def _session_for(
        self, interaction: discord.Interaction[Any], match_id: int, version: int | None = None
    ) -> Session:
        """The match of a control clicked on ``interaction``'s message (``version``: the one the control
        carries), checked to be clicked where it belongs (``check_origin``). A click on a board posted a
        moment ago, whose id is not noted yet, waits for that show to end and is checked again; a click
        on a board another process posted (this one's copy is older) is checked against the saved
        match: neither is refused for it."""
        sessions = self.play.bot.sessions
        session = await sessions.current(match_id, version)
        try:
            check_origin(interaction, session)
        except UserError:
            if not await self.play.publisher.settled(match_id):
                session = await sessions.current(match_id, None, reread=True)
                check_origin(interaction, session)
                return session
            session = await sessions.get(match_id)
            check_origin(interaction, session)
        return session

    async def on_control(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, value: str
    ) -> None:
        """A game control. The cheap checks answer at once; a change is acknowledged first (the click
        is deferred) and then saved, drawn and shown, so Discord's 3 seconds never run out.

        A public board's controls carry the committed version, nothing of a turn in progress: a click
        on them during one sends its player the private panel and adds nothing to the draft."""
        sessions = self.play.bot.sessions
        public = not is_private(interaction)
        try:
            session = await self._session_for(interaction, match_id, version)
            seat = check_turn(session, interaction.user.id, version, committed=public)
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
            if public and panel_for(session, value[2:]).private:
                # A choice only its player sees until it is made (which resignation to offer).
                reply = private_reply(session, seat, selection=value[2:])
                await interaction.response.send_message(
                    reply.content, view=reply.view or discord.utils.MISSING, ephemeral=True
                )
            elif public:
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
                played = await sessions.drafts.undo(match_id, interaction.user.id, version)
            elif value == CONFIRM:
                played = await sessions.drafts.confirm(match_id, interaction.user.id, version)
            elif value.startswith("a:"):
                played = await sessions.act(match_id, interaction.user.id, version, *notations(value))
            else:
                raise UserError("That control is not understood by this version of the bot.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.publish_saved(interaction, played)

    async def on_stale(self, interaction: discord.Interaction[Any], match_id: int, refusal: str) -> None:
        """A control from an earlier position (``cogs.stale_clicks``)."""
        await self.stale.answer(interaction, match_id, refusal)

    async def on_hand(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """ "My hand": a fresh private reply each time, so it works after restarts and after Discord's
        15 minutes for private messages."""
        try:
            session = await self._session_for(interaction, match_id)
            check_readable(session)
            seat = session.seat_of(interaction.user.id)
            if seat is None:
                raise UserError("You are not playing in this match: its hands are secret.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        reply = private_reply(session, seat)
        sent = await interaction.response.send_message(
            reply.content, view=reply.view or discord.utils.MISSING, ephemeral=True
        )
        self.play.publisher.panels.keep(session, interaction, sent.message_id if sent else None)

    async def on_standing_answer(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, op: str
    ) -> None:
        """A player's standing answer to response windows, from their private reply: "Always pass in
        this match" passes the window open now (answered like a click on the panel's pass) and every
        later one as it opens; "Ask me in windows" goes back to being asked. Refused privately, with
        nothing changed, for anyone not playing, a stale control or a match that is over."""
        sessions = self.play.bot.sessions
        user_id = interaction.user.id
        try:
            session = await self._session_for(interaction, match_id, version)
            if session.seat_of(user_id) is None:
                raise UserError("You are not playing in this match; nothing was changed.")
            if op == "pass":
                check_turn(session, user_id, version)
        except StaleControl as exc:
            await self.on_stale(interaction, match_id, str(exc))
            return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if op == "ask":
            try:
                session = await sessions.clocks.ask_in_windows(match_id, user_id)
            except UserError as exc:
                await reply_privately(interaction, str(exc))
                return
            seat = session.seat_of(user_id)
            assert seat is not None
            reply = private_reply(session, seat)
            text = f"From now on you are asked in every response window of this match.\n{reply.content}"
            if is_private(interaction):
                await interaction.response.edit_message(content=text[:2000], view=reply.view)
            else:
                await interaction.response.send_message(
                    text[:2000], view=reply.view or discord.utils.MISSING, ephemeral=True
                )
            return
        await interaction.response.defer()
        try:
            played = await sessions.clocks.always_pass(match_id, user_id, version)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self.publish_saved(interaction, played)

    async def publish_saved(self, interaction: discord.Interaction[Any], played: Played) -> None:
        """Show a change that is saved already (``TurnPanels.show_result``): if the database goes away while it is being shown,
        the player is told it was saved (not "nothing was changed"), and the scheduler shows it."""
        try:
            await self.turns.show_result(interaction, played)
        except StoreError:
            log.info("match %s: saved, shown later (the database went away meanwhile)", played.session.id)
            await reply_privately(interaction, SAVED_SHOWN_LATER)

    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str = ""
    ) -> None:
        """A match chosen in the picker of /board, /resign, /position or /move (``arg``: its notation)."""
        if op == "move":
            await self.play.requests.play_typed(interaction, match_id, arg)
            return
        if op == "position":
            try:
                picked = await self.play.bot.sessions.get(match_id)
            except UserError as exc:
                await reply_privately(interaction, str(exc))
                return
            await self.play.requests.show_position(interaction, picked)
            return
        session = await self._own_live_match(interaction, match_id, "You are not playing in this match.")
        if session is None:
            return
        if op == "board":
            await self.play.requests.show_board(interaction, session)
        else:
            await self.play.requests.ask_resign(interaction, session)

    async def _own_live_match(
        self, interaction: discord.Interaction[Any], match_id: int, stranger: str
    ) -> Session | None:
        """The clicker's live match ``match_id``; otherwise a private answer (``stranger`` for someone
        not playing in it) and None."""
        try:
            session = await self.play.bot.sessions.get(match_id)
            if session.seat_of(interaction.user.id) is None:
                raise UserError(stranger)
            if session.record.status != "active":
                raise UserError(f"Match #{match_id} is already over.")
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return None
        return session

    async def on_resign_ask(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """The Resign button on a board: a private confirmation for the player who clicked."""
        if not await self._belongs(interaction, match_id):
            return
        only = "Only the players of this match can resign it."
        if (session := await self._own_live_match(interaction, match_id, only)) is not None:
            await self.play.requests.ask_resign(interaction, session)

    async def _belongs(self, interaction: discord.Interaction[Any], match_id: int) -> bool:
        """Whether the control of match ``match_id`` was clicked where it belongs (``check_origin``);
        if not, the clicker is told privately."""
        try:
            await self._session_for(interaction, match_id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return False
        return True

    async def on_stop_after_game(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """**Stop after this game** (a money session): either player ends it with the game in progress."""
        if not await self._belongs(interaction, match_id):
            return
        try:
            await self.play.bot.sessions.ends.stop_after_game(match_id, interaction.user.id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await reply_privately(interaction, "The session ends when this game ends.")
        await self.play.publisher.show(match_id)

    async def on_question_answered(
        self, interaction: discord.Interaction[Any], match_id: int, op: str
    ) -> None:
        """Resign or Keep playing clicked on a copy of the private question that was answered since (its
        message no longer carries them): nothing is done, and the player is pointed to the board."""
        try:
            session = await self.play.bot.sessions.get(match_id)
        except UserError:
            board = ""
        else:
            link = board_link(session.record)
            if session.record.status != "active":
                board = f" Match #{match_id} is over{link}."
            else:
                board = f" Resign on the board to be asked again{link}." if link else ""
        await reply_privately(
            interaction,
            "That question was answered already (its message says how). Nothing was changed." + board,
        )

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
            played = await self.play.bot.sessions.ends.resign(match_id, interaction.user.id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        done = "abandoned" if played.session.record.status == "abandoned" else "resigned"
        await interaction.response.edit_message(
            content=f"You {done} match #{match_id}." if done == "abandoned" else "You resigned.", view=None
        )
        await self.play.publisher.show(match_id)
