"""The bot as deployed: ``python -m bot`` (through ``fakediscord.run_bot``) in a process of its own,
its output kept in a file, its worker processes found in /proc, stopped by SIGTERM or killed by SIGKILL."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

#: Seconds a killed bot's workers have to notice and end by themselves (they look every 0.2 s).
ORPHAN_GRACE = 2.0
#: Seconds SIGTERM may take to close the bot.
STOP_TIMEOUT = 60.0
#: The start of a line of discord.py's log format, plain ("[2025-01-01 12:00:00] [INFO    ] name: ...")
#: or in colour, as it writes in a container even to a file ("2025-01-01 12:00:00 INFO     name ...").
LOG_LINE = re.compile(r"^\[?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\]? \[?(\w+)")
TRACEBACK = "Traceback (most recent call last)"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie has ended)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


def trouble(log: str) -> list[str]:
    """Every log record at ERROR or CRITICAL and every one with a traceback (a record is a log line and
    the lines after it up to the next one; lines of no record, like a crash's traceback on stderr,
    belong to the record before them), without colours."""
    lines = ANSI.sub("", log).splitlines()
    excerpts = []
    start = 0
    while start < len(lines):
        end = start + 1
        while end < len(lines) and not LOG_LINE.match(lines[end]):
            end += 1
        record = lines[start:end]
        level = LOG_LINE.match(record[0])
        if (level is not None and level[1] in ("ERROR", "CRITICAL")) or any(
            line.startswith(TRACEBACK) for line in record
        ):
            excerpts.append("\n".join(record))
        start = end
    return excerpts


@dataclass
class BotProcess:
    """One run of the bot of ``checkout`` against the fake server at ``api_base``, in ``workdir`` (where
    the database lives), its stdout and stderr written to ``log_path``."""

    checkout: Path
    workdir: Path
    api_base: str
    env: dict[str, str]
    log_path: Path
    name: str
    proc: asyncio.subprocess.Process | None = None
    #: the worker processes seen while it ran
    workers: set[int] = field(default_factory=set)

    @property
    def pid(self) -> int:
        assert self.proc is not None, "not started"
        return self.proc.pid

    async def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN", "DATABASE", "DEV_GUILD_ID")}
        env.update(self.env)
        env["PYTHONPATH"] = str(self.checkout)
        with self.log_path.open("wb") as log:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "fakediscord.run_bot", "--api-base", self.api_base,
                cwd=self.workdir, env=env, stdout=log, stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip

    def log(self) -> str:
        """What this run wrote so far."""
        return self.log_path.read_text(errors="replace")

    def note_workers(self) -> set[int]:
        """The bot's worker processes now (remembered: after a SIGKILL they are nobody's children)."""
        found = children(self.pid) if self.running else set()
        self.workers |= found
        return found

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    async def kill(self) -> tuple[list[int], float]:
        """SIGKILL, as the out-of-memory killer or ``kill -9`` does; returns the workers still alive
        ``ORPHAN_GRACE`` seconds later (none, when they end with the bot) and the seconds the last of
        them took to end."""
        assert self.proc is not None
        self.note_workers()
        self.proc.kill()
        await self.proc.wait()
        killed = time.perf_counter()
        left = sorted(self.workers)
        while left and time.perf_counter() - killed < ORPHAN_GRACE:
            await asyncio.sleep(0.05)
            left = [pid for pid in left if alive(pid)]
        return left, time.perf_counter() - killed

    async def terminate(self) -> int | None:
        """SIGTERM, as a service manager stops the bot; its exit status (None: still running after
        ``STOP_TIMEOUT`` seconds, then killed)."""
        assert self.proc is not None
        self.note_workers()
        if self.proc.returncode is not None:
            return self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()
            return None

    async def ensure_stopped(self) -> None:
        """Kill it if it still runs (after a failure of the driver)."""
        if self.running:
            assert self.proc is not None
            self.proc.kill()
            await self.proc.wait()
