"""``python -m bot`` as a real process: with bad settings, and (through ``python -m fakediscord.run_bot``)
against a local fake Discord."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from asyncio.subprocess import Process
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import discord
import pytest

from app.heartbeat import LIVE_BEAT
from bot.work_claims import BOARD_LEASE, owner_name
from fakediscord import FakeDiscord, FakeDiscordServer, FakeInteraction, FakeMessage, FakeUser
from fakediscord.blackbox.processes import alive, children
from fakediscord.matches import user_on_turn
from fakediscord.patience import patient
from tests.databases import backend, process_env, sql

REPO = Path(__file__).resolve().parents[2]


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISCORD_TOKEN", "DATABASE", "DATABASE_URL", "DEV_GUILD_ID", "SHARD_COUNT", "SHARD_IDS")
    }
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def _run_bot(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_missing_token_stops_with_one_clear_line(tmp_path: Path) -> None:
    done = _run_bot(tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: DISCORD_TOKEN is not set: copy .env.example to .env and put your bot's token in it"
    ]


@pytest.mark.sqlite_only("about SQLite files")
def test_unusable_database_path_stops_with_one_clear_line(tmp_path: Path) -> None:
    done = _run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE=str(tmp_path / "missing" / "db.sqlite3"))
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "Traceback" not in done.stderr
    (tmp_path / "notadb.sqlite3").write_bytes(b"this is not a database" * 100)
    done = _run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE=str(tmp_path / "notadb.sqlite3"))
    assert done.returncode == 2
    assert "not a usable database" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.sqlite_only("about SQLite files")
def test_a_damaged_or_empty_database_stops_with_one_clear_line(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.sqlite3"
    with contextlib.closing(sqlite3.connect(damaged)) as db:
        db.execute("CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT)")
        db.execute("CREATE INDEX t_b ON t (b)")
        db.executemany("INSERT INTO t (b) VALUES (?)", [("x" * 100 + str(i),) for i in range(500)])
        db.commit()
    with damaged.open("r+b") as f:  # garbage over part of a page in the middle of the file
        f.seek(4096 * 3 + 100)
        f.write(b"\x55" * 1000)
    done = _run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE=str(damaged))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(damaged) in lines[0] and "damaged" in lines[0] and "backup" in lines[0]

    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    done = _run_bot(tmp_path, DISCORD_TOKEN="x", DATABASE=str(empty))
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(empty) in lines[0] and "empty file" in lines[0]
    assert empty.stat().st_size == 0, "the empty file is left as it was"


def test_bad_dev_guild_id_stops_with_one_clear_line(tmp_path: Path) -> None:
    done = _run_bot(tmp_path, DISCORD_TOKEN="x", DEV_GUILD_ID="my server")
    assert done.returncode == 2 and "DEV_GUILD_ID must be a server id" in done.stderr


async def _stop(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@pytest.mark.asyncio
async def test_a_rejected_token_stops_with_one_clear_line(tmp_path: Path) -> None:
    async with FakeDiscordServer(FakeDiscord(token="the-right-token")) as server:
        proc = await asyncio.create_subprocess_exec(
            *server.bot_command(), cwd=tmp_path,
            env=_env(tmp_path, DISCORD_TOKEN="a-wrong-token"),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            _, err = await asyncio.wait_for(proc.communicate(), 30)
        finally:
            await _stop(proc)
    text = err.decode()
    assert proc.returncode == 2
    assert "error: Discord rejected DISCORD_TOKEN" in text and "Traceback" not in text
    assert "a-wrong-token" not in text


@pytest.mark.asyncio
async def test_the_bot_process_starts_syncs_and_plays_a_challenge(tmp_path: Path) -> None:
    fake = FakeDiscord(timeout=15, token="process-token")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    log_path = tmp_path / "bot.log"
    async with FakeDiscordServer(fake) as server:
        env = _env(tmp_path, DISCORD_TOKEN="process-token", **process_env(tmp_path / "db.sqlite3"))
        with log_path.open("wb") as log:
            proc = await asyncio.create_subprocess_exec(
                *server.bot_command(),
                cwd=tmp_path,
                env=env,
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
            )
            try:
                await server.wait_until_identified(timeout=30)
                await fake.wait_for(lambda: fake.synced, 30, "command sync")
                assert {"challenge", "board", "resign"} <= {c["name"] for c in fake.commands}

                result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
                challenge = result.message
                assert challenge is not None and "challenges you" in challenge.content
                accept = next(c for c in challenge.custom_ids if c.endswith(":accept"))
                await fake.click(bob, challenge, accept)
                await fake.wait_for(lambda: fake.thread_of(challenge) is not None, 60, "the match thread")
                thread = fake.thread_of(challenge)
                assert thread is not None
                await fake.wait_for(lambda: bool(fake.messages_in(thread)), 60, "the first board")
                board = fake.messages_in(thread)[-1]
                roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
                # Seats are drawn at random in the bot process: ask the board who is on turn.
                player = user_on_turn(board, {alice.id: alice, bob.id: bob})
                assert player is not None, board.content
                before = len(board.history)
                await fake.click(player, board, roll)
                boards = len(fake.messages_in(thread))
                # The roll edits the board, or (a roll that ends the turn) posts the next one. The
                # wait is generous: a loaded machine can be slow to start the process's render pool.
                await fake.wait_for(
                    lambda: (
                        len(fake.message(board).history) > before or len(fake.messages_in(thread)) > boards
                    ),
                    60,
                    "the rolled board",
                )
                assert "rolled" in str(fake.message(board).embeds) or len(fake.messages_in(thread)) > 1
                fake.assert_clean()
            except BaseException:
                with contextlib.suppress(Exception):
                    print(log_path.read_text())
                raise
            finally:
                await _stop(proc)
    logged = log_path.read_text()
    assert "process-token" not in logged, "the token never appears in the logs"
    assert "synced" in logged


@pytest.mark.asyncio
async def test_sigterm_closes_the_database_cleanly(tmp_path: Path) -> None:
    fake = FakeDiscord(timeout=15, token="process-token")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    db = tmp_path / "db.sqlite3"
    log_path = tmp_path / "bot.log"
    async with FakeDiscordServer(fake) as server:
        env = _env(tmp_path, DISCORD_TOKEN="process-token", **process_env(db))
        with log_path.open("wb") as log:
            proc = await asyncio.create_subprocess_exec(
                *server.bot_command(), cwd=tmp_path, env=env, stdout=log, stderr=asyncio.subprocess.STDOUT
            )
            try:
                await server.wait_until_identified(timeout=30)
                await fake.wait_for(lambda: fake.synced, 30, "command sync")
                # Something to write: a challenge, so the write-ahead log holds pages.
                result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
                assert result.message is not None
                assert backend() != "sqlite" or Path(f"{db}-wal").exists()
                proc.send_signal(signal.SIGTERM)
                await asyncio.wait_for(proc.wait(), 20)
            finally:
                await _stop(proc)
    logged = log_path.read_text()
    assert proc.returncode == 0, logged
    assert "Traceback" not in logged
    # Closed cleanly: the log was checkpointed into the file and removed, and the file is whole.
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    if backend() == "sqlite":
        assert sql(db, "PRAGMA quick_check") == [("ok",)]
        assert not Path(f"{db}.lock").exists(), "a clean exit leaves no lock file beside the database"
    assert sql(db, "SELECT COUNT(*) FROM challenges") == [(1,)]


def claimed_by_the_killed(db: Path, killed: Process) -> None:
    """The killed process held the claim on its match's board (its scheduler's round had taken the
    board up: a race on a busy machine, made certain here); the next process must take it back at
    start, not a lease (``BOARD_LEASE``) later."""
    [(match_id,)] = sql(db, "SELECT id FROM matches")
    sql(
        db,
        "INSERT INTO work_claims (kind, item, owner, until) VALUES ('board', ?, ?, ?)"
        " ON CONFLICT (kind, item) DO UPDATE SET owner = excluded.owner, until = excluded.until",
        (match_id, owner_name(killed.pid, "killed"), time.time() + BOARD_LEASE),
    )


@pytest.mark.asyncio
async def test_a_kill_between_accept_and_the_first_board_loses_nothing(tmp_path: Path) -> None:
    """kill -9 of the real process after Accept saved the match but before its thread and board were
    shown: the next process shows them (once), and the match plays on."""
    fake = FakeDiscord(timeout=15, token="process-token")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    db = tmp_path / "db.sqlite3"
    log_path = tmp_path / "bot.log"
    async with FakeDiscordServer(fake) as server:
        env = _env(tmp_path, DISCORD_TOKEN="process-token", **process_env(db))
        with log_path.open("wb") as log:
            first = await asyncio.create_subprocess_exec(
                *server.bot_command(), cwd=tmp_path, env=env, stdout=log, stderr=asyncio.subprocess.STDOUT
            )
            second = None
            try:
                await server.wait_until_identified(timeout=30)
                await fake.wait_for(lambda: fake.synced, 30, "command sync")
                result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
                challenge = result.message
                assert challenge is not None
                # Discord cannot open the thread (503): the match is saved, nothing is shown yet.
                fault = fake.fail("POST", r"^/channels/\d+/messages/\d+/threads$", times=None)
                accept = next(c for c in challenge.custom_ids if c.endswith(":accept"))
                await fake.click(bob, challenge, accept)
                await fake.wait_for(lambda: bool(fault.failed), 15, "the attempt to open the thread")
                first.kill()  # SIGKILL: no clean-up at all
                await first.wait()
                assert sql(db, "SELECT status, shown_version, timeout_at FROM matches") == [
                    ("active", None, None)
                ]
                assert sql(db, "SELECT status FROM challenges") == [("accepted",)]
                assert fake.thread_of(challenge) is None
                claimed_by_the_killed(db, first)
                fault.clear()
                second = await asyncio.create_subprocess_exec(
                    *server.bot_command(), cwd=tmp_path, env=env, stdout=log, stderr=asyncio.subprocess.STDOUT
                )
                await fake.wait_for(
                    lambda: (
                        (thread := fake.thread_of(challenge)) is not None and bool(fake.messages_in(thread))
                    ),
                    30,
                    "the first board, shown by the new process",
                )
                thread = fake.thread_of(challenge)
                assert thread is not None
                [board] = fake.messages_in(thread)
                assert alice.mention in board.content and bob.mention in board.content
                player = alice if f"{alice.mention}, your turn" in board.content else bob
                roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
                await fake.click(player, board, roll)
                # The roll shows on this board, or (a roll that ends the turn) on a new one.
                await fake.wait_for(
                    lambda: (
                        "to roll**" not in str(fake.message(board).embeds)
                        or len(fake.messages_in(thread)) > 1
                    ),
                    15,
                    "the roll",
                )
                # SIGTERM drains: the board just shown is noted before the process exits.
                second.send_signal(signal.SIGTERM)
                await asyncio.wait_for(second.wait(), 30)
            except BaseException:
                with contextlib.suppress(Exception):
                    print(log_path.read_text())
                raise
            finally:
                await _stop(first)
                if second is not None:
                    await _stop(second)
    [(shown, board_version, timeout_at)] = sql(
        db, "SELECT shown_version, board_version, timeout_at FROM matches"
    )
    assert shown == board_version and timeout_at is not None


def test_the_product_neither_imports_the_development_tools_nor_talks_to_another_host() -> None:
    """fakediscord/ and sandbox/ are not installed, and only the fake's launcher redirects discord.py."""
    offending = []
    for package in ("engine", "render", "bot", "cogs"):
        for path in sorted((REPO / package).rglob("*.py")):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                words = line.split()
                imports = words[:1] in (["import"], ["from"]) and len(words) > 1
                if (imports and words[1].split(".")[0] in ("fakediscord", "sandbox")) or (
                    "DISCORD_API_BASE" in line or "Route.BASE" in line
                ):
                    offending.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert offending == []


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.asyncio
async def test_kill_9_of_the_bot_takes_its_worker_processes_with_it(tmp_path: Path) -> None:
    """A SIGKILL leaves no clean-up to the bot: its render workers must notice and end by themselves,
    or a service manager restarting the bot piles them up."""
    fake = FakeDiscord(timeout=15, token="process-token")
    async with FakeDiscordServer(fake) as server:
        env = _env(tmp_path, DISCORD_TOKEN="process-token", **process_env(tmp_path / "db.sqlite3"))
        proc = await asyncio.create_subprocess_exec(
            *server.bot_command(), cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        try:
            await server.wait_until_identified(timeout=30)
            await fake.wait_for(lambda: fake.synced, 30, "command sync")
            workers = children(proc.pid)
            assert workers, "the bot forks its render workers before it syncs its commands"
            proc.kill()
            await proc.wait()
            for _ in range(50):
                if not any(alive(pid) for pid in workers):
                    break
                await asyncio.sleep(0.1)
            left = [pid for pid in workers if alive(pid)]
            assert left == [], f"worker processes {left} outlived the killed bot"
        finally:
            await _stop(proc)


@contextlib.asynccontextmanager
async def bot_processes(
    directory: Path, fake: FakeDiscord, prelude: str = ""
) -> AsyncIterator[Callable[[], Awaitable[Process]]]:
    """Starts ``python -m bot`` processes against ``fake`` served locally, on the database
    ``directory/db.sqlite3``, all logging to ``directory/bot.log`` (printed if the block fails); each
    is stopped at the end. Yields ``start()``, which returns a process once the bot has synced.
    ``prelude``: Python statements each process runs first (a test's bounds, such as a constant of
    ``app.client`` changed)."""
    log_path = directory / "bot.log"
    started: list[Process] = []
    async with FakeDiscordServer(fake) as server:
        env = _env(directory, DISCORD_TOKEN=fake.token, **process_env(directory / "db.sqlite3"))
        command = server.bot_command()
        if prelude:
            launch = "import sys; from fakediscord.run_bot import main; sys.exit(main(sys.argv[1:]))"
            command = [sys.executable, "-c", f"{prelude}\n{launch}", *command[3:]]
        with log_path.open("wb") as log:

            async def start() -> Process:
                proc = await asyncio.create_subprocess_exec(
                    *command,
                    cwd=directory,
                    env=env,
                    stdout=log,
                    stderr=asyncio.subprocess.STDOUT,
                )
                started.append(proc)
                await server.wait_until_identified(timeout=60)
                await fake.wait_for(lambda: fake.synced, 60, "command sync")
                return proc

            try:
                yield start
            except BaseException:
                with contextlib.suppress(Exception):
                    print(log_path.read_text())
                raise
            finally:
                for proc in started:
                    await _stop(proc)


async def start_matches(fake: FakeDiscord, count: int) -> list[tuple[FakeMessage, dict[int, FakeUser]]]:
    """``count`` ring matches started through the running bot process: (challenge message, players)."""
    started = []
    for i in range(count):
        alice, bob = fake.add_user(f"alice{i}"), fake.add_user(f"bob{i}")
        result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
        challenge = result.message
        assert challenge is not None
        accept = next(c for c in challenge.custom_ids if c.endswith(":accept"))
        await fake.click(bob, challenge, accept)
        started.append((challenge, {alice.id: alice, bob.id: bob}))
    for challenge, _ in started:
        await fake.wait_for(
            lambda c=challenge: (t := fake.thread_of(c)) is not None and bool(fake.messages_in(t)),
            60,
            "every first board",
        )
    return started


def rolls_of(
    fake: FakeDiscord, started: list[tuple[FakeMessage, dict[int, FakeUser]]]
) -> list[FakeInteraction]:
    """The click of Roll by the player on turn of each match's board, prepared (not sent)."""
    clicks = []
    for challenge, users in started:
        thread = fake.thread_of(challenge)
        assert thread is not None
        board = fake.messages_in(thread)[-1]
        player = user_on_turn(board, users)
        roll = next(b.custom_id for b in board.buttons if b.label == "Roll")
        assert player is not None and roll is not None
        clicks.append(fake.prepare_click(player, board, roll))
    return clicks


def live_board_ids(fake: FakeDiscord, channel_id: int) -> list[int]:
    """The public messages of a channel with an enabled control of a match (Rules aside)."""
    return [
        m.id
        for m in fake.messages_in(channel_id)
        if m.visible_to is None
        and any(not c.disabled and (c.custom_id or "").startswith(("g:", "rsk:")) for c in m.all_components)
    ]


CALLBACK = "/interactions/{interaction_id}/{token}/callback"


@pytest.mark.slow
@pytest.mark.asyncio
async def test_sigterm_in_a_burst_of_clicks_shows_every_saved_change_before_exiting(tmp_path: Path) -> None:
    """SIGTERM a moment into a burst of clicks: the clicks taken are finished and shown, the later ones
    are told that the bot is restarting, then the process exits 0 with no traceback."""
    fake = FakeDiscord(timeout=30, token="process-token")
    async with bot_processes(tmp_path, fake) as start:
        proc = await start()
        started = await start_matches(fake, 300)
        callbacks = len(fake.find_requests("POST", CALLBACK))
        clicks = [asyncio.create_task(fake.dispatch_interaction(c)) for c in rolls_of(fake, started)]
        await fake.wait_for(
            lambda: len(fake.find_requests("POST", CALLBACK)) >= callbacks + 3, 30, "the first clicks taken"
        )
        proc.send_signal(signal.SIGTERM)
        answers = await asyncio.gather(*clicks)
        await asyncio.wait_for(proc.wait(), 60)
    logged = (tmp_path / "bot.log").read_text()
    assert proc.returncode == 0, logged
    assert "Traceback" not in logged and "ERROR" not in logged, logged
    refused = [a for a in answers if a.private is not None and "restarting" in a.private.content]
    taken = [a for a in answers if a.callback_type == 6]  # deferred: the click was taken
    assert len(refused) + len(taken) == len(answers) and taken
    rows = sql(
        tmp_path / "db.sqlite3",
        "SELECT channel_id, message_id, shown_version, board_version, redraw FROM matches",
    )
    # Every change saved is shown, on one live board per match, the one the store knows.
    assert all(shown == version and not redraw for _, _, shown, version, redraw in rows), rows
    assert all(live_board_ids(fake, channel) == [message] for channel, message, *_ in rows)


@pytest.mark.asyncio
async def test_a_kill_after_a_board_is_posted_but_before_its_note_posts_it_once(tmp_path: Path) -> None:
    """kill -9 of the real process after Discord posted the first board but before the bot read the
    answer (so before it noted it): the next process posts the same board again with the same nonce,
    Discord returns the first message, and the match has one board, which shows the deadline stored
    (the next process's, not the one the killed process drew: issue 33)."""
    fake = FakeDiscord(timeout=15, token="process-token")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    db = tmp_path / "db.sqlite3"

    def noted() -> bool:
        return sql(db, "SELECT shown_version FROM matches") != [(None,)]

    async with bot_processes(tmp_path, fake) as start:
        first = await start()
        result = await fake.slash(alice, "challenge", {"opponent": bob, "game": "ring"})
        challenge = result.message
        assert challenge is not None
        gate = fake.hold("POST", r"^/channels/\d+/messages$", answered=True)
        accept = next(c for c in challenge.custom_ids if c.endswith(":accept"))
        await fake.click(bob, challenge, accept)
        await fake.wait_for(lambda: len(gate.waiting) == 1, 30, "the first board, posted")
        first.kill()  # the board is posted; the bot never reads Discord's answer
        await first.wait()
        claimed_by_the_killed(db, first)
        gate.release()
        thread = fake.thread_of(challenge)
        assert thread is not None and len(fake.messages_in(thread)) == 1
        await asyncio.sleep(1.1)  # so the next process draws its board in a later second
        await start()
        await _until(noted, "the second process notes the board", 30)
        [board] = fake.messages_in(thread)
        assert live_board_ids(fake, thread.id) == [board.id]
        assert sql(db, "SELECT message_id FROM matches") == [(board.id,)]
        [(timeout_at,)] = sql(db, "SELECT timeout_at FROM matches")
        due = int(timeout_at)
        assert f"Play by <t:{due}:f> (<t:{due}:R>)" in board.embeds[0]["description"]


async def _until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Wait until ``check()`` (a read of what another process saved: nothing to wait on but the
    database), for ``timeout`` seconds stretched on a busy machine (``fakediscord.patience``)."""
    limit = patient(timeout)
    end = time.monotonic() + limit
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"not seen within {limit:g} s: {what}")
        await asyncio.sleep(0.1)


@pytest.mark.asyncio
async def test_a_live_clock_gets_back_the_downtime_of_a_kill_9(tmp_path: Path) -> None:
    """Issue 33: kill -9 of the real process while a live clock runs, started again seconds later
    (far under the turn clocks' slack): the player on turn gets back every second the bot was down
    (less at most one heartbeat's interval, ``LIVE_BEAT``), never time it was running (no more than
    from its last heartbeat to now), and the board, redrawn, shows the moment stored."""
    fake = FakeDiscord(timeout=15, token="process-token")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    db = tmp_path / "db.sqlite3"

    def clock_row() -> tuple[float | None, float | None, float, int]:
        [(since, timeout_at)] = sql(db, "SELECT clock_since, timeout_at FROM matches")
        [(alive_at, stopped)] = sql(db, "SELECT alive_at, stopped FROM heartbeat")
        return since, timeout_at, alive_at, stopped

    async with bot_processes(tmp_path, fake) as start:
        first = await start()
        result = await fake.slash(
            alice, "challenge", {"opponent": bob, "game": "backgammon", "clock": "30s+5s"}
        )
        challenge = result.message
        assert challenge is not None
        await fake.click(bob, challenge, next(c for c in challenge.custom_ids if c.endswith(":accept")))
        # The clock runs (its board is shown), and the bot has beaten since it started.
        await _until(lambda: (row := clock_row())[0] is not None and row[2] > row[0], "a heartbeat")
        first.kill()
        await first.wait()
        killed = time.time()  # the bot died before this
        since0, timeout0, alive0, _ = clock_row()
        assert since0 is not None and timeout0 is not None
        await asyncio.sleep(3)  # the downtime
        restarted = time.time()  # the bot runs again only after this
        await start()
        await _until(lambda: (row := clock_row())[3] == 0 and row[2] > restarted, "the bot connected again")
        seen = time.time()
        since1, timeout1, _, _ = clock_row()
        assert since1 is not None and timeout1 is not None
        given = since1 - since0
        assert timeout1 - timeout0 == pytest.approx(given)
        assert given >= restarted - killed - LIVE_BEAT, (given, restarted - killed)
        assert given <= seen - max(alive0, since0), (given, seen - max(alive0, since0))
        await _until(
            lambda: sql(db, "SELECT shown_version = board_version AND redraw = 0 FROM matches") == [(1,)],
            "the board redrawn",
        )
        thread = fake.thread_of(challenge)
        assert thread is not None
        board = fake.messages_in(thread)[-1]
        assert f"runs out <t:{int(timeout1)}:R>" in board.embeds[0]["description"]


@pytest.mark.sqlite_only("SQLite serves one process; PostgreSQL is shared by several (bench/cluster.py)")
@pytest.mark.asyncio
async def test_a_second_process_on_the_same_sqlite_file_stops_with_one_clear_line(tmp_path: Path) -> None:
    """Two bot processes on one SQLite file would both send every reminder: the second is refused, the
    first plays on, and once the first is gone (even by kill -9) a new one starts."""
    fake = FakeDiscord(timeout=15, token="process-token")
    async with FakeDiscordServer(fake) as server:
        env = _env(tmp_path, DISCORD_TOKEN="process-token", DATABASE=str(tmp_path / "db.sqlite3"))
        first = await asyncio.create_subprocess_exec(
            *server.bot_command(), cwd=tmp_path, env=env,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
        try:
            await server.wait_until_identified(timeout=30)
            second = await asyncio.to_thread(_run_bot, tmp_path, DISCORD_TOKEN="process-token",
                                             DATABASE=str(tmp_path / "db.sqlite3"))  # fmt: skip
            assert second.returncode == 2
            [line] = second.stderr.strip().splitlines()
            assert line.startswith(f"error: another bot process (pid {first.pid}) is using the database ")
            assert "set DATABASE_URL to PostgreSQL to run several" in line
            assert first.returncode is None
            first.kill()
            await first.wait()
            third = await asyncio.create_subprocess_exec(
                *server.bot_command(), cwd=tmp_path, env=env,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                await fake.wait_for(
                    lambda: sum(1 for s in server.sessions if s.identify is not None) >= 2, 30, "a new start"
                )
                assert third.returncode is None
            finally:
                await _stop(third)
        finally:
            await _stop(first)


def long_match_file() -> bytes:
    """A 25-point match of GNU Backgammon's, some 1,000 actions: minutes of analysis (the 7-point match
    of tests/engine/mat_files played three times over)."""
    seven = (REPO / "tests" / "engine" / "mat_files" / "gnubg-7-point.mat").read_text()
    games = [part.split("\n", 1)[1].rstrip("\n") for part in re.split(r"\n Game \d+\n", seven)[1:]]
    won = [1, 4, 2]  # gnubg wins each of its three games: 7 points
    lines = [" 25 point match", ""]
    for number in range(3 * len(games)):
        score = sum(won) * (number // len(games)) + sum(won[: number % len(games)])
        lines += [f" Game {number + 1}", f" gnubg : {score}                      root : 0"]
        lines += [games[number % len(games)], ""]
    return "\n".join(lines).encode()


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the process's name (the first is its state)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds_of_heavy_workers(pid: int) -> float:
    """The CPU time the bot's heavy workers (its children at a lower priority than itself) have used."""
    ticks = os.sysconf("SC_CLK_TCK")
    own_nice = int(_stat(pid)[16])
    used = 0.0
    for child in children(pid):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = _stat(child)
            if int(fields[16]) > own_nice:
                used += (int(fields[11]) + int(fields[12])) / ticks
    return used


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.asyncio
async def test_sigterm_during_the_analysis_of_a_file_exits_within_the_bound_and_keeps_it_queued(
    tmp_path: Path,
) -> None:
    """SIGTERM while an imported ``/analyse file:`` is being analysed in a heavy worker (minutes of
    work): the process exits 0 within the drain bound, the file's job goes back to the queue with
    its bytes (``bot.store.jobs``), and the asker is told privately that it keeps its place and is
    analysed after the restart; the next start takes it up again."""
    from app.client import DRAIN_SECONDS
    from bot.analyses import KEPT_AT_RESTART

    fake = FakeDiscord(timeout=30, token="process-token")
    alice = fake.add_user("alice")
    async with bot_processes(tmp_path, fake) as start:
        proc = await start()
        asked = await fake.slash(alice, "analyse", {"file": ("long.mat", long_match_file())})
        await fake.wait_for(
            lambda: asked.private is not None and asked.private.content.startswith("long.mat: "),
            60,
            "the file accepted",
        )
        for _ in range(1200):  # the analysis runs in a worker: its CPU time is read from /proc
            if cpu_seconds_of_heavy_workers(proc.pid) > 1.0:
                break
            await asyncio.sleep(0.1)
        assert cpu_seconds_of_heavy_workers(proc.pid) > 1.0, "the analysis never ran in a heavy worker"
        assert "restart" not in asked.private.content
        proc.send_signal(signal.SIGTERM)
        # The bound a service manager is given (compose, systemd, docker stop -t 20) is above this.
        await asyncio.wait_for(proc.wait(), DRAIN_SECONDS + 5)
        logged = (tmp_path / "bot.log").read_text()
        assert proc.returncode == 0, logged
        assert "Traceback" not in logged and "ERROR" not in logged, logged
        told = asked.private
        assert told is not None and told.ephemeral and told.content == KEPT_AT_RESTART, logged
        db = tmp_path / "db.sqlite3"
        assert sql(db, "SELECT state, worker, payload IS NOT NULL FROM heavy_jobs") == [
            ("queued", None, True)
        ]
        assert sql(db, "SELECT COUNT(*) FROM imported_matches") == [(0,)]
        # The next start takes it up again.
        again = await start()
        for _ in range(1200):
            if cpu_seconds_of_heavy_workers(again.pid) > 1.0:
                break
            await asyncio.sleep(0.1)
        assert cpu_seconds_of_heavy_workers(again.pid) > 1.0, "the analysis was not taken up again"
        assert sql(db, "SELECT state, attempts FROM heavy_jobs") == [("running", 1)]


@pytest.mark.asyncio
async def test_a_kill_between_the_final_result_and_its_announcement_names_the_champion_at_restart(
    tmp_path: Path,
) -> None:
    """kill -9 of the real process after the final's result was taken but before the tournament's
    announcement was edited (Discord had not done the edit): the next process names the champion on
    the announcement, and announces the champion once."""
    fake = FakeDiscord(timeout=30, token="process-token")
    admins = fake.add_role("admins", discord.Permissions(manage_guild=True))
    ada, alice, bob = fake.add_user("ada", roles=[admins]), fake.add_user("alice"), fake.add_user("bob")

    def said() -> str:
        return str(fake.message(announcement).embeds)

    async with bot_processes(tmp_path, fake) as start:
        first = await start()
        made = await fake.slash(
            ada, "tournament create", {"game": "ring", "format": "knockout", "name": "Cup"}
        )
        announcement = made.message
        assert announcement is not None
        op = {c.rsplit(":", 1)[1]: c for c in announcement.custom_ids if c.startswith("tn:")}
        for player in (alice, bob):
            await fake.click(player, announcement, op["join"])
        await fake.click(ada, announcement, op["start"])
        await fake.wait_for(lambda: "playing in <#" in said(), 60, "the final's table linked")
        (thread,) = fake.threads()
        await fake.wait_for(lambda: bool(fake.messages_in(thread)), 60, "the final's first board")
        edits = rf"^/channels/{fake.channel.id}/messages/{announcement.id}$"
        gate = fake.hold("PATCH", edits)
        prompt = await fake.slash(alice, "resign", channel=thread.id)
        assert prompt.message is not None
        await fake.click(
            alice, prompt.message, next(c for c in prompt.message.custom_ids if c.endswith(":yes"))
        )
        await fake.wait_for(lambda: bool(gate.waiting), 60, "the announcement's edit, held")
        first.kill()  # SIGKILL: the result is saved, the announcement not edited
        await first.wait()
        refused = fake.fail("PATCH", edits, times=1)  # the dead process's edit never reaches Discord
        gate.release()
        await fake.wait_for(lambda: bool(refused.failed), 30, "the dead process's edit refused")
        assert "Champion" not in said()
        await start()
        await fake.wait_for(lambda: "Champion" in said(), 60, "the champion on the announcement")
        await fake.wait_for(
            lambda: any("won **Cup**" in m.content for m in fake.messages_in(fake.channel)),
            60,
            "the champion",
        )
        crowned = [m for m in fake.messages_in(fake.channel) if "won **Cup**" in m.content]
        assert len(crowned) == 1 and crowned[0].pinged_users == [bob.id]
