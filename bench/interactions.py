"""How fast the bot answers a click on a live board while many matches are active.

    python bench/interactions.py [--game ring|space] [--matches 100,1000] [--samples 500] [--seed 1]
                                 [--challenges 5] [--openapi] [--profile]
    python bench/interactions.py --burst K [--bursts 1] [--seed 1] [--openapi] [--profile]

For each N in ``--matches``: a fresh temporary SQLite file and a fresh bot (``RingsideBot``) on the
in-process fake Discord. N active ring matches are set up: ``--challenges`` of them through
``/challenge`` and Accept, the rest directly through the session manager, each with its board posted
by the Play cog (setup time is reported separately). Then ``--samples`` interactions are measured,
each on a random match by the player on turn, where that player acts now: the live board, or their
private panel when a turn is in progress (its steps go to the player's private panel and reach the
public board only when the turn is complete), on whatever it shows (Roll, a stack in the select menu,
a move button, Confirm), picked like the end-to-end tests do.

Two times per sample, both from the moment the fake dispatches INTERACTION_CREATE
(``FakeInteraction.created_at``):

- the answer (``median_ms`` ...): until the fake records the bot's interaction callback, whatever its
  type (``callback_at``). Controls that change the game are acknowledged first (a deferred update,
  type 6) and worked on after; a pick that only changes the controls is answered with the updated
  message (type 7). This is what decides Discord's "This interaction failed" after 3 s.
- shown (``shown_median_ms`` ...): until the last message the bot created or edited for the click
  (the board edited or posted anew with its picture, the private panel sent or edited; for a type 7
  answer the answer itself): the engine, the database commit and the picture drawn in the render
  pool all happen before it. The bench waits, untimed, until the bot is idle before the next sample.

``click_*`` fields give the wall time around ``await fake.click(...)`` itself (up to the answer and the
bot's next real suspension).

``--game space``: the matches are space matches. A space decision is almost always secret (it depends on
the hand), so the board offers "My hand": a sample then clicks it (kind ``hand``, a private reply
with the hand and the controls, timed like the others) and picks one control of that reply (timed as
a sample of its own: ``move`` or ``pick``). The window decisions of the player not on turn are
sampled the same way, since the board names whoever decides.

Matches that end are replaced by new ones, so N stay active. Discord's documented limits are checked
on every request; the fake's OpenAPI validation is off unless ``--openapi``: validating a body happens
before the fake records the request, and adds about 0.8 ms to each answer (nearly three times the
bot's own time) and 4-5 ms to each outcome shown (the uploads and edits), which would measure the
fake rather than the bot. ``--profile`` runs the clicks of the
last N (each until the bot is idle again) under cProfile and prints the top costs to stderr.

Breakdown: ``by_kind`` splits the samples into roll, move (applies an action), confirm (ends a turn
played step by step), pick (a stack chosen in a select: only the controls change) and turn_ended (a
new board is posted for the next player). ``render_*``: the reply's position drawn again with ``render_board`` right after each
sample that changed the position (untimed for the sample). ``commit_*``: wall time of
``MatchStore.record_actions`` (the transaction, through aiosqlite's thread), wrapped on the instance.

Prints one JSON line about the machine, then one JSON object per N. It asserts nothing except that
the fake recorded no limit violation or bot error; the figures depend on the machine.

Burst mode (``--burst K``): K simultaneous clicks on K matches, the load of a busy server where
everyone clicks at once. K ring matches are started through the session manager, each in its own
text channel (so every picture written in a channel belongs to that match), their boards posted by
the Play cog. For each match the bench takes the player on turn, where that player acts now (the
live board, or their private panel when a turn is in progress) and a control there that changes the
picture: Roll or a move (a button or a select option that applies an action); a message that only
offers navigation (a stack to pick first) is advanced by untimed picks until such a control shows. Then all K clicks are fired at once and the bench waits until the bot is idle: what
``asyncio.gather`` of ``fake.click``/``fake.select`` with ``idle=False`` does, in two steps, every
interaction built first (``fake.prepare_click``/``prepare_select``, untimed: building 300 payloads
takes the fake about 0.5 s, which would otherwise sit in front of the first clicks' answers) and then
all dispatched (``asyncio.gather`` of ``fake.dispatch_interaction``). Per click:

- first answer: from the fake dispatching INTERACTION_CREATE to it recording the interaction
  callback, whatever its type (``InteractionResult.answer_seconds``): what decides "This interaction
  failed" after 3 s;
- full reply: from the dispatch to the last request that created or edited a message *with an
  uploaded file* (the new board picture) in the match's channel (``fake.picture_writes``: channel
  posts and edits, callbacks 4/7, followups, edits of the original response), or sent for that
  interaction anywhere. A click whose answer carried no picture counts as ``without_picture``.

Prints one JSON object: ``K``, ``first_answer`` (median/p99/max/min ms, ``over_1s``, ``over_3s``),
``full_reply`` (median/p99/max ms, ``over_5s``, ``without_picture``), ``by_kind`` and
``callback_types`` counts, ``wall_s`` (first dispatch until the bot is idle) and ``setup_s``.
``--bursts N`` fires N bursts in a row (matches that ended are replaced in their channel between
bursts) and adds ``per_burst``; the top-level figures then cover every click. The target
(ringside issue "every interaction answered within Discord's 3 seconds"): K = 300, every first
answer under 1 s, p99 under 500 ms, every full reply within 5 s. The fake's 3-second deadline check
is off in this mode (late answers are what is measured, in ``over_3s``); everything else
``fake.assert_clean()`` checks stays on. ``--profile`` profiles the bursts (dispatch until idle).
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

from app.client import RingsideBot  # noqa: E402
from bot.clock import SystemClock  # noqa: E402
from bot.session import Played, Session  # noqa: E402
from bot.store import Store  # noqa: E402
from fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult  # noqa: E402
from fakediscord.matches import (  # noqa: E402
    challenge_and_accept,
    match_id_of,
    pick_control,
    private_panel,
    user_on_turn,
)
from render import render_board  # noqa: E402

# --------------------------------------------------------------------------------------------
# driving matches (the approach of tests/bot/test_discord_flow.py)


def control_kind(custom_id: str, value: str | None) -> str:
    """roll, move (applies an action), confirm (ends a turn played step by step) or pick (only
    changes the controls shown)."""
    action = value if value is not None else custom_id.split(":", 3)[3]
    if action in ("roll", "confirm"):
        return action
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


def tail_summary(values: list[float], prefix: str = "") -> dict[str, float]:
    """Median, p95, p99 and max of a non-empty list, in ms."""
    return {
        f"{prefix}median_ms": round(statistics.median(values), 2),
        f"{prefix}p95_ms": round(percentile(values, 0.95), 2),
        f"{prefix}p99_ms": round(percentile(values, 0.99), 2),
        f"{prefix}max_ms": round(max(values), 2),
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
    game: str = "ring"

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
        board = await challenge_and_accept(self.fake, alice, bob, self.game)
        return match_id_of(board)

    async def direct_match(
        self, players: tuple[int, int] | None = None, channel: FakeChannel | None = None
    ) -> int:
        """A match started through the session manager, its board posted by the Play cog.

        ``channel``: where (default: the fake's one text channel).
        """
        if players is None:
            a, b = self.new_pair()
            players = (a.id, b.id)
        channel = channel or self.fake.channel
        played: Played = await self.bot.sessions.start_match(
            game=self.game,
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
    #: dispatch -> the interaction callback, whatever its type (what decides "This interaction failed")
    reply_ms: float
    #: dispatch -> the last message the bot created or edited in answer (see :func:`shown_at`)
    shown_ms: float
    click_ms: float
    turn_ended: bool
    #: the reply's position drawn again, right after the sample (None: no new position was drawn)
    render_ms: float | None


def shown_at(fake: FakeDiscord, result: InteractionResult, channel_id: int) -> float:
    """When the click's outcome was on screen: the last successful message create or edit since the
    dispatch in the match's channel or for this interaction (the board edited or posted anew, the
    private panel sent or edited, or the callback itself when it carried the update).

    Call it once the bot is idle after the click: with one click at a time and no scheduler, every
    such write belongs to it.
    """
    inter = result.interaction
    last = inter.callback_at or inter.created_at
    for request in reversed(fake.requests):
        if request.at < inter.created_at:
            break
        if (
            request.method in ("POST", "PATCH")
            and 200 <= request.status < 300
            and request.message_id is not None
            and (request.channel_id == channel_id or request.interaction_id == inter.id)
        ):
            last = max(last, request.answered_at)
    return last


def where_to_act(bench: Bench, session: Session) -> tuple[FakeMessage, FakeUser, FakeMessage]:
    """(message, user, board): the player on turn and where they act now, their private panel when
    a turn is in progress there (its steps are not on the public board yet), else the live board."""
    board = bench.live_board(session)
    user = user_on_turn(board, bench.users)
    assert user is not None, f"no player on turn in {board.content!r}"
    panel = private_panel(bench.fake, board.channel_id, user, board)
    return panel or board, user, board


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
        target, user, board = where_to_act(bench, session)
        hand = next((b.custom_id or "" for b in target.buttons if b.label == "My hand"), None)
        if hand is not None:
            start = time.perf_counter()
            opened = await fake.click(user, target, hand, idle=True)
            click_ms = (time.perf_counter() - start) * 1000
            inter = opened.interaction
            assert inter.callback_at is not None and opened.callback_type == 4 and opened.message is not None
            reply_ms = (inter.callback_at - inter.created_at) * 1000
            out.append(Sample("hand", reply_ms, reply_ms, click_ms, False, None))
            target = opened.message
        how, custom_id, values = pick_control(target, rng)
        version = session.version
        if profiler is not None:
            profiler.enable()
        start = time.perf_counter()
        result: InteractionResult
        if how == "select":
            result = await fake.select(user, target, custom_id, values or [], idle=False)
        else:
            result = await fake.click(user, target, custom_id, idle=False)
        click_ms = (time.perf_counter() - start) * 1000
        inter = result.interaction
        # 6: acknowledged (deferred), the outcome edited or posted after; 7: the controls updated in
        # the answer itself (a pick). Anything else (a refusal, "carry on in your panel") means the
        # bench clicked where the player could not act.
        assert inter.callback_at is not None and result.callback_type in (6, 7), (
            f"unexpected answer {result!r} to {custom_id} {values}: {result.message and result.message.content}"
        )
        await result.wait_idle()  # the outcome is shown after the answer: timed apart, in shown_ms
        kind = control_kind(custom_id, values[0] if values else None)
        drew = session.version != version
        if profiler is not None:
            profiler.disable()
        # A refusal after the acknowledgement is a private followup without controls.
        refused = [m.content for m in result.followups if m.ephemeral and not m.all_components]
        assert not refused, f"{custom_id} {values} was refused: {refused}"
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
                shown_ms=(shown_at(fake, result, board.channel_id) - inter.created_at) * 1000,
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
    matches: int,
    samples: int,
    seed: int,
    *,
    challenges: int,
    openapi: bool,
    profile: bool,
    game: str = "ring",
) -> dict[str, Any]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="ringside-bench-") as tmp:
        async with FakeDiscord(validate_openapi=openapi, timeout=60.0) as fake:
            store = await Store.open(Path(tmp) / "bench.sqlite3")
            bot = RingsideBot(store, clock=SystemClock(), rng=random.Random(seed), run_scheduler=False)
            try:
                await fake.connect(bot)
                bench = Bench(fake, bot, game=game)

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
    shown = [s.shown_ms for s in done]
    kinds: dict[str, Any] = {}
    for kind in ("roll", "pick", "move", "confirm", "hand"):
        chosen = [s for s in done if s.kind == kind]
        kinds[kind] = {
            "samples": len(chosen),
            **summary([s.reply_ms for s in chosen]),
            **summary([s.shown_ms for s in chosen], "shown_"),
        }
    turn_end = [s for s in done if s.turn_ended]
    kinds["turn_ended"] = {
        "samples": len(turn_end),
        **summary([s.reply_ms for s in turn_end]),
        **summary([s.shown_ms for s in turn_end], "shown_"),
    }
    clicks = [s.click_ms for s in done]
    result: dict[str, Any] = {
        "game": game,
        "matches": matches,
        "samples": len(done),
        **tail_summary(replies),
        **tail_summary(shown, "shown_"),
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


# --------------------------------------------------------------------------------------------
# burst mode: K simultaneous clicks on K matches


def action_of(custom_id: str, value: str | None) -> str:
    return value if value is not None else custom_id.split(":", 3)[3]


def burst_control(message: FakeMessage, rng: random.Random) -> tuple[str, str, list[str] | None] | None:
    """A control of the board that changes the picture (Roll, a move button, a move in a select), or None."""
    found: list[tuple[str, str, str | None]] = []
    for button in message.buttons:
        if button.disabled or button.custom_id is None or button.custom_id.startswith("rules:"):
            continue
        if button.label in ("Back", "Resign", "Rules") or button.custom_id.count(":") < 3:
            continue
        if action_of(button.custom_id, None) == "roll" or action_of(button.custom_id, None).startswith("a:"):
            found.append(("button", button.custom_id, None))
    for select in message.selects:
        if select.disabled or select.custom_id is None:
            continue
        for option in select.options:
            value = str(option["value"])
            if (value == "roll" or value.startswith("a:")) and (select.min_values or 1) <= 1:
                found.append(("select", select.custom_id, [value]))
    return rng.choice(found) if found else None


@dataclass
class BurstClick:
    match_id: int
    channel_id: int
    kind: str
    result: InteractionResult
    #: set by :meth:`measure_full` once the bot is idle after the burst
    full_ms: float | None = None

    @property
    def first_ms(self) -> float | None:
        seconds = self.result.answer_seconds
        return None if seconds is None else seconds * 1000

    def measure_full(self, fake: FakeDiscord) -> None:
        """Dispatch to the last message create/edit with a picture in the match's channel (None: none).

        Call it when the bot is idle after the burst and before anything else is posted there.
        """
        inter = self.result.interaction
        writes = fake.picture_writes(self.channel_id, since=inter.created_at)
        # also what the bot sent for this interaction elsewhere (not expected: one channel a match)
        stamps = [w.answered_at for w in writes]
        stamps += [r.at for r in self.result.replies if r.has_files and 200 <= r.request.status < 300]
        self.full_ms = (max(stamps) - inter.created_at) * 1000 if stamps else None


async def aim(bench: Bench, match_id: int, rng: random.Random, max_picks: int = 4) -> tuple[Any, ...]:
    """(user, message, control) for one match: where the player on turn acts now (the board, or the
    private panel of a turn in progress), the control one that changes the picture when possible.

    A message that shows only navigation (a stack to pick in a select) is advanced, untimed, by picks
    of the player on turn until an applying control shows (at most ``max_picks``); then whatever
    ``pick_control`` chooses.
    """
    fake, sessions = bench.fake, bench.bot.sessions
    for _ in range(max_picks + 1):
        target, user, _ = where_to_act(bench, await sessions.get(match_id))
        control = burst_control(target, rng)
        if control is not None:
            return user, target, control
        how, custom_id, values = pick_control(target, rng)
        if how == "select":
            assert values is not None
            await fake.select(user, target, custom_id, values, idle=True)
        else:
            await fake.click(user, target, custom_id, idle=True)
    return user, target, pick_control(target, rng)


def burst_summary(clicks: list[BurstClick]) -> dict[str, Any]:
    first = [c.first_ms for c in clicks if c.first_ms is not None]
    full = [c.full_ms for c in clicks if c.full_ms is not None]
    kinds: dict[str, int] = {}
    for c in clicks:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    callbacks: dict[str, int] = {}
    for c in clicks:
        key = str(c.result.callback_type)
        callbacks[key] = callbacks.get(key, 0) + 1

    def stats(values: list[float]) -> dict[str, float | None]:
        if not values:
            return {"median_ms": None, "p99_ms": None, "max_ms": None}
        return {
            "median_ms": round(statistics.median(values), 1),
            "p99_ms": round(percentile(values, 0.99), 1),
            "max_ms": round(max(values), 1),
        }

    return {
        "clicks": len(clicks),
        "first_answer": {
            **stats(first),
            "min_ms": round(min(first), 1) if first else None,
            "over_1s": sum(1 for v in first if v > 1000),
            "over_3s": sum(1 for v in first if v > 3000),
            "unanswered": len(clicks) - len(first),
        },
        "full_reply": {
            **stats(full),
            "over_5s": sum(1 for v in full if v > 5000),
            "without_picture": len(clicks) - len(full),
        },
        "by_kind": kinds,
        "callback_types": callbacks,
    }


async def run_burst(
    k: int, bursts: int, seed: int, *, openapi: bool, profile: bool = False
) -> dict[str, Any]:
    rng = random.Random(seed)
    profiler = cProfile.Profile() if profile else None
    with tempfile.TemporaryDirectory(prefix="ringside-burst-") as tmp:
        # No 3-second deadline check: late first answers are what this measures (counted in
        # ``over_3s``), not a fake-Discord violation; every other check stays on.
        async with FakeDiscord(validate_openapi=openapi, timeout=300.0, response_deadline=None) as fake:
            store = await Store.open(Path(tmp) / "burst.sqlite3")
            bot = RingsideBot(store, clock=SystemClock(), rng=random.Random(seed), run_scheduler=False)
            try:
                await fake.connect(bot)
                bench = Bench(fake, bot)
                start = time.perf_counter()
                channels = [fake.add_text_channel(f"match-{i + 1}") for i in range(k)]
                await fake.wait_idle()  # CHANNEL_CREATE reaches the bot
                active = [await bench.direct_match(channel=ch) for ch in channels]
                setup_s = time.perf_counter() - start
                assert len(await store.matches.active()) == k

                per_burst: list[dict[str, Any]] = []
                every: list[BurstClick] = []
                for _ in range(bursts):
                    aimed = [await aim(bench, match_id, rng) for match_id in active]
                    # Every interaction is built first (the fake's cost), then all are sent at once:
                    # what fake.click/fake.select do, in two steps.
                    prepared = [
                        fake.prepare_select(user, board, custom_id, values or [])
                        if how == "select"
                        else fake.prepare_click(user, board, custom_id)
                        for user, board, (how, custom_id, values) in aimed
                    ]
                    fired = [fake.dispatch_interaction(inter, idle=False) for inter in prepared]
                    if profiler is not None:
                        profiler.enable()
                    began = time.perf_counter()
                    results = await asyncio.gather(*fired)
                    answered_s = time.perf_counter() - began
                    await fake.wait_idle()
                    wall_s = time.perf_counter() - began
                    if profiler is not None:
                        profiler.disable()
                    clicks = [
                        BurstClick(match_id, channel.id, control_kind(control[1], control[2]), result)
                        for match_id, channel, (_, _, control), result in zip(
                            active, channels, aimed, results, strict=True
                        )
                    ]
                    for click in clicks:
                        click.measure_full(fake)
                    every.extend(clicks)
                    per_burst.append(
                        {
                            **burst_summary(clicks),
                            "all_answered_s": round(answered_s, 3),
                            "wall_s": round(wall_s, 3),
                        }
                    )
                    # matches that ended are replaced in their channel, so K stay active
                    for index, match_id in enumerate(active):
                        session = await bot.sessions.get(match_id)
                        if session.record.status != "active":
                            active[index] = await bench.direct_match(session.record.players, channels[index])
                fake.assert_clean()
            finally:
                await bot.close()
                await store.close()
    out: dict[str, Any] = {
        "mode": "burst",
        "K": k,
        "bursts": bursts,
        **burst_summary(every),
        "wall_s": per_burst[0]["wall_s"] if bursts == 1 else [b["wall_s"] for b in per_burst],
        "setup_s": round(setup_s, 2),
        "openapi_validation": openapi,
        "target": "first answer: every one < 1 s, p99 < 500 ms; full reply: every one < 5 s",
    }
    if bursts > 1:
        out["per_burst"] = per_burst
    if profiler is not None:
        text = io.StringIO()
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
        print(f"--- cProfile of {bursts} burst(s) of {k} clicks ---", file=sys.stderr)
        print(text.getvalue(), file=sys.stderr)
    return out


def machine(openapi: bool) -> dict[str, Any]:
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "date": dt.date.today().isoformat(),
        "openapi_validation": openapi,
        "note": "fake Discord OpenAPI validation " + ("on" if openapi else "off (limit checks on)"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--matches", default="100,1000", help="comma-separated numbers of active matches (100,1000)"
    )
    parser.add_argument("--game", default="ring", choices=("ring", "space"), help="the matches' game (ring)")
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
    parser.add_argument(
        "--burst",
        type=int,
        metavar="K",
        help="burst mode: K simultaneous clicks on K matches (--matches/--samples/--challenges unused)",
    )
    parser.add_argument("--bursts", type=int, default=1, help="burst mode: how many bursts in a row (1)")
    args = parser.parse_args()
    if args.burst is not None:
        if args.burst < 1 or args.bursts < 1:
            parser.error("--burst and --bursts must be at least 1")
        print(json.dumps(machine(args.openapi)), flush=True)
        print(
            json.dumps(
                asyncio.run(
                    run_burst(args.burst, args.bursts, args.seed, openapi=args.openapi, profile=args.profile)
                )
            )
        )
        return
    try:
        sizes = [int(n) for n in args.matches.split(",") if n.strip()]
    except ValueError:
        parser.error("--matches takes comma-separated integers, e.g. 100,1000")
    if not sizes or min(sizes) < 1:
        parser.error("--matches needs at least one size, each at least 1")
    if args.samples < 1:
        parser.error("--samples must be at least 1")
    print(json.dumps(machine(args.openapi)), flush=True)
    for index, n in enumerate(sizes):
        result = asyncio.run(
            run_size(
                n,
                args.samples,
                args.seed,
                challenges=args.challenges,
                openapi=args.openapi,
                profile=args.profile and index == len(sizes) - 1,
                game=args.game,
            )
        )
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
