"""The kinds of persistent control the bot under test registers, and which kind a custom id is.

The list is the bot's own (``registered.py`` run in the checkout under test), never a copy kept here:
a kind added to the bot is a kind the black box must click, or the run fails naming it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(__file__).with_name("registered.py")


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    template: re.Pattern[str]


@dataclass(frozen=True, slots=True)
class Kinds:
    """The registered kinds in the order discord.py tries them."""

    kinds: tuple[Kind, ...]
    #: where the bot's modules were imported from (the checkout under test)
    source: str

    @classmethod
    def of(cls, checkout: Path, timeout: float = 120.0) -> Kinds:
        """Ask the bot of ``checkout`` what it registers (a subprocess: that checkout's modules)."""
        done = subprocess.run(
            [sys.executable, "-P", str(SCRIPT)],
            cwd=checkout,
            env={**os.environ, "PYTHONPATH": str(checkout)},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"could not list the bot's registered controls:\n{done.stderr[-3000:]}")
        found = json.loads(done.stdout.strip().splitlines()[-1])
        return cls.from_json(found)

    @classmethod
    def from_json(cls, found: dict[str, object]) -> Kinds:
        listed = found.get("kinds")
        assert isinstance(listed, list)
        return cls(
            tuple(Kind(str(k["name"]), re.compile(str(k["template"]))) for k in listed), str(found["source"])
        )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds)

    def of_id(self, custom_id: str) -> list[str]:
        """The kinds whose template takes the whole custom id (discord.py runs every one of them: more
        than one would answer a click twice)."""
        return [k.name for k in self.kinds if k.template.fullmatch(custom_id)]
