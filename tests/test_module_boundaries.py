"""Issue 35: a newcomer can read each module by what it offers.

- No product module imports or uses another module's private names (a single leading underscore):
  ``from m import _x`` and ``thing._y`` are counted, unless the module itself defines ``_y`` (a
  module may touch its own classes' private members on another instance of them). Three names of
  the standard library's documented API that begin with an underscore are allowed (``os._exit``,
  a named tuple's ``_replace``/``_asdict``/``_fields``), and one module may read a pinned library's
  internals: ``engine/ai/bgsage_internals.py``, which says why.
- No product function is over 80 lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("bot", "cogs", "engine", "kits", "render", "app")
LIBRARY_ADAPTERS = {"engine/ai/bgsage_internals.py"}
DOCUMENTED = {"_exit", "_replace", "_asdict", "_fields"}
MAX_FUNCTION_LINES = 80


def product_files() -> list[Path]:
    return sorted(f for package in PRODUCT for f in (ROOT / package).rglob("*.py"))


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def defined_names(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def private_uses(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = defined_names(tree)
    where = path.relative_to(root)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names] + (node.module or "").split(".")
            found += [f"{where}:{node.lineno}: from {node.module} import {n}" for n in names if is_private(n)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if any(is_private(part) for part in alias.name.split(".")):
                    found.append(f"{where}:{node.lineno}: import {alias.name}")
        elif isinstance(node, ast.Attribute) and is_private(node.attr):
            value = node.value
            if isinstance(value, ast.Name) and value.id in ("self", "cls"):
                continue
            if node.attr in own or node.attr in DOCUMENTED:
                continue
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_uses_another_modules_private_names() -> None:
    uses = [
        use
        for path in product_files()
        if str(path.relative_to(ROOT)) not in LIBRARY_ADAPTERS
        for use in private_uses(path)
    ]
    assert uses == [], "\n".join(uses)


def test_the_counter_sees_what_it_should(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from a import _hidden, shown\n"
        "import os\n"
        "class Own:\n"
        "    def __init__(self):\n"
        "        self._mine = 1\n"
        "    def same(self, other):\n"
        "        return other._mine\n"
        "def f(state, os):\n"
        "    os._exit(0)\n"
        "    return state._theirs\n",
        encoding="utf-8",
    )
    uses = private_uses(sample, root=tmp_path)
    assert [use.split(": ", 1)[1] for use in uses] == ["from a import _hidden", "state._theirs"]


def test_no_product_function_is_over_80_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path in product_files()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == [], "\n".join(long)
