"""The tutor (a player's ``tutor`` preference, or a match's ``tutor`` option the challenger set for
both): before a checker play or a cube decision of a player with the tutor on is final, the coach
checks it (``engine.ai.coaches.tutor_check``, in a compute worker) and, where it loses at least the
analysis's error threshold, the decision is held back with a ``TutorNote`` for the player's private
panel, which offers Undo and **Confirm anyway**.

Who has it: both players of a match whose options have ``tutor`` (unrated: the game's
``counts_for_rating``), and in an unrated match a player whose preference is on (a rated result is
the player's own play, so the preference never applies there). Never the computer. For a player
without it the path is the old one: no evaluation, and in a rated match not even the preference's
lookup. A check that fails (a worker lost, an engine error) lets the decision through, as without
the tutor: the tutor may stay silent, never hold a turn up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Protocol

from bot.session import Session
from bot.settings import TUTOR, PlayerPrefs
from engine import GameState, GameView
from engine.ai.coaches import has_tutor, tutor_check
from engine.ai.coaching import TutorNote

log = logging.getLogger(__name__)

TutorCheck = Callable[[str, GameView, Sequence[str]], Awaitable[TutorNote | None]]
"""(game, view before the decision, the decision's notations) -> the tutor's warning, or None."""

MATCH_OPTION = "tutor"
"""The match option that turns the tutor on for both players (``engine.backgammon.variant``)."""


async def check_in_thread(game: str, view: GameView, chosen: Sequence[str]) -> TutorNote | None:
    """The tutor's check in a thread of this process (the bot without worker processes)."""
    return await asyncio.to_thread(tutor_check, game, view, chosen)


class Preferences(Protocol):
    """Each player's preferences (``bot.settings.PlayerPreferences``)."""

    async def get(self, user_id: int) -> PlayerPrefs: ...


class Tutor:
    """Whether a player has the tutor in a match, and its check of a decision about to be final
    (``check``, which the bot sets to its compute workers')."""

    def __init__(
        self, preferences: Preferences, computer_ids: Collection[int], check: TutorCheck = check_in_thread
    ) -> None:
        self.preferences = preferences
        self.computer_ids = computer_ids
        self.check = check
        #: how many checks were asked (a test counts them: none for a player without the tutor)
        self.checks = 0

    async def on_for(self, session: Session, seat: int) -> bool:
        """Whether ``seat`` of ``session`` has the tutor: the match's option, or in an unrated match
        the player's preference; never the computer, never a game without a tutor."""
        user_id = session.user_of(seat)
        if user_id in self.computer_ids or not has_tutor(session.variant.key):
            return False
        if session.record.options.get(MATCH_OPTION):
            return True
        if session.record.rated:
            return False
        prefs: PlayerPrefs = await self.preferences.get(user_id)
        return prefs[TUTOR]

    async def review(
        self, session: Session, seat: int, before: GameState, chosen: Sequence[str]
    ) -> TutorNote | None:
        """The tutor's warning for ``seat``'s decision made of the steps ``chosen`` (their notations)
        from ``before`` (the committed position), if the player has the tutor and the decision is an
        error; else None, at once for a player without it."""
        if not await self.on_for(session, seat):
            return None
        self.checks += 1
        try:
            return await self.check(session.variant.key, before.view(seat), chosen)
        except Exception as exc:
            log.warning("match %s: the tutor's check failed (%r); the decision goes through", session.id, exc)
            return None
