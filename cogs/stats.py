"""``/leaderboard``, ``/stats`` and ``/history``: ratings and match records.

Ratings are kept per server and per game (see ``docs/ratings.md``); they are written by the store in
the transaction that records a rated result, and only read here. Players are shown as mentions,
which Discord renders as names inside embeds without pinging anyone, so no member lookups (and no
members intent) are needed. ``/leaderboard`` and ``/stats`` answer in public, ``/history`` privately.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ratings import PROVISIONAL_EXPERIENCE, PlayedMatch, RatedResult, Standing
from bot.store.analyses import MWC, POINTS, ErrorRates
from cogs.replies import reply_privately
from engine import VARIANTS, EndReason, Forfeit, GameError, find_variant
from engine.ai.coaches import ANALYSES
from render.leaderboard import rating_chart
from render.profile_chart import PrSeries, RatingSeries, profile_chart

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

TOP = 10
TREND_MATCHES = 5
RECENT = 10
CHART_MATCHES = 100
CHART_FILE = "rating.png"
COLOUR = 0xF6C445  # the gold of the board pictures
MEDALS = ("🥇", "🥈", "🥉")
MINUS = "\u2212"
NO_PINGS = discord.AllowedMentions.none()
PROVISIONAL_NOTE = f"? = provisional rating: fewer than {PROVISIONAL_EXPERIENCE} points played"
REASONS: dict[EndReason, str] = {Forfeit.RESIGNATION: "by resignation", Forfeit.TIMEOUT: "on time"}
GAMES = ", ".join(VARIANTS)
GAME_HELP = f"{GAMES} (default: the game played last here)"


def default_game(games: Sequence[Standing]) -> str:
    """The game a player's ratings are shown for when none is named: the one they played rated
    most recently in this server (``games`` is most recent first), else the first registered game."""
    return next((g.game for g in games if g.game in VARIANTS), next(iter(VARIANTS)))


# -- text -------------------------------------------------------------------------------------------


def game_title(game: str) -> str:
    variant = VARIANTS.get(game)
    return variant.title if variant is not None else game.capitalize()


def rating_text(standing: Standing) -> str:
    """A rating as every command shows it: whole points, "?" while provisional ("1512?")."""
    return f"{standing.rating:.0f}" + ("?" if standing.provisional else "")


def signed(value: float, decimals: int = 1) -> str:
    text = f"{abs(value):.{decimals}f}"
    if float(text) == 0:
        return f"±{text}"
    return ("+" if value > 0 else MINUS) + text


def trend_text(trend: float | None) -> str:
    """The change over the last matches as ▲/▼ and whole points."""
    if trend is None or round(trend) == 0:
        return "▬ 0"
    return f"▲ {round(trend)}" if trend > 0 else f"▼ {round(-trend)}"


def record_text(standing: Standing) -> str:
    return f"{standing.wins}–{standing.losses}"


def streak_text(streak: int) -> str:
    if streak > 0:
        return f"{streak} win{'s' if streak != 1 else ''} in a row"
    if streak < 0:
        return f"{-streak} loss{'es' if streak != -1 else ''} in a row"
    return "none"


def when(timestamp: float) -> str:
    """A Discord timestamp: each reader sees it in their own time zone, as "3 hours ago"."""
    return f"<t:{int(timestamp)}:R>"


def channel_link(guild_id: int | None, channel_id: int) -> str:
    return f"https://discord.com/channels/{guild_id if guild_id is not None else '@me'}/{channel_id}"


def leaderboard_line(place: int, standing: Standing, trend: float | None) -> str:
    rank = MEDALS[place - 1] if place <= len(MEDALS) else f"**{place}.**"
    return (
        f"{rank} <@{standing.user_id}> **{rating_text(standing)}** · "
        f"{record_text(standing)} · {trend_text(trend)}"
    )


def leaderboard_embed(
    game: str,
    top: Sequence[Standing],
    trends: dict[int, float],
    caller: tuple[int, Standing] | None = None,
) -> discord.Embed:
    """The top players, best first, and the caller's own line (rank, standing) below if not among them."""
    lines = [leaderboard_line(i, s, trends.get(s.user_id)) for i, s in enumerate(top, start=1)]
    if caller is not None and all(s.user_id != caller[1].user_id for s in top):
        lines += ["⋯", leaderboard_line(caller[0], caller[1], trends.get(caller[1].user_id))]
    embed = discord.Embed(
        title=f"{game_title(game)} leaderboard", description="\n".join(lines), colour=COLOUR
    )
    notes = []
    if any(s.provisional for s in [*top, *([caller[1]] if caller else [])]):
        notes.append(PROVISIONAL_NOTE)
    notes.append(f"▲▼ = change over the last {TREND_MATCHES} matches")
    embed.set_footer(text=" · ".join(notes))
    return embed


def result_line(result: RatedResult) -> str:
    outcome = "**W**" if result.won else "**L**"
    return f"{outcome} vs <@{result.opponent_id}> · {signed(result.change)} · {when(result.at)}"


def stats_embed(
    user_id: int,
    name: str,
    game: str,
    standing: Standing,
    rank: int,
    players: int,
    results: Sequence[RatedResult],
    games: Sequence[Standing],
    chart: bool,
    rates: ErrorRates | None = None,
) -> discord.Embed:
    """``rates``: the player's error rates in ``game`` (None: a game without analyses)."""
    played = standing.wins + standing.losses
    share = f" ({100 * standing.wins / played:.0f}% won)" if played else ""
    provisional = " (provisional)" if standing.provisional else ""
    description = "\n".join(
        [
            f"<@{user_id}>",
            f"Rating **{rating_text(standing)}**{provisional} · rank **{rank}** of {players}",
            *([pr_line(rates)] if rates is not None else []),
            *(luck_lines(rates) if rates is not None else []),
            f"Record **{record_text(standing)}**{share}",
            f"Streak: {streak_text(standing.streak)}",
        ]
    )
    embed = discord.Embed(title=f"{name} · {game_title(game)}", description=description, colour=COLOUR)
    embed.add_field(
        name="Every game here",
        value=" · ".join(f"{game_title(g.game)} **{record_text(g)}**" for g in games),
        inline=False,
    )
    recent = list(reversed(results[-RECENT:]))
    embed.add_field(
        name=f"Last {len(recent)} rated {game_title(game)} match{'es' if len(recent) != 1 else ''}",
        value="\n".join(result_line(r) for r in recent),
        inline=False,
    )
    if rates is not None:
        add_pr_history(embed, rates)
    if chart:
        embed.set_image(url=f"attachment://{CHART_FILE}")
    if standing.provisional:
        embed.set_footer(text=PROVISIONAL_NOTE)
    return embed


PR_MATCHES = 10
"""How many of the latest analysed matches ``/stats`` lists the PR of."""
CHART_PR_MATCHES = 30
"""How many of the latest analysed matches ``/stats``'s picture draws the PR of."""
PR_COUNTED = "every analysed match on this server, against the computer or people, rated or not"


def pr_line(rates: ErrorRates) -> str:
    """The average PR, as the stats show it beside the rating."""
    if rates.pr is None:
        return "PR: no analysed match yet" if not rates.matches else "PR: no decision counted yet"
    count = f"{rates.matches} analysed match{'es' if rates.matches != 1 else ''}"
    return f"PR **{rates.pr:.1f}** over {count} (lower is better)"


def add_pr_history(embed: discord.Embed, rates: ErrorRates) -> None:
    """The latest analysed matches' PRs, oldest first, as a field (none without any)."""
    history = rates.history[-PR_MATCHES:]
    if not history:
        return
    shown = " · ".join("—" if pr is None else f"{pr:.1f}" for _, pr in history)
    embed.add_field(
        name=f"PR of the last {len(history)} analysed matches, oldest first",
        value=f"{shown}\nCounted: {PR_COUNTED}. `/review` shows a match's decisions.",
        inline=False,
    )


LUCK_MEANS = (
    "Luck: what the dice gave against average rolls; luck-adjusted: the result minus your luck plus "
    "your opponent's (above 0: you outplayed them whatever the dice), as GNU Backgammon counts them."
)


def luck_lines(rates: ErrorRates) -> list[str]:
    """The average luck and luck-adjusted result over the analysed matches that have them: in match
    winning chances per match, and apart in points per game over money sessions; none without any."""
    lines = []
    match = rates.luck.get(MWC)
    if match is not None:
        luck, adjusted = match.per_match()
        count = f"{match.matches} match{'es' if match.matches != 1 else ''}"
        lines.append(
            f"Luck **{signed(100 * luck)}%** a match · luck-adjusted result **{signed(100 * adjusted)}%** "
            f"(match winning chances, over {count})"
        )
    money = rates.luck.get(POINTS)
    if money is not None:
        luck, adjusted = money.per_match()
        count = f"{money.games} game{'s' if money.games != 1 else ''}"
        lines.append(
            f"Money play: luck **{signed(luck, 2)}** · luck-adjusted **{signed(adjusted, 2)}** points a game "
            f"(over {count})"
        )
    return lines


def pr_only_embed(user_id: int, name: str, game: str, rates: ErrorRates) -> discord.Embed:
    """A player with analysed matches of ``game`` here but no rating in it (only unrated matches or
    matches against the computer)."""
    description = "\n".join(
        [
            f"<@{user_id}>",
            "No rating yet: ratings come from rated matches between people.",
            pr_line(rates),
            *luck_lines(rates),
        ]
    )
    embed = discord.Embed(title=f"{name} · {game_title(game)}", description=description, colour=COLOUR)
    add_pr_history(embed, rates)
    embed.set_image(url=f"attachment://{CHART_FILE}")
    return embed


def profile_png(name: str, game: str, results: Sequence[RatedResult], rates: ErrorRates) -> bytes:
    """``/stats``'s picture in a game with analyses: the rating chart (when there are rated results)
    above the PRs of the latest analysed matches."""
    prs = [pr for _, pr in rates.history]
    first = rates.matches - len(prs) + 1
    series = PrSeries(prs, rates.pr, first_match=max(1, first), total=rates.matches)
    return profile_chart(f"{game_title(game)} PR · {name}", series, rating_series(name, game, results))


def rating_series(name: str, game: str, results: Sequence[RatedResult]) -> RatingSeries | None:
    """The rating chart's figures (as ``chart_png`` draws them), None without rated results."""
    if not results:
        return None
    shown = results[-CHART_MATCHES:]
    first = len(results) - len(shown) + 1
    count = len(results)
    subtitle = (
        f"{count} rated match{'es' if count != 1 else ''} in this server"
        if first == 1
        else f"the last {len(shown)} of {count} rated matches"
    )
    return RatingSeries(
        [shown[0].before, *(r.after for r in shown)],
        title=f"{game_title(game)} rating · {name}",
        subtitle=subtitle,
        wins=[r.won for r in shown],
        first_match=first,
    )


def chart_png(name: str, game: str, results: Sequence[RatedResult]) -> bytes:
    series = rating_series(name, game, results)
    if series is None:
        raise ValueError("a rating chart needs at least one rated result")
    return rating_chart(
        series.ratings,
        title=series.title,
        subtitle=series.subtitle,
        wins=series.wins,
        first_match=series.first_match,
    )


def history_line(match: PlayedMatch) -> str:
    if match.status == "active":
        result = "**in progress**"
    elif match.status == "abandoned":
        result = "abandoned"
    elif match.won is None:
        result = "**draw**"
    else:
        result = "**won**" if match.won else "**lost**"
        if match.reason in REASONS:
            result += f" {REASONS[match.reason]}"
    if match.rating_change is not None:
        result += f" ({signed(match.rating_change)})"
    elif match.status == "finished" and not match.rated:
        result += " · unrated"
    moment = when(match.finished_at if match.finished_at is not None else match.created_at)
    link = f"[match #{match.match_id}]({channel_link(match.guild_id, match.channel_id)})"
    return f"{game_title(match.game)} vs <@{match.opponent_id}> · {result} · {moment} · {link}"


def history_embed(matches: Sequence[PlayedMatch]) -> discord.Embed:
    return discord.Embed(
        title=f"Your last {len(matches)} match{'es' if len(matches) != 1 else ''}",
        description="\n".join(history_line(m) for m in matches),
        colour=COLOUR,
    )


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


# -- the cog ------------------------------------------------------------------------------------------


class Stats(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    @app_commands.command(name="leaderboard", description="The best players of a game in this server.")
    @app_commands.describe(game=GAME_HELP)
    async def leaderboard(self, interaction: discord.Interaction[Any], game: str | None = None) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            await reply_privately(interaction, "Ratings are kept per server: use /leaderboard in a server.")
            return
        history = self.bot.sessions.history
        try:
            if game is not None:
                key = find_variant(game).key
            else:
                key = default_game(await history.standings_of(guild_id, interaction.user.id))
        except GameError as exc:
            await reply_privately(interaction, _sentence(str(exc)))
            return
        top = await history.leaderboard(guild_id, key, TOP)
        if not top:
            await reply_privately(
                interaction, f"No rated {game_title(key).lower()} matches in this server yet."
            )
            return
        caller: tuple[int, Standing] | None = None
        mine = await history.standing(guild_id, key, interaction.user.id)
        if mine is not None and all(s.user_id != mine.user_id for s in top):
            rank = await history.rank(guild_id, key, mine.user_id)
            assert rank is not None
            caller = (rank, mine)
        ids = [s.user_id for s in top] + ([caller[1].user_id] if caller else [])
        trends = await history.trends(guild_id, key, ids, TREND_MATCHES)
        embed = leaderboard_embed(key, top, trends, caller)
        await interaction.response.send_message(embed=embed, allowed_mentions=NO_PINGS)

    @app_commands.command(
        name="stats",
        description="A player's rating, its chart, record and recent results; in backgammon, their PR too.",
    )
    @app_commands.describe(
        user="Whose statistics (default: yours)",
        game=f"{GAMES} (default: the game they played last here)",
    )
    async def stats(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        game: str | None = None,
    ) -> None:
        guild_id = interaction.guild_id
        if guild_id is None:
            await reply_privately(interaction, "Ratings are kept per server: use /stats in a server.")
            return
        target = user or interaction.user
        if target.bot:
            await reply_privately(
                interaction, f"{target.mention} has no rating: matches against bots are not rated."
            )
            return
        history = self.bot.sessions.history
        games = await history.standings_of(guild_id, target.id)
        try:
            key = find_variant(game).key if game is not None else default_game(games)
        except GameError as exc:
            await reply_privately(interaction, _sentence(str(exc)))
            return
        standing = next((g for g in games if g.game == key), None)
        rates = (
            await history.error_rates(guild_id, key, target.id, CHART_PR_MATCHES) if key in ANALYSES else None
        )
        if standing is None and rates is not None and rates.matches:
            embed = pr_only_embed(target.id, target.display_name, key, rates)
            png = await asyncio.to_thread(profile_png, target.display_name, key, (), rates)
            await interaction.response.send_message(
                embed=embed, file=discord.File(io.BytesIO(png), CHART_FILE), allowed_mentions=NO_PINGS
            )
            return
        if standing is None:
            what = f"rated {game_title(key).lower()} matches" if games else "rated matches"
            others = f" (they play: {', '.join(game_title(g.game) for g in games)})" if games else ""
            await reply_privately(interaction, f"{target.mention} has no {what} in this server yet{others}.")
            return
        rank = await history.rank(guild_id, key, target.id)
        players = await history.players_rated(guild_id, key)
        results = await history.rated_results(guild_id, key, target.id)
        name = target.display_name
        embed = stats_embed(
            target.id, name, key, standing, rank or 0, players, results, games, bool(results), rates
        )
        if not results:
            await interaction.response.send_message(embed=embed, allowed_mentions=NO_PINGS)
            return
        if rates is not None:
            png = await asyncio.to_thread(profile_png, name, key, results, rates)
        else:
            png = await asyncio.to_thread(chart_png, name, key, results)
        await interaction.response.send_message(
            embed=embed, file=discord.File(io.BytesIO(png), CHART_FILE), allowed_mentions=NO_PINGS
        )

    @app_commands.command(name="history", description="Your last 10 matches, with links to them.")
    async def history(self, interaction: discord.Interaction[Any]) -> None:
        matches = await self.bot.sessions.history.recent(interaction.user.id, RECENT)
        if not matches:
            await reply_privately(
                interaction, "You have not played any matches yet. Start one with /challenge."
            )
            return
        await interaction.response.send_message(
            embed=history_embed(matches), ephemeral=True, allowed_mentions=NO_PINGS
        )

    @leaderboard.autocomplete("game")
    @stats.autocomplete("game")
    async def game_names(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return [
            app_commands.Choice(name=f"{v.title} ({key})", value=key)
            for key, v in sorted(VARIANTS.items())
            if current.lower() in key or current.lower() in v.title.lower()
        ][:25]
