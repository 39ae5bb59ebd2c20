"""How the bot logs: ``LOG_FORMAT=text`` (the default: discord.py's usual lines) or ``json``.

``json`` writes one JSON object a line on stderr, for a log collector: ``time`` (ISO-8601, UTC, with
milliseconds), ``level``, ``logger``, ``message``, ``exception`` (the traceback, when the record has
one), ``stack`` (when asked for with ``stack_info``) and every field given with ``extra=``::

    {"time": "2025-01-31T12:00:00.123Z", "level": "WARNING", "logger": "bot.sessions",
     "message": "a write failed", "match_id": 42}

``app.main`` installs it; nothing here imports discord.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from bot.config import ConfigError

FORMATS = ("text", "json")

_STANDARD = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {
    "message",
    "asctime",
    "taskName",
}
"""The attributes every log record has: what is left of a record's ``__dict__`` came with ``extra=``."""


def log_format(env: Mapping[str, str] | None = None) -> str:
    """``LOG_FORMAT`` from the environment (``text`` when unset); ``ConfigError`` for anything else."""
    raw = (os.environ if env is None else env).get("LOG_FORMAT", "").strip()
    if not raw:
        return "text"
    if raw.lower() not in FORMATS:
        raise ConfigError(f"LOG_FORMAT must be {' or '.join(FORMATS)}, not {raw!r}")
    return raw.lower()


class JsonFormatter(logging.Formatter):
    """One JSON object a line; see the module docstring."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")[:-6] + "Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        for key, value in record.__dict__.items():
            if key not in _STANDARD and key not in entry:
                entry[key] = value
        return json.dumps(entry, ensure_ascii=False, default=repr)
