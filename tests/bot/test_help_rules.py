"""``/help`` and ``/rules`` through the fake Discord, and the rules' markdown turned into pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogs.help import PAGE_LIMIT, RULES_DIR, discord_markdown, paginate, rules_pages
from fakediscord import FakeDiscord, FakeMessage
from fakediscord.matches import challenge_and_accept
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
    # Page 1 is the goal, short, with its picture: the seven ways to win.
    assert embed["description"].startswith("**The goal**") and len(embed["description"]) < 1200
    assert "9 spaces" in embed["description"] and "5 spaces in a row" in embed["description"]
    assert "## " not in embed["description"] and "![" not in embed["description"]
    assert "notation" not in embed["description"].lower()
    assert embed["image"]["url"] == "attachment://ring-goal.png"
    assert message.attachment_bytes("ring-goal.png").startswith(b"\x89PNG\r\n\x1a\n")
    shown, count = page_of(message)
    assert shown == 1 and count >= 2
    assert buttons(message)["prev"][1] and not buttons(message)["next"][1]
    texts = [embed["description"]]
    pictures: dict[int, str | None] = {}

    for expected in range(2, count + 1):
        if expected == count:  # the buttons work after a restart too
            await stop_bot(bot)
            bot = await start_bot(fake, db)
        await fake.click(alice, message, buttons(message)["next"][0], idle=True)
        message = fake.message(message)
        assert page_of(message) == (expected, count)
        pictures[expected] = message.embeds[0].get("image", {}).get("url")
        texts.append(message.embeds[0]["description"])
    assert buttons(message)["next"][1] and not buttons(message)["prev"][1]
    # Page 2 is a turn, with small pictures of what each roll does; the last holds notation and rulings.
    assert texts[1].startswith("**A turn**") and len(texts[1]) < 1200
    assert pictures[2] == "attachment://ring-turn.png"
    assert "Triples" in texts[1] and "2, 4 and 6" in texts[1] and "1, 3 and 5" in texts[1]
    assert "**Notation and rulings**" in texts[-1] and "move 2 from 7 by 3" in texts[-1]
    assert "12. A step that wins is always legal" in texts[-1]
    assert all(f"\n{n}. " in texts[-1] for n in range(1, 13))
    assert not any("Notation" in t for t in texts[:-1]) and pictures[count] is None
    assert all(len(t) <= PAGE_LIMIT for t in texts)

    for expected in range(count - 1, 0, -1):
        await fake.click(alice, message, buttons(message)["prev"][0], idle=True)
        message = fake.message(message)
        assert page_of(message) == (expected, count)
        assert message.embeds[0]["description"] == texts[expected - 1]
    assert buttons(message)["prev"][1] and not buttons(message)["next"][1]
    assert message.attachment_bytes("ring-goal.png").startswith(b"\x89PNG")
    fake.assert_clean()
    await stop_bot(bot)


@pytest.mark.asyncio
async def test_the_rules_button_on_a_board_opens_the_rules_privately(
    fake: FakeDiscord, tmp_path: Path
) -> None:
    db = tmp_path / "db.sqlite3"
    bot = await start_bot(fake, db)
    alice, bob, carol = (fake.add_user(n) for n in ("alice", "bob", "carol"))
    board = await challenge_and_accept(fake, alice, bob)
    rules_id = next(b.custom_id for b in board.buttons if b.label == "Rules")
    assert rules_id == "rules:ring"
    await stop_bot(bot)
    bot = await start_bot(fake, db)  # the button works after a restart, for anyone, privately
    before = len(fake.messages_in(board.channel_id))
    opened = await fake.click(carol, board, rules_id, idle=True)
    assert opened.ephemeral and opened.message is not None
    page = opened.message
    assert page.embeds[0]["title"] == "Ring: the rules" and page.embeds[0]["description"].startswith(
        "**The goal**"
    )
    assert page_of(page)[0] == 1 and page.attachment_bytes("ring-goal.png").startswith(b"\x89PNG")
    await fake.click(carol, page, buttons(page)["next"][0], idle=True)
    page = fake.message(page)
    assert page_of(page)[0] == 2 and page.embeds[0]["description"].startswith("**A turn**")
    # The board itself is unchanged: no public message, same controls.
    assert len([m for m in fake.messages_in(board.channel_id) if not m.ephemeral]) <= before
    assert "Rules" in [b.label for b in fake.message(board).buttons]
    fake.assert_clean()
    await stop_bot(bot)


def test_page_breaks_and_pictures_make_the_pages() -> None:
    text = "# G\n\n![goal](g-goal.png)\n\n## Goal\n\nwin\n\n---\n\n## Turn\n\nroll\n\n---\n\n## Notes\n\nn\n"
    pages = rules_pages(text)
    assert [(p.text, p.picture) for p in pages] == [
        ("**Goal**\nwin", "g-goal.png"),
        ("**Turn**\nroll", None),
        ("**Notes**\nn", None),
    ]
    assert pages[0].description == "goal"


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
        pages = rules_pages(entry.read_text(encoding="utf-8"))
        assert pages and all(0 < len(p.text) <= PAGE_LIMIT for p in pages), entry.name
        for page in pages:  # every picture a page names ships beside it
            assert page.picture is None or (RULES_DIR / page.picture).is_file(), page.picture
