"""The layers as docs/architecture.md draws them, checked on the imports themselves.

``bot/`` (the services) imports neither discord.py nor the pictures nor the cogs nor the wiring:
the one exception is ``bot/__main__.py``, the entry ``python -m bot`` that calls ``app``. The
engine imports none of them either, nor asyncio or sqlite."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imports(path: Path) -> set[str]:
    """The modules ``path`` imports when it runs (not those named for type checking only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        for inner in ast.walk(node)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and node.level == 0:
            found.add(node.module)
    return found


def top(module: str) -> str:
    return module.split(".")[0]


LAYERS = {
    "bot": {"discord", "render", "cogs", "app", "PIL"},
    "engine": {"discord", "render", "cogs", "app", "bot", "PIL", "asyncio", "sqlite3", "aiosqlite"},
    "render": {"discord", "cogs", "app", "bot", "asyncio", "sqlite3", "aiosqlite"},
    "kits": {"discord", "render", "cogs", "app", "bot", "engine", "PIL", "asyncio"},
}
ENTRY = ROOT / "bot" / "__main__.py"


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_each_layer_imports_only_what_is_below_it(package: str) -> None:
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        if path == ENTRY:
            continue
        for module in imports(path):
            if top(module) in LAYERS[package]:
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert wrong == []


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "x.py"
    sample.write_text(
        "import discord\nfrom render.theme import Caption\nfrom bot import session\n"
        "if TYPE_CHECKING:\n    from cogs.play import Play\n"
    )
    assert {top(m) for m in imports(sample)} == {"discord", "render", "bot"}


def test_python_m_bot_is_a_thin_entry_into_app() -> None:
    assert imports(ENTRY) <= {"__future__", "sys", "app.main"}


def store_reaches(path: Path) -> list[int]:
    """Lines of ``path`` that reach the store object itself (``something.store``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Attribute) and node.attr == "store"
    ]


def test_cogs_read_and_write_only_through_the_services() -> None:
    # Record types (``MatchRecord``) may be named; the store object itself is the services' own.
    reaching = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "cogs").rglob("*.py"))
        if (lines := store_reaches(path))
    }
    assert reaching == {}


def test_the_store_check_sees_a_cog_reaching_the_store(tmp_path: Path) -> None:
    sample = tmp_path / "cog.py"
    sample.write_text("async def f(self):\n    return await self.bot.store.matches.get(1)\n")
    assert store_reaches(sample) == [2]


def test_no_product_file_over_800_lines_and_no_class_over_300() -> None:
    """Small modules a newcomer can hold in their head (issue 22): split by duty when one grows."""
    too_big = []
    for package in ("engine", "render", "bot", "cogs", "kits", "app"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name.endswith("_palette.py"):
                continue  # generated data: the fixed palettes
            text = path.read_text(encoding="utf-8")
            if len(text.splitlines()) > 800:
                too_big.append(f"{path.relative_to(ROOT)}: {len(text.splitlines())} lines")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.ClassDef) and (node.end_lineno or 0) - node.lineno + 1 > 300:
                    too_big.append(f"{path.relative_to(ROOT)}: class {node.name}")
    assert too_big == []
