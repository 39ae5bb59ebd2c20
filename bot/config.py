"""Settings from the environment (and ``.env``), checked once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class ConfigError(Exception):
    """A setting is missing or wrong; the message says what to fix, in one line."""


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database: Path
    dev_guild_id: int | None = None

    def __repr__(self) -> str:  # never show the token, not even in a debugger or a log line
        return f"Settings(database={str(self.database)!r}, dev_guild_id={self.dev_guild_id!r})"


def load_settings(env_file: str | Path | None = ".env") -> Settings:
    """Read ``.env`` (if present) and the environment; raise ``ConfigError`` on any problem."""
    if env_file is not None and Path(env_file).is_file():
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise ConfigError(
            "DISCORD_TOKEN is not set: copy .env.example to .env and put your bot's token in it"
        )
    database = Path(os.environ.get("DATABASE", "").strip() or "ringside.sqlite3").expanduser()
    if database.exists() and database.is_dir():
        raise ConfigError(f"DATABASE={database} is a folder; give the path of a SQLite file")
    parent = database.resolve().parent
    if not parent.is_dir():
        raise ConfigError(f"DATABASE={database}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (database.exists() and not os.access(database, os.R_OK | os.W_OK)):
        raise ConfigError(f"DATABASE={database} cannot be written; choose a path you may write to")
    raw_guild = os.environ.get("DEV_GUILD_ID", "").strip()
    dev_guild: int | None = None
    if raw_guild:
        if not raw_guild.isdigit():
            raise ConfigError(f"DEV_GUILD_ID must be a server id (digits only), not {raw_guild!r}")
        dev_guild = int(raw_guild)
    return Settings(token=token, database=database, dev_guild_id=dev_guild)


def database_file(env_file: str | Path | None = ".env") -> Path:
    """The SQLite file that ``DATABASE`` names, read as ``load_settings`` reads it but without needing
    the token: for the command-line tools (``python -m bot backup``). Nothing is checked here."""
    if env_file is not None and Path(env_file).is_file():
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    return Path(os.environ.get("DATABASE", "").strip() or "ringside.sqlite3").expanduser()
