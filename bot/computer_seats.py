"""The computer's seats: who plays the computer, and the rule of one match against it per player and
place (a channel with its threads), which the database keeps too (the unique index
``one_computer_match``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.session import (
    UserError,
)

if TYPE_CHECKING:
    from bot.sessions import SessionManager


class ComputerSeats:
    def __init__(self, manager: SessionManager) -> None:
        self.manager = manager

    def human_of(self, players: tuple[int, int]) -> int | None:
        """The person in a match against the computer; None in a match between people."""
        computers = [p in self.manager.computer_ids for p in players]
        return players[computers.index(False)] if computers.count(True) == 1 else None

    async def check_no_computer_match(self, user_id: int, place: int) -> None:
        """One match against the computer per player and place (a channel with its threads): a
        ``UserError`` naming the one ``user_id`` has in ``place``, if any. The database enforces it
        too (``one_computer_match``), so two quick commands cannot both start one."""
        for record in await self.manager.history.matches_of(user_id):
            if any(p in self.manager.computer_ids for p in record.players) and place in (
                record.channel_id,
                record.parent_id,
            ):
                raise UserError(
                    f"You already have a match against me here: match #{record.id} in "
                    f"<#{record.channel_id}>. Finish it or resign it (its Resign button) before "
                    "starting another."
                )
