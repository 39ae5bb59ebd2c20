"""A server's tournament from sign-up to champion: who may run it, sign-up, start, pause, resume,
cancel and results set by hand. The rules (pairings, standings) are ``engine.tournament``'s; each
round's matches, their results and the deadlines are ``bot.tournament_rounds``'.

Every change is saved compare-and-set on the tournament's version (``TournamentStore.save``): of two
writers (two processes, two tasks) one wins, the other reads the row again and computes anew from it.
A refused request raises ``TournamentProblem`` with a reason for the player and changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from bot.challenges import ChallengeError, Challenges
from bot.clock import Clock
from bot.ratings import INITIAL_RATING
from bot.sessions import SessionManager
from bot.settings import ServerSettings
from bot.store import Store
from bot.store.tournaments import OPEN, TournamentRecord
from bot.tournament_rounds import Rounds, TournamentProblem, Update
from engine.tournament import Entrant, Tournament, TournamentError

FORMATS = ("knockout", "swiss")
MAX_ENTRANTS = 256
"""A cap on one tournament's field: the pictures and the announcement stay readable well below it."""
SAVE_TRIES = 20
"""How many times a change is computed again after losing a compare-and-set to another writer."""

__all__ = ["FORMATS", "TournamentProblem", "Tournaments", "Update"]


@dataclass(frozen=True, slots=True)
class Organiser:
    """Who asks, as the cog sees them: the member and whether they may run tournaments on the server."""

    user_id: int
    manage_server: bool
    roles: Collection[int] = ()


class Tournaments:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        settings: ServerSettings,
        sessions: SessionManager,
        challenges: Challenges,
    ) -> None:
        self.store = store
        self.clock = clock
        self.settings = settings
        self.challenges = challenges
        #: each round's matches, their results, the deadlines
        self.rounds = Rounds(self, sessions)

    # -- who may -------------------------------------------------------------------------------------

    async def check_organiser(self, guild_id: int, who: Organiser) -> None:
        if who.manage_server:
            return
        role = (await self.settings.get(guild_id)).organiser_role
        if role is not None and role in who.roles:
            return
        where = " or the organiser role set in /settings" if role is not None else ""
        raise TournamentProblem(f"Only members with Manage Server{where} can run tournaments here.")

    # -- reading -------------------------------------------------------------------------------------

    async def get(self, tournament_id: int) -> TournamentRecord:
        record = await self.store.tournaments.get(tournament_id)
        if record is None:
            raise TournamentProblem("This tournament does not exist any more.")
        return record

    async def find(self, guild_id: int, tournament_id: int | None) -> TournamentRecord:
        """The tournament named, or else the server's newest one."""
        if tournament_id is not None:
            record = await self.store.tournaments.get(tournament_id)
            if record is None or record.guild_id != guild_id:
                raise TournamentProblem(f"There is no tournament #{tournament_id} on this server.")
            return record
        record = await self.store.tournaments.latest_in(guild_id)
        if record is None:
            raise TournamentProblem(
                "This server has no tournament yet: an organiser starts one with /tournament create."
            )
        return record

    async def entrants(self, tournament_id: int) -> list[int]:
        return [user for user, _ in await self.store.tournaments.entrants(tournament_id)]

    async def tables(self, tournament_id: int, round: int) -> dict[int, int | None]:
        """The round's tables and their matches (None: being made)."""
        return {t.table_no: t.match_id for t in await self.store.tournaments.tables(tournament_id, round)}

    async def of_match(self, match_id: int) -> int | None:
        """The tournament the match is a table of, or None."""
        link = await self.store.tournaments.of_match(match_id)
        return None if link is None else link.tournament_id

    async def unannounced(self) -> list[TournamentRecord]:
        return await self.store.tournaments.unannounced()

    async def maybe_unshown(self) -> list[TournamentRecord]:
        """At start-up, the tournaments whose announcement may be behind what is saved (a stop came
        between a change and its drawing): those finished whose champion is not announced yet (the
        announcement is drawn before the champion is announced), and those not over."""
        return await self.unannounced() + await self.store.tournaments.with_status(*OPEN)

    async def claim_announcement(self, record: TournamentRecord) -> TournamentRecord | None:
        """Take the announcing of the champion (once, across processes); None: taken already."""
        fresh = await self.get(record.id)
        if fresh.announced or fresh.status != "finished":
            return None
        return await self.store.tournaments.save(fresh, self.clock.now(), announced=1)

    @staticmethod
    def state_of(record: TournamentRecord) -> Tournament | None:
        return Tournament.from_json(record.state) if record.state else None

    # -- sign-up ---------------------------------------------------------------------------------------

    async def create(
        self,
        *,
        guild_id: int,
        channel_id: int,
        who: Organiser,
        game: str,
        format: str,
        name: str,
        options: Mapping[str, Any],
        rounds: int | None,
        signup_hours: float | None,
        round_hours: float,
    ) -> TournamentRecord:
        """A new tournament open for sign-up, if ``who`` may run one and the game takes the options."""
        await self.check_organiser(guild_id, who)
        try:
            variant = await self.challenges.check_game(guild_id, game)
        except ChallengeError as exc:
            raise TournamentProblem(str(exc)) from exc
        if format not in FORMATS:
            raise TournamentProblem(f"A tournament is {' or '.join(FORMATS)}, not {format!r}.")
        if rounds is not None and format != "swiss":
            raise TournamentProblem(
                "Only a Swiss tournament takes a number of rounds; a knockout has as many as it needs."
            )
        name = " ".join(name.split())
        if not name:
            raise TournamentProblem("Give the tournament a name.")
        try:
            # The challenge's own checks of a game's options: one parser for both.
            resolved = Challenges.check_options(variant, dict(options))
        except ChallengeError as exc:
            raise TournamentProblem(str(exc)) from exc
        now = self.clock.now()
        return await self.store.tournaments.create(
            guild_id=guild_id,
            channel_id=channel_id,
            name=name[:100],
            game=variant.key,
            options=resolved,
            format=format,
            rounds=rounds,
            signup_until=None if signup_hours is None else now + signup_hours * 3600,
            round_seconds=round_hours * 3600,
            created_by=who.user_id,
            now=now,
        )

    async def set_message(self, record: TournamentRecord, message_id: int) -> TournamentRecord:
        """Note the announcement message (its Join / Leave / Start buttons)."""
        for _ in range(SAVE_TRIES):
            saved = await self.store.tournaments.save(record, self.clock.now(), message_id=message_id)
            if saved is not None:
                return saved
            record = await self.get(record.id)
        raise TournamentProblem("This tournament is changing just now; try again.")

    async def names(self, tournament_id: int) -> dict[int, str]:
        """Each entrant's name as they joined, for the pictures."""
        return dict(await self.store.tournaments.entrants(tournament_id))

    async def join(self, tournament_id: int, user_id: int, name: str) -> TournamentRecord:
        record = await self.get(tournament_id)
        if record.status != "signup":
            raise TournamentProblem(
                f"Sign-up for {record.name} is closed: the tournament has {_status_words(record)}."
            )
        entrants = await self.entrants(tournament_id)
        if user_id in entrants:
            raise TournamentProblem(f"You are already in {record.name}.")
        if len(entrants) >= MAX_ENTRANTS:
            raise TournamentProblem(f"{record.name} is full ({MAX_ENTRANTS} players).")
        if not await self.store.tournaments.join(tournament_id, user_id, name[:80], self.clock.now()):
            raise TournamentProblem(f"Sign-up for {record.name} closed a moment ago.")
        return await self.get(tournament_id)

    async def leave(self, tournament_id: int, user_id: int) -> Update:
        """Leave during sign-up; once it runs, withdraw: the player's open match is forfeited and they
        are never paired again."""
        record = await self.get(tournament_id)
        if record.status == "signup":
            if not await self.store.tournaments.leave(tournament_id, user_id):
                raise TournamentProblem(f"You are not signed up for {record.name}.")
            return Update(await self.get(tournament_id))
        if record.status not in OPEN:
            raise TournamentProblem(f"{record.name} has {_status_words(record)}.")
        return await self.rounds.withdraw(record, user_id)

    async def start(self, tournament_id: int, who: Organiser) -> Update:
        """Close sign-up and pair the first round (the organiser's Start, or the sign-up deadline)."""
        record = await self.get(tournament_id)
        await self.check_organiser(record.guild_id, who)
        return await self.begin(record)

    async def begin(self, record: TournamentRecord) -> Update:
        for _ in range(SAVE_TRIES):
            if record.status != "signup":
                raise TournamentProblem(f"{record.name} has {_status_words(record)}.")
            entrants = await self._seeded(record)
            if len(entrants) < 2:
                raise TournamentProblem(
                    f"{record.name} needs at least two players to start; it has {len(entrants)}."
                )
            try:
                state = Tournament.start(record.format, entrants, record.rounds)  # type: ignore[arg-type]
            except TournamentError as exc:
                raise TournamentProblem(str(exc)) from exc
            now = self.clock.now()
            saved = await self.store.tournaments.save(
                record,
                now,
                status="running",
                state=state.to_json(),
                round_until=now + record.round_seconds,
                signup_until=None,
            )
            if saved is not None:
                return await self.rounds.make_matches(saved, state)
            record = await self.get(record.id)
        raise TournamentProblem("This tournament is changing just now; try again.")

    async def _seeded(self, record: TournamentRecord) -> list[Entrant]:
        """The entrants with the server's rating of the game (unrated: the starting rating)."""
        found = []
        for order, (user, _) in enumerate(await self.store.tournaments.entrants(record.id)):
            standing = await self.store.ratings.standing(record.guild_id, record.game, user)
            found.append(Entrant(user, standing.rating if standing else INITIAL_RATING, order))
        return found

    # -- the organiser ---------------------------------------------------------------------------------

    async def pause(self, tournament_id: int, who: Organiser) -> Update:
        def paused(record: TournamentRecord, now: float) -> dict[str, Any]:
            if record.status != "running":
                raise TournamentProblem(
                    f"Only a running tournament can be paused; {record.name} has {_status_words(record)}."
                )
            left = None if record.round_until is None else max(0.0, record.round_until - now)
            return {"status": "paused", "paused_left": left, "round_until": None}

        return await self._organise(tournament_id, who, paused)

    async def resume(self, tournament_id: int, who: Organiser) -> Update:
        def resumed(record: TournamentRecord, now: float) -> dict[str, Any]:
            if record.status != "paused":
                raise TournamentProblem(f"{record.name} is not paused.")
            left = record.paused_left if record.paused_left is not None else record.round_seconds
            return {"status": "running", "paused_left": None, "round_until": now + left}

        update = await self._organise(tournament_id, who, resumed)
        # Results that came in while paused may have closed the round: the next one is paired now.
        return await self.rounds.advance_if_over(update.record)

    async def cancel(self, tournament_id: int, who: Organiser) -> Update:
        def cancelled(record: TournamentRecord, now: float) -> dict[str, Any]:
            if record.status not in OPEN:
                raise TournamentProblem(f"{record.name} has {_status_words(record)}.")
            return {"status": "cancelled", "round_until": None, "signup_until": None}

        return await self._organise(tournament_id, who, cancelled)

    async def set_result(
        self, tournament_id: int, who: Organiser, round: int, table: int, winner: int | None, reason: str
    ) -> Update:
        record = await self.get(tournament_id)
        await self.check_organiser(record.guild_id, who)
        reason = " ".join(reason.split())
        if not reason:
            raise TournamentProblem("Say why the result is set by hand: the reason is shown to everyone.")
        return await self.rounds.set_result(record, round, table, winner, reason[:200])

    async def _organise(
        self,
        tournament_id: int,
        who: Organiser,
        change: Callable[[TournamentRecord, float], Mapping[str, Any]],
    ) -> Update:
        record = await self.get(tournament_id)
        await self.check_organiser(record.guild_id, who)
        return Update(await self.save(record, lambda fresh: _awaitable(change(fresh, self.clock.now()))))

    async def save(
        self,
        record: TournamentRecord,
        change: Callable[[TournamentRecord], Awaitable[Mapping[str, Any] | None]],
    ) -> TournamentRecord:
        """``change`` computed from the row and saved compare-and-set, again from a fresh read each
        time another writer got there first. ``change`` returning None: nothing to save."""
        for _ in range(SAVE_TRIES):
            changes = await change(record)
            if changes is None:
                return record
            saved = await self.store.tournaments.save(record, self.clock.now(), **changes)
            if saved is not None:
                return saved
            record = await self.get(record.id)
        raise TournamentProblem("This tournament is changing just now; try again.")

    # -- due work ---------------------------------------------------------------------------------------

    async def due(self) -> list[Update]:
        """Whatever has come due: sign-ups that close by their deadline, rounds whose deadline passed,
        results of matches that ended unrecorded (a restart), pairings whose match was never made."""
        now = self.clock.now()
        updates: list[Update] = []
        for record in await self.store.tournaments.due_signups(now):
            try:
                updates.append(await self.begin(record))
            except TournamentProblem as exc:
                # Too few players by the deadline: the tournament is called off, saying why.
                saved = await self.store.tournaments.save(record, now, status="cancelled", signup_until=None)
                if saved is not None:
                    updates.append(Update(saved, note=str(exc)))
        updates.extend(await self.rounds.due(now))
        return updates


async def _awaitable(value: Mapping[str, Any]) -> Mapping[str, Any]:
    return value


def _status_words(record: TournamentRecord) -> str:
    return {
        "signup": "not started yet",
        "running": "started",
        "paused": "started (it is paused)",
        "finished": "finished",
        "cancelled": "been cancelled",
    }.get(record.status, record.status)
