"""Prints, as JSON, the persistent controls (``DynamicItem`` classes) the bot of a checkout registers.

Run as a script by :mod:`fakediscord.blackbox.kinds` with the checkout under test first on the path
(``python -P .../registered.py``): it imports that checkout's bot and fake, so it must import nothing
of this package. The bot is started exactly as its ``setup_hook`` starts it, on the in-process fake
and a throw-away database; what discord.py then holds in its table of dynamic items is what the real
process dispatches clicks to.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path


async def registered() -> dict[str, object]:
    from app.client import RingsideBot
    from bot.store import Store
    from fakediscord import FakeDiscord

    with tempfile.TemporaryDirectory() as folder:
        store = await Store.open(Path(folder) / "kinds.sqlite3")
        try:
            async with FakeDiscord() as fake:
                bot = RingsideBot(store, run_scheduler=False, render_workers=0)
                await fake.connect(bot)
                items = bot._connection._view_store._dynamic_items
                kinds = [
                    {"name": cls.__qualname__, "template": pattern.pattern} for pattern, cls in items.items()
                ]
                await bot.close()
        finally:
            await store.close()
    return {"source": str(Path(sys.modules["app.client"].__file__ or "").parent.parent), "kinds": kinds}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(registered())))
