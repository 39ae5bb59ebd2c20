"""The async session manager: one lock per match, every action through the engine, saved before shown.

Callers (the cogs) pass user ids, a match id, the match version their control was drawn for and an
action's notation; they get back what happened, or a ``UserError`` whose message they relay."""

from __future__ import annotations

import logging
import random
from dataclasses import replace

from bot.board_handoff import BoardHandoff
from bot.clock import Clock
from bot.computer_seats import ComputerSeats, Thinker, think_in_thread
from bot.history import MatchHistory
from bot.match_ends import MatchEnds
from bot.match_writer import MatchWriter
from bot.session import Played, Session
from bot.session_checks import check_member, check_own_action, parsed, played_next, whose_turn
from bot.session_errors import MatchCannotStart, NotYourTurn, UserError
from bot.settings import PlayerPreferences, ServerSettings
from bot.steps import Step, step_of
from bot.store import LoggedAction, MatchRecord, Store
from bot.store.matches import AlreadyRematched, ChallengeAnswered, ComputerMatchExists
from bot.turn_clocks import TurnClocks
from bot.turn_drafts import RollJudge, TurnChoices, TurnDrafts, judge_in_thread
from bot.turn_driver import forced_steps
from bot.turn_policy import deciding_seat, own_step, turn_complete
from bot.tutor import Tutor
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
    """The services of the matches, built on one ``MatchWriter`` (the sessions in memory, advancing
    and committing); each service is handed only the parts of the writer and the store it uses."""

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
        #: what each player asked the bot to do for them (``/preferences``)
        self.preferences = PlayerPreferences(store, clock)
        #: what the player's preferences play for them: Confirm, and a roll (with the coach's judge)
        self.choices = TurnChoices(self.preferences, judge_in_thread)
        #: the sessions of the active matches, and every change played and saved on them
        self.writer = MatchWriter(
            store.matches, clock, self.rng, self.computer_ids, self.choices.rolls_itself, think_in_thread
        )
        #: the turn clocks, response windows and due work of the matches
        self.clocks = TurnClocks(
            self.writer, store.matches, store.deadlines, self.settings, self.computer_ids, clock
        )
        #: what the publisher notes back about the public boards
        self.boards = BoardHandoff(self.writer, store.boards, store.matches, clock)
        #: the tutor: an error held back before it is final, for players who have it on
        self.tutor = Tutor(self.preferences, self.computer_ids)
        #: turns in progress: drafts, Undo and Confirm
        self.drafts = TurnDrafts(self.writer, store.matches, clock, self.tutor)
        #: what the store says of matches, for the commands
        self.history = MatchHistory(store)
        #: the computer's seats and the one-match-per-place rule
        self.computer = ComputerSeats(self.computer_ids, self.history)
        #: resignations, and matches ended without a move
        self.ends = MatchEnds(self.writer, store.matches, self.drafts, clock)

    @property
    def think(self) -> Thinker:
        """How the computer's move is computed (the bot sets its compute workers' ``computer_move``)."""
        return self.writer.think

    @think.setter
    def think(self, think: Thinker) -> None:
        self.writer.think = think

    @property
    def judge(self) -> RollJudge:
        """Whether the coach finds a double clearly wrong (the bot sets its compute workers' judge)."""
        return self.choices.judge

    @judge.setter
    def judge(self, judge: RollJudge) -> None:
        self.choices.judge = judge

    # -- loading ---------------------------------------------------------------------------------

    async def get(self, match_id: int) -> Session:
        """The match's session (``MatchWriter.get``)."""
        return await self.writer.get(match_id)

    async def current(self, match_id: int, seen: int | None, *, reread: bool = False) -> Session:
        """The match's session for a request made at version ``seen`` (``MatchWriter.current``)."""
        return await self.writer.current(match_id, seen, reread=reread)

    async def reload(self, session: Session) -> None:
        """Bring ``session`` up to the saved match (``MatchWriter.reload``; call with its lock held)."""
        await self.writer.reload(session)

    def in_memory(self, match_id: int) -> bool:
        """Whether the match's session is held in memory (only active matches are)."""
        return self.writer.in_memory(match_id)

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
        state = await self.writer.advance(starting, state, steps, starting=True)
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
        self.writer.keep(session)
        return Played(session=session, before=None, steps=tuple(steps))

    # -- acting ------------------------------------------------------------------------------------

    async def act(
        self,
        match_id: int,
        user_id: int,
        version: int | None,
        notation: str,
        *more: str,
        anyway: bool = False,
    ) -> Played:
        """Apply the user's action (given as notation) if it is theirs to take and legal; ``more``:
        theirs after it, as one click (a select of several): all are played and saved, or none.
        With the tutor on (``bot.tutor``), a decision about to be final that is an error is held back
        (a checker play as a draft waiting for Confirm), the result carrying the tutor's note, unless
        ``anyway`` (the player confirmed after the note).

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
                    mode is TurnConfirmation.CONFIRM and not await self.choices.confirms_itself(user_id)
                ):
                    return await self.drafts.save(session, after, steps)
            if not anyway and not more:
                drafted = mode is TurnConfirmation.CONFIRM
                held = await self.held_by_tutor(session, seat, state, after, steps, drafted)
                if held is not None:
                    return held
            after = await self.writer.advance(session, after, steps)
            for text in more:  # nothing is saved until all of them are played
                after = await self.writer.advance(
                    session, played_next(session, seat, after, text, steps), steps
                )
            return await self.writer.commit(session, state, after, steps)

    async def held_by_tutor(
        self,
        session: Session,
        seat: int,
        state: GameState,
        after: GameState,
        steps: list[Step],
        drafted: bool,
    ) -> Played | None:
        """The decision of ``steps`` held back by the tutor, or None to go on: a play
        made checker by checker (``drafted``) is saved as the turn's draft, waiting for Confirm; any
        other decision (a cube action, a whole play typed at once) is not played at all."""
        note = await self.tutor.review(session, seat, state, [s.notation for s in steps])
        if note is None:
            return None
        if drafted:
            return replace(await self.drafts.save(session, after, steps), tutor=note)
        # Not played: the steps are those Confirm anyway plays (``cogs.tutor``).
        return Played(session, state, tuple(steps), draft=True, tutor=note)

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
            after = await self.writer.advance(session, after, steps)
            return await self.writer.commit(session, state, after, steps)
