"""Rollouts as heavy jobs (issue 36): ``/rollout`` queues one (``Rollouts.queue``: kind ``rollout`` in
``heavy_jobs``, the queue of the analyses and replays), the bot's heavy workers roll it out
(``engine.ai.backgammon_rollout`` through ``bot.jobs.rollout_runs``, a lane of its own and a CPU budget
of its own, ``app.render_pool.ROLLOUT_CPU``), and the result is kept in the job and posted once by the
bot (``bot.jobs.showing``, through the cog's ``RolloutPublisher``).

**Who may roll out what** (``refusal``, the rule; ``cogs/rules/backgammon.md`` says it to players):

1. A member playing a rated match that is not over gets no rollout at all, of any position, until it
   ends: a position code or another match's position could be their own decision in disguise.
2. The positions of a rated match that is not over are rolled out by nobody: a spectator's rollout
   could be passed to a player. Once it has ended, anyone on the server may roll out any of them.
3. In an unrated match not over, its current position may be rolled out, but not by the player whose
   decision it is (their turn in progress: to play, to double or roll, to answer a double).
4. Position codes, positions of finished matches and decisions of their Review: anyone (but rule 1).

How many games: the asker's ``trials`` (default and most: the server's ``/settings rollout_games``,
``GuildSettings.rollout_trials``), a multiple of 36. Limits (``RolloutLimits``): one waiting or
running per member, two per server, three in all (each takes minutes of one heavy worker); priority 2
in the queue, with the files (minutes of work; analyses of our matches 0, replays 1), in a lane of its
own (``LANES``), so that it never waits behind an analysis and no analysis waits behind it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.clock import Clock
from bot.jobs.places import Place, duration
from bot.session import UserError
from bot.store import Store
from bot.store.jobs import RUNNING, JobRecord, Limits, Refused
from engine.ai.rollouts import (
    BATCH,
    CUBE,
    DOUBLE_PASS,
    DOUBLE_TAKE,
    MAX_TRIALS,
    NO_DOUBLE,
    PASS,
    TAKE,
    Candidate,
    Rollout,
)

PER_MEMBER = 1
PER_SERVER = 2
IN_ALL = 3
"""Rollouts waiting or running at once: per member, per server, all servers together."""
LANES = 1
"""Rollouts run at once by the bot (a heavy worker each)."""
TRIAL_CHOICES = (144, 324, 648, 1296, 2592)
"""The ``/settings rollout_games`` choices: games per candidate at most on a server."""
SECONDS_PER_GAME = 0.1
"""A rollout's estimate: a game played out takes about 0.1 s of a core (bgsage, 1-ply, cubeful)."""

ROLLING = "Rolling out…"
"""The first words of a rollout's reply while it waits or runs."""
KEPT_AT_RESTART = "Ringside is restarting: your rollout keeps its place and runs after the restart."

CODE, FINISHED, LIVE, REVIEW = "code", "finished", "live", "review"
"""Where the position of a rollout comes from."""


class RolloutRefused(UserError):
    """A rollout not queued: the message says why (the rule, a limit, the input)."""


def RolloutLimits(per_member: int = PER_MEMBER, per_server: int = PER_SERVER, in_all: int = IN_ALL) -> Limits:
    return Limits(per_member=per_member, per_server=per_server, in_all=in_all)


@dataclass(frozen=True, slots=True)
class Asked:
    """What the rule needs to know of a request: who asks, the asker's rated match not over (None:
    none), and for a match's position its number, whether it is over, rated, and whose decision
    its current position is (the player's id; None: nobody's)."""

    asker: int
    playing_rated: int | None
    source: str
    match_id: int | None = None
    match_over: bool = True
    match_rated: bool = False
    deciding: int | None = None


def refusal(asked: Asked) -> str | None:
    """Why ``asked`` may not be rolled out (the module docstring's rule), or None: it may."""
    if asked.playing_rated is not None:
        return (
            f"You are playing a rated match (#{asked.playing_rated}): rollouts are closed to you until it "
            "has ended, so that none can help a decision of a rated match."
        )
    if asked.source != LIVE or asked.match_over:
        return None
    if asked.match_rated:
        return (
            f"Match #{asked.match_id} is rated and still being played: its positions can be rolled out once "
            "it has ended."
        )
    if asked.deciding == asked.asker:
        return (
            f"The decision in match #{asked.match_id} is yours: a rollout would make it for you. Ask once you "
            "have played, or after the match."
        )
    return None


def games(asked: int | None, bound: int) -> int:
    """The games per candidate of a request (``asked``; None: the server's ``bound``), checked."""
    bound = max(BATCH, min(MAX_TRIALS, bound - bound % BATCH))
    if asked is None:
        return bound
    if asked < BATCH or asked % BATCH:
        raise RolloutRefused(
            f"A rollout plays a multiple of {BATCH} games per candidate (36, 72, 144 …), not {asked}."
        )
    if asked > bound:
        raise RolloutRefused(
            f"This server allows at most {bound:,} games per candidate (`/settings rollout_games`), not {asked:,}."
        )
    return asked


class Rollouts:
    """Queues rollouts (``queue``) within ``limits``; ``wake``: the rollout lane looks at once, and on
    PostgreSQL the workers are handed it (``Analyses.queued``)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        limits: Limits | None = None,
        wake: Callable[[int], Awaitable[None]] | None = None,
        places: Callable[[], Awaitable[dict[int, Place]]] | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits or RolloutLimits()
        self.wake = wake
        self.places = places

    async def queue(
        self,
        *,
        owner_id: int,
        guild_id: int | None,
        channel_id: int,
        game: str,
        state: Mapping[str, Any],
        keep: str | None,
        trials: int,
        candidates: int,
        what: str,
        match_id: int | None,
        reply_token: str | None,
    ) -> int:
        """Queue the rollout of ``state`` (a backgammon state's JSON; ``keep``: the notation of the play
        made there, rolled out too) for ``owner_id``; ``what`` says the position in the result.
        ``RolloutRefused`` over a limit."""
        detail = {
            "state": dict(state),
            "keep": keep,
            "trials": trials,
            "seed": _seed(owner_id, self.clock.now()),
            "what": what,
        }
        try:
            job_id = await self.store.jobs.add_rollout(
                owner_id=owner_id,
                guild_id=guild_id,
                channel_id=channel_id,
                match_id=match_id,
                game=game,
                size=trials * candidates,
                detail=json.dumps(detail, sort_keys=True),
                reply_token=reply_token,
                limits=self.limits,
                now=self.clock.now(),
            )
        except Refused as exc:
            raise limit_refusal(exc) from None
        if self.wake is not None:
            await self.wake(job_id)
        return job_id

    async def line_of(self, job_id: int) -> str:
        job = await self.store.jobs.get(job_id)
        if job is None:
            return ROLLING
        found = {} if self.places is None else await self.places()
        return rollout_words(job, found.get(job_id))

    async def answered(self, job_id: int, line: str) -> None:
        await self.store.jobs.answered(job_id, None, line)


def _seed(owner_id: int, now: float) -> int:
    """A rollout's seed (kept in its job: a rollout made again after a restart gives the same figures)."""
    return (owner_id * 31 + int(now * 1000)) % (1 << 31)


def limit_refusal(refused: Refused) -> RolloutRefused:
    if refused.reason == "member":
        return RolloutRefused(
            "Your last rollout is still running: wait for it before asking for another (one at a time per member)."
        )
    if refused.reason == "server":
        return RolloutRefused(
            f"{refused.limit} rollouts are running on this server already (at most {refused.limit} at a time): "
            "try again in a few minutes."
        )
    return RolloutRefused(
        f"The bot is running {refused.limit} rollouts already (its most at a time): try again in a few minutes."
    )


def rollout_words(job: JobRecord, place: Place | None) -> str:
    """The line of a rollout's reply: its place and estimate, then its games played."""
    if job.state == RUNNING:
        if job.total:
            return f"{ROLLING} {min(job.done, job.total):,} of {job.total:,} games played"
        return ROLLING
    if place is None:
        return ROLLING
    return f"{ROLLING} (place {place.place} in the queue, done in {duration(place.seconds)})"


def rollout_failure(why: str) -> str:
    """What the asker is told when a rollout could not be made (``why``: ``refused`` with the
    engine's reason, ``busy``, ``unreadable``)."""
    if why == "busy":
        return "The rollout could not be finished in time: the bot is busy. Try again later, or with fewer games."
    if why == "unreadable":
        return "The position of that rollout could not be read any more: ask for it again."
    return why


def percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def candidate_lines(rank: int, c: Candidate, best: float) -> list[str]:
    """A candidate in a few short lines (a phone's width): its equity ± its standard error, then the
    chances of each side."""
    shown = c.chances is not None and abs(c.equity - best) >= 1e-9  # a pass ends the game: no gap
    gap = f" ({c.equity - best:+.3f})" if shown else ""
    played = "  ← played" if c.played else ""
    lines = [f"{rank}. {c.label}{played}", f"   {c.equity:+.3f} ± {c.se:.3f}{gap}"]
    if c.chances is None:
        lines.append("   the game ends here")
    else:
        k = c.chances
        lines.append(f"   win  {percent(k.win)}  (gammon {percent(k.win_gammon)}, bg {percent(k.win_bg)})")
        lines.append(f"   lose {percent(k.lose)}  (gammon {percent(k.lose_gammon)}, bg {percent(k.lose_bg)})")
    return lines


def right_cube_action(found: Rollout) -> tuple[str, float]:
    """The cube action a cube rollout finds right, and its equity: the doubler's (no double,
    double/take, double/pass), or the answer (take or pass)."""
    by = {c.label: c.equity for c in found.candidates}
    if TAKE in by:
        return (TAKE, by[TAKE]) if by[TAKE] >= by[PASS] else (PASS, by[PASS])
    if DOUBLE_TAKE not in by:
        return NO_DOUBLE, by[NO_DOUBLE]
    nd, dt, dp = by[NO_DOUBLE], by[DOUBLE_TAKE], by[DOUBLE_PASS]
    answer = "take" if dt <= dp else "pass"
    if nd >= min(dt, dp):
        return f"No double ({answer})", nd
    return f"Double, {answer}", min(dt, dp)


def result_text(found: Rollout, what: str) -> str:
    """A rollout as players read it: the position, how it was rolled out, each candidate."""
    best = found.candidates[0].equity
    body: list[str] = []
    if found.kind == CUBE:
        right, best = right_cube_action(found)
        body.append(f"Right: {right}")
    for rank, c in enumerate(found.candidates, 1):
        body += candidate_lines(rank, c, best)
    how = (
        f"{found.trials:,} games per candidate, played to the end, cubeful, with variance reduction; "
        "equity per cube of the decision (± one standard error; two either way hold the true value 95% of the time)."
    )
    return f"**Rollout** of {what}\n```\n" + "\n".join(body) + f"\n```\n-# {how}"
