"""The coach: ``/hint`` (the engine's best choices for the decision on hand, privately) and the
analysis posted after a finished match (``bot.analyses`` computes it; this cog shows it).

Thin: which games have a coach is ``engine.ai.coaches``; the hint and the analysis are computed by
the engine, in worker processes (``app.render_pool``). This cog checks who may ask, and formats what comes back.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.analyses import FileNotAnalysed, FileSource
from bot.history import NoMatchHere
from bot.session import (
    Session,
    StaleControl,
    UserError,
    check_readable,
    deciding_seat,
)
from bot.session_errors import MatchOver, NotInMatch, NotYourTurn
from bot.store import MatchRecord
from cogs.analysis_posts import AnalysisPosts, FilePosts
from cogs.analysis_words import SCALE_WORDS, signed
from cogs.board import match_label, options_text
from cogs.control_framework import NOT_RUNNING
from cogs.control_kinds import GAME, HINT, MatchPicker, PlayHintButton
from cogs.origin import check_origin
from cogs.replies import reply_privately
from engine import VARIANTS
from engine.ai.coaches import HINTS
from engine.ai.coaching import Hint, NoHintError

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

MATCH_FILE_LIMIT = 1_000_000
"""The largest match file ``/analyse`` reads (bytes): a long match's ``.mat`` is some tens of kilobytes."""


class Coach(commands.Cog):
    def __init__(self, bot: RingsideBot) -> None:
        self.bot = bot
        #: posts the analyses of finished matches (``bot.analyses`` computes them)
        self.posts = AnalysisPosts(bot)
        #: posts the analyses of match files (``/analyse file:``)
        self.files = FilePosts(bot)

    async def cog_load(self) -> None:
        self.bot.publishers.analyses = self.posts
        self.bot.publishers.files = self.files
        self.bot.controls.register(HINT, self)

    async def cog_unload(self) -> None:
        if self.bot.publishers.analyses is self.posts:
            self.bot.publishers.analyses = None
        if self.bot.publishers.files is self.files:
            self.bot.publishers.files = None
        self.bot.controls.unregister(HINT, self)

    # -- /hint ----------------------------------------------------------------------------------------

    @app_commands.command(
        name="hint",
        description="The engine's best plays (or cube decision) for your turn, shown only to you.",
    )
    async def hint(self, interaction: discord.Interaction[Any]) -> None:
        try:
            records = await self._hint_candidates(interaction)
            if len(records) > 1:
                await self._ask_which(interaction, records)
                return
            session, seat = await self._hintable(records[0].id, interaction.user.id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self._send_hint(interaction, session, seat)

    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str = ""
    ) -> None:
        """A match chosen in /hint's picker: checked again, since the position may have moved on."""
        try:
            session, seat = await self._hintable(match_id, interaction.user.id)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await self._send_hint(interaction, session, seat)

    async def _send_hint(self, interaction: discord.Interaction[Any], session: Session, seat: int) -> None:
        assert session.state is not None
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            # The engine thinks in a compute worker process, as the computer players do.
            given = await self.bot.render_pool.hint(session.variant.key, session.state.view(seat))
        except NoHintError as exc:
            await reply_privately(interaction, str(exc))
            return
        text = hint_text(given, session, drafted=bool(session.draft))
        view = play_this(given, session)
        await interaction.followup.send(text[:2000], view=view or discord.utils.MISSING, ephemeral=True)

    async def on_play_hint(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, action: str
    ) -> None:
        """**Play this** on a hint: the hinted choice is played for the player who asked, through the
        same path as a click on the board, if the match is where the hint was given; else nothing."""
        user_id = interaction.user.id
        try:
            # From the hint, in its match's place: nowhere else.
            check_origin(interaction, await self.bot.sessions.get(match_id))
            session, _ = await self._hintable(match_id, user_id)
            if session.version != version:
                raise StaleControl(POSITION_CHANGED)
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        game = self.bot.controls.get(GAME)
        if game is None:
            await reply_privately(interaction, NOT_RUNNING)
            return
        await interaction.response.defer()
        try:
            played = await self.bot.sessions.act(match_id, user_id, version, action)
        except StaleControl:
            await reply_privately(interaction, POSITION_CHANGED)
            return
        except UserError as exc:
            await reply_privately(interaction, str(exc))
            return
        await game.publish_saved(interaction, played)

    async def _hint_candidates(self, interaction: discord.Interaction[Any]) -> list[MatchRecord]:
        """The caller's matches here a hint could be for: the only one, or those waiting for them, of
        a game with hints if any is (a ``UserError`` if none waits)."""
        user_id = interaction.user.id
        history = self.bot.sessions.history
        try:
            matches = await history.in_progress_here(user_id, interaction.channel_id, interaction.guild_id)
        except NoMatchHere as none:
            raise await self._over_here(interaction) or none from None
        if len(matches) == 1:
            return list(matches)
        waiting = [m for m in matches if await self._waits_for(m, user_id)]
        if not waiting:
            raise NotYourTurn(
                "None of your matches here is waiting for you "
                f"({', '.join(f'#{m.id}' for m in matches)}): a hint is for your own decision."
            )
        return [m for m in waiting if m.game in HINTS] or waiting

    async def _ask_which(self, interaction: discord.Interaction[Any], records: list[MatchRecord]) -> None:
        """Several matches wait for the caller here: a private list of them to choose from."""
        user_id = interaction.user.id
        choices = [
            (m.id, await match_label(self.bot, self.bot.sessions.computer_ids, m, user_id)) for m in records
        ]
        view = discord.ui.View(timeout=None)
        view.add_item(MatchPicker.build("hint", choices))
        await interaction.response.send_message(
            "Several of your matches here wait for you: which one do you want a hint for?",
            view=view,
            ephemeral=True,
        )

    async def _hintable(self, match_id: int, user_id: int) -> tuple[Session, int]:
        """Match ``match_id`` and the caller's seat if a hint may be given in it now; else a
        ``UserError`` saying why not (nothing is changed either way)."""
        sessions = self.bot.sessions
        session = await sessions.get(match_id)
        record = session.record
        if session.variant.key not in HINTS:
            games = ", ".join(VARIANTS[key].title for key in sorted(HINTS) if key in VARIANTS)
            raise UserError(
                f"Hints are given for {games} only; match #{session.id} is {session.variant.title}."
            )
        state = check_readable(session)
        if record.status != "active":
            raise MatchOver(f"Match #{session.id} is over: hints are for matches in progress.")
        seat = session.seat_of(user_id)
        if seat is None:
            raise NotInMatch("You are not playing in this match.")
        against_computer = any(p in sessions.computer_ids for p in record.players)
        if record.rated and not against_computer:
            raise UserError(
                f"Match #{session.id} is rated: hints are given only in unrated matches and in matches "
                "against the computer."
            )
        if deciding_seat(state) != seat:
            raise NotYourTurn(f"It is not your turn in match #{session.id}: a hint is for your own decision.")
        return session, seat

    async def _waits_for(self, record: MatchRecord, user_id: int) -> bool:
        session = await self.bot.sessions.get(record.id)
        return session.state is not None and deciding_seat(session.state) == session.seat_of(user_id)

    async def _over_here(self, interaction: discord.Interaction[Any]) -> UserError | None:
        """Why there is no hint here when the caller's latest match here is over, else None."""
        for played in await self.bot.sessions.history.recent(interaction.user.id, 10):
            if played.channel_id == interaction.channel_id and played.status != "active":
                return MatchOver(f"Match #{played.match_id} here is over: hints are for matches in progress.")
        return None

    # -- /analyse file: a match played elsewhere --------------------------------------------------------

    @app_commands.command(
        name="analyse",
        description="Analyse a match played elsewhere: a .mat file of GNU Backgammon, eXtreme Gammon or Jellyfish.",
    )
    @app_commands.describe(file="The match file (.mat, at most 1 MB)")
    async def analyse(self, interaction: discord.Interaction[Any], file: discord.Attachment) -> None:
        game = next(
            (
                key
                for key, v in VARIANTS.items()
                if v.match_file_suffix and file.filename.lower().endswith(v.match_file_suffix)
            ),
            None,
        )
        if game is None:
            suffixes = ", ".join(
                sorted({v.match_file_suffix for v in VARIANTS.values() if v.match_file_suffix})
            )
            await reply_privately(interaction, f"{file.filename} is not a match file I read ({suffixes}).")
            return
        if file.size > MATCH_FILE_LIMIT:
            await reply_privately(
                interaction,
                f"{file.filename} is {file.size:,} bytes; match files are read up to {MATCH_FILE_LIMIT:,}.",
            )
            return
        # The file is read, then queued: the private answer says its place, and is edited as it goes.
        await interaction.response.defer(ephemeral=True, thinking=True)
        try:
            data = await file.read()
            assert interaction.channel_id is not None
            source = FileSource(
                file.filename, interaction.guild_id, interaction.channel_id, interaction.user.id
            )
            queued = await self.bot.analyses.analyse_file(game, data, source, interaction.token)
        except discord.HTTPException:
            await interaction.followup.send(
                f"{file.filename} could not be downloaded: send it again.", ephemeral=True
            )
            return
        except FileNotAnalysed as exc:
            await interaction.followup.send(f"{file.filename}: {exc}"[:2000], ephemeral=True)
            return
        line = f"{file.filename}: {queued.line}"
        more = (
            "\nThis message says how it goes; the analysis is posted in this channel." if queued.open else ""
        )
        await interaction.edit_original_response(content=line + more)
        await self.bot.analyses.answered(queued.id, line)


POSITION_CHANGED = "The position has changed since this hint: nothing was played. Ask for a new /hint."


def play_this(hint: Hint, session: Session) -> discord.ui.View | None:
    """The hint's **Play this** button (its best choice, for the match at its version now), or None:
    for a turn in progress (the hint is from the turn's start) or a choice that has no notation."""
    best = next((c for c in hint.choices if c.best), None)
    if best is None or not best.action or session.draft:
        return None
    try:
        button = PlayHintButton.build(session.id, session.version, best.action)
    except ValueError:  # a notation too long for a custom id: the hint is still given
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(button)
    return view


def hint_text(hint: Hint, session: Session, drafted: bool = False) -> str:
    """The private hint: the question, the best choices with equity and difference, the scale."""
    options = options_text(session)
    where = f"match #{session.id}" + (f", {options}" if options else "")
    lines = [f"**Hint · {hint.question}** ({where})"]
    width = max(len(c.text) for c in hint.choices)
    rows = []
    for i, choice in enumerate(hint.choices, start=1):
        mark = "best" if choice.best else signed(choice.diff)
        rows.append(
            f"{'▶' if choice.best else ' '} {i}. {choice.text:<{width}}  {signed(choice.equity)}  {mark}"
        )
    lines.append("```\n" + "\n".join(rows) + "\n```")
    if hint.total > len(hint.choices):
        lines.append(f"The best {len(hint.choices)} of {hint.total} legal plays.")
    if hint.advice:
        lines.append(hint.advice[0].upper() + hint.advice[1:] + ".")
    if hint.chances is not None:
        win, gammon, lose_gammon = hint.chances
        lines.append(
            f"Your chances before the roll: win {win:.1%}, win a gammon {gammon:.1%}, "
            f"lose a gammon {lose_gammon:.1%}."
        )
    lines.append(f"Equity: {SCALE_WORDS[hint.scale]}; engine depth {hint.level}.")
    if hint.approximate:
        lines.append(f"⚠️ This hint is {hint.approximate}.")
    if drafted:
        lines.append("From the start of your turn: the moves you have made so far are not counted.")
    return "\n".join(lines)
