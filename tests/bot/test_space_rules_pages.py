"""The space rules: ``docs/rules/space.md`` is the full document, the bot's ``/rules`` page
(``cogs/rules/space.md``) is made of its paragraphs, and every card is there with the engine's text."""

from __future__ import annotations

from pathlib import Path

from cogs.help import RULES_DIR, rules_pages
from engine.space.cards import CARDS, Timing

ROOT = Path(__file__).resolve().parent.parent.parent
DOCS = ROOT / "docs" / "rules" / "space.md"


def paragraphs(text: str) -> list[str]:
    """The blocks of ``text`` between blank lines, without page breaks and picture lines."""
    blocks = [b.strip() for b in text.split("\n\n")]
    return [b for b in blocks if b and b != "---" and not b.startswith("![")]


def test_the_bot_page_is_made_of_paragraphs_of_the_full_document() -> None:
    full = DOCS.read_text(encoding="utf-8")
    page = (RULES_DIR / "space.md").read_text(encoding="utf-8")
    missing = [p for p in paragraphs(page) if p not in paragraphs(full)]
    assert not missing, f"edit docs/rules/space.md and copy: {missing[0][:200]}"
    # Everything a player needs is on the bot's page: only the notes for developers are left out.
    left_out = [p for p in paragraphs(full) if p not in paragraphs(page)]
    assert left_out and left_out[0] == "## Notes for developers"


def test_every_card_is_listed_with_the_engines_text() -> None:
    page = (RULES_DIR / "space.md").read_text(encoding="utf-8")
    for card in CARDS:
        assert f"- **{card.name}**: {card.text}" in page, card.name
    assert len(CARDS) == 25


def test_cards_are_grouped_by_when_they_are_played() -> None:
    page = (RULES_DIR / "space.md").read_text(encoding="utf-8")
    attack = page.index("**Fight, attacking**")
    defend = page.index("**Fight, defending**")
    for card in CARDS:
        where = page.index(f"**{card.name}**:")
        if card.timing is Timing.ATTACK:
            assert attack < where < defend
        if card.timing is Timing.DEFENSE:
            assert defend < where


def test_the_pictures_of_both_pages_are_the_same_and_ship_with_the_bot() -> None:
    pages = rules_pages((RULES_DIR / "space.md").read_text(encoding="utf-8"))
    pictures = [p.picture for p in pages if p.picture]
    assert pictures == ["space-start.png"]
    assert (RULES_DIR / "space-start.png").read_bytes() == (DOCS.parent / "space-start.png").read_bytes()
