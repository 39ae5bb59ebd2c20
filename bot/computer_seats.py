"""The computer's seats: who plays the computer, how its move is computed (``Thinker``), and the rule
of one match against it per player and place (a channel with its threads), which the database keeps
too (the unique index ``one_computer_match``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Set
from typing import Protocol

from bot.session_errors import UserError
from bot.store import MatchRecord
from engine import Action, GameView
from engine.ai.levels import seeded_move

Thinker = Callable[[str, str | None, GameView, int], Awaitable[Action]]
"""(game, level, view, seed) -> the computer's move (``engine.ai.levels.seeded_move``)."""


async def think_in_thread(game: str, level: str | None, view: GameView, seed: int) -> Action:
    """The computer's move in a thread of this process (the bot without worker processes)."""
    return await asyncio.to_thread(seeded_move, game, level, view, seed)


class ActiveMatches(Protocol):
    """A player's active matches (``bot.history.MatchHistory``)."""

    async def matches_of(self, user_id: int, channel_id: int | None = None) -> list[MatchRecord]: ...


class ComputerSeats:
    """``computer_ids``: who plays the computer (the bot adds itself once it knows its id)."""

    def __init__(self, computer_ids: Set[int], history: ActiveMatches) -> None:
        self.computer_ids = computer_ids
        self.history = history

    def human_of(self, players: tuple[int, int]) -> int | None:
        """The person in a match against the computer; None in a match between people."""
        computers = [p in self.computer_ids for p in players]
        return players[computers.index(False)] if computers.count(True) == 1 else None

    async def check_no_computer_match(self, user_id: int, place: int) -> None:
        """One match against the computer per player and place (a channel with its threads): a
        ``UserError`` naming the one ``user_id`` has in ``place``, if any. The database enforces it
        too (``one_computer_match``), so two quick commands cannot both start one."""
        for record in await self.history.matches_of(user_id):
            if any(p in self.computer_ids for p in record.players) and place in (
                record.channel_id,
                record.parent_id,
            ):
                raise UserError(
                    f"You already have a match against me here: match #{record.id} in "
                    f"<#{record.channel_id}>. Finish it or resign it (its Resign button) before "
                    "starting another."
                )
