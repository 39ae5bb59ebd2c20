"""The README leads and the documentation holds together: the README is short and starts with the
two commands CI runs, every relative link of the README and of ``docs/`` reaches a file (and a
heading, when it names one), every slash command they name is one the bot has, and the board
picture in the README is the one the renderer draws.

Anchors follow GitHub's rules: a heading's text as shown (code spans, links and emphasis reduced to
their words), lower-cased, with every character that is not a letter, a digit, a space, a hyphen or
an underscore removed and each space made a hyphen; a second heading of the same text gets ``-1``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from discord import app_commands

from fakediscord import FakeDiscord
from render.__main__ import main as render_main
from tests.support import start_bot, stop_bot

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
USER_GUIDE = ROOT / "docs" / "user-guide.md"
PAGES = sorted([README, *(ROOT / "docs").rglob("*.md")])
PICTURE = ROOT / "docs" / "img" / "backgammon-hits-and-bar.png"
"""The README's board: ``python -m render sample --game backgammon --only hits-and-bar --out docs/img``."""

FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.I)
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def without_code_blocks(text: str) -> str:
    """The text with its fenced code blocks blanked out (their lines kept, so nothing joins up)."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def prose(text: str) -> str:
    """The text outside fenced code blocks and code spans: where links and headings are."""
    return CODE_SPAN.sub(" ", without_code_blocks(text))


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading's markdown text (before numbering a repeated one)."""
    shown = CODE_SPAN.sub(lambda m: m.group(2).strip(), heading)
    shown = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", shown)  # a link shows its text
    shown = re.sub(r"<[^>]+>", "", shown)  # inline HTML shows nothing of its tags
    shown = re.sub(r"(\*+|(?<!\w)_+|_+(?!\w))", "", shown)  # emphasis marks
    kept = "".join(ch for ch in shown.lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor a link may name on ``page``: its headings' (repeats numbered) and HTML ones."""
    text = without_code_blocks(page.read_text(encoding="utf-8"))
    found: set[str] = set()
    seen: dict[str, int] = {}
    for match in HEADING.finditer(text):
        slug = anchor(match.group(2))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    found.update(HTML_ANCHOR.findall(text))
    return found


def links(page: Path) -> list[str]:
    """The targets of the page's inline links and images and of its link reference definitions."""
    text = prose(page.read_text(encoding="utf-8"))
    return LINK.findall(text) + REFERENCE.findall(text)


def test_the_anchors_are_githubs() -> None:
    assert anchor("Settings (`.env`)") == "settings-env"
    assert anchor("Backups: `python -m bot backup FILE`") == "backups-python--m-bot-backup-file"
    assert anchor("Help, rules and the bot's status") == "help-rules-and-the-bots-status"
    assert anchor("Logs: `LOG_FORMAT=json`") == "logs-log_formatjson"
    assert anchor("**Ratings** and [stats](x.md)") == "ratings-and-stats"


def test_the_readme_leads_in_under_150_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < 150, f"README.md has {len(lines)} lines: move the detail into docs/"


def test_the_readme_starts_with_the_commands_that_run_the_bot_and_the_tests() -> None:
    text = README.read_text(encoding="utf-8")
    top = text.split("\n## ", 1)[0]
    blocks = re.findall(r"^```sh\n(.*?)^```", top, re.M | re.S)
    assert len(blocks) >= 2, "the README's top lost its two commands"
    run, test = (block.strip() for block in blocks[:2])
    assert run.startswith("python3 -m venv .venv") and run.endswith(".venv/bin/python -m bot"), run
    assert "pip install -e ." in run and "cp -n .env.example .env" in run, run
    assert "DISCORD_TOKEN" in top and (ROOT / ".env.example").is_file()
    assert test.startswith("python3 -m venv .venv") and test.endswith(".venv/bin/python -m pytest"), test
    # CI installs the project as the README's test command does (.ci/run: "README: set up and run").
    install = "pip install -e '.[test]'"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("--quiet ", "")
    assert install in test and install in ci, "the README's test command and .ci/run install differently"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path) -> None:
    broken: list[str] = []
    for target in links(page):
        if SCHEME.match(target):
            continue  # https:, mailto: ... are not the repository's
        path, _, fragment = target.partition("#")
        reached = (page.parent / path).resolve() if path else page
        if not reached.exists() or not reached.is_relative_to(ROOT):
            broken.append(f"{target}: no such file")
        elif fragment and reached.suffix == ".md" and fragment not in anchors(reached):
            broken.append(f"{target}: no heading #{fragment} in {reached.relative_to(ROOT)}")
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_the_link_check_sees_the_links() -> None:
    """The checks above read what they should: a page with a link of each kind, and one that fails."""
    readme_links = links(README)
    assert "docs/user-guide.md#challenging-someone" in readme_links
    assert "docs/img/backgammon-hits-and-bar.png" in readme_links
    assert "challenging-someone" in anchors(USER_GUIDE) and "deploying" in anchors(
        ROOT / "docs" / "operations.md"
    )
    assert not any(
        target.startswith("https://discord.com/oauth2") for target in links(ROOT / "docs" / "operations.md")
    )


def slash_commands_named(page: Path) -> set[str]:
    """The commands a page names, ``/name`` or ``/group sub``, in code spans and in its prose."""
    text = without_code_blocks(page.read_text(encoding="utf-8"))
    named: set[str] = set()
    for span in CODE_SPAN.finditer(text):
        words = span.group(2).strip().split()
        if words and re.fullmatch(r"/[a-z_]+", words[0]):
            second = words[1] if len(words) > 1 and re.fullmatch(r"[a-z_]+", words[1]) else ""
            named.add(f"{words[0][1:]} {second}".strip())
    for word in re.findall(r"(?<![\w/.:<`-])/([a-z_]+)\b(?![/.\w])", prose(text)):
        named.add(word)
    return named


@pytest.mark.asyncio
async def test_every_slash_command_the_readme_and_the_guide_name_is_the_bots(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    groups: dict[str, set[str]] = {}
    for command in bot.tree.get_commands():
        groups[command.name] = set()
        if isinstance(command, app_commands.Group):
            groups[command.name] = {sub.name for sub in command.walk_commands()}
    await stop_bot(bot)
    assert {"challenge", "board", "tournament"} <= set(groups), sorted(groups)
    for page in (README, USER_GUIDE):
        named = slash_commands_named(page)
        assert "challenge" in named, f"{page.name}: the check found no /challenge"
        unknown = []
        for name in sorted(named):
            top, _, sub = name.partition(" ")
            # A word after a plain command is an option's value, after a group its subcommand.
            if top not in groups or (sub and groups[top] and sub not in groups[top]):
                unknown.append(f"/{name}")
        assert not unknown, f"{page.name} names commands the bot does not have: {unknown}"
    # The user guide is the full tour: it names every command the bot has.
    missing = set(groups) - {name.partition(" ")[0] for name in slash_commands_named(USER_GUIDE)}
    assert not missing, f"docs/user-guide.md does not say what these do: {sorted(missing)}"


def test_the_readme_picture_is_what_the_renderer_draws(tmp_path: Path) -> None:
    assert (
        render_main(["sample", "--game", "backgammon", "--only", "hits-and-bar", "--out", str(tmp_path)]) == 0
    )
    drawn = (tmp_path / PICTURE.name).read_bytes()
    assert drawn == PICTURE.read_bytes(), (
        "redraw it: python -m render sample --game backgammon --only hits-and-bar --out docs/img"
    )
