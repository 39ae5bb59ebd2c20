"""How fast the bot answers a click on a live board while many matches are active.

    python bench/interactions.py [--matches 100,1000] [--samples 500] [--seed 1]
                                 [--challenges 5] [--openapi] [--profile]

For each N in ``--matches``: a fresh temporary SQLite file and a fresh bot (``RingsideBot``) on the
in-process fake Discord. N active ring matches are set up: ``--challenges`` of them through
``/challenge`` and Accept, the rest directly through the session manager, each with its board posted
by the Play cog (setup time is reported separately). Then ``--samples`` interactions are measured,
each on the live board of a random match by the player on turn: whatever the board shows (Roll, a
stack in the select menu, a move button), picked like the end-to-end tests do.

A sample's time runs from the moment the fake dispatches INTERACTION_CREATE to the moment it records
the bot's interaction callback (``FakeInteraction.created_at`` to ``callback_at``): the engine, the
picture render and the database commit all happen before that reply. The new board message of a
turn that ended is posted after the reply and is not counted (the bench waits for it, untimed,
before the next sample). ``click_*`` fields give the wall time around ``await fake.click(...)``
itself: it also covers the fake building the interaction payload and, when a turn ended, the bot's
work after the reply up to its next real suspension (posting the new board to the fake).

Matches that end are replaced by new ones, so N stay active. Discord's documented limits are checked
on every request; the fake's OpenAPI validation is off unless ``--openapi``: validating the callback
body happens before the fake records the reply and adds about 6 ms to each (more than half of the
bot's own time), which would measure the fake rather than the bot. ``--profile`` runs the clicks of the
last N (each until the bot is idle again) under cProfile and prints the top costs to stderr.

Breakdown: ``by_kind`` splits the samples into roll, move (applies an action), pick (a stack chosen
in a select: only the controls change) and turn_ended (the reply retires the board, a new one
follows). ``render_*``: the reply's position drawn again with ``render_board`` right after each
sample that changed the position (untimed for the sample). ``commit_*``: wall time of
``MatchStore.record_actions`` (the transaction, through aiosqlite's thread), wrapped on the instance.

Prints one JSON line about the machine, then one JSON object per N. It asserts nothing except that
the fake recorded no limit violation or bot error; the figures depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import datetime as dt
import io
import json
import os
import platform
import pstats
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path and ``bench/render.py`` would shadow
# the ``render`` package: put the project root there instead.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

from bot.client import RingsideBot  # noqa: E402
from bot.clock import SystemClock  # noqa: E402
from bot.sessions import Played, Session  # noqa: E402
from bot.store import Store  # noqa: E402
from fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult  # noqa: E402
from fakediscord.matches import (  # noqa: E402
    challenge_and_accept,
    match_id_of,
    pick_control,
    user_on_turn,
)
from render import render_board  # noqa: E402

# --------------------------------------------------------------------------------------------
# driving matches (the approach of tests/bot/test_discord_flow.py)


def control_kind(custom_id: str, value: str | None) -> str:
    """roll, move (applies an action) or pick (only changes the controls shown)."""
    action = value if value is not None else custom_id.split(":", 3)[3]
    if action == "roll":
        return "roll"
    if action.startswith("a:"):
        return "move"
    return "pick"


# --------------------------------------------------------------------------------------------
# measuring


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float], prefix: str = "") -> dict[str, float | None]:
    if not values:
        return {f"{prefix}median_ms": None, f"{prefix}p95_ms": None}
    return {
        f"{prefix}median_ms": round(statistics.median(values), 2),
        f"{prefix}p95_ms": round(percentile(values, 0.95), 2),
    }


@dataclass
class Timer:
    """Wall times of an async method of an object, recorded by wrapping it on the instance."""

    times: list[float] = field(default_factory=list)

    def wrap(self, obj: object, name: str) -> None:
        inner: Callable[..., Awaitable[Any]] = getattr(obj, name)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return await inner(*args, **kwargs)
            finally:
                self.times.append((time.perf_counter() - start) * 1000)

        setattr(obj, name, timed)


@dataclass
class Bench:
    fake: FakeDiscord
    bot: RingsideBot
    users: dict[int, FakeUser] = field(default_factory=dict)
    active: list[int] = field(default_factory=list)
    made_users: int = 0

    def new_pair(self) -> tuple[FakeUser, FakeUser]:
        pair = []
        for _ in range(2):
            self.made_users += 1
            user = self.fake.add_user(f"player{self.made_users}")
            self.users[user.id] = user
            pair.append(user)
        return pair[0], pair[1]

    async def challenge_match(self) -> int:
        alice, bob = self.new_pair()
        board = await challenge_and_accept(self.fake, alice, bob)
        return match_id_of(board)

    async def direct_match(self, players: tuple[int, int] | None = None) -> int:
        """A match started through the session manager, its board posted by the Play cog."""
        if players is None:
            a, b = self.new_pair()
            players = (a.id, b.id)
        channel = self.fake.channel
        played: Played = await self.bot.sessions.start_match(
            game="ring",
            options={},
            players=players,
            guild_id=channel.guild_id,
            channel_id=channel.id,
            parent_id=None,
            rated=True,
        )
        play: Any = self.bot.get_cog("Play")
        await play.publisher.show(played.session.id)
        await self.fake.wait_idle()  # the gateway events of the post reach the bot
        return played.session.id

    def live_board(self, session: Session) -> FakeMessage:
        message_id = session.record.message_id
        assert message_id is not None, f"match {session.id} has no live board message"
        return self.fake.message(message_id)


@dataclass
class Sample:
    kind: str
    reply_ms: float
    click_ms: float
    turn_ended: bool
    #: the reply's position drawn again, right after the sample (None: no new position was drawn)
    render_ms: float | None


async def measure(
    bench: Bench, samples: int, rng: random.Random, profiler: cProfile.Profile | None = None
) -> tuple[list[Sample], int]:
    """``samples`` clicks on random live boards; returns them and how many matches ended.

    ``profiler``, when given, is on from each click until the bot is idle again (the next board
    included) and off for the bench's own extra render and for replacing matches that ended.
    """
    fake, sessions = bench.fake, bench.bot.sessions
    out: list[Sample] = []
    ended = 0
    for _ in range(samples):
        slot = rng.randrange(len(bench.active))
        session = await sessions.get(bench.active[slot])
        board = bench.live_board(session)
        user = user_on_turn(board, bench.users)
        assert user is not None, f"no player on turn in {board.content!r}"
        how, custom_id, value = pick_control(board, rng)
        version = session.version
        if profiler is not None:
            profiler.enable()
        start = time.perf_counter()
        result: InteractionResult
        if how == "select":
            result = await fake.select(user, board, custom_id, [value], idle=False)
        else:
            result = await fake.click(user, board, custom_id, idle=False)
        click_ms = (time.perf_counter() - start) * 1000
        inter = result.interaction
        assert inter.callback_at is not None and result.callback_type in (7,), (
            f"unexpected answer {result!r} to {custom_id} {value}: {result.message and result.message.content}"
        )
        await result.wait_idle()  # the next board of a new turn is posted after the reply: not timed
        kind = control_kind(custom_id, value)
        drew = session.version != version
        if profiler is not None:
            profiler.disable()
        turn_ended = session.record.message_id != board.id
        render_ms: float | None = None
        if drew and session.state is not None:
            # The same picture again, timed on its own, close in time to the sample it belongs to.
            t0 = time.perf_counter()
            render_board(session.state.view(None))
            render_ms = (time.perf_counter() - t0) * 1000
        out.append(
            Sample(
                kind=kind,
                reply_ms=(inter.callback_at - inter.created_at) * 1000,
                click_ms=click_ms,
                turn_ended=turn_ended,
                render_ms=render_ms,
            )
        )
        if session.record.status != "active":
            ended += 1
            bench.active[slot] = await bench.direct_match(session.record.players)
    return out, ended


async def run_size(
    matches: int, samples: int, seed: int, *, challenges: int, openapi: bool, profile: bool
) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="ringside-bench-") as tmp:
        async with FakeDiscord(validate_openapi=openapi, timeout=60.0) as fake:
            store = await Store.open(Path(tmp) / "bench.sqlite3")
            bot = RingsideBot(store, clock=SystemClock(), rng=random.Random(seed), run_scheduler=False)
            try:
                await fake.connect(bot)
                bench = Bench(fake, bot)

                start = time.perf_counter()
                via_challenge = min(challenges, matches)
                for _ in range(via_challenge):
                    bench.active.append(await bench.challenge_match())
                for _ in range(matches - via_challenge):
                    bench.active.append(await bench.direct_match())
                setup_s = time.perf_counter() - start
                assert len(await store.matches.active()) == matches

                commits = Timer()
                commits.wrap(store.matches, "record_actions")
                profiler = cProfile.Profile() if profile else None
                start = time.perf_counter()
                done, ended = await measure(bench, samples, rng, profiler)
                sampling_s = time.perf_counter() - start
                assert len(await store.matches.active()) == matches
                fake.assert_clean()
            finally:
                # aiosqlite's thread would keep the process alive after an error
                await bot.close()
                await store.close()

    render_ms = [s.render_ms for s in done if s.render_ms is not None]
    replies = [s.reply_ms for s in done]
    kinds: dict[str, Any] = {}
    for kind in ("roll", "pick", "move"):
        chosen = [s.reply_ms for s in done if s.kind == kind]
        kinds[kind] = {"samples": len(chosen), **summary(chosen)}
    turn_end = [s.reply_ms for s in done if s.turn_ended]
    kinds["turn_ended"] = {"samples": len(turn_end), **summary(turn_end)}
    clicks = [s.click_ms for s in done]
    result: dict[str, Any] = {
        "matches": matches,
        "samples": len(done),
        "median_ms": round(statistics.median(replies), 2),
        "p95_ms": round(percentile(replies, 0.95), 2),
        "p99_ms": round(percentile(replies, 0.99), 2),
        "max_ms": round(max(replies), 2),
        "click_median_ms": round(statistics.median(clicks), 2),
        "click_p95_ms": round(percentile(clicks, 0.95), 2),
        "click_max_ms": round(max(clicks), 2),
        "by_kind": kinds,
        "breakdown": {
            "render_samples": len(render_ms),
            **summary(render_ms, "render_"),
            "commit_samples": len(commits.times),
            **summary(commits.times, "commit_"),
        },
        "matches_ended_and_replaced": ended,
        "via_challenge": via_challenge,
        "setup_s": round(setup_s, 2),
        "sampling_s": round(sampling_s, 2),
        "openapi_validation": openapi,
    }
    if profiler is not None:
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
        print(f"--- cProfile of {len(done)} samples with {matches} matches ---", file=sys.stderr)
        print(text.getvalue(), file=sys.stderr)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--matches", default="100,1000", help="comma-separated numbers of active matches (100,1000)"
    )
    parser.add_argument("--samples", type=int, default=500, help="measured interactions per size (500)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the dice and the picks (1)")
    parser.add_argument(
        "--challenges", type=int, default=5, help="matches set up through /challenge + Accept (5)"
    )
    parser.add_argument(
        "--openapi", action="store_true", help="keep the fake's OpenAPI validation on (off by default)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="cProfile the sampling of the last size; report to stderr"
    )
    args = parser.parse_args()
    try:
        sizes = [int(n) for n in args.matches.split(",") if n.strip()]
    except ValueError:
        parser.error("--matches takes comma-separated integers, e.g. 100,1000")
    if not sizes or min(sizes) < 1:
        parser.error("--matches needs at least one size, each at least 1")
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "implementation": platform.python_implementation(),
                "cpu_count": os.cpu_count(),
                "platform": platform.platform(),
                "date": dt.date.today().isoformat(),
                "openapi_validation": args.openapi,
                "note": "fake Discord OpenAPI validation "
                + ("on" if args.openapi else "off (limit checks on)"),
            }
        ),
        flush=True,
    )
    for index, n in enumerate(sizes):
        result = asyncio.run(
            run_size(
                n,
                args.samples,
                args.seed,
                challenges=args.challenges,
                openapi=args.openapi,
                profile=args.profile and index == len(sizes) - 1,
            )
        )
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
