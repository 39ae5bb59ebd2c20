"""What a tournament shows on Discord: its announcement (the entrants, Join / Leave / Start, then the
bracket or standings picture with the current round's matches), each new match in its thread with
both players mentioned and the round's deadline, and the champion in the results channel.

The announcement is drawn from what is saved, one drawing at a time per tournament (``Redraws``):
after every change, and whenever a table's thread opens (a first board tried again after a failure
opens it late), so each table links the thread it is played in; a table whose thread is still to
open is "starting". What they say notifies nobody but the players it is about (``cogs.mentions``)."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

import discord

from bot.store.tournaments import TournamentRecord
from bot.tournaments import Tournaments, Update
from cogs.board import in_brackets
from cogs.control_kinds import TournamentButton
from cogs.mentions import NOBODY, pings
from engine import find_variant
from engine.tournament import Tournament
from render.tournament import (
    bracket_page_of,
    bracket_pages,
    render_bracket,
    render_standings,
    standings_pages,
)

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

LISTED = 40
"""Entrants or pairings named in the announcement; the rest are counted."""
RESULT_WORDS = {
    "played": "",
    "resigned": "resigned",
    "timeout": "out of time",
    "forfeit": "forfeit",
    "both forfeit": "both forfeit",
    "organiser": "set by the organiser",
    "withdrew": "left the tournament",
}
"""How a table ended, in the announcement's words ("" for a match simply played out)."""
STATUS = {
    "signup": "Sign-up open",
    "running": "Running",
    "paused": "Paused",
    "finished": "Finished",
    "cancelled": "Cancelled",
}


def announcement_view(record: TournamentRecord) -> discord.ui.View | None:
    """Join / Leave / Start while signing up; Leave (withdraw) while it runs; nothing once over."""
    ops = {"signup": ("join", "leave", "start"), "running": ("leave",), "paused": ("leave",)}.get(
        record.status
    )
    if not ops:
        return None
    view = discord.ui.View(timeout=None)
    for op in ops:
        view.add_item(TournamentButton.build(record.id, op))
    return view


def when(seconds: float | None) -> str:
    """A moment as Discord shows it in each reader's time zone."""
    return "—" if seconds is None else f"<t:{int(seconds)}:f>"


def summary(record: TournamentRecord, players: int) -> str:
    """The first lines of the announcement: what is played, how, by when."""
    variant = find_variant(record.game)
    rounds = f", {record.rounds} rounds" if record.rounds else ""
    lines = [
        f"**{variant.title}**{in_brackets(variant.describe_options(record.options))}, "
        f"{record.format}{rounds}: {STATUS.get(record.status, record.status)}",
        f"Each round lasts up to {record.round_seconds / 3600:g} h.",
    ]
    if record.status == "signup":
        closes = f"sign-up closes {when(record.signup_until)} or" if record.signup_until else "sign-up closes"
        lines.append(f"{players} signed up; {closes} when an organiser presses Start.")
    elif record.status == "running" and record.round_until is not None:
        lines.append(f"This round ends {when(record.round_until)}.")
    return "\n".join(lines)


class Redraws:
    """One drawing at a time of each tournament's announcement, each from the tournament as saved when
    it starts: a drawing asked for while another is under way is met by the next one (one for all
    asked meanwhile), so an older drawing never lands over a newer one and none is missed."""

    def __init__(self, draw: Callable[[int], Awaitable[None]]) -> None:
        self._draw = draw
        self._locks: dict[int, asyncio.Lock] = {}
        self._asked: dict[int, int] = {}
        self._met: dict[int, int] = {}

    async def redraw(self, tournament_id: int) -> None:
        """Return once a drawing begun after this call has finished."""
        asked = self._asked[tournament_id] = self._asked.get(tournament_id, 0) + 1
        async with self._locks.setdefault(tournament_id, asyncio.Lock()):
            if self._met.get(tournament_id, 0) >= asked:
                return  # drawn meanwhile, by a drawing that began after the asking
            meets = self._asked[tournament_id]
            await self._draw(tournament_id)  # a drawing that fails meets nobody: the next one tries
            self._met[tournament_id] = meets


class TournamentNotices:
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        self.redraws = Redraws(self._draw)
        #: matches whose first board a ``show`` under way posts: the announcement it draws after them
        #: links their threads
        self._opening: set[int] = set()

    @property
    def service(self) -> Tournaments:
        return self.bot.tournaments

    async def content(
        self, record: TournamentRecord, page: int | None = None, player: int | None = None
    ) -> tuple[discord.Embed, discord.File | None]:
        """The announcement's embed, and its picture once the tournament has started (``page`` of it;
        None: the page with ``player``, else the first)."""
        names = await self.service.names(record.id)
        embed = discord.Embed(title=f"🏆 {record.name} (#{record.id})", colour=0xC9A227)
        state = self.service.state_of(record)
        text = summary(record, len(names))
        if state is None:
            listed = [f"<@{user}>" for user in list(names)[:LISTED]]
            more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
            text += "\n\n**Entrants**: " + (", ".join(listed) + more if listed else "none yet")
            embed.description = text[:4096]
            return embed, None
        text += "\n\n" + await self.pairings_text(record, state)
        if state.champion is not None:
            text += f"\n\n🏆 Champion: <@{state.champion}>"
        elif state.finished:
            text += "\n\nNo champion: nobody was left in the final."
        embed.description = text[:4096]
        png = await self.picture(record, state, names, page, player)
        embed.set_image(url="attachment://tournament.png")
        return embed, discord.File(io.BytesIO(png), filename="tournament.png")

    async def picture(
        self,
        record: TournamentRecord,
        state: Tournament,
        names: Mapping[int, str],
        page: int | None = None,
        player: int | None = None,
    ) -> bytes:
        if record.format == "knockout":
            if page is None:
                page = bracket_page_of(state, player) if player is not None else 1
            return await asyncio.to_thread(render_bracket, state, names, title=record.name, page=page)
        return await asyncio.to_thread(
            render_standings, state, names, title=record.name, page=page or 1, player=player
        )

    def pages(self, record: TournamentRecord) -> int:
        """How many pages the tournament's picture has (1 before it starts)."""
        state = self.service.state_of(record)
        if state is None:
            return 1
        return bracket_pages(state) if record.format == "knockout" else standings_pages(state)

    async def pairings_text(self, record: TournamentRecord, state: Tournament) -> str:
        """The current round's tables, each with its result or a link to its match."""
        links = await self.service.tables(record.id, state.current_round)
        decided = {(r.round, r.table): r for r in state.results}
        lines = [f"**Round {state.current_round}**"]
        pairings = [p for p in state.pairings if p.round == state.current_round]
        for pairing in pairings[:LISTED]:
            if pairing.second is None:
                lines.append(f"{pairing.table}. <@{pairing.first}>: a bye")
                continue
            result = decided.get((pairing.round, pairing.table))
            players = f"<@{pairing.first}> v <@{pairing.second}>"
            if result is not None:
                won = f"<@{result.winner}> won" if result.winner is not None else "both lost"
                how = RESULT_WORDS.get(result.how, result.how)
                said = f"{how}: {result.reason}" if result.reason else how
                lines.append(f"{pairing.table}. {players}: {won}" + (f" ({said})" if said else ""))
            else:
                lines.append(
                    f"{pairing.table}. {players}: {await self.match_link(record, links.get(pairing.table))}"
                )
        if len(pairings) > LISTED:
            lines.append(f"… and {len(pairings) - LISTED} more tables (see the picture)")
        return "\n".join(lines)

    async def match_link(self, record: TournamentRecord, match_id: int | None) -> str:
        if match_id is None:
            return "starting"
        match = await self.bot.sessions.history.match(match_id)
        if match is None or match.thread_name is not None:
            # Its thread is still to open (its first board is to be shown): never "in the channel".
            return "starting"
        return f"playing in <#{match.channel_id}> (match #{match_id})"

    async def refresh(self, tournament_id: int) -> None:
        """Bring the announcement up to date with the tournament as saved (after every change, and
        when a table's thread opens)."""
        await self.redraws.redraw(tournament_id)

    async def match_placed(self, tournament_id: int, match_id: int) -> None:
        """The match's thread is open (or it is played in the channel, its thread refused): the
        announcement links it now, unless a ``show`` under way is about to draw it."""
        if match_id not in self._opening:
            await self.refresh(tournament_id)

    async def _draw(self, tournament_id: int) -> None:
        record = await self.service.get(tournament_id)
        if record.message_id is None:
            return
        embed, picture = await self.content(record)
        message = self.bot.get_partial_messageable(record.channel_id).get_partial_message(record.message_id)
        try:
            await message.edit(
                embed=embed,
                attachments=[picture] if picture is not None else [],
                view=announcement_view(record),
                allowed_mentions=NOBODY,
            )
        except discord.HTTPException as exc:
            log.info("could not update the announcement of tournament %s: %s", record.id, exc)

    async def show(self, update: Update) -> None:
        """Show what a change did: the matches it ended and started, the announcement, the champion."""
        matches = self.bot.publishers.matches
        for played in update.ended:
            if matches is not None:
                await matches.match_ended(played)
        self._opening.update(update.started)
        try:
            for match_id in update.started:
                await self.start_notice(update.record, match_id)
        finally:
            # Before the drawing: a thread opened from now on (a board tried again) asks for its own.
            self._opening.difference_update(update.started)
        await self.refresh(update.record.id)
        fresh = await self.service.get(update.record.id)
        if update.note and update.record.status == "cancelled" and update.record.message_id is None:
            return
        if fresh.status == "finished" and not fresh.announced:
            await self.announce_champion(fresh)

    async def start_notice(self, record: TournamentRecord, match_id: int) -> None:
        """The match's first board, in its thread, opened with both players and the round's deadline."""
        matches = self.bot.publishers.matches
        match = await self.bot.sessions.history.match(match_id)
        if matches is None or match is None:
            return
        first, second = match.players
        headline = (
            f"🏆 **{record.name}**: <@{first}> v <@{second}>. "
            f"Finish by {when(record.round_until)}, or the player on turn loses."
        )
        await matches.show(match_id, headline=headline)

    async def announce_champion(self, record: TournamentRecord) -> None:
        """The champion in the server's results channel (else the tournament's channel), once."""
        saved = await self.service.claim_announcement(record)
        if saved is None:
            return  # another process (or task) announces it
        state = self.service.state_of(saved)
        champion = None if state is None else state.champion
        settings = await self.bot.settings.get(record.guild_id)
        channel = settings.results_channel or record.channel_id
        text = (
            f"🏆 <@{champion}> won **{record.name}**!"
            if champion is not None
            else f"**{record.name}** is over, with no champion (nobody was left in the final)."
        )
        if record.message_id is not None:
            text += f" https://discord.com/channels/{record.guild_id}/{record.channel_id}/{record.message_id}"
        try:
            await self.bot.get_partial_messageable(channel).send(text, allowed_mentions=pings(champion))
        except discord.HTTPException as exc:
            log.info("could not announce the champion of tournament %s: %s", record.id, exc)
