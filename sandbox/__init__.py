"""A sandbox: the real bot against the in-process fake Discord, played from a text prompt.

``python -m sandbox`` (see ``docs/sandbox.md``). In code::

    async with Sandbox.open(seed=1, pictures=Path("pics"), out=lines.append) as sandbox:
        failed = await sandbox.run_lines(["as alice /challenge opponent:@bob game:ring", "as bob click Accept"])
"""

from __future__ import annotations

from .core import DEFAULT_PICTURES, HELP, PROMPT, Sandbox
from .text import CommandError, parse_duration

__all__ = ["DEFAULT_PICTURES", "HELP", "PROMPT", "CommandError", "Sandbox", "parse_duration"]
