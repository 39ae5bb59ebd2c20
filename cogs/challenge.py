"""``/challenge``: invite someone (or the bot) to a game; Accept, Decline, Cancel; expiry."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.challenges import ChallengeError, NewChallenge
from bot.publishing import MatchPublisher
from bot.sessions import REMATCH_SECONDS, UserError
from bot.store import ChallengeRecord
from cogs.board import in_brackets
from cogs.components import ChallengeButton
from cogs.replies import reply_privately
from engine import VARIANTS, GameError, find_variant
from engine.ai.levels import LEVELS
from engine.protocol import OptionSpec

if TYPE_CHECKING:
    from bot.client import RingsideBot

log = logging.getLogger(__name__)

FIRST_GAME = next(iter(VARIANTS))
"""The game of a /challenge that names none: the first registered one."""
THREAD_NAME_LIMIT = 100
LENGTH_SUGGESTIONS = 13  # how many match lengths the autocomplete offers at most


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


class Challenge(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        # One computer match start at a time per player, so two quick commands cannot both pass the
        # "already playing me here" check.
        self._computer_locks: defaultdict[int, asyncio.Lock] = defaultdict(asyncio.Lock)

    @app_commands.command(name="challenge", description="Challenge someone (or me) to a game.")
    @app_commands.describe(
        opponent="Who you want to play (pick me to play the computer)",
        game=f"The game: {', '.join(VARIANTS)} (default: {FIRST_GAME})",
        rated="Whether the result counts for the leaderboard (default: yes)",
        length="Match length in points, for games played as matches (backgammon: 1 to 25, default 1)",
        rules="Rule set, for games that have several (pick one from the list)",
        level="How well the computer plays, when you challenge me (default: medium)",
    )
    @app_commands.choices(level=[app_commands.Choice(name=level, value=level) for level in LEVELS])
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User,
        game: str = FIRST_GAME,
        rated: bool = True,
        length: int | None = None,
        rules: str | None = None,
        level: str | None = None,
    ) -> None:
        challenges = self.bot.challenges
        given = {name: value for name, value in (("length", length), ("rules", rules)) if value is not None}
        try:
            variant = await challenges.check_new(
                guild_id=interaction.guild_id,
                challenger_id=interaction.user.id,
                opponent_id=opponent.id,
                opponent_is_bot=opponent.bot,
                game=game,
            )
            options = challenges.check_options(variant, given)
            computer_level = challenges.check_level(variant, opponent.id, level)
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
                options=options,
                players=(interaction.user.id, opponent.id),
                computer_level=computer_level,
                headline=f"{variant.title}{in_brackets(variant.describe_options(options))} against the "
                f"computer{level_words(computer_level)}: good luck!",
            )
            return
        new = await challenges.create(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            challenger_id=interaction.user.id,
            opponent_id=opponent.id,
            game=variant.key,
            options=options,
            rated=rated,
        )
        if not await self._created(interaction, new):
            return
        record = new.record
        minutes = round((record.expires_at - record.created_at) / 60)
        details = in_brackets(variant.describe_options(options), "" if rated else "unrated")
        response = await interaction.response.send_message(
            f"{opponent.mention}, {interaction.user.mention} challenges you to **{variant.title}**{details}! "
            f"Accept within {minutes} minutes.",
            view=challenge_view(record.id),
            allowed_mentions=discord.AllowedMentions(users=[opponent], roles=False, everyone=False),
        )
        if response.message_id is not None:
            await challenges.set_message(record.id, response.message_id)

    async def _created(self, interaction: discord.Interaction[Any], new: NewChallenge) -> bool:
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

    async def thread_plan(
        self,
        interaction: discord.Interaction[Any],
        guild_id: int | None,
        name: str,
        on_message: int | None = None,
    ) -> ThreadPlan:
        """Where a new match is to be played: in a new thread when the server allows threads and the
        bot may open them (on message ``on_message`` in a text channel, or a new thread of the parent
        channel when the interaction comes from inside a thread: a challenge made in a match thread),
        else here. The thread itself is opened by the publisher with the first board, so that a
        restart in between still opens it (once)."""
        channel = interaction.channel
        assert interaction.channel_id is not None
        here = ThreadPlan(
            interaction.channel_id, channel.parent_id if isinstance(channel, discord.Thread) else None
        )
        settings = await self.bot.settings.get(guild_id)
        permissions = interaction.app_permissions
        if not (
            settings.use_threads
            and permissions.create_public_threads
            and permissions.send_messages_in_threads
        ):
            return here
        if len(name) > THREAD_NAME_LIMIT:
            name = name[: THREAD_NAME_LIMIT - 1] + "…"
        if isinstance(channel, discord.Thread):
            return here if channel.parent_id is None else ThreadPlan(channel.parent_id, None, name)
        if not isinstance(channel, discord.TextChannel):
            return here
        return ThreadPlan(interaction.channel_id, None, name, on_message)

    async def start_against_computer(
        self,
        interaction: discord.Interaction[Any],
        *,
        game: str,
        options: dict[str, Any],
        players: tuple[int, int],
        headline: str,
        computer_level: str | None = None,
        rematch_of: int | None = None,
    ) -> None:
        """Start an unrated match with the computer at once, in its own thread when threads are
        allowed (else here). One such match per player and place: while one waits for them in this
        channel (or its threads), another is refused, pointing to it. ``rematch_of``: the finished
        match this one rematches (its Rematch button is greyed out)."""
        assert interaction.channel_id is not None
        user = interaction.user
        channel = interaction.channel
        place = channel.parent_id if isinstance(channel, discord.Thread) else interaction.channel_id
        async with self._computer_locks[user.id]:
            for record in await self.bot.sessions.matches_of(user.id):
                if any(self.bot.challenges.is_computer(p) for p in record.players) and place in (
                    record.channel_id,
                    record.parent_id,
                ):
                    await reply_privately(
                        interaction,
                        f"You already have a match against me here: match #{record.id} in "
                        f"<#{record.channel_id}>. Finish it or resign it (its Resign button) before "
                        "starting another.",
                    )
                    return
            await interaction.response.defer(thinking=True)
            variant = VARIANTS[game]
            plan = await self.thread_plan(
                interaction, interaction.guild_id, f"{variant.title}: {user.display_name} vs the computer"
            )
            try:
                played = await self.bot.sessions.start_match(
                    game=game,
                    options=options,
                    players=players,
                    guild_id=interaction.guild_id,
                    channel_id=plan.channel_id,
                    parent_id=plan.parent_id,
                    rated=False,
                    thread_name=plan.thread_name,
                    computer_level=computer_level,
                    rematch_of=rematch_of,
                )
            except UserError as exc:
                await interaction.edit_original_response(content=str(exc))
                return
        if rematch_of is not None:
            await self._rematched(rematch_of)
        match_id = played.session.id
        await self._publisher().show(match_id, headline=headline)
        where = played.session.record.channel_id
        await interaction.followup.send(
            f"{headline} The match is on in <#{where}>."
            if where != interaction.channel_id
            else f"{headline} The match is on below.",
            allowed_mentions=discord.AllowedMentions.none(),
        )

    def _publisher(self) -> MatchPublisher:
        publisher = self.bot.publishers.matches
        assert publisher is not None, "the Play cog shows every board"
        return publisher

    @challenge.autocomplete("game")
    async def game_names(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=f"{v.title} ({key})", value=key)
            for key, v in sorted(VARIANTS.items())
            if current.lower() in key or current.lower() in v.title.lower()
        ][:25]

    @challenge.autocomplete("rules")
    async def rules_names(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The rule sets of the game typed so far, with their labels; nothing for a game without any."""
        spec = _option_of(interaction, "rules")
        if spec is None:
            return []
        wanted = str(current).strip().casefold()
        return [
            app_commands.Choice(name=spec.label(choice)[:100], value=choice)
            for choice in spec.choices
            if isinstance(choice, str)
            and (wanted in choice.casefold() or wanted in spec.label(choice).casefold())
        ][:25]

    @challenge.autocomplete("length")
    async def length_values(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[int]]:
        """Usual match lengths of the game typed so far (odd ones, the default, the typed number)."""
        spec = _option_of(interaction, "length")
        if spec is None or not isinstance(spec.default, int) or isinstance(spec.default, bool):
            return []
        low = spec.minimum if spec.minimum is not None else 1
        high = spec.maximum if spec.maximum is not None else max(low, spec.default) + 2 * LENGTH_SUGGESTIONS
        typed = str(current).strip()
        # Matches are usually played to an odd number of points.
        values = sorted({spec.default, *(v for v in range(low, high + 1) if v % 2)})
        if typed:
            values = [v for v in values if str(v).startswith(typed)]
            if typed.isdigit() and low <= int(typed) <= high and int(typed) not in values:
                values.insert(0, int(typed))
        return [
            app_commands.Choice(name=_length_label(spec, value), value=value)
            for value in values[:LENGTH_SUGGESTIONS]
        ]

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
        plan = await self.thread_plan(
            interaction, record.guild_id, name, interaction.message.id if interaction.message else None
        )
        players = (record.challenger_id, record.opponent_id)
        if record.rematch_of is not None:
            previous = await self.bot.store.matches.get(record.rematch_of)
            if previous is not None:  # seats swapped: each player takes the other's seat
                players = (previous.players[1], previous.players[0])
        try:
            played = await self.bot.sessions.start_match(
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
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        if record.rematch_of is not None:
            await self._rematched(record.rematch_of)
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
        shown = await self._publisher().show(
            played.session.id,
            headline=f"<@{record.challenger_id}> vs <@{record.opponent_id}>: good luck to both!",
        )
        opened = played.session.record.channel_id
        if shown and plan.thread_name and not plan.thread_on and opened != plan.channel_id:
            with contextlib.suppress(discord.HTTPException):
                await interaction.edit_original_response(content=f"{accepted} in <#{opened}>.")

    async def _rematched(self, match_id: int) -> None:
        """Match ``match_id`` has its rematch now: its Rematch button is greyed out at once (claimed,
        so once; if this fails, the scheduler's round does it, as when the offer runs out)."""
        record = await self.bot.sessions.claim_rematch(match_id)
        if record is not None:
            await self._publisher().rematch_expired(record)

    async def on_rematch(self, interaction: discord.Interaction[Any], match_id: int) -> None:
        """Offer the other player a new match of the same game with seats swapped (once per match)."""
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
        if record.rematch_id is not None:
            await reply_privately(
                interaction,
                f"Match #{record.id} has had its rematch already (match #{record.rematch_id}); start a "
                "new match with /challenge. Nothing was changed.",
            )
            return
        if self.bot.clock.now() - record.updated_at > REMATCH_SECONDS:
            await reply_privately(
                interaction, "The rematch offer has run out; start a new match with /challenge."
            )
            return
        other = record.players[1] if interaction.user.id == record.players[0] else record.players[0]
        variant = VARIANTS[record.game]
        try:
            # The same options again, checked again: the game may have changed them since.
            options = self.bot.challenges.check_options(variant, record.options)
        except ChallengeError as exc:
            await reply_privately(interaction, f"No rematch with these options: {exc}")
            return
        described = variant.describe_options(options)
        if self.bot.challenges.is_computer(other):
            await self.start_against_computer(
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
            await self.bot.challenges.check_no_pending(interaction.user.id, other, f"<@{other}>")
        except ChallengeError as exc:
            await reply_privately(interaction, str(exc))
            return
        new = await self.bot.challenges.create(
            guild_id=record.guild_id,
            channel_id=interaction.channel_id or record.channel_id,
            challenger_id=interaction.user.id,
            opponent_id=other,
            game=record.game,
            options=options,
            rated=record.rated,
            rematch_of=record.id,
        )
        if not await self._created(interaction, new):
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
            allowed_mentions=discord.AllowedMentions(
                users=[discord.Object(other)], roles=False, everyone=False
            ),
        )
        if response.message_id is not None:
            await self.bot.challenges.set_message(challenge.id, response.message_id)

    async def cog_load(self) -> None:
        self.bot.publishers.challenges = self
        self.bot.controls.challenge = self

    async def cog_unload(self) -> None:
        if self.bot.publishers.challenges is self:
            self.bot.publishers.challenges = None
        if self.bot.controls.challenge is self:
            self.bot.controls.challenge = None

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


def _option_of(interaction: discord.Interaction[Any], name: str) -> OptionSpec | None:
    """The option ``name`` of the game typed in the ``game`` option so far, if it has one."""
    typed = interaction.namespace.game
    try:
        variant = find_variant(typed if isinstance(typed, str) and typed.strip() else FIRST_GAME)
    except GameError:
        return None
    return next((spec for spec in variant.options if spec.name == name), None)


def _length_label(spec: OptionSpec, value: int) -> str:
    if value == spec.default:
        return f"{value} (default)"
    if not spec.summary:
        return str(value)
    return spec.summary.format(name=spec.name, value=value, label=spec.short_label(value))
