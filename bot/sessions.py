"""The async session manager: one lock per match, every action through the engine, saved before shown.

Callers (the cogs) pass user ids, a match id, the match version their control was drawn for and an
action's notation; they get back what happened, or a ``UserError`` whose message they relay.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, field, replace

from bot.clock import Clock
from bot.settings import ServerSettings
from bot.store import Deadlines, LoggedAction, MatchRecord, ResultRecord, Store
from engine import CHANCE, Action, Forfeit, GameError, GameState, Outcome, Variant, find_variant
from engine.ai.players import computer_action
from engine.ai.random_player import sample_outcome

log = logging.getLogger(__name__)

# How many actions the manager plays by itself in one go (forced moves, computer turns, opening
# rolls) before handing back: a guard against a rules bug looping forever, far above real games.
MAX_AUTOMATIC_ACTIONS = 500
REMATCH_SECONDS = 600.0
"""How long a finished match's Rematch button may be used; the scheduler then greys it out."""


class UserError(Exception):
    """Something a user did that cannot be done; the message is shown to them privately."""


class MatchNotFound(UserError):
    pass


class NotInMatch(UserError):
    pass


class StaleControl(UserError):
    pass


class NotYourTurn(UserError):
    pass


class MatchDamaged(UserError):
    pass


class MatchOver(UserError):
    pass


@dataclass(frozen=True, slots=True)
class Step:
    """One applied action: who (a seat, or None for chance), its notation, what it did in words.

    ``text`` is what everyone may read; ``private`` holds, per seat, a fuller text that only that
    seat may read ("You drew a Guard" where the board says that a card was drawn), when there is one.
    """

    seat: int | None
    notation: str
    text: str
    automatic: bool = False
    private: tuple[str | None, str | None] = (None, None)

    def text_for(self, viewer: int | None) -> str:
        """The text of this step for seat ``viewer`` (``None``: everyone)."""
        own = self.private[viewer] if viewer is not None else None
        return own or self.text


def step_of(seat: int | None, action: Action, before: GameState, after: GameState, automatic: bool) -> Step:
    """The step for ``action``, with its public text and each seat's own text where that differs."""
    public = after.view(None).last_text
    if not public:
        # ``describe`` speaks for the deciding seat: never for a secret decision.
        public = "" if seat is None or before.secret_decision() else before.describe(action)
    own = tuple(after.view(s).last_text for s in (0, 1))
    private = (own[0] if own[0] != public else None, own[1] if own[1] != public else None)
    return Step(seat, action.notation, public, automatic=automatic, private=private)


@dataclass(slots=True)
class Session:
    """A match in memory. ``state`` is None when the saved state could not be read (``damage`` says why)."""

    record: MatchRecord
    variant: Variant
    state: GameState | None
    damage: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def version(self) -> int:
        return self.record.version

    def seat_of(self, user_id: int) -> int | None:
        players = self.record.players
        if user_id == players[0]:
            return 0
        if user_id == players[1]:
            return 1
        return None

    def user_of(self, seat: int) -> int:
        return self.record.players[seat]


@dataclass(frozen=True, slots=True)
class Reminder:
    """A due turn reminder, claimed: ``seat`` of ``session`` must act within ``seconds_left``."""

    session: Session
    seat: int
    seconds_left: float


@dataclass(frozen=True, slots=True)
class Played:
    """The result of one request: the session after it and the steps applied, in order."""

    session: Session
    before: GameState | None
    steps: tuple[Step, ...]
    previous_message_id: int | None

    @property
    def decider_changed(self) -> bool:
        """Whether someone else is asked to decide now (or nobody, at the end): then the board is a new
        message that mentions them, since Discord notifies nobody of an edited message."""
        state = self.session.state
        if state is None or self.before is None:
            return True
        return state.is_terminal() or deciding_seat(state) != deciding_seat(self.before)

    @property
    def finished(self) -> bool:
        return self.session.record.status != "active"


def result_record(match_id: int, outcome: Outcome, now: float) -> ResultRecord:
    return ResultRecord(
        match_id=match_id,
        winner_seat=outcome.winner,
        reason=outcome.reason,
        description=outcome.description,
        points=outcome.points,
        length=outcome.length,
        finished_at=now,
    )


class SessionManager:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        rng: random.Random | None = None,
        computer_ids: frozenset[int] = frozenset(),
        settings: ServerSettings | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or ServerSettings(store)
        self.clock = clock
        # Dice of live games come from the operating system's random source.
        self.rng: random.Random = rng if rng is not None else random.SystemRandom()
        self.computer_ids = set(computer_ids)
        self._sessions: dict[int, Session] = {}
        self._loading = asyncio.Lock()

    # -- loading ---------------------------------------------------------------------------------

    async def get(self, match_id: int) -> Session:
        """The match's session: the one in memory while it is active, else read from the store.

        A match that is over is not kept: each read of it (a Rematch, a late click on an old board)
        reads it again, and nothing can change it any more.
        """
        session = self._sessions.get(match_id)
        if session is not None:
            return session
        async with self._loading:
            session = self._sessions.get(match_id)
            if session is None:
                record = await self.store.matches.get(match_id)
                if record is None:
                    raise MatchNotFound("This match does not exist any more.")
                session = self._session_from(record)
                if record.status == "active":
                    self._sessions[match_id] = session
        return session

    def in_memory(self, match_id: int) -> bool:
        """Whether the match's session is held in memory (only active matches are)."""
        return match_id in self._sessions

    def _forget(self, session: Session) -> None:
        """Drop a match that has just ended from memory; whoever holds ``session`` may still read it."""
        if self._sessions.get(session.id) is session:
            del self._sessions[session.id]

    def _session_from(self, record: MatchRecord) -> Session:
        try:
            variant = find_variant(record.game)
        except GameError as exc:
            raise MatchDamaged(f"This match is of a game this bot no longer has ({exc}).") from exc
        try:
            state = variant.from_json(json.loads(record.state))
        except (GameError, ValueError) as exc:
            log.warning("match %s: saved state cannot be read: %s", record.id, exc)
            return Session(record=record, variant=variant, state=None, damage=str(exc))
        return Session(record=record, variant=variant, state=state)

    async def matches_of(self, user_id: int, channel_id: int | None = None) -> list[MatchRecord]:
        return await self.store.matches.active(user_id=user_id, channel_id=channel_id)

    # -- starting ----------------------------------------------------------------------------------

    async def start_match(
        self,
        *,
        game: str,
        options: dict[str, object],
        players: tuple[int, int],
        guild_id: int | None,
        channel_id: int,
        parent_id: int | None,
        rated: bool,
        challenge_id: int | None = None,
    ) -> Played:
        """Create a match, resolve its opening chance steps and save it."""
        variant = find_variant(game)
        state = variant.new_game(options)
        record_stub = MatchRecord(
            id=0, guild_id=guild_id, channel_id=channel_id, parent_id=parent_id, game=variant.key,
            options=dict(options), players=players, state="", version=0, status="active",
            message_id=None, rated=rated, created_at=0.0, updated_at=0.0,
        )  # fmt: skip
        stub = Session(record=record_stub, variant=variant, state=state)
        steps: list[Step] = []
        state = self._advance(stub, state, steps)
        now = self.clock.now()
        deadlines = await self._deadlines(stub, None, state, now)
        record = await self.store.matches.create(
            guild_id=guild_id,
            channel_id=channel_id,
            parent_id=parent_id,
            game=variant.key,
            options=dict(options),
            players=players,
            state=state.canonical(),
            actions=[LoggedAction(s.seat, s.notation) for s in steps],
            rated=rated,
            now=now,
            challenge_id=challenge_id,
            deadlines=deadlines,
        )
        session = Session(record=record, variant=variant, state=state)
        self._sessions[record.id] = session
        return Played(session=session, before=None, steps=tuple(steps), previous_message_id=None)

    # -- acting ------------------------------------------------------------------------------------

    def check_readable(self, session: Session) -> GameState:
        if session.state is None:
            raise MatchDamaged(
                "This match's saved position is damaged and cannot be played on "
                f"({session.damage}). Either player can end it with /resign; it will not be rated."
            )
        return session.state

    def check_turn(self, session: Session, user_id: int, version: int | None) -> int:
        """The user's seat if they may act on this match at ``version`` now; else a ``UserError``."""
        seat, state = self._check(session, user_id, version)
        if deciding_seat(state) != seat:
            raise NotYourTurn(self._whose_turn(session, state))
        return seat

    def _check(self, session: Session, user_id: int, version: int | None) -> tuple[int, GameState]:
        self.check_readable(session)
        if session.record.status != "active":
            raise MatchOver("This match is over.")
        seat = session.seat_of(user_id)
        if seat is None:
            raise NotInMatch("You are not playing in this match.")
        if version is not None and version != session.version:
            raise StaleControl("That control is from an earlier position; use the latest board message.")
        assert session.state is not None
        return seat, session.state

    async def act(self, match_id: int, user_id: int, version: int | None, notation: str) -> Played:
        """Apply the user's action (given as notation) if it is theirs to take and legal."""
        session = await self.get(match_id)
        async with session.lock:
            seat, state = self._check(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(self._whose_turn(session, state))
            try:
                action = session.variant.parse_action(state, notation)
                after = state.apply(action)
            except GameError as exc:
                raise UserError(_sentence(str(exc))) from exc
            steps = [step_of(seat, action, state, after, automatic=False)]
            after = self._advance(session, after, steps)
            return await self._commit(session, state, after, steps)

    async def roll(self, match_id: int, user_id: int, version: int | None) -> Played:
        """Roll the dice for the user when the position waits for their roll."""
        session = await self.get(match_id)
        async with session.lock:
            seat, state = self._check(session, user_id, version)
            spec = state.chance()
            if spec is None or spec.prompt_seat != seat:
                raise NotYourTurn(self._whose_turn(session, state))
            action = state.chance_action(sample_outcome(spec, self.rng))
            after = state.apply(action)
            steps = [step_of(None, action, state, after, automatic=False)]
            after = self._advance(session, after, steps)
            return await self._commit(session, state, after, steps)

    def _advance(self, session: Session, state: GameState, steps: list[Step]) -> GameState:
        """Play what needs nobody's decision: chance steps without a prompt, forced actions and the
        computer's turns."""
        for _ in range(MAX_AUTOMATIC_ACTIONS):
            if state.is_terminal():
                return state
            spec = state.chance()
            if spec is not None:
                prompt = spec.prompt_seat
                if prompt is not None and session.user_of(prompt) not in self.computer_ids:
                    return state
                action = state.chance_action(sample_outcome(spec, self.rng))
                after = state.apply(action)
                steps.append(step_of(None, action, state, after, automatic=True))
                state = after
                continue
            seat = state.to_move()
            legal = state.legal_actions()
            if session.user_of(seat) in self.computer_ids:
                action = computer_action(state.view(seat), self.rng)
            elif len(legal) == 1 and not state.secret_decision():
                # A forced action is played at once, unless answering at once would tell the
                # opponent what a secret hand holds: then the player still answers.
                action = legal[0]
            else:
                return state
            after = state.apply(action)
            steps.append(step_of(seat, action, state, after, automatic=True))
            state = after
        raise RuntimeError(f"match {session.id}: more than {MAX_AUTOMATIC_ACTIONS} automatic actions")

    async def _commit(
        self, session: Session, before: GameState, after: GameState, steps: list[Step]
    ) -> Played:
        now = self.clock.now()
        outcome = after.outcome()
        result = result_record(session.id, outcome, now) if outcome is not None else None
        deadlines = await self._deadlines(session, before, after, now)
        saved = await self.store.matches.record_actions(
            session.id,
            expected_version=session.version,
            actions=[LoggedAction(s.seat, s.notation) for s in steps],
            state=after.canonical(),
            now=now,
            result=result,
            deadlines=deadlines,
        )
        if not saved:
            # Another process moved this match on: drop our copy and let the user retry.
            self._sessions.pop(session.id, None)
            raise StaleControl("This match changed in the meantime; use the latest board message.")
        previous_message = session.record.message_id
        clock = deadlines or Deadlines(session.record.reminder_at, session.record.timeout_at)
        if result is not None:
            clock = Deadlines(None, None)
        session.record = _replace_record(
            session.record,
            state=after.canonical(),
            version=session.version + len(steps),
            status="finished" if result is not None else "active",
            updated_at=now,
            reminder_at=clock.reminder_at,
            timeout_at=clock.timeout_at,
        )
        session.state = after
        if result is not None:
            self._forget(session)
        return Played(
            session=session, before=before, steps=tuple(steps), previous_message_id=previous_message
        )

    async def _deadlines(
        self, session: Session, before: GameState | None, after: GameState, now: float
    ) -> Deadlines | None:
        """A new turn clock when the decision passes to another player; None when it stays."""
        waiting = deciding_seat(after)
        if waiting is None or session.user_of(waiting) in self.computer_ids:
            return Deadlines(None, None)
        if before is not None and deciding_seat(before) == waiting:
            return None
        settings = await self.settings.get(session.record.guild_id)
        return Deadlines(now + settings.reminder_seconds, now + settings.timeout_seconds)

    # -- ending --------------------------------------------------------------------------------------

    async def timeout(self, match_id: int) -> Played | None:
        """End the match as a loss for the player whose time ran out; None if it is not (or no longer) due."""
        session = await self.get(match_id)
        async with session.lock:
            record = session.record
            now = self.clock.now()
            if record.status != "active" or record.timeout_at is None or record.timeout_at > now:
                return None
            if session.state is None:
                return None  # a damaged match waits for its players to abandon it
            seat = deciding_seat(session.state)
            if seat is None:
                return None
            names = session.variant.seat_names
            outcome = session.variant.forfeit(
                session.state,
                seat,
                Forfeit.TIMEOUT,
                f"{names[1 - seat]} wins: {names[seat]} ran out of time.",
            )
            if not await self.store.matches.end(
                match_id, status="finished", result=result_record(match_id, outcome, now), now=now
            ):
                return None
            session.record = _replace_record(
                record,
                status="finished",
                version=session.version + 1,
                updated_at=now,
                reminder_at=None,
                timeout_at=None,
            )
            self._forget(session)
            step = Step(seat, "timeout", outcome.description)
            return Played(session, session.state, (step,), record.message_id)

    async def resign(self, match_id: int, user_id: int) -> Played:
        """End the match: a loss for ``user_id``; a damaged match is abandoned, unrated."""
        session = await self.get(match_id)
        async with session.lock:
            if session.record.status != "active":
                raise MatchOver("This match is already over.")
            seat = session.seat_of(user_id)
            if seat is None:
                raise NotInMatch("You are not playing in this match.")
            now = self.clock.now()
            if session.state is None:
                await self.store.matches.end(match_id, status="abandoned", result=None, now=now)
                session.record = _replace_record(
                    session.record, status="abandoned", version=session.version + 1, updated_at=now
                )
                self._forget(session)
                return Played(session, None, (), session.record.message_id)
            names = session.variant.seat_names
            outcome = session.variant.forfeit(
                session.state, seat, Forfeit.RESIGNATION, f"{names[1 - seat]} wins: {names[seat]} resigned."
            )
            await self.store.matches.end(
                match_id, status="finished", result=result_record(match_id, outcome, now), now=now
            )
            session.record = _replace_record(
                session.record, status="finished", version=session.version + 1, updated_at=now
            )
            self._forget(session)
            step = Step(seat, "resign", outcome.description)
            return Played(session, session.state, (step,), session.record.message_id)

    async def result_of(self, match_id: int) -> Outcome | None:
        found = await self.store.matches.result(match_id)
        if found is None:
            return None
        return Outcome(
            winner=found.winner_seat,
            reason=found.reason,
            description=found.description,
            points=found.points,
            length=found.length,
        )

    # -- due work (the scheduler asks; a publisher shows each) ----------------------------------------

    async def due_reminders(self) -> list[Reminder]:
        """Claim every reminder that has come due (each is given out once, even across restarts)."""
        now = self.clock.now()
        due: list[Reminder] = []
        for record in await self.store.deadlines.due_reminders(now):
            session = await self.claim_reminder(record)
            if session is None or session.state is None:
                continue
            if record.timeout_at is not None and record.timeout_at <= now:
                continue  # too late to remind: the timeout follows in the same round
            seat = deciding_seat(session.state)
            if seat is None:
                continue
            due.append(Reminder(session, seat, max(0.0, (record.timeout_at or now) - now)))
        return due

    async def timeout_due(self) -> list[Played]:
        """End every match whose player on turn has run out of time; the matches so ended."""
        ended: list[Played] = []
        for record in await self.store.deadlines.due_timeouts(self.clock.now()):
            played = await self.timeout(record.id)
            if played is not None:
                ended.append(played)
        return ended

    async def rematches_due(self) -> list[MatchRecord]:
        """Claim every finished match whose Rematch button has run out (each once, across restarts)."""
        due = []
        for record in await self.store.deadlines.due_rematches(self.clock.now()):
            if record.rematch_until is not None and await self.store.deadlines.claim_rematch_expiry(
                record.id, record.rematch_until
            ):
                due.append(record)
        return due

    async def claim_reminder(self, record: MatchRecord) -> Session | None:
        """Take a due reminder so it is sent once; the session to remind about, or None."""
        if record.reminder_at is None or not await self.store.deadlines.claim_reminder(
            record.id, record.reminder_at
        ):
            return None
        session = await self.get(record.id)
        session.record = _replace_record(session.record, reminder_at=None)
        return session

    async def set_message(self, match_id: int, message_id: int | None) -> None:
        """Make ``message_id`` the match's live board message (None: it has none, being over)."""
        await self.store.matches.set_message(match_id, message_id)
        # A match that is over is not loaded back into memory just to note its last message.
        session = self._sessions.get(match_id)
        if session is not None:
            session.record = _replace_record(session.record, message_id=message_id)

    def _whose_turn(self, session: Session, state: GameState) -> str:
        if state.is_terminal():
            return "This match is over."
        seat = state.turn if state.to_move() == CHANCE else state.to_move()
        if seat is None:
            return "It is nobody's turn yet."
        return f"It is {session.variant.seat_names[seat]}'s turn (<@{session.user_of(seat)}>), not yours."


def deciding_seat(state: GameState) -> int | None:
    """The seat that acts next: the decider, or the seat whose roll the position waits for."""
    if state.is_terminal():
        return None
    spec = state.chance()
    if spec is not None:
        return spec.prompt_seat
    return state.to_move()


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return "That cannot be done now."
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


def _replace_record(record: MatchRecord, **changes: object) -> MatchRecord:
    return replace(record, **changes)  # type: ignore[arg-type]
