"""The answers to a challenge (``ChallengeControls``, registered in ``bot.controls`` as ``CHALLENGE``;
``bot.publishers.challenges``): Accept, which starts the match, Decline and Cancel, a challenge that
ran out, and Rematch on a finished match."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.challenges import ChallengeError, NewChallenge
from bot.publishing import MatchPublisher
from bot.session import REMATCH_SECONDS, MatchCannotStart, UserError
from bot.store import ChallengeRecord
from cogs.board import in_brackets
from cogs.control_kinds import ChallengeButton
from cogs.mentions import pings
from cogs.replies import reply_privately
from engine import VARIANTS

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ThreadPlan:
    """Where a new match is played: ``channel_id`` (its parent ``parent_id`` if that is a thread), or
    a thread still to open there named ``thread_name`` (on message ``thread_on``, if any)."""

    channel_id: int
    parent_id: int | None
    thread_name: str | None = None
    thread_on: int | None = None


def challenge_view(challenge_id: int, *, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for op in ("accept", "decline", "cancel"):
        item = ChallengeButton.build(challenge_id, op)
        item.item.disabled = disabled
        view.add_item(item)
    return view


def level_words(level: str | None) -> str:
    """ " (level hard)" for a headline; nothing when the computer has no level in this game."""
    return f" (level {level})" if level else ""


if TYPE_CHECKING:
    from app.client import RingsideBot
    from cogs.challenge import Challenge


def match_publisher(bot: RingsideBot) -> MatchPublisher:
    """Who shows the matches' boards (the ``Play`` cog's, ``bot.publishers.matches``)."""
    publisher = bot.publishers.matches
    assert publisher is not None, "the Play cog shows every board"
    return publisher


class ChallengeAnswers:
    def __init__(self, challenge: Challenge) -> None:
        self.challenge = challenge

    async def on_challenge_button(
        self, interaction: discord.Interaction[Any], challenge_id: int, op: str
    ) -> None:
        challenges = self.challenge.bot.challenges
        try:
            message = interaction.message
            record = await challenges.answer(
                challenge_id, interaction.user.id, op, message.id if message is not None else None
            )
        except ChallengeError as exc:
            await reply_privately(interaction, str(exc))
            if exc.expired is not None:
                await self.challenge_expired(exc.expired)
            return
        if op == "decline":
            await interaction.response.edit_message(
                content=f"<@{record.opponent_id}> declined <@{record.challenger_id}>'s challenge.",
                view=challenge_view(record.id, disabled=True),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        if op == "cancel":
            await interaction.response.edit_message(
                content=f"<@{record.challenger_id}> withdrew the challenge.",
                view=challenge_view(record.id, disabled=True),
                allowed_mentions=discord.AllowedMentions.none(),
            )
            return
        await self.start_accepted(interaction, record)

    async def start_accepted(self, interaction: discord.Interaction[Any], record: ChallengeRecord) -> None:
        """Accept: the match is created and the challenge closed in one transaction, the answer is
        given at once, then the publisher opens the thread and shows the first board (again after a
        restart, if one came in between)."""
        variant = VARIANTS[record.game]
        # Without the members intent the challenger is not cached; the challenge message knows who ran
        # /challenge.
        metadata = interaction.message.interaction_metadata if interaction.message else None
        a = metadata.user.display_name if metadata is not None else "challenger"
        options = variant.describe_options(record.options)
        name = f"{variant.title}: {a} vs {interaction.user.display_name}{' · ' if options else ''}{options}"
        plan = await self.challenge.thread_plan(
            interaction, record.guild_id, name, interaction.message.id if interaction.message else None
        )
        players = (record.challenger_id, record.opponent_id)
        if record.rematch_of is not None:
            previous = await self.challenge.bot.sessions.history.match(record.rematch_of)
            if previous is not None:  # seats swapped: each player takes the other's seat
                players = (previous.players[1], previous.players[0])
        try:
            played = await self.challenge.bot.sessions.start_match(
                game=record.game,
                options=record.options,
                players=players,
                guild_id=record.guild_id,
                channel_id=plan.channel_id,
                parent_id=plan.parent_id,
                rated=record.rated,
                challenge_id=record.id,
                thread_name=plan.thread_name,
                thread_on=plan.thread_on,
                rematch_of=record.rematch_of,
            )
        except MatchCannotStart as exc:
            await self._unplayable(interaction, record, str(exc))
            return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if record.rematch_of is not None:
            await self.rematch_started(record.rematch_of)
        # A thread opened on the challenge message has that message's id.
        place = (
            f" in <#{plan.thread_on}>"
            if plan.thread_on
            else (" in a new thread" if plan.thread_name else " below")
        )
        accepted = (
            f"<@{record.opponent_id}> accepted <@{record.challenger_id}>'s challenge to "
            f"**{variant.title}**{in_brackets(variant.describe_options(record.options))}: the match is on"
        )
        await interaction.response.edit_message(
            content=f"{accepted}{place}.",
            view=challenge_view(record.id, disabled=True),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        shown = await match_publisher(self.challenge.bot).show(
            played.session.id,
            headline=f"<@{record.challenger_id}> vs <@{record.opponent_id}>: good luck to both!",
        )
        opened = played.session.record.channel_id
        if shown and plan.thread_name and not plan.thread_on and opened != plan.channel_id:
            with contextlib.suppress(discord.HTTPException):
                await interaction.edit_original_response(content=f"{accepted} in <#{opened}>.")

    async def _unplayable(
        self, interaction: discord.Interaction[Any], record: ChallengeRecord, reason: str
    ) -> None:
        """Accept on a challenge whose match can never start: the challenge is closed, and its message
        says why with its buttons greyed out (no live Accept is left on a challenge that cannot be
        played)."""
        if not await self.challenge.bot.challenges.close_unplayable(record.id):
            await reply_privately(interaction, "This challenge was answered a moment ago.")
            return
        await interaction.response.edit_message(
            content=f"<@{record.challenger_id}>'s challenge to <@{record.opponent_id}> is closed. {reason}",
            view=challenge_view(record.id, disabled=True),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def rematch_started(self, match_id: int) -> None:
        """Match ``match_id`` has its rematch now: its Rematch button is greyed out at once (claimed,
        so once; if this fails, the scheduler's round does it, as when the offer runs out)."""
        record = await self.challenge.bot.sessions.clocks.claim_rematch(match_id)
        if record is not None:
            await match_publisher(self.challenge.bot).rematch_expired(record)

    async def on_rematch(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """Offer the other player a new match of the same game with seats swapped (once per match)."""
        record = await self.challenge.bot.sessions.history.match(match_id)
        if record is None or interaction.user.id not in record.players:
            await reply_privately(interaction, "Only the two players of this match can ask for a rematch.")
            return
        if record.status == "active" or interaction.channel_id != record.channel_id:
            # A Rematch control is only ever shown on a finished match's final board, in its channel.
            await reply_privately(
                interaction,
                f"Match #{record.id} is not a finished match of this channel: there is nothing to "
                "rematch here. Nothing was changed.",
            )
            return
        if record.rematch_id is not None:
            await reply_privately(
                interaction,
                f"Match #{record.id} has had its rematch already (match #{record.rematch_id}); start a "
                "new match with /challenge. Nothing was changed.",
            )
            return
        if self.challenge.bot.clock.now() - record.updated_at > REMATCH_SECONDS:
            await reply_privately(
                interaction, "The rematch offer has run out; start a new match with /challenge."
            )
            return
        other = record.players[1] if interaction.user.id == record.players[0] else record.players[0]
        variant = VARIANTS[record.game]
        try:
            # The same options again, checked again: the game may have changed them since.
            options = self.challenge.bot.challenges.check_options(variant, record.options)
        except ChallengeError as exc:
            await reply_privately(interaction, f"No rematch with these options: {exc}")
            return
        described = variant.describe_options(options)
        if self.challenge.bot.challenges.is_computer(other):
            await self.challenge.start_against_computer(
                interaction,
                game=record.game,
                options=options,
                players=(record.players[1], record.players[0]),
                computer_level=record.computer_level,
                headline=f"Rematch: {variant.title}{in_brackets(described)} again"
                f"{level_words(record.computer_level)}!",
                rematch_of=record.id,
            )
            return
        try:
            await self.challenge.bot.challenges.check_no_pending(interaction.user.id, other, f"<@{other}>")
        except ChallengeError as exc:
            await reply_privately(interaction, str(exc))
            return
        new = await self.challenge.bot.challenges.create(
            guild_id=record.guild_id,
            channel_id=interaction.channel_id or record.channel_id,
            challenger_id=interaction.user.id,
            opponent_id=other,
            game=record.game,
            options=options,
            rated=record.rated,
            rematch_of=record.id,
        )
        if not await self.created(interaction, new):
            return
        challenge = new.record
        minutes = round((challenge.expires_at - challenge.created_at) / 60)
        # Seats swap in the rematch: the other player takes the seat the asker had.
        their_seat = variant.seat_names[record.players.index(interaction.user.id)]
        details = in_brackets(described, f"seats swapped: you play {their_seat}")
        response = await interaction.response.send_message(
            f"<@{other}>, {interaction.user.mention} wants a rematch of **{variant.title}**{details}. "
            f"Accept within {minutes} minutes.",
            view=challenge_view(challenge.id),
            allowed_mentions=pings(other),
        )
        if response.message_id is not None:
            await self.challenge.bot.challenges.set_message(challenge.id, response.message_id)

    async def created(self, interaction: discord.Interaction[Any], new: NewChallenge) -> bool:
        """Whether a new challenge was made; if the pair already had one pending for this game here
        (crossed challenges, two Rematch clicks), say so privately, pointing to it."""
        for expired in new.expired:
            await self.challenge_expired(expired)
        if new.created:
            return True
        record = new.record
        link = ""
        if record.message_id is not None and record.guild_id is not None:
            link = (
                f" (https://discord.com/channels/{record.guild_id}/{record.channel_id}/{record.message_id})"
            )
        title = VARIANTS[record.game].title if record.game in VARIANTS else record.game
        if record.challenger_id == interaction.user.id:
            text = (
                f"You already have a challenge waiting for <@{record.opponent_id}> here{link}: "
                "wait for an answer or cancel it."
            )
        elif record.rematch_of is not None:
            text = (
                f"<@{record.challenger_id}> already asked for a rematch of **{title}**{link}: press "
                "Accept on it to play (one match, not two)."
            )
        else:
            text = (
                f"<@{record.challenger_id}> already challenged you to **{title}** here{link}: press Accept "
                "on that challenge to play (one match, not two)."
            )
        await reply_privately(interaction, text)
        return False

    async def challenge_expired(self, record: ChallengeRecord) -> None:
        """Say on the challenge message that it expired, with its buttons disabled."""
        if record.message_id is None:
            return
        try:
            await (
                self.challenge.bot.get_partial_messageable(record.channel_id)
                .get_partial_message(record.message_id)
                .edit(
                    content=f"<@{record.challenger_id}>'s challenge to <@{record.opponent_id}> expired unanswered.",
                    view=challenge_view(record.id, disabled=True),
                    allowed_mentions=discord.AllowedMentions.none(),
                )
            )
        except discord.HTTPException as exc:
            log.info("could not mark challenge %s expired: %s", record.id, exc)
