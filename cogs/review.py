"""``/review``: every decision of an analysed match that lost equity, a page each, privately.

A page shows the position the decision was made in (from its player's side), the roll, the play
made against the engine's best with their equities, the play's rank among the engine's choices, and
the equity lost with its category. First / Prev / Next / Last carry the match, the person who opened
the review and the page they lead to in their custom ids, so nothing is kept in memory and a review
still pages after a restart. Anyone may review a finished match of their server (the analysis is
public); **Review** under the analysis message opens it too, and under the analysis of a match played
elsewhere (``/analyse file:``, kept by ``bot.store.imports``): the buttons say which (``Reviewed``).

Thin: the analysis is read from the store as it was saved, and the position is found by replaying the
match's log (``engine.ai.review``) in a thread; the picture is drawn by a board worker.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.housekeeping import KEEP_IMPORTS_FOR
from bot.session import UserError
from bot.store.analyses import DONE, FAILED, PENDING, POSTED
from cogs.analysis_words import SCALE_WORDS, decision_place
from cogs.board import record_names
from cogs.control_kinds import REVIEW, ReviewButton, Reviewed
from cogs.replies import reply_privately
from engine import find_variant
from engine.ai.coaching import Analysis, Decision, analysis_from_json
from engine.ai.review import decision_state
from engine.ai.rollouts import ROLLOUTS
from render import NoRendererError
from render.look import Caption

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

COLOUR = 0xF6C445  # the gold of the board pictures
SHOWN_FROM = 0.0005
"""A decision is reviewed when it lost at least this much equity: what shows as 0.001 or more."""
ORDINALS = {1: "st", 2: "nd", 3: "rd"}


class ReviewRefused(UserError):
    """A review that cannot be shown; the message is for the person who asked."""


def decisions_lost(analysis: Analysis) -> list[Decision]:
    """The decisions a review pages through: every counted one that lost equity, in match order."""
    return [d for d in analysis.decisions if d.unforced and d.loss >= SHOWN_FROM]


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else ORDINALS.get(n % 10, 'th')}"


def category_words(loss: float, thresholds: tuple[float, float, float]) -> str:
    """The decision's category, as the analysis counts it (below doubtful: a small loss)."""
    low, mid, high = thresholds
    if loss >= high:
        return "a blunder"
    if loss >= mid:
        return "an error"
    if loss >= low:
        return "doubtful"
    return f"small (under {low:.2f})"


def _equity(value: float | None) -> str:
    return "" if value is None else f"  {value:+.3f}"


def page_embed(
    analysis: Analysis,
    decisions: Sequence[Decision],
    page: int,
    title: str,
    names: tuple[str, str],
    viewer_seat: int | None,
    picture: str | None,
    rollout: str | None = None,
) -> discord.Embed:
    """Page ``page`` (1-based) of the review: one decision in words, its picture attached as
    ``picture`` (None: no picture); ``rollout``: the command that rolls it out (``cogs.rollout``)."""
    d = decisions[page - 1]
    who = names[d.seat]
    if d.kind == "play":
        what = f"rolled {d.roll}" if d.roll else "checker play"
        label = "play"
    elif d.kind == "cube":
        what, label = "double or not", "choice"
    else:
        what, label = "take or pass", "answer"
    played = "Your" if viewer_seat == d.seat else "The"
    lines = [
        f"**{who}** · {decision_place(d)} · {what}",
        f"Played `{d.played}`{_equity(d.played_equity)}",
        f"Best   `{d.best}`{_equity(d.best_equity)}",
        f"Lost **{d.loss:.3f}**: {category_words(d.loss, analysis.thresholds)}.",
    ]
    if d.rank is not None and d.choices is not None:
        lines.append(f"{played} {label} ranked {ordinal(d.rank)} of {d.choices}.")
    if rollout is not None:
        lines.append(f"Settle it with a rollout: `{rollout}`")
    embed = discord.Embed(
        title=f"Review of {title} · {page} of {len(decisions)}",
        description="\n".join(lines),
        colour=COLOUR,
    )
    if picture is not None:
        embed.set_image(url=f"attachment://{picture}")
    footer = f"Equity: {SCALE_WORDS[analysis.scale]}; engine {analysis.level}."
    if d.played_equity is None:
        footer += " Analysed before equities and ranks were kept: they are not shown."
    if analysis.approximate:
        footer += f" This analysis is {analysis.approximate}."
    embed.set_footer(text=footer)
    return embed


def page_view(reviewed: Reviewed, user_id: int, page: int, pages: int) -> discord.ui.View:
    """First / Prev / Next / Last, those leading nowhere disabled."""
    view = discord.ui.View(timeout=None)
    targets = {"first": 1, "prev": page - 1, "next": page + 1, "last": pages}
    for op, target in targets.items():
        stuck = target < 1 or target > pages or (op in ("first", "prev") and page == 1)
        stuck = stuck or (op in ("next", "last") and page == pages)
        view.add_item(ReviewButton.build(reviewed, user_id, min(max(target, 1), pages), op, stuck))
    return view


@dataclass(frozen=True, slots=True)
class Reviewable:
    """What a review pages through, of either kind: a finished match of ours or a match analysed from
    a file. ``title`` names it in the review ("match #12", "final.mat"); ``players``: the user ids of
    its players (none for a file); ``notations``: its action log, read when a picture needs it."""

    reviewed: Reviewed
    title: str
    game: str
    options: Mapping[str, Any] | None
    players: tuple[int, ...]
    names: tuple[str, str]
    analysis: Analysis
    notations: Callable[[], Awaitable[list[str]]]


@dataclass(frozen=True, slots=True)
class ReviewPage:
    embed: discord.Embed
    file: discord.File | None
    view: discord.ui.View


class Review(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.controls.register(REVIEW, self)

    async def cog_unload(self) -> None:
        self.bot.controls.unregister(REVIEW, self)

    @app_commands.command(
        name="review",
        description="Page through every decision that lost equity in an analysed match, privately.",
    )
    @app_commands.describe(match="The match number (default: your latest analysed match on this server)")
    async def review(self, interaction: discord.Interaction[Any], match: int | None = None) -> None:
        try:
            if match is None:
                found = await self.bot.sessions.history.latest_analysed(
                    interaction.user.id, interaction.guild_id
                )
                if found is None:
                    raise ReviewRefused(
                        "You have no analysed match on this server yet: a backgammon match is analysed "
                        "when it ends. Name one with `/review match:12`."
                    )
                match = found
            await self._send_first(interaction, Reviewed(match))
        except ReviewRefused as exc:
            await reply_privately(interaction, str(exc))

    async def open_review(self, interaction: discord.Interaction[Any], reviewed: Reviewed) -> None:
        """**Review** under an analysis: the clicker's own review of it, from its first page."""
        try:
            await self._send_first(interaction, reviewed)
        except ReviewRefused as exc:
            await reply_privately(interaction, str(exc))

    async def on_review_page(
        self, interaction: discord.Interaction[Any], reviewed: Reviewed, user_id: int, page: int, op: str
    ) -> None:
        if interaction.user.id != user_id:
            own = "" if reviewed.from_file else f", or `/review match:{reviewed.id}`"
            await reply_privately(
                interaction,
                f"That review was opened by someone else. Open your own with **Review** under the analysis{own}.",
            )
            return
        if not _is_review_page(interaction.message, reviewed, user_id) or page < 1:
            # Only a page of this review is turned (also a copy that has moved on since, whose old
            # button leads to the page it names); a forged id sent from a board leaves it as it is.
            await reply_privately(
                interaction,
                "That button turns the pages of a review that this message does not show: nothing was "
                "changed. **Review** under an analysis opens one.",
            )
            return
        # Acknowledged first: a long match takes a moment to replay to its position.
        await interaction.response.defer()
        try:
            found = await self._analysed(interaction, reviewed)
            pages = len(decisions_lost(found.analysis))
            if pages and page > pages:
                raise ReviewRefused(
                    f"The review of {found.title} has {pages} pages: there is no page {page}. "
                    "Nothing was changed."
                )
            shown = await self._page(interaction, found, page)
        except ReviewRefused as exc:
            await reply_privately(interaction, str(exc))
            return
        await interaction.edit_original_response(
            embed=shown.embed, attachments=[shown.file] if shown.file else [], view=shown.view
        )

    async def _send_first(self, interaction: discord.Interaction[Any], reviewed: Reviewed) -> None:
        found = await self._analysed(interaction, reviewed)
        if not decisions_lost(found.analysis):
            raise ReviewRefused(f"Nobody lost equity in {found.title}: there is nothing to review.")
        await interaction.response.defer(ephemeral=True, thinking=True)
        shown = await self._page(interaction, found, 1)
        await interaction.followup.send(
            embed=shown.embed,
            file=shown.file or discord.utils.MISSING,
            view=shown.view,
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _analysed(self, interaction: discord.Interaction[Any], reviewed: Reviewed) -> Reviewable:
        """What is reviewed, with its analysis, if the caller may review it here; else ``ReviewRefused``."""
        if reviewed.from_file:
            return await self._analysed_file(interaction, reviewed)
        match_id = reviewed.id
        history = self.bot.sessions.history
        record = await history.match(match_id) if 0 < match_id < 1 << 63 else None
        if record is None or record.guild_id != interaction.guild_id:
            raise ReviewRefused(f"There is no match #{match_id} on this server.")
        if record.status == "active":
            raise ReviewRefused(f"Match #{match_id} is still being played: it is analysed when it ends.")
        saved = await history.analysis(match_id)
        if saved is None:
            raise ReviewRefused(
                f"Match #{match_id} has no analysis: only finished backgammon matches are analysed."
            )
        if saved.status == PENDING:
            raise ReviewRefused(
                f"The analysis of match #{match_id} is still being computed: try again in a minute."
            )
        if saved.status == FAILED or saved.status not in (DONE, POSTED):
            raise ReviewRefused(f"Match #{match_id} could not be analysed, so it has no review.")
        analysis = _readable(saved.analysis, f"match #{match_id}")

        async def notations() -> list[str]:
            return [a.notation for a in await history.action_log(match_id)]

        return Reviewable(
            reviewed,
            f"match #{match_id}",
            record.game,
            record.options,
            tuple(record.players),
            await record_names(self.bot, record),
            analysis,
            notations,
        )

    async def _analysed_file(self, interaction: discord.Interaction[Any], reviewed: Reviewed) -> Reviewable:
        kept = await self.bot.analyses.imported(reviewed.id) if 0 < reviewed.id < 1 << 63 else None
        if kept is None or kept.guild_id != interaction.guild_id:
            raise ReviewRefused(
                f"That analysis is no longer kept (files are kept {KEEP_IMPORTS_FOR / 86400:.0f} days after "
                "their analysis): send the file again with `/analyse file:`."
            )
        title = discord.utils.escape_markdown(kept.file_name)
        if kept.analysis is None:
            log.warning("the imported match %s cannot be read back", kept.id)
            raise ReviewRefused(f"The analysis of {title} cannot be read.")
        analysis = _readable(kept.analysis, title)

        async def notations() -> list[str]:
            return list(kept.log)

        return Reviewable(reviewed, title, kept.game, kept.options, (), kept.names, analysis, notations)

    async def _page(self, interaction: discord.Interaction[Any], found: Reviewable, page: int) -> ReviewPage:
        decisions = decisions_lost(found.analysis)
        if not decisions:
            raise ReviewRefused(f"Nobody lost equity in {found.title}: there is nothing to review.")
        page = min(max(page, 1), len(decisions))
        names = (found.names[0] or "Player 1", found.names[1] or "Player 2")
        user_id = interaction.user.id
        viewer = found.players.index(user_id) if user_id in found.players else None
        picture = await self._picture(found, decisions[page - 1])
        filename = f"review-{found.reviewed}-{page}.png"
        rollout = None
        if found.game in ROLLOUTS and not found.reviewed.from_file:
            rollout = f"/rollout match:{found.reviewed.id} page:{page}"
        embed = page_embed(
            found.analysis,
            decisions,
            page,
            found.title,
            names,
            viewer,
            filename if picture else None,
            rollout,
        )
        file = discord.File(io.BytesIO(picture), filename=filename) if picture else None
        return ReviewPage(embed, file, page_view(found.reviewed, user_id, page, len(decisions)))

    async def _picture(self, found: Reviewable, decision: Decision) -> bytes | None:
        """The position the decision was made in, from its player's side (None: it cannot be found)."""
        notations = await found.notations()
        variant = find_variant(found.game)
        try:
            state = await asyncio.to_thread(decision_state, variant, found.options, notations, decision)
        except Exception:
            log.exception("%s does not replay to a reviewed decision", found.title)
            return None
        if state is None:
            log.warning("%s: no position for the decision %s", found.title, decision)
            return None
        try:
            return await self.bot.render_pool.png(state.view(decision.seat), Caption(names=found.names))
        except NoRendererError:
            return None


def _is_review_page(message: discord.Message | None, reviewed: Reviewed, user_id: int) -> bool:
    """Whether ``message`` is a private page of ``user_id``'s review of ``reviewed``."""
    return (
        message is not None
        and message.flags.ephemeral
        and any(
            shown["reviewed"] == reviewed and shown["user_id"] == user_id
            for shown in ReviewButton.found_on(message)
        )
    )


def _readable(saved: Any, title: str) -> Analysis:
    try:
        return analysis_from_json(saved)
    except ValueError:
        log.exception("the saved analysis of %s cannot be read", title)
        raise ReviewRefused(f"The analysis of {title} cannot be read.") from None
