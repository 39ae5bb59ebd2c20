"""The async session manager: one lock per match, every action through the engine, saved before shown.

Callers (the cogs) pass user ids, a match id, the match version their control was drawn for and an
action's notation; they get back what happened, or a ``UserError`` whose message they relay.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from types import EllipsisType
from typing import Any

from bot.board_repair import BACKOFF, GONE
from bot.clock import Clock
from bot.settings import ServerSettings
from bot.store import Deadlines, LoggedAction, MatchRecord, ResultRecord, Store
from bot.store.matches import AlreadyRematched, ChallengeAnswered
from engine import (
    CHANCE,
    Action,
    Forfeit,
    GameError,
    GameState,
    GameView,
    Outcome,
    TurnConfirmation,
    Variant,
    find_variant,
)
from engine.ai.levels import seeded_move
from engine.ai.random_player import sample_outcome

log = logging.getLogger(__name__)

# How many actions the manager plays by itself in one go (forced moves, computer turns, opening
# rolls) before handing back: a guard against a rules bug looping forever, far above real games.
MAX_AUTOMATIC_ACTIONS = 500
REMATCH_SECONDS = 600.0
"""How long a finished match's Rematch button may be used; the scheduler then greys it out."""
NO_ANSWER = "no answer in time"
"""Said after a response window's pass that the bot played because the window's time ran out."""
STANDING_PASS = "standing answer: always pass"
"""Said after a response window's pass played at once by the player's standing answer."""


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
    continues: bool = False
    """The text continues the step before and replaces it where a turn is told (``last_continues``)."""

    def text_for(self, viewer: int | None) -> str:
        """The text of this step for seat ``viewer`` (``None``: everyone)."""
        own = self.private[viewer] if viewer is not None else None
        return own or self.text

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seat": self.seat, "notation": self.notation, "text": self.text}
        if self.automatic:
            data["automatic"] = True
        if self.private != (None, None):
            data["private"] = list(self.private)
        if self.continues:
            data["continues"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> Step | None:
        """A saved step; None if it is not one (a damaged note of what happened is only left out)."""
        try:
            seat, notation, text = data["seat"], str(data["notation"]), str(data["text"])
            private = tuple(data.get("private", (None, None)))
            if seat not in (None, 0, 1) or len(private) != 2:
                return None
            return cls(
                seat,
                notation,
                text,
                bool(data.get("automatic", False)),
                (private[0], private[1]),
                bool(data.get("continues", False)),
            )
        except (KeyError, TypeError, AttributeError):
            return None


def told(steps: Sequence[Step], viewer: int | None) -> list[str]:
    """The texts of ``steps`` for ``viewer``, each run of continuing texts told by its latest."""
    lines: list[str] = []
    for step in steps:
        text = step.text_for(viewer)
        if not text:
            continue
        if step.continues and lines:
            lines[-1] = text
        else:
            lines.append(text)
    return lines


def steps_of(saved: Sequence[Any]) -> tuple[Step, ...]:
    """Saved steps (``Step.to_json``) read back, leaving out any that cannot be read."""
    return tuple(step for data in saved if (step := Step.from_json(data)) is not None)


def step_of(seat: int | None, action: Action, before: GameState, after: GameState, automatic: bool) -> Step:
    """The step for ``action``, with its public text and each seat's own text where that differs."""
    public = after.view(None).last_text
    if not public:
        # ``describe`` speaks for the deciding seat: never for a secret decision.
        public = "" if seat is None or before.secret_decision() else before.describe(action)
    own = tuple(after.view(s).last_text for s in (0, 1))
    private = (own[0] if own[0] != public else None, own[1] if own[1] != public else None)
    continues = bool(public) and after.view(None).last_continues
    return Step(seat, action.notation, public, automatic=automatic, private=private, continues=continues)


@dataclass(slots=True)
class Session:
    """A match in memory. ``state`` is None when the saved state could not be read (``damage`` says why)."""

    record: MatchRecord
    variant: Variant
    state: GameState | None
    damage: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    draft: tuple[Step, ...] = ()
    """The steps of the turn in progress that are not final yet (only their player sees them)."""
    working: GameState | None = None
    """The position after ``draft`` (None: there is no draft; ``state`` is the position)."""

    @property
    def position(self) -> GameState | None:
        """The position as the player on turn sees it: ``state`` with the draft's steps played."""
        return self.working if self.working is not None else self.state

    @property
    def awaiting_confirmation(self) -> bool:
        """Whether the draft is a complete turn that waits for its player's Confirm."""
        if not self.draft or self.state is None or self.working is None:
            return False
        return turn_complete(self.working, deciding_seat(self.state))

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
    draft: bool = False
    """The change is to the turn's draft (a step taken or taken back): the public board stays as it is."""

    @property
    def decider_changed(self) -> bool:
        """Whether someone else is asked to decide now (or nobody, at the end): then the board is a new
        message that mentions them, since Discord notifies nobody of an edited message."""
        state = self.session.state
        if state is None or self.before is None:
            return True
        return state.is_terminal() or asked(state) != asked(self.before)

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


Thinker = Callable[[str, str | None, GameView, int], Awaitable[Action]]
"""(game, level, view, seed) -> the computer's move (``engine.ai.levels.seeded_move``)."""


async def think_in_thread(game: str, level: str | None, view: GameView, seed: int) -> Action:
    """The computer's move in a thread of this process (the bot without worker processes)."""
    return await asyncio.to_thread(seeded_move, game, level, view, seed)


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
        #: how the computer's move is computed (the bot sets its compute workers' ``computer_move``)
        self.think: Thinker = think_in_thread
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
        session = Session(record=record, variant=variant, state=state)
        if record.draft:
            self._read_draft(session, state)
        return session

    def _read_draft(self, session: Session, state: GameState) -> None:
        """Play the saved draft's steps again on ``state``. A draft that no longer applies is dropped
        (it was never final: the player plays those steps again)."""
        working = state
        steps: list[Step] = []
        seat = deciding_seat(state)
        try:
            for saved in session.record.draft:
                automatic = saved.startswith(AUTOMATIC)
                action = session.variant.parse_action(working, saved.removeprefix(AUTOMATIC))
                after = working.apply(action)
                steps.append(step_of(seat, action, working, after, automatic=automatic))
                working = after
        except GameError as exc:
            log.warning("match %s: the saved draft %s is dropped: %s", session.id, session.record.draft, exc)
            return
        session.draft, session.working = tuple(steps), working

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
        thread_name: str | None = None,
        thread_on: int | None = None,
        computer_level: str | None = None,
        rematch_of: int | None = None,
    ) -> Played:
        """Create a match, resolve its opening chance steps and save it; its first board (in the new
        thread ``thread_name``, opened on message ``thread_on`` if given) is for the publisher to show.
        ``computer_level`` is the computer's level in a match against it (None: the game's default).
        ``rematch_of``: the finished match this one rematches (each match is rematched once)."""
        variant = find_variant(game)
        state = variant.new_game(options)
        record_stub = MatchRecord(
            id=0, guild_id=guild_id, channel_id=channel_id, parent_id=parent_id, game=variant.key,
            options=dict(options), players=players, state="", version=0, status="active",
            message_id=None, rated=rated, created_at=0.0, updated_at=0.0, computer_level=computer_level,
        )  # fmt: skip
        stub = Session(record=record_stub, variant=variant, state=state)
        steps: list[Step] = []
        state = await self._advance(stub, state, steps)
        now = self.clock.now()
        try:
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
                board_steps=[s.to_json() for s in steps],
                thread_name=thread_name,
                thread_on=thread_on,
                computer_level=computer_level,
                rematch_of=rematch_of,
            )
        except ChallengeAnswered as exc:
            raise UserError("This challenge was answered a moment ago.") from exc
        except AlreadyRematched as exc:
            raise UserError(
                f"Match #{rematch_of} has had its rematch already; start a new match with /challenge."
            ) from exc
        session = Session(record=record, variant=variant, state=state)
        self._sessions[record.id] = session
        return Played(session=session, before=None, steps=tuple(steps))

    # -- acting ------------------------------------------------------------------------------------

    def check_readable(self, session: Session) -> GameState:
        if session.state is None:
            raise MatchDamaged(
                "This match's saved position is damaged and cannot be played on "
                f"({session.damage}). Either player can end it with /resign; it will not be rated."
            )
        return session.state

    def check_turn(
        self, session: Session, user_id: int, version: int | None, *, committed: bool = False
    ) -> int:
        """The user's seat if they may act on this match at ``version`` now; else a ``UserError``.

        ``committed``: ``version`` is that of a public board's control, drawn for the committed
        position (``board_version``), which says nothing of a turn in progress: it is checked against
        that, and whether a turn is in progress is for the caller to see (``turn_in_progress``)."""
        seat, state = self._check(session, user_id, version, committed=committed)
        if deciding_seat(state) != seat:
            raise NotYourTurn(self._whose_turn(session, state))
        return seat

    def _check(
        self, session: Session, user_id: int, version: int | None, *, committed: bool = False
    ) -> tuple[int, GameState]:
        self.check_readable(session)
        if session.record.status != "active":
            raise MatchOver("This match is over.")
        seat = session.seat_of(user_id)
        if seat is None:
            raise NotInMatch("You are not playing in this match.")
        current = session.record.board_version if committed else session.version
        if version is not None and version != current:
            raise StaleControl("That control is from an earlier position; use the latest board message.")
        assert session.state is not None
        return seat, session.state

    async def act(self, match_id: int, user_id: int, version: int | None, notation: str) -> Played:
        """Apply the user's action (given as notation) if it is theirs to take and legal.

        In a game whose turns can be taken back (``Variant.turn_confirmation``), a step that does not
        complete the turn goes to the turn's draft: saved, shown only to its player, not final.
        """
        session = await self.get(match_id)
        async with session.lock:
            seat, state = self._check(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(self._whose_turn(session, state))
            position = session.position
            assert position is not None
            if session.awaiting_confirmation:
                raise UserError("Your turn is complete: confirm it, or take a step back with Undo.")
            try:
                action = session.variant.parse_action(position, notation)
                after = position.apply(action)
            except GameError as exc:
                raise UserError(_sentence(str(exc))) from exc
            spec = position.chance()
            if spec is not None:
                # A chance outcome written as notation ("roll 6-6-6") would let a player choose the
                # dice: outcomes come only from the bot's random source (``roll``).
                raise UserError(f"That is for chance to decide, not a player: use {spec.label}.")
            steps = [*session.draft, step_of(seat, action, position, after, automatic=False)]
            mode = session.variant.confirmation_of(position, action)
            if mode is not TurnConfirmation.EACH_STEP and _own_step(position, seat):
                after = self._forced(session, after, seat, steps)
                if not turn_complete(after, seat) or mode is TurnConfirmation.CONFIRM:
                    return await self._save_draft(session, after, steps)
            after = await self._advance(session, after, steps)
            return await self._commit(session, state, after, steps)

    async def undo(self, match_id: int, user_id: int, version: int | None) -> Played:
        """Take back the latest step of the user's turn in progress (with the forced steps after it)."""
        session = await self.get(match_id)
        async with session.lock:
            seat, state = self._check(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(self._whose_turn(session, state))
            if not session.draft:
                raise UserError("There is no step of this turn to take back.")
            steps = list(session.draft)
            while steps and steps[-1].automatic:
                steps.pop()
            if steps:
                steps.pop()
            position = state
            for step in steps:
                position = position.apply(session.variant.parse_action(position, step.notation))
            return await self._save_draft(session, position, steps)

    async def confirm(self, match_id: int, user_id: int, version: int | None) -> Played:
        """Make the user's complete turn final: the opponent sees it now."""
        session = await self.get(match_id)
        async with session.lock:
            seat, state = self._check(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(self._whose_turn(session, state))
            if not session.awaiting_confirmation or session.working is None:
                raise UserError("Your turn is not complete yet: play its remaining steps first.")
            steps = list(session.draft)
            after = await self._advance(session, session.working, steps)
            return await self._commit(session, state, after, steps)

    def _forced(self, session: Session, state: GameState, seat: int, steps: list[Step]) -> GameState:
        """Play the player's forced steps that follow in the same turn, as part of the draft."""
        for _ in range(MAX_AUTOMATIC_ACTIONS):
            if turn_complete(state, seat) or not _own_step(state, seat):
                return state
            legal = state.legal_actions()
            if len(legal) != 1:
                return state
            after = state.apply(legal[0])
            steps.append(step_of(seat, legal[0], state, after, automatic=True))
            state = after
        raise RuntimeError(f"match {session.id}: more than {MAX_AUTOMATIC_ACTIONS} forced steps")

    async def _save_draft(self, session: Session, position: GameState, steps: list[Step]) -> Played:
        saved = [(AUTOMATIC if s.automatic else "") + s.notation for s in steps]
        now = self.clock.now()
        if not await self.store.matches.save_draft(
            session.id, expected_version=session.version, draft=saved, now=now
        ):
            self._sessions.pop(session.id, None)
            raise StaleControl("This match changed in the meantime; use the latest board message.")
        session.record = _replace_record(
            session.record, draft=tuple(saved), version=session.version + 1, updated_at=now
        )
        session.draft = tuple(steps)
        session.working = position if steps else None
        return Played(session, session.state, tuple(steps), draft=True)

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
            after = await self._advance(session, after, steps)
            return await self._commit(session, state, after, steps)

    async def _advance(
        self,
        session: Session,
        state: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
    ) -> GameState:
        """Play what needs nobody's decision: chance steps without a prompt, forced actions, the
        computer's turns, and the response windows of a player whose standing answer is to pass
        (``always_pass``: the standing answers, when they change with this request). The computer
        thinks in a worker process (``think``), so neither the event loop nor other matches wait for
        it (the session's lock keeps this match's clicks out meanwhile)."""
        standing = always_pass or session.record.always_pass
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
            window = state.window_pass()
            if session.user_of(seat) in self.computer_ids:
                # A seed crosses to the worker, not the random source: the move is a pure function
                # of (view, seed), and a seeded test's games are the same in a worker or a thread.
                seed = self.rng.getrandbits(64)
                level = session.record.computer_level
                action = await self.think(session.variant.key, level, state.view(seat), seed)
            elif window is not None and standing[seat]:
                # The standing answer, whatever the hand holds: the window closes at once.
                after = state.apply(window)
                steps.append(
                    noted(
                        step_of(seat, window, state, after, automatic=True),
                        STANDING_PASS,
                        session.variant.seat_names[seat],
                    )
                )
                state = after
                continue
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
        self,
        session: Session,
        before: GameState,
        after: GameState,
        steps: list[Step],
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played:
        """Save ``steps`` (the draft's among them) and the position after them; note what the public
        board must show next: the steps of the turn so far, as a new message when someone else is
        asked to decide now, or asked in another way (a response window opens or closes): the whole
        turn that just ended, every step in order. ``always_pass``: the players' standing answers to
        response windows, saved with it when they change."""
        now = self.clock.now()
        outcome = after.outcome()
        result = result_record(session.id, outcome, now) if outcome is not None else None
        deadlines = self._deadlines(session, before, after)
        hand_over = after.is_terminal() or asked(after) != asked(before)
        record = session.record
        turn = [*record.turn_steps, *(s.to_json() for s in steps)]
        new_board = hand_over or (record.new_board and record.behind)
        saved = await self.store.matches.record_actions(
            session.id,
            expected_version=session.version,
            actions=[LoggedAction(s.seat, s.notation) for s in steps],
            state=after.canonical(),
            now=now,
            result=result,
            deadlines=deadlines,
            board_steps=turn,
            turn_steps=[] if hand_over else turn,
            new_board=new_board,
            always_pass=always_pass,
        )
        if not saved:
            # Another process moved this match on: drop our copy and let the user retry.
            self._sessions.pop(session.id, None)
            raise StaleControl("This match changed in the meantime; use the latest board message.")
        # The record as it is now: the publisher may have noted a board (its message, its clock)
        # while this was being saved, and that must not be undone here.
        current = session.record
        clock = deadlines or Deadlines(current.reminder_at, current.timeout_at, current.window_at)
        if result is not None:
            clock = Deadlines(None, None)
        version = session.version + len(steps)
        session.record = _replace_record(
            current,
            state=after.canonical(),
            version=version,
            board_version=version,
            board_steps=tuple(turn),
            turn_steps=() if hand_over else tuple(turn),
            new_board=new_board,
            draft=(),
            status="finished" if result is not None else "active",
            updated_at=now,
            reminder_at=clock.reminder_at,
            timeout_at=clock.timeout_at,
            window_at=clock.window_at,
            always_pass=always_pass or record.always_pass,
        )
        session.state = after
        session.draft, session.working = (), None
        if result is not None:
            self._forget(session)
        return Played(session=session, before=before, steps=tuple(steps))

    def _deadlines(self, session: Session, before: GameState, after: GameState) -> Deadlines | None:
        """The clock after a change: unchanged (None) while the same human player decides in the same
        way (on turn, or in a response window); otherwise none until the board that asks the next
        player is shown (``mark_shown`` starts it)."""
        waiting = deciding_seat(after)
        human = waiting is not None and session.user_of(waiting) not in self.computer_ids
        if human and asked(before) == asked(after):
            return None
        return Deadlines(None, None)

    async def turn_clock(self, session: Session, now: float) -> Deadlines | None:
        """The clock of the player asked to decide from ``now`` on (None: nobody human is asked): the
        turn clock, or in a response window the server's window wait (the window then passes by
        itself; nobody loses on time)."""
        if session.record.status != "active" or session.state is None:
            return None
        waiting = deciding_seat(session.state)
        if waiting is None or session.user_of(waiting) in self.computer_ids:
            return None
        settings = await self.settings.get(session.record.guild_id)
        if in_window(session.state):
            return Deadlines(None, None, now + settings.window_seconds)
        return Deadlines(now + settings.reminder_seconds, now + settings.timeout_seconds)

    async def mark_shown(
        self,
        session: Session,
        message_id: int | None,
        deadlines: Deadlines | None,
        version: int,
        previous: int | EllipsisType | None = ...,
    ) -> bool:
        """The public board of committed ``version`` (the ``board_version`` it was drawn for) is
        visible as ``message_id``: note it, and start the turn clock of the player it asks with
        ``deadlines`` (``turn_clock`` when the board was drawn, as it shows them) if it is still the
        latest board and that player's clock is not running yet. A board the match has moved on from
        meanwhile is noted as its message (to edit or retire next) but leaves the match behind.
        ``previous``: the board message it replaces (compare and set: False, with nothing noted, if
        the store knows another one by now); by default the one the session knows."""
        if isinstance(previous, EllipsisType):
            previous = session.record.message_id
        if not await self.store.matches.mark_shown(
            session.id, board_version=version, message_id=message_id, deadlines=deadlines, previous=previous
        ):
            return False
        latest = session.record.board_version == version
        changes: dict[str, object] = {
            "shown_version": version,
            "message_id": message_id,
            "show_tries": 0,
            "show_after": None,
        }
        if latest:
            changes["new_board"] = False
            changes["redraw"] = False
            if (
                deadlines is not None
                and session.record.timeout_at is None
                and session.record.window_at is None
            ):
                changes.update(
                    reminder_at=deadlines.reminder_at,
                    timeout_at=deadlines.timeout_at,
                    window_at=deadlines.window_at,
                )
        session.record = _replace_record(session.record, **changes)
        return True

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
            step = Step(seat, "timeout", outcome.description)
            if not await self.store.matches.end(
                match_id,
                status="finished",
                result=result_record(match_id, outcome, now),
                now=now,
                board_steps=[step.to_json()],
            ):
                return None
            self._ended(session, "finished", now, (step,))
            return Played(session, session.state, (step,))

    # -- response windows ----------------------------------------------------------------------------

    async def window_ran_out(self, match_id: int) -> Played | None:
        """Let the match's response window go by for its player, whose time ran out: the window's
        pass (``GameState.window_pass``) is played, saved and shown like any action, saying that no
        answer came in time; the turn then goes on with its normal clock. None if it is not (or no
        longer) due."""
        session = await self.get(match_id)
        async with session.lock:
            record, state = session.record, session.state
            if record.status != "active" or state is None:
                return None
            if record.window_at is None or record.window_at > self.clock.now():
                return None
            seat = deciding_seat(state)
            if seat is None or not in_window(state):
                log.warning("match %s: a window clock runs with no window open", match_id)
                return None
            return await self._pass_window(session, state, seat, NO_ANSWER)

    async def windows_due(self) -> list[Played]:
        """Pass every response window whose time has run out; the matches so moved on."""
        passed: list[Played] = []
        for record in await self.store.deadlines.due_windows(self.clock.now()):
            try:
                played = await self.window_ran_out(record.id)
            except UserError as exc:
                log.info("match %s: its run-out window was not passed: %s", record.id, exc)
                continue
            if played is not None:
                passed.append(played)
        return passed

    async def always_pass(self, match_id: int, user_id: int, version: int | None) -> Played:
        """The user's standing answer becomes "always pass" for this match: the response window open
        for them now passes at once, and every later one passes as it opens, whatever the hand."""
        session = await self.get(match_id)
        async with session.lock:
            seat, state = self._check(session, user_id, version)
            if deciding_seat(state) != seat or not in_window(state):
                raise UserError("No response window of yours is open now; nothing was changed.")
            standing = _with_seat(session.record.always_pass, seat, True)
            return await self._pass_window(session, state, seat, STANDING_PASS, standing)

    async def ask_in_windows(self, match_id: int, user_id: int) -> Session:
        """The user's standing answer goes back to "ask me": their response windows wait for them."""
        session = await self.get(match_id)
        async with session.lock:
            if session.record.status != "active":
                raise MatchOver("This match is over.")
            seat = session.seat_of(user_id)
            if seat is None:
                raise NotInMatch("You are not playing in this match.")
            if not session.record.always_pass[seat]:
                raise UserError(
                    "You are already asked in every response window of this match; nothing was changed."
                )
            standing = _with_seat(session.record.always_pass, seat, False)
            if not await self.store.matches.set_always_pass(match_id, standing):
                raise MatchOver("This match is over.")
            session.record = _replace_record(session.record, always_pass=standing)
            return session

    async def _pass_window(
        self,
        session: Session,
        state: GameState,
        seat: int,
        note: str,
        always_pass: tuple[bool, bool] | None = None,
    ) -> Played:
        """Play the window's pass for ``seat`` (the steps of a turn in progress made final before
        it), saying ``note`` after it."""
        steps = list(session.draft)
        position = session.position
        assert position is not None
        action = position.window_pass()
        if action is not None and deciding_seat(position) == seat:
            after = position.apply(action)
            step = step_of(seat, action, position, after, automatic=True)
            steps.append(noted(step, note, session.variant.seat_names[seat]))
        else:
            after = position
        after = await self._advance(session, after, steps, always_pass)
        return await self._commit(session, state, after, steps, always_pass)

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
                self._ended(session, "abandoned", now, ())
                return Played(session, None, ())
            names = session.variant.seat_names
            outcome = session.variant.forfeit(
                session.state, seat, Forfeit.RESIGNATION, f"{names[1 - seat]} wins: {names[seat]} resigned."
            )
            step = Step(seat, "resign", outcome.description)
            await self.store.matches.end(
                match_id,
                status="finished",
                result=result_record(match_id, outcome, now),
                now=now,
                board_steps=[step.to_json()],
            )
            self._ended(session, "finished", now, (step,))
            return Played(session, session.state, (step,))

    def _ended(self, session: Session, status: str, now: float, steps: tuple[Step, ...]) -> None:
        """The session of a match just ended without an action (``MatchStore.end`` saved it)."""
        version = session.version + 1
        session.record = _replace_record(
            session.record,
            status=status,
            version=version,
            board_version=version,
            board_steps=tuple(s.to_json() for s in steps),
            new_board=True,
            draft=(),
            updated_at=now,
            reminder_at=None,
            timeout_at=None,
            window_at=None,
        )
        session.draft, session.working = (), None
        self._forget(session)

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

    async def claim_rematch(self, match_id: int) -> MatchRecord | None:
        """Claim the greying out of the finished match's Rematch button now (it was rematched): the
        record to grey out, or None if it is already greyed out (or being)."""
        record = await self.store.matches.get(match_id)
        if record is None or record.rematch_until is None:
            return None
        if not await self.store.deadlines.claim_rematch_expiry(record.id, record.rematch_until):
            return None
        return record

    async def claim_reminder(self, record: MatchRecord) -> Session | None:
        """Take a due reminder so it is sent once; the session to remind about, or None."""
        if record.reminder_at is None or not await self.store.deadlines.claim_reminder(
            record.id, record.reminder_at
        ):
            return None
        session = await self.get(record.id)
        session.record = _replace_record(session.record, reminder_at=None)
        return session

    async def set_thread(self, session: Session, channel_id: int, parent_id: int | None) -> None:
        """The match's thread is open (or could not be: ``channel_id`` is then where it was made)."""
        thread = channel_id != session.record.channel_id
        await self.store.matches.set_thread(
            session.id, channel_id, parent_id if thread else session.record.parent_id
        )
        session.record = _replace_record(
            session.record,
            channel_id=channel_id,
            parent_id=parent_id if thread else session.record.parent_id,
            thread_name=None,
            thread_on=None,
        )

    async def set_message(self, match_id: int, message_id: int | None) -> None:
        """Make ``message_id`` the match's live board message (None: it has none, being over)."""
        await self.store.matches.set_message(match_id, message_id)
        # A match that is over is not loaded back into memory just to note its last message.
        session = self._sessions.get(match_id)
        if session is not None:
            session.record = _replace_record(session.record, message_id=message_id)

    async def request_board(self, session: Session) -> bool:
        """Ask for the active match's board again as a new message (``/board``), to be shown by the
        publisher; False if the match is over. Taken under the match's lock, so that a change being
        saved at the same time cannot overwrite the request."""
        async with session.lock:
            if not await self.store.matches.request_board(session.id):
                return False
            record = session.record
            session.record = _replace_record(record, new_board=True, redraw=True, reposts=record.reposts + 1)
        return True

    async def reread_board(self, session: Session) -> None:
        """Take what the store says of the match's board (its message, the version shown, what is
        to show) into the session: another showing noted a board this copy did not see."""
        stored = await self.store.matches.get(session.id)
        if stored is None:
            return
        session.record = _replace_record(
            session.record,
            message_id=stored.message_id,
            shown_version=stored.shown_version,
            new_board=stored.new_board,
            redraw=stored.redraw,
            reposts=stored.reposts,
        )

    async def board_failed(self, session: Session) -> tuple[int, float]:
        """Note that the match's board could not be shown: (failures in a row, when the scheduler
        tries it next), further out after each failure (``bot.board_repair.BACKOFF``)."""
        tries, after = await self.store.matches.board_failed(session.id, self.clock.now(), BACKOFF)
        session.record = _replace_record(session.record, show_tries=tries, show_after=after)
        return tries, after

    async def channel_gone(self, match_id: int) -> Played | None:
        """Discord says the match's channel is gone (deleted, or the bot may no longer see it): its
        boards can never be shown. An active match is ended, abandoned and unrated ("its channel is
        gone"); a finished one keeps its result. Either way its board is noted as shown nowhere, so
        it is not tried again. The match so abandoned, or None."""
        session = await self.get(match_id)
        played: Played | None = None
        async with session.lock:
            now = self.clock.now()
            if session.record.status == "active":
                step = Step(None, "abandon", f"Match #{match_id} was abandoned: {GONE}. It is not rated.")
                if await self.store.matches.end(
                    match_id, status="abandoned", result=None, now=now, board_steps=[step.to_json()]
                ):
                    self._ended(session, "abandoned", now, (step,))
                    played = Played(session, session.state, (step,))
            record = session.record
            await self.mark_shown(session, None, None, record.board_version, record.message_id)
        return played

    def _whose_turn(self, session: Session, state: GameState) -> str:
        if state.is_terminal():
            return "This match is over."
        seat = state.turn if state.to_move() == CHANCE else state.to_move()
        if seat is None:
            return "It is nobody's turn yet."
        return f"It is {session.variant.seat_names[seat]}'s turn (<@{session.user_of(seat)}>), not yours."


AUTOMATIC = "auto:"
"""Marks a saved draft step that was forced (played by itself): Undo takes it back with the step before."""


def turn_complete(state: GameState, seat: int | None) -> bool:
    """Whether ``seat``'s turn is over in ``state``: someone else (or chance) decides, or it is over."""
    return state.is_terminal() or state.chance() is not None or deciding_seat(state) != seat


def turn_in_progress(session: Session, seat: int) -> bool:
    """Whether ``seat`` is deciding with a turn in progress: steps drafted since the last committed
    change, even if every one was taken back (the match's version then differs from the board's)."""
    state = session.state
    return (
        session.record.status == "active"
        and state is not None
        and deciding_seat(state) == seat
        and (bool(session.draft) or session.version != session.record.board_version)
    )


def _own_step(state: GameState, seat: int) -> bool:
    """Whether the next action in ``state`` is ``seat``'s own decision (not chance), which may be
    taken back before the opponent sees it."""
    return not state.is_terminal() and state.chance() is None and state.to_move() == seat


def in_window(state: GameState) -> bool:
    """Whether ``state`` asks its deciding seat to answer in a response window (``window_pass``)."""
    return not state.is_terminal() and state.chance() is None and state.window_pass() is not None


def asked(state: GameState) -> tuple[int | None, bool]:
    """Who is asked to decide in ``state`` and whether in a response window: when this changes, the
    board is a new message and the clock starts afresh (a window's wait, or the turn clock)."""
    return deciding_seat(state), in_window(state)


def noted(step: Step, note: str, name: str) -> Step:
    """``step`` with ``note`` said after it, in every seat's text ("... (no answer in time)"); a step
    the game tells nothing of says that ``name`` (the seat's name) let the window pass."""

    def with_note(text: str | None) -> str | None:
        return None if text is None else f"{text} ({note})"

    return replace(
        step,
        text=with_note(step.text or f"{name} let the window pass") or "",
        private=(with_note(step.private[0]), with_note(step.private[1])),
    )


def _with_seat(standing: tuple[bool, bool], seat: int, value: bool) -> tuple[bool, bool]:
    return (value, standing[1]) if seat == 0 else (standing[0], value)


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
