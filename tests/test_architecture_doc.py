"""docs/architecture.md is the map of the product: every module of ``app``, ``bot``, ``cogs``,
``engine``, ``kits`` and ``render`` is named on it.

A module counts as named when a span in backticks is its path or the end of it, with or without
``.py``, in slashes or dots (``engine/backgammon/plays.py``, ``backgammon/plays``, ``plays``,
``engine.backgammon.plays``), or begins with its dotted name (``cogs.board.turn_picture``); a package
(its ``__init__.py``) by its folder (``jobs/``), and a ``__main__.py`` by its ``python -m``. A bare
name is enough where the page lists a package's modules (``ring/`` (``rules``, ``state``, ...)).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
PRODUCT = ("app", "bot", "cogs", "engine", "kits", "render")


def product_modules() -> list[Path]:
    return sorted(p.relative_to(ROOT) for package in PRODUCT for p in (ROOT / package).rglob("*.py"))


def named_spans(text: str) -> set[str]:
    """Every span in backticks, each word of it, and each dotted word's leading names."""
    spans: set[str] = set()
    for span in re.findall(r"`([^`\n]+)`", text):
        for word in {span.strip(), *re.split(r"[\s,()]+", span)}:
            if not word:
                continue
            spans |= {word, word.rstrip("/")}
            parts = re.split(r"[.:]", word)
            spans |= {".".join(parts[:i]) for i in range(1, len(parts))}
    return spans


def spellings(module: Path) -> set[str]:
    parts = list(module.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    names: set[str] = set()
    for i in range(len(parts)):
        tail = parts[i:]
        names |= {"/".join(tail), "/".join(tail) + ".py", ".".join(tail)}
    return names


def test_every_product_module_is_named_on_the_architecture_page() -> None:
    text = PAGE.read_text(encoding="utf-8")
    spans = named_spans(text)
    missing = [
        str(module)
        for module in product_modules()
        if not spellings(module) & spans
        and not (module.name == "__main__.py" and f"python -m {'.'.join(module.parent.parts)}" in text)
    ]
    assert not missing, "docs/architecture.md does not name these modules:\n" + "\n".join(missing)


def test_the_check_reads_the_page_as_meant() -> None:
    spans = named_spans("`engine/backgammon/plays.py`, `ring/` (`rules`, `state`), `cogs.board.turn_picture`")
    assert spellings(Path("engine/backgammon/plays.py")) & spans
    assert (
        spellings(Path("engine/ring/rules.py")) & spans and spellings(Path("engine/ring/__init__.py")) & spans
    )
    assert spellings(Path("cogs/board.py")) & spans
    assert not spellings(Path("cogs/play.py")) & spans
