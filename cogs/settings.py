"""``/settings``: a server's turn clock, response window wait, challenge expiry, games, threads and
results channel; ``/preferences``: what a player asks the bot to do for them, in every server."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.rollouts import TRIAL_CHOICES
from bot.session import UserError
from bot.settings import AUTO_CONFIRM, AUTO_ROLL, PREFERENCES, TUTOR, PlayerPrefs
from bot.store import GuildSettings
from cogs.replies import reply_privately
from engine import VARIANTS
from engine.registry import unknown_game_text

if TYPE_CHECKING:
    from app.client import RingsideBot


WINDOW_WAITS: tuple[tuple[str, int], ...] = (
    ("30 seconds", 30),
    ("1 minute", 60),
    ("2 minutes (default)", 120),
    ("5 minutes", 300),
    ("15 minutes", 900),
    ("1 hour", 3600),
    ("1 day", 86400),
)
"""The choices of ``/settings window_wait``: how long a response window waits for its player."""


def wait_text(seconds: float) -> str:
    """A response window's wait in words: "30 s", "2 min", "1 h", "1 day"."""
    if seconds >= 86400 and seconds % 86400 == 0:
        days = seconds / 86400
        return f"{days:g} day{'s' if days != 1 else ''}"
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    if seconds >= 60:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def describe(settings: GuildSettings) -> str:
    games = ", ".join(settings.allowed_games) if settings.allowed_games is not None else "all"
    results = f"<#{settings.results_channel}>" if settings.results_channel else "only in the match"
    organisers = f" or <@&{settings.organiser_role}>" if settings.organiser_role else ""
    return "\n".join(
        [
            f"**Reminder** after {settings.reminder_seconds / 3600:g} h without a move",
            f"**Timeout** (the match is lost) after {settings.timeout_seconds / 3600:g} h",
            f"**Response windows** pass by themselves after {wait_text(settings.window_seconds)} without an answer",
            f"**Challenges** expire after {settings.challenge_seconds / 60:g} min",
            f"**Games** allowed: {games}",
            f"**Threads**: {'each match gets its own thread' if settings.use_threads else 'matches stay in the channel'}",
            f"**Results** announced: {results}",
            f"**Tournaments** run by: Manage Server{organisers}; their matches "
            f"{'are' if settings.tournament_rated else 'are not'} rated",
            f"**Rollouts** play at most {settings.rollout_trials:,} games per candidate",
        ]
    )


def describe_preferences(prefs: PlayerPrefs) -> str:
    """A player's preferences, one line each: on or off, and what it does."""
    return "\n".join(
        f"**{p.title}**: {'on' if prefs[p] else 'off'}. {p.explain}" for p in PREFERENCES.values()
    )


def allowed_games(text: str) -> tuple[str, ...] | None:
    """The games ``/settings games`` allows: those named, comma-separated, or every one ("all": None);
    a ``UserError`` for a name that is no game, or none at all."""
    wanted = [g.strip().lower() for g in text.split(",") if g.strip()]
    if wanted == ["all"]:
        return None
    unknown = [g for g in wanted if g not in VARIANTS]
    if unknown or not wanted:
        raise UserError(
            unknown_game_text(unknown[0])
            if unknown
            else "Name the games to allow, separated by commas, or “all”."
        )
    return tuple(dict.fromkeys(wanted))


@dataclass(frozen=True, slots=True)
class SettingsAsked:
    """The options ``/settings`` was given (None, False: left as they are)."""

    reminder_hours: float | None
    timeout_hours: float | None
    challenge_minutes: float | None
    games: str | None
    threads: bool | None
    results_channel: discord.TextChannel | None
    clear_results: bool
    window_wait: app_commands.Choice[int] | None
    organiser_role: discord.Role | None
    clear_organiser_role: bool
    tournaments_rated: bool | None
    rollout_games: app_commands.Choice[int] | None = None

    def to_change(self) -> bool:
        """Whether any setting is to change (only a member with Manage Server may ask)."""
        given = (
            self.reminder_hours,
            self.timeout_hours,
            self.challenge_minutes,
            self.games,
            self.threads,
            self.results_channel,
            self.window_wait,
            self.organiser_role,
            self.tournaments_rated,
            self.rollout_games,
        )
        return any(value is not None for value in given) or self.clear_results or self.clear_organiser_role

    def changes(self) -> dict[str, Any]:
        """The ``GuildSettings`` fields asked for, with their new values (``UserError``: games that are
        not the bot's)."""
        changes: dict[str, Any] = {}
        if self.reminder_hours is not None:
            changes["reminder_seconds"] = self.reminder_hours * 3600
        if self.timeout_hours is not None:
            changes["timeout_seconds"] = self.timeout_hours * 3600
        if self.window_wait is not None:
            changes["window_seconds"] = float(self.window_wait.value)
        if self.challenge_minutes is not None:
            changes["challenge_seconds"] = self.challenge_minutes * 60
        if self.games is not None:
            changes["allowed_games"] = allowed_games(self.games)
        if self.threads is not None:
            changes["use_threads"] = self.threads
        if self.results_channel is not None:
            changes["results_channel"] = self.results_channel.id
        if self.clear_results:
            changes["results_channel"] = None
        if self.organiser_role is not None:
            changes["organiser_role"] = self.organiser_role.id
        if self.clear_organiser_role:
            changes["organiser_role"] = None
        if self.tournaments_rated is not None:
            changes["tournament_rated"] = self.tournaments_rated
        if self.rollout_games is not None:
            changes["rollout_trials"] = self.rollout_games.value
        return changes


class Settings(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    @app_commands.command(
        name="settings", description="Show this server's settings; members with Manage Server change them."
    )
    @app_commands.guild_only()
    @app_commands.describe(
        reminder_hours="Remind the player on turn after this many hours (default 12)",
        timeout_hours="The player on turn loses after this many hours (default 48)",
        challenge_minutes="Challenges expire after this many minutes (default 10)",
        games=f"Games allowed here, comma-separated (of: {','.join(VARIANTS)}), or 'all'",
        threads="Give every match its own thread",
        results_channel="Where results are announced (leave out to keep; pick none with clear_results)",
        clear_results="Stop announcing results in a separate channel",
        window_wait="How long a response window waits for its player before it passes (default 2 minutes)",
        organiser_role="A role whose members run tournaments, besides Manage Server",
        clear_organiser_role="Leave tournaments to members with Manage Server only",
        tournaments_rated="Whether tournament matches count for the ratings (default yes)",
        rollout_games="The most games per candidate of a /rollout here (default 648)",
    )
    @app_commands.choices(
        window_wait=[app_commands.Choice(name=name, value=seconds) for name, seconds in WINDOW_WAITS],
        rollout_games=[app_commands.Choice(name=f"{n:,}", value=n) for n in TRIAL_CHOICES],
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        reminder_hours: app_commands.Range[float, 0.25, 720.0] | None = None,
        timeout_hours: app_commands.Range[float, 0.5, 2160.0] | None = None,
        challenge_minutes: app_commands.Range[float, 1.0, 10080.0] | None = None,
        games: str | None = None,
        threads: bool | None = None,
        results_channel: discord.TextChannel | None = None,
        clear_results: bool = False,
        window_wait: app_commands.Choice[int] | None = None,
        organiser_role: discord.Role | None = None,
        clear_organiser_role: bool = False,
        tournaments_rated: bool | None = None,
        rollout_games: app_commands.Choice[int] | None = None,
    ) -> None:
        if interaction.guild_id is None:
            await reply_privately(interaction, "Settings belong to a server; use this command in one.")
            return
        current = await self.bot.settings.get(interaction.guild_id)
        asked = SettingsAsked(
            reminder_hours=reminder_hours,
            timeout_hours=timeout_hours,
            challenge_minutes=challenge_minutes,
            games=games,
            threads=threads,
            results_channel=results_channel,
            clear_results=clear_results,
            window_wait=window_wait,
            organiser_role=organiser_role,
            clear_organiser_role=clear_organiser_role,
            tournaments_rated=tournaments_rated,
            rollout_games=rollout_games,
        )
        if asked.to_change() and not interaction.permissions.manage_guild:
            # Anyone may look; only a member with Manage Server may change.
            await reply_privately(
                interaction,
                "Only members with the Manage Server permission can change settings; "
                "use /settings without options to see them.",
            )
            return
        try:
            changes = asked.changes()
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        updated = replace(current, **changes)
        if updated.reminder_seconds >= updated.timeout_seconds:
            await reply_privately(
                interaction, "The reminder must come before the timeout; nothing was changed."
            )
            return
        if changes:
            await self.bot.settings.save(updated)
        title = "Settings saved" if changes else "Settings"
        embed = discord.Embed(title=title, description=describe(updated), colour=0x3B7DD8)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @app_commands.command(
        name="preferences",
        description="Your own preferences, in every server: auto-roll, confirm automatically, tutor.",
    )
    @app_commands.describe(
        auto_roll="Roll for me at once when the engine finds a double clearly wrong (default off)",
        auto_confirm="Make my play final as soon as it is complete, without Confirm (default off)",
        tutor="Backgammon, unrated matches: warn me privately of an error before it is final (default off)",
    )
    async def preferences(
        self,
        interaction: discord.Interaction[Any],
        auto_roll: bool | None = None,
        auto_confirm: bool | None = None,
        tutor: bool | None = None,
    ) -> None:
        # A player's own, so global rather than per server (as "my settings" are on other sites),
        # and seen by nobody else.
        changes = {
            preference.key: value
            for preference, value in ((AUTO_ROLL, auto_roll), (AUTO_CONFIRM, auto_confirm), (TUTOR, tutor))
            if value is not None
        }
        players = self.bot.sessions.preferences
        if changes:
            prefs = await players.save(interaction.user.id, changes)
        else:
            prefs = await players.get(interaction.user.id)
        title = "Your preferences are saved" if changes else "Your preferences"
        text = (
            describe_preferences(prefs)
            + "\nThey hold in every server; your opponents see no difference but the speed."
        )
        embed = discord.Embed(title=title, description=text, colour=0x3B7DD8)
        await interaction.response.send_message(embed=embed, ephemeral=True)
