"""``/challenge``: invite someone (or the bot) to a game; Accept, Decline, Cancel; expiry."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.challenges import ChallengeError
from bot.session import UserError
from cogs.board import in_brackets
from cogs.challenge_answers import ChallengeAnswers, ThreadPlan, challenge_view, level_words, match_publisher
from cogs.control_kinds import CHALLENGE
from cogs.mentions import pings
from cogs.replies import reply_privately
from engine import VARIANTS, GameError, find_variant
from engine.ai.levels import LEVEL_TITLES, LEVELS
from engine.protocol import OptionSpec, Variant
from render import Caption

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

FIRST_GAME = next(iter(VARIANTS))
"""The game of a /challenge that names none: the first registered one."""
THREAD_NAME_LIMIT = 100
LENGTH_SUGGESTIONS = 13  # how many match lengths the autocomplete offers at most


class Challenge(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        #: the answers to challenges and rematches (``bot.controls``, as ``CHALLENGE``)
        self.answers = ChallengeAnswers(self)

    @app_commands.command(name="challenge", description="Challenge someone (or me) to a game.")
    @app_commands.describe(
        opponent="Who you want to play (pick me to play the computer)",
        game=f"The game: {', '.join(VARIANTS)} (default: {FIRST_GAME})",
        rated="Whether the result counts for the leaderboard (default: yes)",
        length="Match length in points, for games played as matches (backgammon: 1 to 25, default 1; 0: money)",
        rules="Rule set, for games that have several (pick one from the list)",
        level="How well the computer plays, when you challenge me (default: medium)",
        jacoby="Money game (length 0): gammons count only once the cube is turned (default: yes)",
        beavers="Money game (length 0): a doubled player may beaver (default: no)",
        automatic="Money game (length 0): automatic doubles a game on equal opening dice (default: 0)",
        limit="Money game (length 0): end once a player is this many points ahead (default: none)",
        position="Start from this position (unrated): a GNU Backgammon ID, ID:match ID, or an XGID",
        clock="Backgammon live clock: reserve per player + delay per move, e.g. 2m+12s (default: none)",
        tutor="Backgammon: both players are warned, privately, of an error before it is final (unrated)",
    )
    @app_commands.choices(
        level=[app_commands.Choice(name=LEVEL_TITLES[level], value=level) for level in LEVELS]
    )
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User,
        game: str = FIRST_GAME,
        rated: bool = True,
        length: int | None = None,
        rules: str | None = None,
        level: str | None = None,
        jacoby: bool | None = None,
        beavers: bool | None = None,
        automatic: int | None = None,
        limit: int | None = None,
        position: str | None = None,
        clock: str | None = None,
        tutor: bool | None = None,
    ) -> None:
        challenges = self.bot.challenges
        named: list[tuple[str, object]] = [("length", length), ("rules", rules), ("jacoby", jacoby)]
        named += [("beavers", beavers), ("automatic", automatic), ("limit", limit), ("position", position)]
        # tutor:false is the default: left out, as an option not given.
        given = {k: v for k, v in (*named, ("clock", clock), ("tutor", tutor or None)) if v is not None}
        try:
            variant = await challenges.check_new(
                guild_id=interaction.guild_id,
                challenger_id=interaction.user.id,
                opponent_id=opponent.id,
                opponent_is_bot=opponent.bot,
                game=game,
            )
            options = challenges.check_options(variant, given)
            rated = challenges.rated(variant, options, rated)
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
        if not await self.answers.created(interaction, new):
            return
        record = new.record
        minutes = round((record.expires_at - record.created_at) / 60)
        set_position = variant.starts_from_set_position(options)
        # A set position and the tutor say "unrated" themselves (``describe_options``).
        said = set_position or options.get("tutor")
        details = in_brackets(variant.describe_options(options), "" if rated or said else "unrated")
        extra: dict[str, Any] = {}
        if set_position:
            extra["file"] = await self._start_picture(variant.key, options, (interaction.user, opponent))
        response = await interaction.response.send_message(
            f"{opponent.mention}, {interaction.user.mention} challenges you to **{variant.title}**{details}! "
            f"Accept within {minutes} minutes.",
            view=challenge_view(record.id),
            allowed_mentions=pings(opponent.id),
            **extra,
        )
        if response.message_id is not None:
            await challenges.set_message(record.id, response.message_id)

    async def _start_picture(
        self, game: str, options: dict[str, Any], players: tuple[discord.abc.User, discord.abc.User]
    ) -> discord.File:
        """The position the match would start from, drawn as its board will be (the friend sees what
        they accept)."""
        state = VARIANTS[game].new_game(options)
        names = (players[0].display_name, players[1].display_name)
        png = await self.bot.render_pool.png(state.view(None), Caption(names=names))
        return discord.File(io.BytesIO(png), filename="position.png", description="The starting position")

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
        try:
            await self.bot.sessions.computer.check_no_computer_match(user.id, place)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
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
            await self.answers.rematch_started(rematch_of)
        match_id = played.session.id
        await match_publisher(self.bot).show(match_id, headline=headline)
        where = played.session.record.channel_id
        await interaction.followup.send(
            f"{headline} The match is on in <#{where}>."
            if where != interaction.channel_id
            else f"{headline} The match is on below.",
            allowed_mentions=discord.AllowedMentions.none(),
        )

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
        # Matches are usually played to an odd number of points; the lowest length is offered too
        # (backgammon's 0, a money game).
        values = sorted({spec.default, low, *(v for v in range(low, high + 1) if v % 2)})
        if typed:
            values = [v for v in values if str(v).startswith(typed)]
            if typed.isdigit() and low <= int(typed) <= high and int(typed) not in values:
                values.insert(0, int(typed))
        variant = _variant_of(interaction)
        return [
            app_commands.Choice(name=_length_label(spec, value, variant), value=value)
            for value in values[:LENGTH_SUGGESTIONS]
        ]

    async def cog_load(self) -> None:
        self.bot.publishers.challenges = self.answers
        self.bot.controls.register(CHALLENGE, self.answers)

    async def cog_unload(self) -> None:
        if self.bot.publishers.challenges is self.answers:
            self.bot.publishers.challenges = None
        self.bot.controls.unregister(CHALLENGE, self.answers)


def _variant_of(interaction: discord.Interaction[Any]) -> Variant | None:
    """The game typed in the ``game`` option so far (the first game when none is typed)."""
    typed = interaction.namespace.game
    try:
        return find_variant(typed if isinstance(typed, str) and typed.strip() else FIRST_GAME)
    except GameError:
        return None


def _option_of(interaction: discord.Interaction[Any], name: str) -> OptionSpec | None:
    """The option ``name`` of the game typed in the ``game`` option so far, if it has one."""
    variant = _variant_of(interaction)
    if variant is None:
        return None
    return next((spec for spec in variant.options if spec.name == name), None)


def _length_label(spec: OptionSpec, value: int, variant: Variant | None = None) -> str:
    if value == spec.default:
        return f"{value} (default)"
    if variant is not None:
        # The game's own words for the length ("5-point match", "money game").
        return variant.describe_options({spec.name: value}) or str(value)
    if not spec.summary:
        return str(value)
    return spec.summary.format(name=spec.name, value=value, label=spec.short_label(value))
