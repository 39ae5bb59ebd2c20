"""Settings read from the environment: the database (SQLite file or PostgreSQL URL) and Discord's shards.

Every wrong setting is one line that says what to fix; SQLite is refused for a process that leaves
shards to other processes (they could not share it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, Shards, load_settings

SETTINGS = ("DISCORD_TOKEN", "DATABASE", "DATABASE_URL", "DEV_GUILD_ID", "SHARD_COUNT", "SHARD_IDS")


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISCORD_TOKEN", "t")
    return monkeypatch


def test_no_database_setting_is_the_sqlite_file_as_before(env: pytest.MonkeyPatch) -> None:
    settings = load_settings(None)
    assert settings.database == Path("ringside.sqlite3") and settings.database_url is None
    assert settings.store_target == Path("ringside.sqlite3") and settings.shards is None


def test_database_url_selects_postgresql_and_is_never_shown_with_its_password(
    env: pytest.MonkeyPatch,
) -> None:
    env.setenv("DATABASE_URL", "postgresql://ringside:s3cret@db:5432/ringside")
    settings = load_settings(None)
    assert settings.store_target == "postgresql://ringside:s3cret@db:5432/ringside"
    assert "s3cret" not in repr(settings)


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("DATABASE_URL", "mysql://x@y/z", "DATABASE_URL must be a PostgreSQL URL"),
        ("DATABASE_URL", "ringside.sqlite3", "for a SQLite file set DATABASE instead"),
        ("SHARD_COUNT", "zero", "SHARD_COUNT must be a whole number of shards"),
        ("SHARD_COUNT", "0", "SHARD_COUNT must be a whole number of shards"),
        ("SHARD_IDS", "0", "SHARD_IDS is set without SHARD_COUNT"),
    ],
)
def test_a_wrong_setting_is_one_line_that_says_what_to_fix(
    env: pytest.MonkeyPatch, name: str, value: str, said: str
) -> None:
    env.setenv(name, value)
    with pytest.raises(ConfigError, match=said) as refused:
        load_settings(None)
    assert "\n" not in str(refused.value)


def test_both_a_sqlite_file_and_a_postgresql_url_is_refused(env: pytest.MonkeyPatch) -> None:
    env.setenv("DATABASE", "x.sqlite3")
    env.setenv("DATABASE_URL", "postgresql://a@b/c")
    with pytest.raises(ConfigError, match="both set"):
        load_settings(None)


@pytest.mark.parametrize(
    ("ids", "said"),
    [
        ("0,x", "shard numbers separated by commas"),
        ("4", "SHARD_IDS names shard 4, but SHARD_COUNT=4 has shards 0 to 3 only"),
        ("1,1", "names a shard twice"),
    ],
)
def test_wrong_shard_ids_are_refused(env: pytest.MonkeyPatch, ids: str, said: str) -> None:
    env.setenv("DATABASE_URL", "postgresql://a@b/c")
    env.setenv("SHARD_COUNT", "4")
    env.setenv("SHARD_IDS", ids)
    with pytest.raises(ConfigError, match=said):
        load_settings(None)


def test_shards_of_several_processes_need_postgresql(env: pytest.MonkeyPatch) -> None:
    env.setenv("SHARD_COUNT", "2")
    env.setenv("SHARD_IDS", "1")
    with pytest.raises(ConfigError, match="SQLite serves one process: set DATABASE_URL") as refused:
        load_settings(None)
    assert "\n" not in str(refused.value)
    env.setenv("DATABASE_URL", "postgresql://a@b/c")
    assert load_settings(None).shards == Shards(2, (1,))


def test_every_shard_in_one_process_may_keep_sqlite(env: pytest.MonkeyPatch) -> None:
    env.setenv("SHARD_COUNT", "3")
    assert load_settings(None).shards == Shards(3)
    env.setenv("SHARD_IDS", "2,0,1")
    assert load_settings(None).shards == Shards(3, (2, 0, 1))


@pytest.mark.parametrize(
    ("dotenv", "said"),
    [
        (None, "DISCORD_TOKEN is not set: copy .env.example to .env and put your bot's token in it"),
        (
            "DISCORD_TOKEN=\nDATABASE=ringside.sqlite3\n",
            "DISCORD_TOKEN is empty in .env: put your bot's token after DISCORD_TOKEN= in it",
        ),
        (
            'DISCORD_TOKEN="  "\n',
            "DISCORD_TOKEN is empty in .env: put your bot's token after DISCORD_TOKEN= in it",
        ),
        (
            "DATABASE=ringside.sqlite3\n",
            "DISCORD_TOKEN is not in .env: add the line DISCORD_TOKEN= with your bot's token to it",
        ),
    ],
)
def test_a_missing_token_says_whether_env_is_missing_or_its_token_empty(
    env: pytest.MonkeyPatch, tmp_path: Path, dotenv: str | None, said: str
) -> None:
    """``.env`` copied from ``.env.example`` but its token left empty is not told to copy the file."""
    env.delenv("DISCORD_TOKEN")
    if dotenv is not None:
        (tmp_path / ".env").write_text(dotenv)
    with pytest.raises(ConfigError) as refused:
        load_settings()
    assert str(refused.value) == said


def test_an_empty_token_in_the_environment_is_named_as_what_hides_the_one_in_env(
    env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    env.setenv("DISCORD_TOKEN", "")
    (tmp_path / ".env").write_text("DISCORD_TOKEN=the-token\n")
    with pytest.raises(ConfigError) as refused:
        load_settings()
    assert str(refused.value) == (
        "DISCORD_TOKEN is set but empty in the environment, which comes before .env: "
        "unset it, or set it to your bot's token"
    )
