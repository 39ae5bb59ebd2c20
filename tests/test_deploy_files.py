"""The deployment files keep their promises (docs/operations.md, "Deploying"): the image runs the installed
package as an unprivileged user and holds no secret, compose restarts both services and starts the bot
on a healthy database, the systemd units stop the bot the way it drains. ``.ci/check_deploy`` adds what
needs tools (hadolint, compose, systemd-analyze, a Docker daemon where there is one)."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from app.client import DRAIN_SECONDS

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = (
    "DISCORD_TOKEN",
    "DATABASE",
    "DATABASE_URL",
    "SHARD_COUNT",
    "SHARD_IDS",
    "METRICS_PORT",
    "LOG_FORMAT",
    "DEV_GUILD_ID",
    "HEAVY_JOBS",
    "WORKER_JOBS",
)
# A Discord bot token: three base64url parts separated by dots.
TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{23,}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}")


def _docker_context() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docker_context", ROOT / ".ci" / "docker_context.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("docker_context", module)
    spec.loader.exec_module(module)
    return module


docker_context = _docker_context()


def _instructions() -> list[tuple[str, str]]:
    """The Dockerfile as (INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, rest = line.partition(" ")
        out.append((keyword.upper(), rest.strip()))
    assert not pending, "the Dockerfile ends inside a continued line"
    return out


def _final_stage() -> list[tuple[str, str]]:
    instructions = _instructions()
    last_from = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    return instructions[last_from:]


def _env(args: str) -> dict[str, str]:
    return dict(item.split("=", 1) for item in shlex.split(args))


def _compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))


def _unit(name: str) -> dict[str, dict[str, list[str]]]:
    """A systemd unit file as section -> key -> values (a key may be given more than once)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for raw in (ROOT / "deploy" / name).read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{name}: {line!r} before any section"
        key, sep, value = line.partition("=")
        assert sep, f"{name}: {line!r} is not KEY=VALUE"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def _seconds(value: str) -> float:
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(s|sec|min|m)?", value)
    assert match, f"cannot read {value!r} as a duration"
    return float(match[1]) * (60 if match[2] in ("min", "m") else 1)


# --- Dockerfile -------------------------------------------------------------------------------------


def test_the_image_is_built_on_python_311_slim() -> None:
    bases = [args.split()[0] for keyword, args in _instructions() if keyword == "FROM"]
    assert bases and all(base == "python:3.11-slim" for base in bases), bases


def test_the_image_installs_the_package_from_the_context_not_editable() -> None:
    installs = [args for keyword, args in _instructions() if keyword == "RUN" and "pip install" in args]
    assert any(re.search(r"pip install( --?[\w-]+)* \.(\s|$)", args) for args in installs), installs
    assert not any(re.search(r"(^|\s)(-e|--editable)(\s|=)", args) for args in installs), installs


def test_the_image_runs_python_m_bot_as_an_unprivileged_user() -> None:
    stage = _final_stage()
    users = [args for keyword, args in stage if keyword == "USER"]
    assert users, "the final stage has no USER: the bot would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users[-1]
    cmd = [args for keyword, args in stage if keyword == "CMD"]
    assert cmd and yaml.safe_load(cmd[-1]) == ["python", "-m", "bot"], cmd
    assert not any(keyword == "ENTRYPOINT" for keyword, _ in stage)
    keywords = [keyword for keyword, _ in stage]
    assert keywords.index("USER") < keywords.index("CMD")


def test_the_sqlite_file_lives_in_the_data_volume() -> None:
    stage = _final_stage()
    assert ("WORKDIR", "/data") in stage
    volumes = [args for keyword, args in stage if keyword == "VOLUME"]
    assert any(
        "/data" in (yaml.safe_load(args) if args.startswith("[") else args.split()) for args in volumes
    )
    env: dict[str, str] = {}
    for keyword, args in stage:
        if keyword == "ENV":
            env.update(_env(args))
    assert env.get("DATABASE") == "/data/ringside.sqlite3", env


def test_the_metrics_port_is_exposed_and_opt_in() -> None:
    stage = _final_stage()
    assert any(keyword == "EXPOSE" for keyword, _ in stage)
    for keyword, args in stage:
        if keyword == "ENV":
            assert "METRICS_PORT" not in _env(args), "the image would turn the metrics endpoint on"


def test_the_image_holds_no_token() -> None:
    for keyword, args in _instructions():
        if keyword in ("ENV", "ARG"):
            assert "DISCORD_TOKEN" not in args and "PASSWORD" not in args, (keyword, args)
        if keyword in ("COPY", "ADD"):
            assert ".env" not in args.split(), (keyword, args)


def test_no_deploy_file_carries_a_secret() -> None:
    files = [
        ROOT / "Dockerfile",
        ROOT / "compose.yaml",
        ROOT / ".env.example",
        *sorted((ROOT / "deploy").iterdir()),
    ]
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not TOKEN_SHAPE.search(text), f"{path.name} holds what looks like a Discord token"
        for line in text.splitlines():
            assert not re.match(r"\s*(ENV\s+)?DISCORD_TOKEN\s*[=:]\s*\S", line), f"{path.name}: {line}"


# --- .dockerignore ----------------------------------------------------------------------------------


def test_dockerignore_follows_dockers_rules() -> None:
    patterns = docker_context.parse("*.db\n**/*.log\nbuild/\nkeep/*\n!keep/this\n")
    ignored = docker_context.ignored
    assert ignored("a.db", patterns) and not ignored("sub/a.db", patterns)  # no **/: the top only
    assert ignored("a.log", patterns) and ignored("x/y/a.log", patterns)
    assert ignored("build/lib/x.py", patterns) and not ignored("src/build/x.py", patterns)
    assert ignored("keep/that", patterns) and not ignored("keep/this", patterns)


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        "deploy/.env",
        "ringside.sqlite3",
        "ringside.sqlite3-wal",
        "ringside.sqlite3-shm",
        "data/backup.sqlite3",
        ".venv/bin/python",
        ".git/HEAD",
        "build/lib/bot/__init__.py",
        "dist/ringside-0.1.0-py3-none-any.whl",
        "bot/__pycache__/config.cpython-311.pyc",
        ".pytest_cache/README.md",
        "tests/.pytest_cache/v/cache/nodeids",
        ".mypy_cache/3.11/x.json",
        ".ruff_cache/x",
    ],
)
def test_dockerignore_keeps_secrets_and_local_files_out(path: str) -> None:
    patterns = docker_context.parse((ROOT / ".dockerignore").read_text(encoding="utf-8"))
    assert docker_context.ignored(path, patterns), f"{path} would be sent to docker build"


def test_the_build_context_has_every_tracked_file_of_the_package() -> None:
    patterns = docker_context.parse((ROOT / ".dockerignore").read_text(encoding="utf-8"))
    try:
        tracked = subprocess.run(
            ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    needed = [
        path
        for path in tracked
        if path in ("pyproject.toml", "README.md", "LICENSE")
        or path.split("/")[0] in ("engine", "render", "bot", "cogs", "kits", "app")
    ]
    assert "bot/config.py" in needed
    missing = [path for path in needed if docker_context.ignored(path, patterns)]
    assert not missing, f"pip install . in the image would lack {missing[:5]}"


# --- compose.yaml -----------------------------------------------------------------------------------


def test_compose_runs_the_bot_on_a_healthy_postgres() -> None:
    services = _compose()["services"]
    bot, db = services["bot"], services["db"]
    assert bot["build"] == "."
    assert bot["env_file"] in (".env", [".env"])
    assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    assert db["image"] == "postgres:15"
    test = db["healthcheck"]["test"]
    assert "pg_isready" in (test if isinstance(test, str) else " ".join(test))
    url = bot["environment"]["DATABASE_URL"]
    assert url.startswith("postgresql://") and "@db:5432/" in url, url
    # The image's DATABASE default cleared: the bot refuses DATABASE and DATABASE_URL together.
    assert bot["environment"]["DATABASE"] == ""


def test_compose_restarts_and_keeps_data_in_named_volumes() -> None:
    compose = _compose()
    for name, service in compose["services"].items():
        assert service.get("restart") == "unless-stopped", name
    named = set(compose.get("volumes") or {})
    db_volumes = compose["services"]["db"]["volumes"]
    assert any(v.split(":")[0] in named and v.split(":")[1] == "/var/lib/postgresql/data" for v in db_volumes)


def test_compose_takes_the_password_from_env_and_no_token() -> None:
    compose = _compose()
    password = compose["services"]["db"]["environment"]["POSTGRES_PASSWORD"]
    assert password.startswith("${POSTGRES_PASSWORD:?"), "a missing POSTGRES_PASSWORD must be an error"
    assert "${POSTGRES_PASSWORD:?" in compose["services"]["bot"]["environment"]["DATABASE_URL"]
    for name, service in compose["services"].items():
        assert "DISCORD_TOKEN" not in (service.get("environment") or {}), name


def test_compose_gives_the_bot_time_to_drain() -> None:
    grace = _seconds(_compose()["services"]["bot"]["stop_grace_period"])
    assert grace > DRAIN_SECONDS + 5, grace


# --- systemd ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ringside.service", "ringside@.service"])
def test_the_unit_restarts_and_stops_the_bot_by_draining_it(name: str) -> None:
    service = _unit(name)["Service"]

    def one(key: str) -> str:
        assert key in service, f"{name} has no {key}="
        return service[key][-1]

    assert one("Type") == "simple"
    assert one("User") not in ("", "root", "0")
    assert one("Restart") == "on-failure"
    assert one("KillSignal") == "SIGTERM"
    assert one("KillMode") == "mixed"  # SIGTERM to the bot, not to its worker processes at once
    assert _seconds(one("TimeoutStopSec")) > DRAIN_SECONDS + 5
    assert one("ExecStart").endswith("/bin/python -m bot")
    assert one("EnvironmentFile").startswith("/")
    assert one("NoNewPrivileges") == "yes"
    assert one("ProtectSystem") == "strict"
    assert one("PrivateTmp") == "yes"
    assert one("WorkingDirectory") in service.get("ReadWritePaths", [""])[-1].split()


def test_the_template_unit_runs_the_shard_of_its_instance() -> None:
    exec_start = _unit("ringside@.service")["Service"]["ExecStart"][-1]
    assert "SHARD_IDS=%i" in exec_start.split()


# --- documentation ----------------------------------------------------------------------------------


def test_every_setting_is_documented() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    guide = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for name in SETTINGS:
        assert re.search(rf"^#?\s*{name}=", example, re.M), f".env.example lacks {name}"
        assert f"| `{name}` |" in guide, f"docs/operations.md's settings table lacks {name}"
    # Only the token is needed; an optional setting left uncommented would change the bot's default.
    active = [line.split("=")[0] for line in example.splitlines() if re.match(r"[A-Z_]+=", line)]
    assert active == ["DISCORD_TOKEN"], active


def test_the_operators_guide_deploys_with_the_files_that_exist() -> None:
    guide = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    deploying = guide.split("\n## Deploying\n", 1)[1].split("\n## ", 1)[0]
    for path in ("compose.yaml", "deploy/ringside.service", "deploy/ringside@.service"):
        assert path in deploying and (ROOT / path).is_file(), path
    assert "docker compose up" in deploying and "docker build" in deploying and "systemctl" in deploying
