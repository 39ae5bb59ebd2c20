"""``/challenge``: invite someone (or the bot) to a game; Accept, Decline, Cancel; expiry."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.challenges import ChallengeError
from bot.store import ChallengeRecord
from cogs.board import board_message
from cogs.components import ChallengeButton
from cogs.replies import reply_privately
from engine import VARIANTS

if TYPE_CHECKING:
    from bot.client import RingsideBot

log = logging.getLogger(__name__)

REMATCH_SECONDS = 600.0
FIRST_GAME = next(iter(VARIANTS))
"""The game of a /challenge that names none: the first registered one."""


def challenge_view(challenge_id: int, *, disabled: bool = False) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for op in ("accept", "decline", "cancel"):
        item = ChallengeButton(challenge_id, op)
        item.item.disabled = disabled
        view.add_item(item)
    return view


class Challenge(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    @app_commands.command(name="challenge", description="Challenge someone (or me) to a game.")
    @app_commands.describe(
        opponent="Who you want to play (pick me to play the computer)",
        game=f"The game: {', '.join(VARIANTS)} (default: {FIRST_GAME})",
        rated="Whether the result counts for the leaderboard (default: yes)",
    )
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User,
        game: str = FIRST_GAME,
        rated: bool = True,
    ) -> None:
        challenges = self.bot.challenges
        try:
            variant = await challenges.check_new(
                guild_id=interaction.guild_id,
                challenger_id=interaction.user.id,
                opponent_id=opponent.id,
                opponent_is_bot=opponent.bot,
                game=game,
            )
            await challenges.check_no_pending(interaction.user.id, opponent.id, opponent.mention)
        except ChallengeError as exc:
            await reply_privately(interaction, str(exc))
            return
        if interaction.channel_id is None:
            await reply_privately(interaction, "Challenges work in server channels and threads.")
            return
        if challenges.is_computer(opponent.id):
            await self.start_against_computer(
                interaction,
                game=variant.key,
                options={},
                players=(interaction.user.id, opponent.id),
                parent_id=None,
                headline=f"{variant.title} against the computer: good luck!",
            )
            return
        record = await challenges.create(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            challenger_id=interaction.user.id,
            opponent_id=opponent.id,
            game=variant.key,
            options={},
            rated=rated,
        )
        minutes = round((record.expires_at - record.created_at) / 60)
        unrated = " (unrated)" if not rated else ""
        response = await interaction.response.send_message(
            f"{opponent.mention}, {interaction.user.mention} challenges you to **{variant.title}**{unrated}! "
            f"Accept within {minutes} minutes.",
            view=challenge_view(record.id),
            allowed_mentions=discord.AllowedMentions(users=[opponent], roles=False, everyone=False),
        )
        if response.message_id is not None:
            await challenges.set_message(record.id, response.message_id)

    async def start_against_computer(
        self,
        interaction: discord.Interaction[Any],
        *,
        game: str,
        options: dict[str, Any],
        players: tuple[int, int],
        parent_id: int | None,
        headline: str,
    ) -> None:
        """Start an unrated match with the computer at once and post its board as the reply."""
        assert interaction.channel_id is not None
        await interaction.response.defer(thinking=True)
        played = await self.bot.sessions.start_match(
            game=game,
            options=options,
            players=players,
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            parent_id=parent_id,
            rated=False,
        )
        message = board_message(played.session, played.steps, headline=headline)
        sent = await interaction.followup.send(
            content=message.content,
            embed=message.embed,
            file=message.file,
            view=message.view or discord.utils.MISSING,
            allowed_mentions=message.mentions,
            wait=True,
        )
        await self.bot.sessions.set_message(played.session.id, sent.id)

    @challenge.autocomplete("game")
    async def game_names(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=f"{v.title} ({key})", value=key)
            for key, v in sorted(VARIANTS.items())
            if current.lower() in key or current.lower() in v.title.lower()
        ][:25]

    async def on_challenge_button(
        self, interaction: discord.Interaction[Any], challenge_id: int, op: str
    ) -> None:
        challenges = self.bot.challenges
        try:
            record = await challenges.answer(challenge_id, interaction.user.id, op)
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
        variant = VARIANTS[record.game]
        channel = interaction.channel
        where: discord.abc.Messageable | None = (
            channel if isinstance(channel, discord.abc.Messageable) else None
        )
        thread: discord.Thread | None = None
        permissions = interaction.app_permissions
        settings = await self.bot.settings.get(record.guild_id)
        if (
            settings.use_threads
            and isinstance(channel, discord.TextChannel)
            and interaction.message is not None
            and permissions.create_public_threads
            and permissions.send_messages_in_threads
        ):
            # Without the members intent the challenger is not cached; the challenge message knows
            # who ran /challenge.
            metadata = interaction.message.interaction_metadata
            a = metadata.user.display_name if metadata is not None else "challenger"
            name = f"{variant.title}: {a} vs {interaction.user.display_name}"[:100]
            try:
                thread = await interaction.message.create_thread(name=name, auto_archive_duration=10080)
                where = thread
            except discord.HTTPException as exc:
                log.info("could not open a thread for challenge %s: %s", record.id, exc)
        players = (record.challenger_id, record.opponent_id)
        if record.rematch_of is not None:
            previous = await self.bot.store.matches.get(record.rematch_of)
            if previous is not None:  # seats swapped: each player takes the other's seat
                players = (previous.players[1], previous.players[0])
        played = await self.bot.sessions.start_match(
            game=record.game,
            options=record.options,
            players=players,
            guild_id=record.guild_id,
            channel_id=thread.id if thread else record.channel_id,
            parent_id=record.channel_id if thread else None,
            rated=record.rated,
            challenge_id=record.id,
        )
        place = f" in {thread.mention}" if thread else " below"
        await interaction.response.edit_message(
            content=f"<@{record.opponent_id}> accepted <@{record.challenger_id}>'s challenge to "
            f"**{variant.title}**: the match is on{place}.",
            view=challenge_view(record.id, disabled=True),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        message = board_message(
            played.session,
            played.steps,
            headline=f"<@{record.challenger_id}> vs <@{record.opponent_id}>: good luck to both!",
        )
        target = where or self.bot.get_partial_messageable(record.channel_id)
        sent = await target.send(
            content=f"<@{record.challenger_id}> <@{record.opponent_id}> — {message.content}",
            embed=message.embed,
            file=message.file,
            view=message.view or discord.utils.MISSING,
            allowed_mentions=message.mentions,
        )
        await self.bot.sessions.set_message(played.session.id, sent.id)

    async def on_rematch(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """Offer the other player a new match of the same game with seats swapped."""
        record = await self.bot.store.matches.get(match_id)
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
        if self.bot.clock.now() - record.updated_at > REMATCH_SECONDS:
            await reply_privately(
                interaction, "The rematch offer has run out; start a new match with /challenge."
            )
            return
        other = record.players[1] if interaction.user.id == record.players[0] else record.players[0]
        variant = VARIANTS[record.game]
        if self.bot.challenges.is_computer(other):
            await self.start_against_computer(
                interaction,
                game=record.game,
                options=record.options,
                players=(record.players[1], record.players[0]),
                parent_id=record.parent_id,
                headline=f"Rematch: {variant.title} again!",
            )
            return
        try:
            await self.bot.challenges.check_no_pending(interaction.user.id, other, f"<@{other}>")
        except ChallengeError as exc:
            await reply_privately(interaction, str(exc))
            return
        challenge = await self.bot.challenges.create(
            guild_id=record.guild_id,
            channel_id=interaction.channel_id or record.channel_id,
            challenger_id=interaction.user.id,
            opponent_id=other,
            game=record.game,
            options=record.options,
            rated=record.rated,
            rematch_of=record.id,
        )
        minutes = round((challenge.expires_at - challenge.created_at) / 60)
        # Seats swap in the rematch: the other player takes the seat the asker had.
        their_seat = variant.seat_names[record.players.index(interaction.user.id)]
        response = await interaction.response.send_message(
            f"<@{other}>, {interaction.user.mention} wants a rematch of **{variant.title}** "
            f"(seats swapped: you play {their_seat}). Accept within {minutes} minutes.",
            view=challenge_view(challenge.id),
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(other)], roles=False, everyone=False
            ),
        )
        if response.message_id is not None:
            await self.bot.challenges.set_message(challenge.id, response.message_id)

    async def cog_load(self) -> None:
        self.bot.publishers.challenges = self

    async def cog_unload(self) -> None:
        if self.bot.publishers.challenges is self:
            self.bot.publishers.challenges = None

    async def challenge_expired(self, record: ChallengeRecord) -> None:
        """Say on the challenge message that it expired, with its buttons disabled."""
        if record.message_id is None:
            return
        try:
            await (
                self.bot.get_partial_messageable(record.channel_id)
                .get_partial_message(record.message_id)
                .edit(
                    content=f"<@{record.challenger_id}>'s challenge to <@{record.opponent_id}> expired unanswered.",
                    view=challenge_view(record.id, disabled=True),
                    allowed_mentions=discord.AllowedMentions.none(),
                )
            )
        except discord.HTTPException as exc:
            log.info("could not mark challenge %s expired: %s", record.id, exc)


async def setup(bot: RingsideBot) -> None:
    await bot.add_cog(Challenge(bot))
