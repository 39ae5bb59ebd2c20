"""``/help`` and ``/rules`` through the fake Discord, and the rules' markdown turned into pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogs.help import PAGE_LIMIT, RULES_DIR, discord_markdown, paginate
from fakediscord import FakeDiscord, FakeMessage
from tests.support import start_bot, stop_bot


def page_of(message: FakeMessage) -> tuple[int, int]:
    footer = message.embeds[0]["footer"]["text"]
    shown, count = footer.removeprefix("Page ").split("/")
    return int(shown), int(count)


def buttons(message: FakeMessage) -> dict[str, tuple[str, bool]]:
    """Prev / Next: custom id and whether it is disabled."""
    found = {}
    for button in message.buttons:
        assert button.label is not None and button.custom_id is not None
        found["prev" if "Prev" in button.label else "next"] = (button.custom_id, button.disabled)
    return found


@pytest.mark.asyncio
async def test_help_lists_the_commands_the_bot_has(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "help")
    assert result.ephemeral and result.message is not None
    embed = result.message.embeds[0]
    for command in ("challenge", "board", "resign", "rules", "help"):
        assert f"`/{command}`" in embed["description"], command
    # Each command's own description is shown, so the list stays true as commands are added.
    assert "Challenge someone (or me) to a game." in embed["description"]
    how = " ".join(f["value"] for f in embed["fields"])
    assert "/challenge" in how and "Accept" in how and "/board" in how and "/resign" in how
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_rules_of_ring_page_through_and_back(fake: FakeDiscord, tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice = fake.add_user("alice")
    result = await fake.slash(alice, "rules", {"game": "ring"})
    assert result.ephemeral and result.message is not None
    message = result.message
    embed = message.embeds[0]
    assert embed["title"] == "Ring: the rules"
    assert "**The board and the pieces**" in embed["description"]
    assert "## " not in embed["description"] and "![" not in embed["description"]
    assert embed["image"]["url"] == "attachment://start.png"
    assert message.attachment_bytes("start.png").startswith(b"\x89PNG\r\n\x1a\n")
    shown, count = page_of(message)
    assert shown == 1 and count >= 2
    assert buttons(message)["prev"][1] and not buttons(message)["next"][1]
    texts = [embed["description"]]

    for expected in range(2, count + 1):
        if expected == count:  # the buttons work after a restart too
            await stop_bot(bot)
            bot = await start_bot(fake, db)
        await fake.click(alice, message, buttons(message)["next"][0], idle=True)
        message = fake.message(message)
        assert page_of(message) == (expected, count)
        assert not message.attachments and "image" not in message.embeds[0]
        texts.append(message.embeds[0]["description"])
    assert buttons(message)["next"][1] and not buttons(message)["prev"][1]
    assert "**Notation**" in texts[-1]
    assert all(len(t) <= PAGE_LIMIT for t in texts)

    for expected in range(count - 1, 0, -1):
        await fake.click(alice, message, buttons(message)["prev"][0], idle=True)
        message = fake.message(message)
        assert page_of(message) == (expected, count)
        assert message.embeds[0]["description"] == texts[expected - 1]
    assert buttons(message)["prev"][1] and not buttons(message)["next"][1]
    assert message.attachment_bytes("start.png").startswith(b"\x89PNG")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_rules_of_an_unknown_game_are_refused(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice = fake.add_user("alice")
    unknown = await fake.slash(alice, "rules", {"game": "chess"})
    assert unknown.ephemeral and unknown.message is not None
    assert "no game called “chess”" in unknown.message.content and "Ring (ring)" in unknown.message.content
    choices = await fake.autocomplete(alice, "rules", {"game": "ri"}, focused="game")
    assert choices.choices == [{"name": "Ring (ring)", "value": "ring"}]
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_a_game_without_a_rules_file_says_so(fake: FakeDiscord, tmp_path: Path) -> None:
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    cog = bot.get_cog("Help")
    assert cog is not None
    cog.rules_dir = tmp_path  # type: ignore[attr-defined]
    alice = fake.add_user("alice")
    missing = await fake.slash(alice, "rules", {"game": "ring"})
    assert missing.ephemeral and missing.message is not None
    assert "no written rules for **Ring** yet" in missing.message.content
    fake.assert_clean()
    await stop_bot(bot)


def test_markdown_is_converted_lightly_for_discord() -> None:
    text = (
        "# Game\n\nIntro that is\nwrapped.\n\n![picture](x.png)\n\n## First\n\n- one item\n  continued\n"
        "   - nested\n1. numbered\n\nSee [the rules](other.md) and [site](https://example.com).\n"
        "### Detail\n\n```\nkeep\nlines\n```\n## Second\n\n| a | b |\n| - | - |\n"
    )
    sections = discord_markdown(text)
    assert sections[0] == (None, "Intro that is wrapped.")
    title, body = sections[1]
    assert title == "First"
    assert "- one item continued\n   - nested\n1. numbered" in body
    assert "See the rules and [site](https://example.com)." in body
    assert "**Detail**" in body and "```\nkeep\nlines\n```" in body
    assert sections[2] == ("Second", "| a | b |\n| - | - |")


def test_long_sections_are_split_at_paragraphs() -> None:
    paragraph = "word " * 60  # 300 characters
    text = "## One\n\n" + "\n\n".join(paragraph.strip() for _ in range(5)) + "\n\n## Two\n\nshort\n"
    pages = paginate(text, limit=700)
    assert all(len(p) <= 700 for p in pages)
    assert pages[0].startswith("**One**") and pages[-1].endswith("**Two**\nshort")
    assert len(pages) == 3
    assert all(not p.startswith("\n") and not p.endswith("\n") for p in pages)


def test_every_rules_file_pages_within_the_limit() -> None:
    files = sorted((e for e in RULES_DIR.iterdir() if e.name.endswith(".md")), key=lambda e: e.name)
    assert files
    for entry in files:
        pages = paginate(entry.read_text(encoding="utf-8"))
        assert pages and all(0 < len(p) <= PAGE_LIMIT for p in pages), entry.name
