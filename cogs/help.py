"""``/help`` and ``/rules``: what the bot does, its commands, and each game's rules in pages.

The rules come from ``cogs/rules/<game>.md`` (package data, read through importlib.resources so an
installed bot finds them), read once and converted lightly for Discord. Long rules
are paged with Prev / Next buttons whose custom id (``rules:<game>:<page>``) names the page to show,
so they keep working after a restart. A line ``---`` in a rules file starts a new page; a picture
line ``![what it shows](<game>-x.png)`` puts that picture (a file beside the rules) on its page.
A page 1 without a picture shows the starting position, drawn. The **Rules** button on a board
(``rules:<game>``) opens page 1 privately.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.control_kinds import RULES, OpenRulesButton, RulesButton
from cogs.panels import PANELS
from cogs.panels.base import HandPanel
from cogs.replies import reply_privately
from engine import VARIANTS, UnknownVariantError, find_variant
from engine.ai.coaches import HINTS
from engine.protocol import Variant
from kits import KITS
from render import render_board

if TYPE_CHECKING:
    from app.client import RingsideBot

log = logging.getLogger(__name__)

HANDS_HELP = (
    "In games with secret hands, **My hand** on the board shows you your cards, privately, and keeps "
    "itself current for 15 minutes. When your opponent's move lets you answer (a response window) you "
    "are mentioned, once per turn of theirs: answer from **My hand**, or do nothing and the window "
    "passes by itself after this server's wait (`/settings`). **Always pass in this match** "
    "there passes this window and every later one at once, whatever you hold; **Ask me in windows** "
    "(in **My hand**) goes back. Nothing of this tells your opponent what you hold."
)
"""The /help field on hands and response windows, shown while a registered game has hands."""

RULES_DIR: Traversable = resources.files("cogs") / "rules"
PAGE_LIMIT = 3500  # characters of one rules page (an embed description holds 4096)
HELP_LIMIT = 4096
PICTURE = "start.png"
COLOUR = 0x2F7D4A

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_IMAGE_LINE = re.compile(r"^\s*!\[[^\]]*\]\([^)]*\)\s*$")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)[^)]*\)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_FENCE = re.compile(r"^\s*(```|~~~)")
_PAGE_BREAK = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_PICTURE = re.compile(r"^\s*!\[(?P<alt>[^\]]*)\]\((?P<target>[^)\s]+)[^)]*\)\s*$")


# -- markdown for Discord ----------------------------------------------------------------------------


def _link(match: re.Match[str]) -> str:
    text, target = match[1], match[2]
    # Relative links (to other docs or pictures) mean nothing in Discord: keep their text.
    return match[0] if target.startswith(("http://", "https://")) else text


def _joins(previous: str, line: str) -> bool:
    """Whether ``line`` goes on with the paragraph or list item of ``previous`` (a hard wrap)."""
    if not previous.strip() or _FENCE.match(previous) or previous.lstrip().startswith(("|", ">")):
        return False
    return not (_LIST_ITEM.match(line) or line.lstrip().startswith(("|", ">")))


def discord_markdown(text: str) -> list[tuple[str | None, str]]:
    """``text`` as Discord shows it, cut into sections: ``(heading or None, body)``.

    Headings become bold lines (the top ``#`` title is dropped: the embed has a title), image lines are
    dropped, relative links keep only their text, and the hard-wrapped lines of a paragraph or list
    item are joined (Discord would show every line break).
    """
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    in_fence = False
    for raw in text.splitlines():
        line = raw.rstrip()
        lines = sections[-1][1]
        if _FENCE.match(line):
            in_fence = not in_fence
            lines.append(line)
            continue
        if in_fence:
            lines.append(line)
            continue
        heading = _HEADING.match(line)
        if heading:
            level, title = len(heading[1]), heading[2]
            if level == 1:
                continue
            if level == 2:
                sections.append((title, []))
            else:
                lines += ["", f"**{title}**", ""]
            continue
        if _IMAGE_LINE.match(line):
            continue
        line = _LINK.sub(_link, _IMAGE.sub("", line))
        if not line.strip():
            lines.append("")
        elif lines and _joins(lines[-1], line):
            lines[-1] = f"{lines[-1]} {line.strip()}"
        else:
            lines.append(line)
    out: list[tuple[str | None, str]] = []
    for title, lines in sections:
        body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
        if title is not None or body:
            out.append((title, body))
    return out


def _pieces(text: str, limit: int) -> list[str]:
    """``text`` cut into pieces of at most ``limit`` characters: at paragraphs, then lines, then hard."""
    if len(text) <= limit:
        return [text]
    for separator in ("\n\n", "\n", " "):
        parts = text.split(separator)
        if len(parts) > 1:
            break
    else:
        return [text[i : i + limit] for i in range(0, len(text), limit)]
    pieces: list[str] = []
    current = ""
    for part in parts:
        for chunk in _pieces(part, limit):
            joined = f"{current}{separator}{chunk}" if current else chunk
            if len(joined) <= limit:
                current = joined
            else:
                pieces.append(current)
                current = chunk
    if current:
        pieces.append(current)
    return pieces


def paginate(text: str, limit: int = PAGE_LIMIT) -> list[str]:
    """The rules in pages of at most ``limit`` characters, whole sections together where they fit."""
    pages: list[str] = []
    current = ""
    for title, body in discord_markdown(text):
        block = f"**{title}**\n{body}".strip() if title is not None else body
        for piece in _pieces(block, limit):
            joined = f"{current}\n\n{piece}" if current else piece
            if len(joined) <= limit:
                current = joined
            else:
                pages.append(current)
                current = piece
    if current or not pages:
        pages.append(current)
    return pages


@dataclass(frozen=True, slots=True)
class RulesPage:
    """One page of a game's rules: its text, and the picture file shown with it (if any)."""

    text: str
    picture: str | None = None
    description: str = ""


def _chunks(text: str) -> list[str]:
    """``text`` cut at its page breaks (``---`` lines outside code blocks)."""
    chunks: list[list[str]] = [[]]
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        if not in_fence and _PAGE_BREAK.match(line):
            chunks.append([])
        else:
            chunks[-1].append(line)
    return ["\n".join(lines) for lines in chunks if any(line.strip() for line in lines)]


def rules_pages(text: str, limit: int = PAGE_LIMIT) -> list[RulesPage]:
    """The rules in pages: each part between page breaks starts a page (a long part goes on over
    several), and the first picture of a part is shown on its first page."""
    pages: list[RulesPage] = []
    for chunk in _chunks(text) or [""]:
        picture = next((m for m in map(_PICTURE.match, chunk.splitlines()) if m), None)
        for index, page in enumerate(paginate(chunk, limit)):
            if index == 0 and picture is not None and "/" not in picture["target"]:
                pages.append(RulesPage(page, picture["target"], picture["alt"]))
            else:
                pages.append(RulesPage(page))
    return pages


# -- the persistent page buttons --------------------------------------------------------------------


ROW_WIDTH = 5
"""How much of a row Discord's items fill: a button takes 1, a select all 5."""


def laid_out(view: discord.ui.View) -> dict[int, int]:
    """The row of each of ``view``'s items (by ``id``) as discord.py lays them out, from what they say
    of themselves: an item with a ``row`` goes there, any other fills the first row with room for its
    ``width``, in the order they were added (items that fit nowhere are left out)."""
    filled = [0] * ROW_WIDTH
    rows: dict[int, int] = {}
    for item in view.children:
        row = item.row
        if row is None:
            row = next((i for i, taken in enumerate(filled) if taken + item.width <= ROW_WIDTH), None)
        if row is None or not 0 <= row < ROW_WIDTH:
            continue
        filled[row] += item.width
        rows[id(item)] = row
    return rows


def add_rules_button(view: discord.ui.View, game: str) -> None:
    """Put **Rules** on ``view``: on a row of its own after the game's controls (on the last row when
    the game uses all five and it has room)."""
    button = OpenRulesButton.build(game)
    placed = laid_out(view)
    last = max(placed.values(), default=None)
    if last is None:
        button.row = None
    else:
        on_last = [item for item in view.children if placed.get(id(item)) == last]
        room = sum(item.width for item in on_last) < 5 and not any(
            isinstance(getattr(item, "item", item), discord.ui.Select) for item in on_last
        )
        button.row = last if last == 4 and room else min(last + 1, 4)
    view.add_item(button)


def rules_view(game: str, page: int, count: int) -> discord.ui.View | None:
    if count <= 1:
        return None
    view = discord.ui.View(timeout=None)
    back = RulesButton.build(game, page - 1, "◀ Prev")
    back.item.disabled = page <= 1
    forward = RulesButton.build(game, page + 1, "Next ▶")
    forward.item.disabled = page >= count
    view.add_item(back)
    view.add_item(forward)
    return view


# -- the cog ----------------------------------------------------------------------------------------


class Help(commands.Cog):
    def __init__(self, bot: RingsideBot, rules_dir: Traversable = RULES_DIR) -> None:
        self.bot = bot
        self.rules_dir = rules_dir
        self._pages: dict[str, list[RulesPage]] = {}
        self._pictures: dict[str, bytes | None] = {}
        self._files: dict[str, bytes | None] = {}

    async def cog_load(self) -> None:
        self.bot.controls.register(RULES, self)

    async def cog_unload(self) -> None:
        self.bot.controls.unregister(RULES, self)

    # -- /help ---------------------------------------------------------------------------------------

    def command_lines(self) -> list[str]:
        """One line per slash command the bot has, with its description."""
        lines: list[str] = []
        for command in sorted(self.bot.tree.get_commands(), key=lambda c: c.name):
            if isinstance(command, app_commands.Group):
                lines += [
                    f"`/{sub.qualified_name}` — {sub.description}"
                    for sub in command.walk_commands()
                    if isinstance(sub, app_commands.Command)
                ]
            elif isinstance(command, app_commands.Command):
                lines.append(f"`/{command.name}` — {command.description}")
        return lines

    def help_embed(self) -> discord.Embed:
        games = ", ".join(f"**{v.title}**" for _, v in sorted(VARIANTS.items()))
        intro = (
            "I run backgammon-family board games in Discord: challenge someone (or me), then play with "
            f"the buttons under a picture of the board. Games: {games}."
        )
        commands_text = "\n".join(self.command_lines())
        description = f"{intro}\n\n**Commands**\n{commands_text}"
        if len(description) > HELP_LIMIT:
            description = description[: HELP_LIMIT - 1] + "…"
        embed = discord.Embed(title="How this bot works", description=description, colour=COLOUR)
        embed.add_field(
            name="How to play",
            value=(
                "1. `/challenge` someone (or me, to play the computer; `level` easy, medium, hard, or expert in backgammon); they "
                "click **Accept**. Games played "
                "as matches take `length` (points to win; backgammon `length:0` is a money game, with `jacoby`, "
                "`beavers`, `automatic` and `limit`; `position` starts from a GNU Backgammon ID or XGID, unrated; "
                "`clock:2m+12s` plays with a live clock; `tutor:true` warns each player privately of an error "
                "before it is final, unrated), games with several rule sets take `rules`.\n"
                "2. Play with the buttons under the board, or type a move with `/move`; `/board` shows it "
                "again, `/position` gives its codes for other programs, `/resign` gives up."
            ),
            inline=False,
        )
        coached = [VARIANTS[key].title for key in sorted(HINTS) if key in VARIANTS]
        if coached:
            embed.add_field(
                name="Hints and analysis",
                value=(
                    f"{', '.join(coached)}: `/hint` on your turn shows only you the engine's best plays or "
                    "cube decision (in unrated matches and against me). Every finished match gets an "
                    "analysis under its result: error rate (PR), mistakes, luck and a chart; **Review** "
                    "(or `/review`) pages through every costly decision, `/stats` shows your PR, and "
                    "`/analyse file:` analyses a `.mat` file played elsewhere. `/preferences`: auto-roll, "
                    "confirm automatically, tutor."
                ),
                inline=False,
            )
        embed.add_field(
            name="Tournaments",
            value=(
                "`/tournament create` (Manage Server or the organiser role of `/settings`) posts a "
                "knockout or Swiss event; players press **Join** (or **Leave**) and an organiser "
                "**Start**. Each match is played in its own thread by the round's deadline; "
                "`/tournament show` gives the bracket or standings."
            ),
            inline=False,
        )
        hands = [v.title for k, v in sorted(VARIANTS.items()) if isinstance(PANELS.get(k), HandPanel)]
        if hands:
            embed.add_field(name="Secret hands and response windows", value=HANDS_HELP, inline=False)
        written = [
            f"**{v.title}**: {v.notation_help}" for _, v in sorted(VARIANTS.items()) if v.notation_help
        ]
        if written:
            embed.add_field(name="Typing moves (/move)", value="\n".join(written)[:1024], inline=False)
        embed.set_footer(text="The rules of a game: /rules")
        return embed

    @app_commands.command(name="help", description="What this bot does and its commands.")
    async def help_command(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(embed=self.help_embed(), ephemeral=True)

    # -- /rules --------------------------------------------------------------------------------------

    def rules_pages(self, game: str) -> list[RulesPage] | None:
        """The pages of ``game``'s rules (read once), ``None`` when it has no rules file."""
        pages = self._pages.get(game)
        if pages is None:
            kit = KITS.get(game)
            if kit is None:
                return None
            entry = self.rules_dir / kit.rules_page
            if not entry.is_file():
                return None
            pages = self._pages[game] = rules_pages(entry.read_text(encoding="utf-8"))
        return pages

    def picture_file(self, name: str) -> bytes | None:
        """A picture beside the rules files (read once), ``None`` when it is missing."""
        if name not in self._files:
            entry = self.rules_dir / name
            self._files[name] = entry.read_bytes() if entry.is_file() else None
            if self._files[name] is None:
                log.warning("the rules name a picture that is not there: %s", name)
        return self._files[name]

    def start_picture(self, variant: Variant) -> bytes | None:
        """The starting position as PNG bytes (drawn once), ``None`` when it cannot be drawn."""
        if variant.key not in self._pictures:
            try:
                self._pictures[variant.key] = render_board(variant.new_game().view(None))
            except Exception as exc:
                log.warning("no starting picture for %s: %s", variant.key, exc)
                self._pictures[variant.key] = None
        return self._pictures[variant.key]

    def rules_page(
        self, variant: Variant, pages: list[RulesPage], page: int
    ) -> tuple[discord.Embed, discord.File | None, discord.ui.View | None]:
        page = min(max(page, 1), len(pages))
        shown = pages[page - 1]
        embed = discord.Embed(title=f"{variant.title}: the rules", description=shown.text, colour=COLOUR)
        if len(pages) > 1:
            embed.set_footer(text=f"Page {page}/{len(pages)}")
        if shown.picture is not None:
            name, picture, description = shown.picture, self.picture_file(shown.picture), shown.description
        elif page == 1:
            name, picture, description = PICTURE, self.start_picture(variant), "The starting position"
        else:
            picture = None
        file = None
        if picture is not None:
            file = discord.File(io.BytesIO(picture), filename=name, description=description or None)
            embed.set_image(url=f"attachment://{name}")
        return embed, file, rules_view(variant.key, page, len(pages))

    def _find(self, name: str) -> tuple[Variant, list[RulesPage]] | str:
        """The game and its rules pages, or what to tell the user."""
        try:
            variant = find_variant(name)
        except UnknownVariantError as exc:
            return str(exc)
        pages = self.rules_pages(variant.key)
        if pages is None:
            return f"There are no written rules for **{variant.title}** yet."
        return variant, pages

    @app_commands.command(name="rules", description="The rules of a game, with its starting position.")
    @app_commands.describe(game="The game whose rules you want")
    async def rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        await self.send_rules(interaction, game)

    async def send_rules(self, interaction: discord.Interaction[Any], game: str) -> None:
        """Page 1 of ``game``'s rules, privately (``/rules`` and the **Rules** button on a board)."""
        found = self._find(game)
        if isinstance(found, str):
            await reply_privately(interaction, found)
            return
        variant, pages = found
        embed, file, view = self.rules_page(variant, pages, 1)
        await interaction.response.send_message(
            embed=embed,
            file=file or discord.utils.MISSING,
            view=view or discord.utils.MISSING,
            ephemeral=True,
        )

    @rules.autocomplete("game")
    async def game_names(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        typed = current.strip().lower()
        return [
            app_commands.Choice(name=f"{v.title} ({key})", value=key)
            for key, v in sorted(VARIANTS.items())
            if typed in key or typed in v.title.lower()
        ][:25]

    async def on_rules_page(self, interaction: discord.Interaction[Any], game: str, page: int) -> None:
        """Prev / Next: the rules page shown becomes the one asked for. Only a page of these rules
        is turned (a private message carrying their page buttons: also a copy of it that has moved
        on since, whose old button leads to the page it names); anything else, say a board that a
        forged id was sent from, is left as it is."""
        found = self._find(game)
        if isinstance(found, str):
            await reply_privately(interaction, found)
            return
        variant, pages = found
        message = interaction.message
        if (
            message is None
            or not message.flags.ephemeral
            or not any(shown["game"] == game for shown in RulesButton.found_on(message))
        ):
            await reply_privately(
                interaction,
                f"That button turns the pages of the rules of {variant.title}, and this message is not "
                "one of them: nothing was changed. `/rules` shows them.",
            )
            return
        if not 1 <= page <= len(pages):
            await reply_privately(
                interaction,
                f"The rules of {variant.title} have {len(pages)} pages: there is no page {page}. "
                "Nothing was changed.",
            )
            return
        embed, file, view = self.rules_page(variant, pages, page)
        await interaction.response.edit_message(
            embed=embed, attachments=[file] if file is not None else [], view=view
        )


#: The rules pages' persistent controls, registered with the others at start-up (``app.client``).
