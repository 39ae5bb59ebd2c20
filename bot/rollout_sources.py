"""Where a ``/rollout``'s position comes from (``bot.rollouts``): a position code, a decision of a
finished match's Review, or the current position of a match in the channel, each checked against the
rule (``bot.rollouts.refusal``) before anything is queued. A ``RolloutRefused`` says why not, and
nothing is changed.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from bot.rollouts import CODE, LIVE, REVIEW, Asked, RolloutRefused, refusal
from bot.store import MatchRecord, Store
from bot.store.analyses import DONE, POSTED
from engine import find_variant
from engine.ai.coaching import Decision, analysis_from_json
from engine.ai.review import decision_state
from engine.ai.rollouts import ROLLOUTS
from engine.errors import GameError
from engine.protocol import GameState

SHOWN_FROM = 0.0005
"""A Review's pages: the counted decisions that lost at least this much (``cogs.review``'s)."""


@dataclass(frozen=True, slots=True)
class Position:
    """A position to roll out: its game and state, the play made there (a Review's), the words that
    name it, and its match (None: a code)."""

    game: str
    state: GameState
    keep: str | None
    what: str
    match_id: int | None

    def candidates(self) -> int:
        """How many candidates it will have at most (the estimate's games: this times the trials)."""
        return ROLLOUTS[self.game].candidates(self.state, self.keep)

    def to_json(self) -> dict[str, Any]:
        return dict(self.state.to_json())


async def rated_match_of(store: Store, user_id: int) -> int | None:
    """The member's rated match not over, if any (rule 1)."""
    for record in await store.matches.active(user_id=user_id):
        if record.rated:
            return record.id
    return None


def checked(game: str, state: Any) -> GameState:
    """``state`` if ``game`` has rollouts and ``state`` something to roll out; else ``RolloutRefused``."""
    kit = ROLLOUTS.get(game)
    if kit is None or state is None:
        raise RolloutRefused("Rollouts are for backgammon positions.")
    try:
        kit.check(state)
    except GameError as exc:
        raise RolloutRefused(str(exc)) from None
    return state  # type: ignore[no-any-return]


def from_code(code: str, asker: int, playing_rated: int | None) -> Position:
    """The position of a position code, read by the first game whose rollouts read it (backgammon's:
    a GNU Backgammon ID or an XGID)."""
    _allowed(Asked(asker, playing_rated, CODE))
    why = "That is not a position code."
    for game, kit in ROLLOUTS.items():
        try:
            state = kit.from_code(code)
        except GameError as exc:
            why = str(exc)
            continue
        return Position(game, checked(game, state), None, f"the position `{code.strip()}`", None)
    raise RolloutRefused(why)


def live(record: MatchRecord, state: Any, asker: int, playing_rated: int | None) -> Position:
    """The current position of an active match (rules 1 to 3)."""
    game_state = checked(record.game, state)
    asked = Asked(
        asker,
        playing_rated,
        LIVE,
        match_id=record.id,
        match_over=record.status != "active",
        match_rated=record.rated,
        deciding=deciding_player(game_state, record.players),
    )
    _allowed(asked)
    return Position(record.game, game_state, None, f"match #{record.id}, its position now", record.id)


def deciding_player(state: GameState, players: tuple[int, int]) -> int | None:
    """Whose decision the position is (their turn in progress): to play, double or roll, or answer;
    while the dice are to be rolled, the player whose turn it is."""
    seat: Any = state.to_move()
    if seat not in (0, 1):
        seat = getattr(state, "turn", None)
    return players[seat] if seat in (0, 1) else None


async def from_review(
    store: Store, record: MatchRecord, page: int, asker: int, playing_rated: int | None
) -> Position:
    """The decision on page ``page`` of a finished match's Review (the play made there rolled out too)."""
    _allowed(Asked(asker, playing_rated, REVIEW, match_id=record.id))
    if record.status == "active":
        raise RolloutRefused(f"Match #{record.id} is still being played: its Review opens when it ends.")
    if record.game not in ROLLOUTS:
        raise RolloutRefused("Rollouts are for backgammon matches.")
    saved = await store.analyses.get(record.id)
    if saved is None or saved.status not in (DONE, POSTED) or saved.analysis is None:
        raise RolloutRefused(f"Match #{record.id} has no Review (its analysis is not there, or not yet).")
    try:
        analysis = analysis_from_json(saved.analysis)
    except (KeyError, TypeError, ValueError):
        raise RolloutRefused(f"The analysis of match #{record.id} cannot be read.") from None
    pages = [d for d in analysis.decisions if d.unforced and d.loss >= SHOWN_FROM]
    if not 1 <= page <= len(pages):
        raise RolloutRefused(f"The Review of match #{record.id} has pages 1 to {len(pages)}, not {page}.")
    decision = pages[page - 1]
    log = [a.notation for a in await store.matches.action_log(record.id)]
    state = await asyncio.to_thread(decision_state, find_variant(record.game), record.options, log, decision)
    if state is None:
        raise RolloutRefused(f"The position of page {page} of match #{record.id} could not be found again.")
    what = f"match #{record.id}, page {page} of its Review"
    return Position(record.game, checked(record.game, state), _played(decision), what, record.id)


def _played(decision: Decision) -> str | None:
    return decision.played or None


def _allowed(asked: Asked) -> None:
    why = refusal(asked)
    if why is not None:
        raise RolloutRefused(why)


class LiveMatches(Protocol):
    """Where an active match's session is found (``bot.sessions.SessionManager``)."""

    async def get(self, match_id: int) -> Any: ...


class RolloutSources:
    """The position a ``/rollout`` names, found and checked against the rule: by its code, a finished
    match's Review page, an active match of this server, or the match being played in the channel."""

    def __init__(self, store: Store, sessions: LiveMatches) -> None:
        self.store = store
        self.sessions = sessions

    async def position(
        self,
        guild_id: int | None,
        channel_id: int | None,
        asker: int,
        code: str | None,
        match: int | None,
        page: int | None,
    ) -> Position:
        """The position asked for (``RolloutRefused``: why none, and nothing changed)."""
        rated = await rated_match_of(self.store, asker)
        if code is not None:
            if match is not None or page is not None:
                raise RolloutRefused("Give either a position code or a match's Review page, not both.")
            return from_code(code, asker, rated)
        if match is not None:
            return await self._of_match(guild_id, asker, match, page, rated)
        if page is not None:
            raise RolloutRefused(
                "A page is a page of a match's Review: give the match too (`match:12 page:3`)."
            )
        here = [r for r in await self.store.matches.active(channel_id=channel_id) if r.guild_id == guild_id]
        if not here:
            raise RolloutRefused(
                "No match is being played here. Give a position code (`code:`), or a finished match's "
                "Review page (`match:12 page:3`)."
            )
        record = ([r for r in here if asker in r.players] or here)[0]
        return live(record, (await self.sessions.get(record.id)).state, asker, rated)

    async def _of_match(
        self, guild_id: int | None, asker: int, match: int, page: int | None, rated: int | None
    ) -> Position:
        record = await self.store.matches.get(match) if 0 < match < 1 << 63 else None
        if record is None or record.guild_id != guild_id:
            raise RolloutRefused(f"There is no match #{match} on this server.")
        if page is not None:
            return await from_review(self.store, record, page, asker, rated)
        if record.status == "active":
            return live(record, (await self.sessions.get(record.id)).state, asker, rated)
        raise RolloutRefused(
            f"Name a decision of match #{match}: `/rollout match:{match} page:1` (its /review's pages)."
        )
