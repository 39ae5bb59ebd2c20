"""Settings from the environment (and ``.env``), checked once at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path


class ConfigError(Exception):
    """A setting is missing or wrong; the message says what to fix, in one line."""


@dataclass(frozen=True, slots=True)
class Shards:
    """Which of Discord's shards this process runs: ``ids`` of ``count`` (``ids`` None: all of them,
    in this one process, with discord.py's ``AutoShardedBot``)."""

    count: int
    ids: tuple[int, ...] | None = None

    @property
    def whole(self) -> bool:
        """Whether this process runs every shard (no other process is needed)."""
        return self.ids is None or set(self.ids) == set(range(self.count))


@dataclass(frozen=True, slots=True)
class Settings:
    token: str
    database: Path
    dev_guild_id: int | None = None
    database_url: str | None = None
    """A ``postgresql://`` URL: PostgreSQL instead of the SQLite file ``database``."""
    shards: Shards | None = None
    """None: no sharding (one connection to Discord, as a bot in fewer than 2,500 servers needs)."""
    heavy_jobs: int = 1
    """Heavy jobs (analyses) the bot runs at once (``HEAVY_JOBS``); 0 with PostgreSQL leaves them
    to ``python -m bot worker`` processes."""

    @property
    def store_target(self) -> str | Path:
        """What ``Store.open`` is given: the PostgreSQL URL, or the SQLite file."""
        return self.database_url or self.database

    def __repr__(self) -> str:  # never show the token (nor a database password), not even in a log line
        where = "PostgreSQL" if self.database_url else str(self.database)
        return f"Settings(database={where!r}, dev_guild_id={self.dev_guild_id!r}, shards={self.shards!r})"


def load_settings(env_file: str | Path | None = ".env") -> Settings:
    """Read ``.env`` (if present) and the environment; raise ``ConfigError`` on any problem."""
    if env_file is not None and Path(env_file).is_file():
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    token = os.environ.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise ConfigError(_no_token(env_file))
    database_url = _database_url()
    shards = _shards()
    raw_database = os.environ.get("DATABASE", "").strip()
    if database_url is not None and raw_database:
        raise ConfigError(
            "DATABASE (a SQLite file) and DATABASE_URL (PostgreSQL) are both set: keep the one to use"
        )
    if database_url is None and shards is not None and not shards.whole:
        raise ConfigError(
            f"SHARD_IDS={','.join(map(str, shards.ids or ()))} of SHARD_COUNT={shards.count} leaves the other "
            "shards to other processes, and SQLite serves one process: set DATABASE_URL to a PostgreSQL "
            "database that all of them share"
        )
    database = Path(raw_database or "ringside.sqlite3").expanduser()
    if database_url is not None:
        return _with_guild(Settings(token=token, database=database, database_url=database_url, shards=shards))
    if database.exists() and database.is_dir():
        raise ConfigError(f"DATABASE={database} is a folder; give the path of a SQLite file")
    parent = database.resolve().parent
    if not parent.is_dir():
        raise ConfigError(f"DATABASE={database}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (database.exists() and not os.access(database, os.R_OK | os.W_OK)):
        raise ConfigError(f"DATABASE={database} cannot be written; choose a path you may write to")
    return _with_guild(Settings(token=token, database=database, shards=shards))


def _with_guild(settings: Settings) -> Settings:
    heavy = heavy_jobs("HEAVY_JOBS", 1)
    if heavy == 0 and settings.database_url is None:
        raise ConfigError(
            "HEAVY_JOBS=0 leaves analyses to `python -m bot worker` processes, which need DATABASE_URL "
            "(PostgreSQL): with a SQLite file the bot runs them itself (HEAVY_JOBS=1 or more)"
        )
    settings = replace(settings, heavy_jobs=heavy)
    raw_guild = os.environ.get("DEV_GUILD_ID", "").strip()
    if not raw_guild:
        return settings
    if not raw_guild.isdigit():
        raise ConfigError(f"DEV_GUILD_ID must be a server id (digits only), not {raw_guild!r}")
    return replace(settings, dev_guild_id=int(raw_guild))


def _database_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        return None
    if not url.startswith(("postgresql://", "postgres://")):
        scheme = url.split("://", 1)[0] if "://" in url else url[:20]
        raise ConfigError(
            f"DATABASE_URL must be a PostgreSQL URL (postgresql://user:password@host:5432/database), not {scheme!r}; "
            "for a SQLite file set DATABASE instead"
        )
    return url


def _shards() -> Shards | None:
    raw_count = os.environ.get("SHARD_COUNT", "").strip()
    raw_ids = os.environ.get("SHARD_IDS", "").strip()
    if not raw_count:
        if raw_ids:
            raise ConfigError(
                "SHARD_IDS is set without SHARD_COUNT: set both (e.g. SHARD_COUNT=4 SHARD_IDS=0,1)"
            )
        return None
    if not raw_count.isdigit() or int(raw_count) < 1:
        raise ConfigError(f"SHARD_COUNT must be a whole number of shards, 1 or more, not {raw_count!r}")
    count = int(raw_count)
    if not raw_ids:
        return Shards(count)
    parts = [part.strip() for part in raw_ids.split(",")]
    if not all(part.isdigit() for part in parts):
        raise ConfigError(f"SHARD_IDS must be shard numbers separated by commas (e.g. 0,1), not {raw_ids!r}")
    ids = tuple(int(part) for part in parts)
    wrong = [shard for shard in ids if shard >= count]
    if wrong:
        raise ConfigError(
            f"SHARD_IDS names shard {wrong[0]}, but SHARD_COUNT={count} has shards 0 to {count - 1} only"
        )
    if len(set(ids)) != len(ids):
        raise ConfigError(f"SHARD_IDS names a shard twice: {raw_ids!r}")
    return Shards(count, ids)


def _no_token(env_file: str | Path | None) -> str:
    """What to fix when there is no token: copy ``.env``, or fill in the token the copy lacks."""
    if env_file is None or not Path(env_file).is_file():
        return "DISCORD_TOKEN is not set: copy .env.example to .env and put your bot's token in it"
    from dotenv import dotenv_values

    name = str(env_file)
    values = dotenv_values(env_file)
    if "DISCORD_TOKEN" not in values:
        return f"DISCORD_TOKEN is not in {name}: add the line DISCORD_TOKEN= with your bot's token to it"
    if (values["DISCORD_TOKEN"] or "").strip():  # the environment's empty one comes first
        return (
            f"DISCORD_TOKEN is set but empty in the environment, which comes before {name}: "
            "unset it, or set it to your bot's token"
        )
    return f"DISCORD_TOKEN is empty in {name}: put your bot's token after DISCORD_TOKEN= in it"


def database_file(env_file: str | Path | None = ".env") -> Path:
    """The SQLite file that ``DATABASE`` names, read as ``load_settings`` reads it but without needing
    the token: for the command-line tools (``python -m bot backup``). Nothing is checked here."""
    if env_file is not None and Path(env_file).is_file():
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    return Path(os.environ.get("DATABASE", "").strip() or "ringside.sqlite3").expanduser()


def heavy_jobs(name: str, default: int) -> int:
    """A count of heavy jobs run at once, from the environment variable ``name`` (0 to 16)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) > 16:
        raise ConfigError(f"{name} must be a whole number of jobs run at once, 0 to 16, not {raw!r}")
    return int(raw)


def worker_database_url(env_file: str | Path | None = ".env") -> str:
    """``python -m bot worker``'s database: ``DATABASE_URL`` (PostgreSQL), which it requires."""
    if env_file is not None and Path(env_file).is_file():
        from dotenv import load_dotenv

        load_dotenv(env_file, override=False)
    url = _database_url()
    if url is None:
        raise ConfigError(
            "a worker needs DATABASE_URL (the PostgreSQL database the bot uses); with a SQLite file the "
            "bot runs its heavy jobs itself"
        )
    return url
