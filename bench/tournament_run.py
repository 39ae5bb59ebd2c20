"""A whole tournament of 64 players through the bot's real services, with a restart in the middle.

    python bench/tournament_run.py [--players 64] [--formats knockout,swiss] [--game ring] [--seed 1]

Everything goes the way the bot goes, without Discord: ``Tournaments`` (sign-up, start), a
``SessionManager`` making each pairing's match, every match played click by click through the
session path (``roll`` and ``act``, random legal moves: the engine's random player), each result
taken by ``Rounds.match_ended`` as the publisher's hook does, on a SQLite file. Halfway through, one
match ends and the services are dropped before its result is taken (a kill -9 after the match's
write); new services on the same file take it up with ``Tournaments.due`` (what the scheduler runs
at start-up), and the event goes on to its champion.

Timed at every round (ms): ``pair_ms``, the service call that takes the round's last result and
pairs the next round in its compare-and-set write, making its matches (``Rounds.match_ended``);
``picture_ms``, the announcement's picture of the state after the round (``render_bracket`` for a
knockout, ``render_standings`` for Swiss). Prints one JSON line per format with the medians and the
maxima, the rounds, the matches played and the champion.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.challenges import Challenges
from bot.clock import ManualClock
from bot.sessions import SessionManager
from bot.settings import ServerSettings
from bot.store import Store
from bot.tournaments import Organiser, Tournaments
from render.tournament import render_bracket, render_standings

GUILD, CHANNEL = 1, 2
ORGANISER = Organiser(1, manage_server=True)
FIRST_PLAYER = 1000


class Services:
    """One process's services on the database file."""

    def __init__(self, store: Store, clock: ManualClock, seed: int) -> None:
        self.store = store
        settings = ServerSettings(store)
        self.sessions = SessionManager(store, clock, rng=random.Random(seed), settings=settings)
        self.tournaments = Tournaments(
            store, clock, settings, self.sessions, Challenges(store, clock, settings)
        )

    @classmethod
    async def open(cls, db: Path, clock: ManualClock, seed: int) -> Services:
        return cls(await Store.open(db), clock, seed)


async def play(sessions: SessionManager, match_id: int, rng: random.Random) -> None:
    """The match played to its end by random legal clicks, through the session path."""
    for _ in range(5000):
        session = await sessions.get(match_id)
        state = session.state
        if state is None or state.is_terminal() or session.record.status != "active":
            return
        spec = state.chance()
        if spec is not None:
            await sessions.roll(match_id, session.user_of(spec.prompt_seat or 0), session.version)
        else:
            action = rng.choice(session.position.legal_actions())  # type: ignore[union-attr]
            await sessions.act(match_id, session.user_of(state.to_move()), session.version, action.notation)
    raise RuntimeError(f"match {match_id} did not end")


async def open_matches(services: Services, tournament_id: int) -> list[int]:
    record = await services.tournaments.get(tournament_id)
    state = services.tournaments.state_of(record)
    assert state is not None
    tables = await services.tournaments.tables(tournament_id, state.current_round)
    return [tables[p.table] for p in state.open_pairings() if tables.get(p.table) is not None]  # type: ignore[misc]


async def run(db: Path, format: str, players: int, game: str, seed: int) -> dict[str, object]:
    clock = ManualClock()
    rng = random.Random(seed)
    services = await Services.open(db, clock, seed)
    record = await services.tournaments.create(
        guild_id=GUILD, channel_id=CHANNEL, who=ORGANISER, game=game, format=format, name=f"{format} run",
        options={}, rounds=None, signup_hours=None, round_hours=24.0,
    )  # fmt: skip
    for user in range(FIRST_PLAYER, FIRST_PLAYER + players):
        await services.tournaments.join(record.id, user, f"Player {user - FIRST_PLAYER + 1}")
    await services.tournaments.start(record.id, ORGANISER)
    names = await services.tournaments.names(record.id)
    pair_ms: list[float] = []
    picture_ms: list[float] = []
    played = 0
    restarted = False
    while True:
        record = await services.tournaments.get(record.id)
        if record.status == "finished":
            break
        matches = await open_matches(services, record.id)
        state = services.tournaments.state_of(record)
        assert state is not None and matches, f"round {state and state.current_round} has no match to play"
        if not restarted and state.current_round == 2:
            # The first match of round 2 ends; the process dies before its result is taken.
            await play(services.sessions, matches[0], rng)
            played += 1
            await services.store.close()
            services = await Services.open(db, clock, seed + 1)
            await services.tournaments.due()
            restarted = True
            continue
        for index, match_id in enumerate(matches):
            await play(services.sessions, match_id, rng)
            played += 1
            started = time.perf_counter()
            await services.tournaments.rounds.match_ended(match_id)
            if index == len(matches) - 1:
                pair_ms.append((time.perf_counter() - started) * 1000)
        state = services.tournaments.state_of(await services.tournaments.get(record.id))
        assert state is not None
        draw = render_bracket if format == "knockout" else render_standings
        started = time.perf_counter()
        draw(state, names, title=record.name)
        picture_ms.append((time.perf_counter() - started) * 1000)
    state = services.tournaments.state_of(record)
    assert state is not None
    await services.store.close()
    return {
        "format": format,
        "players": players,
        "rounds": state.current_round,
        "matches_played": played,
        "restarted_in_round": 2,
        "champion": None if state.champion is None else names[state.champion],
        "pair_ms_median": round(statistics.median(pair_ms), 1),
        "pair_ms_max": round(max(pair_ms), 1),
        "picture_ms_median": round(statistics.median(picture_ms), 1),
        "picture_ms_max": round(max(picture_ms), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=64)
    parser.add_argument("--formats", default="knockout,swiss")
    parser.add_argument("--game", default="ring")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for format in args.formats.split(","):
            db = Path(folder) / f"{format}.sqlite3"
            print(json.dumps(asyncio.run(run(db, format, args.players, args.game, args.seed))), flush=True)


if __name__ == "__main__":
    main()
