"""Smoke check of the installed product (a wheel, not an editable install), run by .ci/run.

Run it with the second environment's Python, ``python -I``, from a directory outside the checkout, so
nothing can be imported or read from the source tree. What it expects (the migrations, the rules
pages) is counted in the checkout beside this script, so a file missing from the wheel fails here.
"""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
import sys
import tempfile
from contextlib import closing
from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
PNG = b"\x89PNG\r\n\x1a\n"


def check(ok: bool, what: str) -> None:
    if not ok:
        sys.exit(f"smoke check failed: {what}")
    print(f"ok  {what}")


def installed_outside_the_checkout() -> None:
    import bot
    import cogs
    import engine
    import render

    for module in (bot, cogs, engine, render):
        where = Path(module.__file__ or "").resolve()
        check(
            not where.is_relative_to(CHECKOUT) and "site-packages" in where.parts,
            f"{module.__name__} is imported from the installed package ({where.parent})",
        )
    check(not Path.cwd().resolve().is_relative_to(CHECKOUT), f"running outside the checkout ({Path.cwd()})")


async def store_has_its_tables() -> None:
    from bot.store import Store

    source = sorted(p.name for p in (CHECKOUT / "bot" / "migrations").glob("*.sql"))
    shipped = sorted(e.name for e in resources.files("bot.migrations").iterdir() if e.name.endswith(".sql"))
    check(bool(source) and shipped == source, f"the installed migrations are the checkout's {source}")
    tables: set[str] = set()
    for entry in resources.files("bot.migrations").iterdir():
        if entry.name.endswith(".sql"):
            tables |= set(
                re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", entry.read_text("utf-8"), re.I)
            )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "smoke.sqlite3"
        store = await Store.open(path)
        await store.close()
        with closing(sqlite3.connect(path)) as db:
            found = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            versions = {row[0] for row in db.execute("SELECT version FROM schema_migrations")}
    check(
        bool(tables) and tables <= found, f"a fresh Store has every table of the migrations {sorted(tables)}"
    )
    check(versions == {int(name[:3]) for name in source}, f"schema_migrations records {sorted(versions)}")


async def rules_pages_and_pictures() -> None:
    from app.client import RingsideBot
    from bot.clock import ManualClock
    from bot.store import Store
    from cogs.help import Help
    from engine import find_variant

    games = sorted(p.stem for p in (CHECKOUT / "cogs" / "rules").glob("*.md"))
    check(bool(games), f"the checkout has rules pages for {games}")
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "smoke.sqlite3")
        try:
            client = RingsideBot(store, clock=ManualClock(), rng=random.Random(1), run_scheduler=False)
            help_cog = Help(client)  # the cog /rules runs in, with its default (installed) rules folder
            for game in games:
                pages = help_cog.rules_pages(game)
                check(
                    pages is not None and all(pages),
                    f"/rules {game}: {len(pages or [])} pages from the package",
                )
                picture = help_cog.start_picture(find_variant(game))
                check(
                    picture is not None and picture.startswith(PNG), f"/rules {game}: starting picture drawn"
                )
            await client.close()
        finally:
            await store.close()


def every_board_renders() -> None:
    from engine import VARIANTS
    from engine.ai.random_player import random_action
    from render import render_board

    for key, variant in sorted(VARIANTS.items()):
        rng = random.Random(7)
        state = variant.new_game()
        for _ in range(40):  # part of a game: pieces, dice and a last move to draw, with text
            if state.outcome() is not None:
                break
            state = state.apply(random_action(state, rng))
        png = render_board(state.view(None))
        check(png.startswith(PNG) and len(png) > 10_000, f"a {key} board mid-game renders ({len(png)} bytes)")


async def main() -> None:
    installed_outside_the_checkout()
    await store_has_its_tables()
    await rules_pages_and_pictures()
    every_board_renders()
    print("installed package smoke check passed")


if __name__ == "__main__":
    asyncio.run(main())
