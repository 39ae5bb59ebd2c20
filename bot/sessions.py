"""The async session manager: one lock per match, every action through the engine, saved before shown.

Callers (the cogs) pass user ids, a match id, the match version their control was drawn for and an
action's notation; they get back what happened, or a ``UserError`` whose message they relay."""

from __future__ import annotations

import asyncio
import logging
import random

from bot.board_handoff import BoardHandoff
from bot.clock import Clock
from bot.computer_seats import ComputerSeats
from bot.history import MatchHistory
from bot.match_ends import MatchEnds
from bot.session import (
    STANDING_PASS,
    MatchCannotStart,
    MatchNotFound,
    NotYourTurn,
    Played,
    Session,
    StaleControl,
    Step,
    Thinker,
    UserError,
    board_change,
    check_member,
    check_own_action,
    deciding_seat,
    noted,
    own_step,
    parsed,
    played_next,
    result_record,
    session_from,
    step_of,
    steps_of,
    think_in_thread,
    turn_complete,
    whose_turn,
)
from bot.settings import PlayerPreferences, ServerSettings
from bot.store import Deadlines, LoggedAction, MatchRecord, Store
from bot.store.matches import AlreadyRematched, ChallengeAnswered, ComputerMatchExists
from bot.turn_clocks import TurnClocks
from bot.turn_drafts import RollJudge, TurnDrafts, judge_in_thread
from bot.turn_driver import (
    MAX_AUTOMATIC_ACTIONS,
    RunsForever,
    board_held,
    clock_after,
    forced_steps,
    next_automatic,
    others_acted,
)
from engine import (
    GameError,
    GameState,
    TurnConfirmation,
    Variant,
    find_variant,
)
from engine.ai.random_player import sample_outcome
from engine.live_clock import clock_of

log = logging.getLogger(__name__)


NEW_MATCH = "start a new match with /challenge."


def opening_state(variant: Variant, options: dict[str, object]) -> GameState:
    """A new game of ``variant`` with ``options``; ``MatchCannotStart`` when they are refused now
    (options checked when the challenge was made may be refused by a rule that came since)."""
    try:
        return variant.new_game(options)
    except GameError as exc:
        raise MatchCannotStart(f"This match cannot be played: {str(exc).rstrip('.')}.") from exc


def unsaved_record(
    game: str,
    options: dict[str, object],
    players: tuple[int, int],
    rated: bool,
    level: str | None,
    place: tuple[int | None, int, int | None],
) -> MatchRecord:
    """The record of a match being started in ``place`` (guild, channel, parent channel), before it is
    saved: its opening steps are played on it."""
    guild_id, channel_id, parent_id = place
    return MatchRecord(
        id=0, guild_id=guild_id, channel_id=channel_id, parent_id=parent_id, game=game,
        options=dict(options), players=players, state="", version=0, status="active", message_id=None,
        rated=rated, created_at=0.0, updated_at=0.0, computer_level=level,
    )  # fmt: skip


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
        #: the turn clocks, response windows and due work of the matches
        self.clocks = TurnClocks(self)
        #: what the publisher notes back about the public boards
        self.boards = BoardHandoff(self)
        #: what each player asked the bot to do for them (``/preferences``)
        self.preferences = PlayerPreferences(store, clock)
        #: whether the coach finds a double clearly wrong (the bot sets its compute workers' judge)
        self.judge: RollJudge = judge_in_thread
        #: turns in progress: drafts, Undo and Confirm, and what the player's preferences play for them
        self.drafts = TurnDrafts(self)
        #: what the store says of matches, for the commands
        self.history = MatchHistory(store)
        #: the computer's seats and the one-match-per-place rule
        self.computer = ComputerSeats(self)
        #: resignations, and matches ended without a move
        self.ends = MatchEnds(self)

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
                session = session_from(record)
                if record.status == "active":
                    self._sessions[match_id] = session
        return session

    async def current(self, match_id: int, seen: int | None, *, reread: bool = False) -> Session:
        """The match's session for a request made at version ``seen`` (the version in the control that
        was clicked). When our copy is at another version, the saved match is read again first:
        another process (or this one's scheduler) may have moved it on, and a control made by that
        move must not be refused as stale by an old copy. Every write is still conditional on the
        version it was computed from, so an old copy can never be saved over a newer match."""
        session = await self.get(match_id)
        if reread or (seen is not None and seen not in (session.version, session.record.board_version)):
            async with session.lock:
                await self.reload(session)
        return session

    async def reload(self, session: Session) -> None:
        """Bring ``session`` up to the saved match if that has moved on (call with its lock held)."""
        record = await self.store.matches.get(session.id)
        if record is None or (record.version == session.version and record.status == session.record.status):
            return
        fresh = session_from(record)
        session.record, session.variant, session.state = fresh.record, fresh.variant, fresh.state
        session.damage, session.draft, session.working = fresh.damage, fresh.draft, fresh.working
        if record.status != "active":
            self._forget(session)

    def in_memory(self, match_id: int) -> bool:
        """Whether the match's session is held in memory (only active matches are)."""
        return match_id in self._sessions

    def _forget(self, session: Session) -> None:
        """Drop a match that has just ended from memory; whoever holds ``session`` may still read it."""
        if self._sessions.get(session.id) is session:
            del self._sessions[session.id]

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
        ``rematch_of``: the finished match this one rematches (each match is rematched once).
        ``MatchCannotStart`` when the match can never start as asked (nothing is created)."""
        variant = find_variant(game)
        state = opening_state(variant, options)
        rated = rated and variant.counts_for_rating(options)
        human = self.computer.human_of(players)
        stub = unsaved_record(
            variant.key, options, players, rated, computer_level, (guild_id, channel_id, parent_id)
        )
        starting = Session(record=stub, variant=variant, state=state)
        steps: list[Step] = []
        state = await self._advance(starting, state, steps, starting=True)
        now = self.clock.now()
        try:
            record = await self.store.matches.create(
                guild_id=guild_id, channel_id=channel_id, parent_id=parent_id, game=variant.key,
                options=dict(options), players=players, state=state.canonical(),
                actions=[LoggedAction(s.seat, s.notation) for s in steps], rated=rated, now=now,
                challenge_id=challenge_id, board_steps=[s.to_json() for s in steps], thread_name=thread_name,
                thread_on=thread_on, computer_level=computer_level, rematch_of=rematch_of, human=human,
                live_clock=clock_of(options),
            )  # fmt: skip
        except ComputerMatchExists:
            assert human is not None
            await self.computer.check_no_computer_match(human, channel_id if parent_id is None else parent_id)
            raise UserError("You already have a match against me here.") from None
        except ChallengeAnswered as exc:
            raise UserError("This challenge was answered a moment ago.") from exc
        except AlreadyRematched as exc:
            raise MatchCannotStart(f"Match #{rematch_of} has had its rematch already: {NEW_MATCH}") from exc
        session = Session(record=record, variant=variant, state=state)
        self._sessions[record.id] = session
        return Played(session=session, before=None, steps=tuple(steps))

    # -- acting ------------------------------------------------------------------------------------

    async def act(
        self, match_id: int, user_id: int, version: int | None, notation: str, *more: str
    ) -> Played:
        """Apply the user's action (given as notation) if it is theirs to take and legal; ``more``:
        theirs after it, as one click (a select of several): all are played and saved, or none.

        In a game whose turns can be taken back (``Variant.turn_confirmation``), a step that does not
        complete the turn goes to the turn's draft: saved, shown only to its player, not final.
        """
        session = await self.current(match_id, version)
        async with session.lock:
            seat, state = check_member(session, user_id, version)
            if deciding_seat(state) != seat:
                raise NotYourTurn(whose_turn(state, session.variant.seat_names, session.user_of))
            self.clocks.check_in_time(session, seat)
            position = session.position
            assert position is not None
            if session.awaiting_confirmation:
                raise UserError("Your turn is complete: confirm it, or take a step back with Undo.")
            action, after = parsed(session.variant, position, notation)
            check_own_action(session.variant, position, seat, action)
            steps = [*session.draft, step_of(seat, action, position, after, automatic=False)]
            mode = session.variant.confirmation_of(position, action)
            if mode is not TurnConfirmation.EACH_STEP and own_step(position, seat):
                if more:
                    raise UserError("Play one step at a time in this game.")
                after = forced_steps(after, seat, steps)
                if not turn_complete(after, seat) or (
                    mode is TurnConfirmation.CONFIRM and not await self.drafts.confirms_itself(user_id)
                ):
                    return await self.drafts.save(session, after, steps)
            after = await self._advance(session, after, steps)
            for text in more:  # nothing is saved until all of them are played
                after = await self._advance(session, played_next(session, seat, after, text, steps), steps)
            return await self._commit(session, state, after, steps)

    async def roll(self, match_id: int, user_id: int, version: int | None) -> Played:
        """Roll the dice for the user when the position waits for their roll."""
        session = await self.current(match_id, version)
        async with session.lock:
            seat, state = check_member(session, user_id, version)
            spec = state.chance()
            if spec is None or spec.prompt_seat != seat:
                raise NotYourTurn(whose_turn(state, session.variant.seat_names, session.user_of))
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
        *,
        starting: bool = False,
    ) -> GameState:
        """Play what needs nobody's decision (``turn_driver.next_automatic``); ``always_pass``: the
        standing answers to response windows, when they change with this request. The computer
        thinks in a worker process (``think``), so neither the event loop nor other matches wait for
        it (the session's lock keeps this match's clicks out meanwhile). Where that never ends,
        ``RunsForever`` tells the player (``MatchCannotStart`` for the match being ``starting``)."""
        standing = always_pass or session.record.always_pass

        def is_computer(seat: int) -> bool:
            return session.user_of(seat) in self.computer_ids

        told_before = steps_of(session.record.turn_steps)
        for _ in range(MAX_AUTOMATIC_ACTIONS):
            held = board_held(state, [*told_before, *steps])
            found = next_automatic(state, is_computer, standing, self.rng, held)
            if found is None or (found.judged and not await self.drafts.rolls_itself(session, state)):
                return state
            seat, action = found.seat, found.action
            if action is None:
                assert seat is not None
                # A seed crosses to the worker, not the random source: the move is a pure function
                # of (view, seed), and a seeded test's games are the same in a worker or a thread.
                seed = self.rng.getrandbits(64)
                level = session.record.computer_level
                action = await self.think(session.variant.key, level, state.view(seat), seed)
            after = state.apply(action)
            step = step_of(seat, action, state, after, automatic=True)
            if found.standing:
                assert seat is not None
                step = noted(step, STANDING_PASS, session.variant.seat_names[seat])
            steps.append(step)
            state = after
        log.warning(
            "match %s: more than %s automatic actions, nothing saved", session.id, MAX_AUTOMATIC_ACTIONS
        )
        raise MatchCannotStart(str(RunsForever(starting=True))) if starting else RunsForever()

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
        asked to decide now, or asked in another way (``board_change``: a response window inside a
        turn keeps its story on one board and mentions a player once): the whole turn that just
        ended, every step in order. ``always_pass``: the players' standing answers to
        response windows, saved with it when they change."""
        now = self.clock.now()
        self.clocks.check_in_time(session, deciding_seat(before))
        record = session.record
        outcome = after.outcome()
        result = result_record(session.id, outcome, now) if outcome is not None else None
        waiting = deciding_seat(after)
        human = waiting is not None and session.user_of(waiting) not in self.computer_ids
        deadlines = clock_after(before, after, human)
        if deadlines is None and session.record.clock_delay is not None and others_acted(before, steps):
            # The computer played in between: the live clock charges this decision and starts afresh
            # (a new delay) when the board asking for the next one is shown.
            deadlines = Deadlines(None, None)
        turn = [*record.turn_steps, *(s.to_json() for s in steps)]
        change = board_change(before, after, steps_of(turn), now - record.updated_at)
        new_board = change.new_message or (record.new_board and record.behind)
        saved = await self.store.matches.record_actions(
            session.id,
            expected_version=session.version,
            actions=[LoggedAction(s.seat, s.notation) for s in steps],
            state=after.canonical(),
            now=now,
            result=result,
            deadlines=deadlines,
            board_steps=turn,
            turn_steps=[] if change.story_ends else turn,
            new_board=new_board,
            always_pass=always_pass,
        )
        if saved is None:
            # Another process moved this match on: drop our copy and let the user retry.
            self._sessions.pop(session.id, None)
            raise StaleControl("This match changed in the meantime; use the latest board message.")
        # The record as saved, with whatever the publisher noted meanwhile (a board, its clock).
        session.record = saved
        session.state = after
        session.draft, session.working = (), None
        if result is not None:
            self._forget(session)
        return Played(session=session, before=before, steps=tuple(steps))
