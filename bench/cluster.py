"""Several real bot processes on one PostgreSQL, under a steady stream of clicks, and faults.

    python bench/cluster.py [--matches 10000] [--servers 1000] [--processes 2,4] [--seconds 30]
                            [--players 48] [--faults 2] [--no-baseline] [--seed 1]

For each configuration, a fresh database and a fresh fake Discord world (``--servers`` servers with a
text channel each, two members per match): the baseline, SQLite with one process, then PostgreSQL
with each process count of ``--processes`` (``SHARD_COUNT`` = that count, process i runs
``SHARD_IDS=i``). ``--matches`` ring matches are started directly in the database (spread evenly over
the servers); the bot processes post their boards at start-up (``setup``: seconds until every board
is shown). One server in ten has short clocks (a reminder after 20 s, a loss on time after 40 s) so
that reminders and timeouts happen during the run.

Load: ``--players`` concurrent players for ``--seconds``, each with its own share of the matches,
taking them in turn: the player on turn clicks a game control (Roll, a stack, a move, Confirm) on the
live board or on their private panel when a turn is in progress there, as a member would, through
the real gateway and REST of the fake Discord (``FakeDiscordServer``). Reported: clicks answered per
second, first-answer (dispatch to the interaction callback, what decides "This interaction failed")
p50/p99/max, and refusals ("busy", "changed meanwhile") apart.

Faults (``--faults`` = the process count they are run with; 0: none), each under the same load:

- ``kill``: kill -9 of process 1 a third into the load, restarted at once (as a supervisor does);
- ``postgres``: the PostgreSQL server restarted (fast shutdown) a third into the load;
- ``duplicate_shard``: a third process started with the shard of process 1, which already runs;
- ``impossible_shard``: a process started with ``SHARD_IDS`` = the shard count: it must stop with one
  line and change nothing.

After each phase the bench waits until every match is whole again (``whole_after_load_s``: from the
end of the load until no board is behind what is saved and every live board has its controls); a
fault also gets ``answering_again_s``, from the fault until a click on a match it touched (a server
of shard 1 for a process fault, any for the database) was answered again. Then it checks, from the
database and the fake Discord:

- ``lost``: action clicks (roll, move, confirm) whose outcome the bot showed (a message created or
  edited for that interaction) while the database is not past the clicked version;
  ``deferred_not_saved`` apart: action clicks acknowledged by a deferral alone (Discord shows no
  error and nothing changes) whose process died before saving them: the player sees the board as it
  was and clicks again;
- ``applied_twice``: interactions answered twice (Discord refuses a second answer with 40060), and
  matches whose saved position is not their action log replayed (an action saved twice would be
  illegal the second time, or leave another position);
- ``never_shown``: active matches whose saved board is not the one shown (``shown_version`` behind,
  or the live message's controls at another version);
- ``reminded_twice``: two reminders to one player of one match with no click on it between them (a
  new reminder needs a new turn, and only a click starts one here); ``timed_out_twice``: more than
  one result message for one match;
- ``without_controls``: active matches whose live board message is gone or carries no control.

``bot_cpu_ms_per_click`` and ``fake_cpu_ms_per_click``: CPU time of the bot processes (with their
workers) and of this process (the fake Discord and the players) per click answered. On a small
machine everything shares the same cores, so clicks per second show the machine's limit; the bots'
CPU per click shows what a process costs wherever it runs.

Prints one JSON line per configuration and fault. Nothing is asserted: the figures are for the
closing note, and a non-zero count above is a fault to fix.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import itertools
import json
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from bot.clock import SystemClock  # noqa: E402
from bot.sessions import SessionManager  # noqa: E402
from bot.store import GuildSettings, Store  # noqa: E402
from engine import find_variant, replay  # noqa: E402
from fakediscord import FakeDiscord, FakeDiscordServer, FakeMessage, FakeUser  # noqa: E402
from fakediscord.blackbox.driver import GAME_CONTROL  # noqa: E402
from fakediscord.blackbox.processes import BotProcess, children  # noqa: E402
from fakediscord.gateway import shard_of  # noqa: E402
from fakediscord.matches import pick_control, private_panel, user_on_turn  # noqa: E402

REPO = _HERE.parent
TOKEN = "cluster-token"
SHORT = GuildSettings(guild_id=0, reminder_seconds=20.0, timeout_seconds=40.0)
REFUSALS = re.compile(r"busy|try again|changed|earlier position|not your turn|is over|cannot reach", re.I)
REMINDER = re.compile(r"<@(\d+)>, it is your turn in match #(\d+)")
RESULT = re.compile(r"🏆")
FAULTS = ("kill", "postgres", "duplicate_shard", "impossible_shard")


def _postgres_server() -> Any:
    spec = importlib.util.spec_from_file_location("postgres_server", REPO / ".ci" / "postgres_server.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds used so far by ``pids`` and their worker processes (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    seen: set[int] = set()
    for pid in pids:
        for each in {pid, *children(pid)}:
            if each in seen:
                continue
            seen.add(each)
            try:
                fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Click:
    match_id: int
    version: int
    action: bool
    answer_s: float | None
    refused: bool
    at: float
    said: str = ""
    interaction_id: int | None = None
    guild_id: int | None = None


@dataclass
class World:
    fake: FakeDiscord
    users: dict[int, FakeUser] = field(default_factory=dict)
    matches: list[int] = field(default_factory=list)
    channel_of: dict[int, int] = field(default_factory=dict)
    clicked: list[Click] = field(default_factory=list)
    """Every click of every phase (the reminders of the world span the phases)."""


async def build_world(
    fake: FakeDiscord, store: Store, matches: int, servers: int, rng: random.Random
) -> World:
    """``servers`` servers with a channel each and ``matches`` ring matches between their members,
    started in the database with their first board still to show (the bots post them)."""
    world = World(fake)
    manager = SessionManager(store, SystemClock(), rng=rng)
    per_server = max(1, matches // servers)
    made = 0
    for n in range(servers):
        guild = fake.add_guild(f"club {n}")
        channel_id = guild.channel_ids[0]
        if n % 10 == 0:
            await store.settings.save(
                GuildSettings(
                    guild_id=guild.id, reminder_seconds=20.0, timeout_seconds=40.0, use_threads=False
                )
            )
        else:
            await store.settings.save(GuildSettings(guild_id=guild.id, use_threads=False))
        for _ in range(per_server if n < servers - 1 else matches - made):
            pair = [fake.add_user(f"p{len(world.users) + i}", guild=guild) for i in range(2)]
            for user in pair:
                world.users[user.id] = user
            played = await manager.start_match(
                game="ring", options={}, players=(pair[0].id, pair[1].id), guild_id=guild.id,
                channel_id=channel_id, parent_id=None, rated=True,
            )  # fmt: skip
            world.matches.append(played.session.id)
            world.channel_of[played.session.id] = channel_id
            made += 1
    return world


async def behind(store: Store) -> int:
    row = await store.connection.one(
        "SELECT COUNT(*) FROM matches WHERE status = 'active'"
        " AND (shown_version IS NULL OR shown_version < board_version OR redraw = 1)"
    )
    return int(row[0]) if row else 0


async def wait_whole(store: Store, world: World, limit: float) -> float | None:
    """Seconds until every active match's board is shown with live controls (None: not within ``limit``)."""
    start = time.perf_counter()
    while time.perf_counter() - start < limit:
        try:
            if await behind(store) == 0 and not await without_controls(store, world):
                return time.perf_counter() - start
        except Exception:  # the database restarting
            pass
        await asyncio.sleep(0.5)
    return None


async def without_controls(store: Store, world: World) -> list[int]:
    rows = await store.connection.all(
        "SELECT id, message_id, board_version FROM matches WHERE status = 'active'"
    )
    missing = []
    for row in rows:
        message = world.fake.world.messages.get(row["message_id"]) if row["message_id"] else None
        if message is None or message.deleted or not any(GAME_CONTROL.match(c) for c in message.custom_ids):
            missing.append(int(row["id"]))
    return missing


def live_message(world: World, record: Any) -> FakeMessage | None:
    if record is None or record.message_id is None:
        return None
    message = world.fake.world.messages.get(record.message_id)
    return None if message is None or message.deleted else message


async def player(
    world: World, store: Store, share: list[int], until: float, clicks: list[Click], rng: random.Random
) -> None:
    """One player loop: its matches in turn, a game control clicked where the player on turn acts."""
    fake = world.fake
    index = 0
    while time.perf_counter() < until and share:
        match_id = share[index % len(share)]
        index += 1
        try:
            record = await store.matches.get(match_id)
        except Exception:
            await asyncio.sleep(0.2)
            continue
        board = live_message(world, record)
        if record is None or record.status != "active" or board is None:
            await asyncio.sleep(0)
            continue
        user = user_on_turn(board, world.users)
        if user is None:
            continue
        target = private_panel(fake, board.channel_id, user, board) or board
        try:
            how, custom_id, values = pick_control(target, rng)
        except (AssertionError, LookupError, IndexError):
            continue
        found = GAME_CONTROL.match(custom_id)
        if found is None:
            continue
        version = int(found[2])
        chosen = values[0] if values else found[3]
        action = chosen in ("roll", "confirm") or chosen.startswith("a:")
        at = time.perf_counter()
        try:
            if how == "select":
                result = await fake.select(
                    user, target, custom_id, values or [], timeout=10, expect_response=False
                )
            else:
                result = await fake.click(user, target, custom_id, timeout=10, expect_response=False)
        except Exception:
            clicks.append(Click(match_id, version, action, None, True, at, "no answer"))
            continue
        answer = result.answer_seconds
        await asyncio.sleep(0.05)  # a refusal comes as the answer or a followup right after it
        texts = " ".join(m.content for m in result.messages if m is not None)
        refused = answer is None or bool(REFUSALS.search(texts))
        clicks.append(
            Click(match_id, version, action, answer, refused, at, texts[:60] if refused else "",
                  result.interaction.id, board.guild_id)
        )  # fmt: skip


async def load(world: World, store: Store, players: int, seconds: float, rng: random.Random) -> list[Click]:
    matches = list(world.matches)
    rng.shuffle(matches)
    shares = [matches[i::players] for i in range(players)]
    until = time.perf_counter() + seconds
    clicks: list[Click] = []
    await asyncio.gather(
        *(player(world, store, share, until, clicks, random.Random(rng.random())) for share in shares)
    )
    world.clicked.extend(clicks)
    return clicks


async def checks(store: Store, world: World, clicks: list[Click]) -> dict[str, int]:
    rows = await store.connection.all(
        "SELECT id, version, status, shown_version, board_version, message_id FROM matches"
    )
    saved = {int(r["id"]): r for r in rows}
    # An action is acknowledged once the bot showed its outcome to the player (a message created or
    # edited for that interaction: the board, the private panel); a deferral alone shows nothing.
    shown_for = {
        r.interaction_id
        for r in world.fake.requests
        if r.interaction_id is not None and r.method in ("POST", "PATCH") and 200 <= r.status < 300
        and r.message_id is not None
    }  # fmt: skip
    # A refusal may come a while after the click's first answer (a write that waited for the database):
    # every message the bot sent for the interaction counts.
    said: dict[int, str] = defaultdict(str)
    for message in world.fake.world.messages.values():
        if message.interaction_id is not None:
            said[message.interaction_id] += " " + message.content
    for c in clicks:
        if not c.refused and c.interaction_id is not None and REFUSALS.search(said[c.interaction_id]):
            c.refused, c.said = True, said[c.interaction_id].strip()[:60]
    acted = [c for c in clicks if c.action and not c.refused and saved[c.match_id]["status"] == "active"]
    lost = sum(
        1 for c in acted if c.interaction_id in shown_for and saved[c.match_id]["version"] <= c.version
    )
    deferred_unsaved = sum(
        1 for c in acted if c.interaction_id not in shown_for and saved[c.match_id]["version"] <= c.version
    )
    # Every saved match is its own action log replayed: an action saved twice would be illegal the
    # second time or leave another position than the one saved.
    twice = 0
    variant = find_variant("ring")
    for match_id in world.matches:
        log = [a.notation for a in await store.matches.action_log(match_id)]
        record = await store.matches.get(match_id)
        assert record is not None
        try:
            same = replay(variant, record.options, log).canonical() == record.state
        except Exception:
            same = False
        twice += not same
    never_shown = 0
    for r in rows:
        if r["status"] != "active":
            continue
        if r["shown_version"] is None or r["shown_version"] < r["board_version"]:
            never_shown += 1
            continue
        message = world.fake.world.messages.get(r["message_id"]) if r["message_id"] else None
        versions = {
            int(m[2]) for c in (message.custom_ids if message else []) if (m := GAME_CONTROL.match(c))
        }
        if message is not None and versions and versions != {int(r["board_version"])}:
            never_shown += 1
    results: Counter[int] = Counter()
    by_turn: dict[tuple[int, int], list[FakeMessage]] = defaultdict(list)
    for message in sorted(world.fake.world.messages.values(), key=lambda m: m.id):
        found = REMINDER.search(message.content)
        if found:
            by_turn[(int(found[2]), int(found[1]))].append(message)
        if RESULT.search(message.content) and message.author.id == world.fake.world.bot_user.id:
            match_id = next(
                (int(m[1]) for c in message.custom_ids if (m := re.match(r"^\w+:(\d+):", c))), None
            )
            if match_id is not None:
                results[match_id] += 1
    # Two reminders of one player in one match are one too many when no click on the match came
    # between them: a new reminder needs a new turn, and only a click (no computer here) starts one.
    # (A reminder to the other player may be posted just after a click that handed them the turn.)
    sent_at = {
        r.message_id: r.at for r in world.fake.requests if r.method == "POST" and r.message_id is not None
    }
    clicked_at: dict[int, list[float]] = defaultdict(list)
    for c in world.clicked:
        clicked_at[c.match_id].append(c.at)
    reminded_twice = 0
    for (match_id, _player), sent in by_turn.items():
        times = sorted(sent_at.get(m.id, 0.0) for m in sent)
        for earlier, later in itertools.pairwise(times):
            if not any(earlier < t < later for t in clicked_at[match_id]):
                reminded_twice += 1
    # A second answer to one interaction: Discord refuses it with 40060 "already acknowledged".
    answered_twice = [
        r
        for r in world.fake.requests
        if r.interaction_id is not None and r.status == 400 and "40060" in str(r.response)
    ]
    return {
        "lost": lost,
        "deferred_not_saved": deferred_unsaved,
        "applied_twice": twice + len(answered_twice),
        "never_shown": never_shown,
        "reminded_twice": reminded_twice,
        "timed_out_twice": sum(n - 1 for n in results.values() if n > 1),
        "without_controls": len(await without_controls(store, world)),
    }


def summary(
    clicks: list[Click], seconds: float, processes: int, cpu: tuple[float, float] | None = None
) -> dict[str, Any]:
    answered = [c.answer_s * 1000 for c in clicks if c.answer_s is not None]
    costs: dict[str, Any] = {}
    if cpu is not None and answered:
        bots, fake = cpu
        # CPU spent per click answered: by the bot processes (with their workers), and by this
        # process (the fake Discord and the players): on 2 cores, their sum is what limits the rate.
        costs = {
            "bot_cpu_ms_per_click": round(bots * 1000 / len(answered), 2),
            "fake_cpu_ms_per_click": round(fake * 1000 / len(answered), 2),
        }
    return {
        **costs,
        "clicks": len(clicks),
        "answered": len(answered),
        "refused": sum(1 for c in clicks if c.refused),
        "refused_for": dict(Counter(c.said or "no answer" for c in clicks if c.refused).most_common(3)),
        "clicks_per_s": round(len(answered) / seconds, 1),
        "clicks_per_s_per_process": round(len(answered) / seconds / processes, 1),
        "first_answer_p50_ms": round(statistics.median(answered), 1) if answered else None,
        "first_answer_p99_ms": round(percentile(answered, 0.99), 1) if answered else None,
        "first_answer_max_ms": round(max(answered), 1) if answered else None,
    }


class Cluster:
    def __init__(self, server: FakeDiscordServer, workdir: Path, env: dict[str, str], count: int) -> None:
        self.server, self.workdir, self.env, self.count = server, workdir, env, count
        self.processes: list[BotProcess] = []

    def process(self, name: str, shards: dict[str, str]) -> BotProcess:
        return BotProcess(
            checkout=REPO, workdir=self.workdir, api_base=self.server.base_url,
            env={**self.env, **shards, "DISCORD_TOKEN": TOKEN}, log_path=self.workdir / f"{name}.log", name=name,
        )  # fmt: skip

    async def start(self) -> None:
        for shard in range(self.count):
            shards = {"SHARD_COUNT": str(self.count), "SHARD_IDS": str(shard)} if self.count > 1 else {}
            proc = self.process(f"bot{shard}", shards)
            await proc.start()
            self.processes.append(proc)

    async def stop(self) -> None:
        for proc in self.processes:
            if proc.running:
                await proc.terminate()


async def configuration(
    args: argparse.Namespace, backend: str, count: int, pg: Any, pg_dir: Path | None
) -> None:
    rng = random.Random(args.seed)
    fake = FakeDiscord(timeout=30, token=TOKEN)
    workdir = Path(tempfile.mkdtemp(prefix=f"cluster-{backend}-{count}-"))
    if backend == "sqlite":
        target: str | Path = workdir / "ringside.sqlite3"
        env = {"DATABASE": str(target)}
    else:
        assert pg_dir is not None
        base = pg.url_of(pg_dir)
        name = f"cluster_{count}_{os.getpid()}"
        import asyncpg

        admin = await asyncpg.connect(base)
        await admin.execute(f"DROP DATABASE IF EXISTS {name}")
        await admin.execute(f"CREATE DATABASE {name}")
        await admin.close()
        target = base.rsplit("/", 1)[0] + f"/{name}"
        env = {"DATABASE_URL": str(target)}
    store = await Store.open(target)
    started = time.perf_counter()
    world = await build_world(fake, store, args.matches, args.servers, rng)
    seeded = time.perf_counter() - started
    async with FakeDiscordServer(fake) as server:
        cluster = Cluster(server, workdir, env, count)
        started = time.perf_counter()
        await cluster.start()
        whole = await wait_whole(store, world, 1800)
        setup = {
            "seed_s": round(seeded, 1),
            "boards_posted_s": None if whole is None else round(time.perf_counter() - started, 1),
        }
        pids = [p.pid for p in cluster.processes]
        before = (cpu_seconds(pids), time.process_time())
        clicks = await load(world, store, args.players, args.seconds, rng)
        cpu = (cpu_seconds(pids) - before[0], time.process_time() - before[1])
        settled = await wait_whole(store, world, 600)
        setup["whole_after_load_s"] = None if settled is None else round(settled, 1)
        print(json.dumps({"backend": backend, "processes": count, "matches": args.matches, "servers": args.servers,
                          **setup, **await checks(store, world, clicks), **summary(clicks, args.seconds, count, cpu)}), flush=True)  # fmt: skip
        if args.faults == count and backend == "postgresql":
            for fault in args.only.split(","):
                await run_fault(fault, cluster, world, store, args, rng, pg, pg_dir)
        await cluster.stop()
    await store.close()


async def run_fault(
    fault: str, cluster: Cluster, world: World, store: Store, args: argparse.Namespace, rng: random.Random,
    pg: Any, pg_dir: Path | None,
) -> None:  # fmt: skip
    extra: dict[str, Any] = {}

    async def inject() -> float:
        await asyncio.sleep(args.seconds / 3)
        at = time.perf_counter()
        if fault == "kill":
            victim = cluster.processes[1]
            left, _ = await victim.kill()
            extra["orphan_workers"] = len(left)
            restarted = cluster.process("bot1-again", {"SHARD_COUNT": str(cluster.count), "SHARD_IDS": "1"})
            await restarted.start()
            cluster.processes[1] = restarted
        elif fault == "postgres":
            await asyncio.to_thread(pg.stop, pg_dir)
            await asyncio.to_thread(pg.start, pg_dir)
            extra["postgres_down_s"] = round(time.perf_counter() - at, 2)
        elif fault == "duplicate_shard":
            twin = cluster.process("bot1-twin", {"SHARD_COUNT": str(cluster.count), "SHARD_IDS": "1"})
            await twin.start()
            cluster.processes.append(twin)
        else:
            wrong = cluster.process(
                "bot-wrong", {"SHARD_COUNT": str(cluster.count), "SHARD_IDS": str(cluster.count)}
            )
            await wrong.start()
            assert wrong.proc is not None
            extra["wrong_exit"] = await asyncio.wait_for(wrong.proc.wait(), 60)
            extra["wrong_said"] = wrong.log().strip().splitlines()[-1:]
        return at

    injected = asyncio.create_task(inject())
    before = (cpu_seconds([p.pid for p in cluster.processes]), time.process_time())
    clicks = await load(world, store, args.players, args.seconds, rng)
    at = await injected
    cpu: tuple[float, float] | None = (
        cpu_seconds([p.pid for p in cluster.processes]) - before[0],
        time.process_time() - before[1],
    )
    if fault == "kill":
        cpu = None  # the killed process's CPU went with it: no figure rather than a wrong one
    whole = await wait_whole(store, world, 300)  # a claim's lease (2 min) and then some
    # How long the fault was felt: from it until a click on a match it touched (shard 1's servers for
    # a process fault, any for the database) was answered again, and until everything was whole once
    # the load stopped.
    touched = [
        c for c in clicks
        if c.at > at and c.answer_s is not None and not c.refused
        and (fault == "postgres" or shard_of(c.guild_id, cluster.count) == 1)
    ]  # fmt: skip
    extra["answering_again_s"] = round(min(c.at for c in touched) - at, 2) if touched else None
    extra["whole_after_load_s"] = None if whole is None else round(whole, 1)
    print(json.dumps({"fault": fault, "processes": cluster.count, **extra,
                      **await checks(store, world, clicks), **summary(clicks, args.seconds, cluster.count, cpu)}), flush=True)  # fmt: skip
    if fault == "duplicate_shard":
        twin = cluster.processes.pop()
        await twin.terminate()


async def main_async(args: argparse.Namespace) -> None:
    print(
        json.dumps(
            {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
        )
    )
    if not args.no_baseline:
        await configuration(args, "sqlite", 1, None, None)
    counts = [int(n) for n in args.processes.split(",") if n]
    if not counts:
        return
    pg = _postgres_server()
    pg_dir = Path(tempfile.mkdtemp(prefix="cluster-pg-"))
    pg.start(pg_dir)
    try:
        for count in counts:
            await configuration(args, "postgresql", count, pg, pg_dir)
    finally:
        pg.stop(pg_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=10000)
    parser.add_argument("--servers", type=int, default=1000)
    parser.add_argument("--processes", default="2,4")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--players", type=int, default=48)
    parser.add_argument(
        "--faults", type=int, default=2, help="run the faults with this process count (0: none)"
    )
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--only", default=",".join(FAULTS), help="the faults to run, in order")
    parser.add_argument("--seed", type=int, default=1)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
