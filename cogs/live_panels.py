"""Private panels that keep themselves current: each player's latest private reply of a match (their
hand and controls, in a game with hands) is edited whenever the match changes, through the
interaction that made it, for as long as Discord lets that interaction edit it (15 minutes). So a
player presses **My hand** again only when their panel is older than that, or was dismissed.

A panel asking its player to decide stays where they look, just below the latest board: when a
board was posted after the panel (a window for the opponent mentions them on a new board, then the
turn comes back), the panel is sent again as a new private message below it and the old one deleted,
so the player never scrolls up past a tall picture for it, nor presses My hand instead.

A player has one live panel a match. When another message becomes it (My hand pressed again, a
panel moved below a newer board), the one it replaces loses its controls at once, so no private
message of theirs offers controls that the live panel does not; a click on such an older panel all
the same (a client that has not shown the edit) is answered with the live panel itself
(``cogs.match_controls``).

The panels are kept in memory: after a restart (or on another process) a player opens My hand once
more, as after 15 minutes; a token that outlived its usefulness would not be worth keeping in the
database."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.session import Session, deciding_seat
from cogs.board import private_reply
from cogs.panels import PANELS
from cogs.panels.base import HandPanel

if TYPE_CHECKING:
    from cogs.publisher import BoardPublisher

log = logging.getLogger(__name__)

MARGIN = dt.timedelta(seconds=30)
"""A panel is given up this long before Discord's 15 minutes run out: an edit started just before
then could arrive after."""
KEPT = 5000
"""Panels kept at most; beyond this many, those that can no longer be edited are dropped."""


def editable(interaction: discord.Interaction[Any]) -> bool:
    """Whether ``interaction`` can still edit its original response (with ``MARGIN`` to spare)."""
    return discord.utils.utcnow() < interaction.expires_at - MARGIN


@dataclass(slots=True)
class Panel:
    """A player's live panel: the interaction whose token edits it, when the panel's message was
    posted, that message when it is a followup (a panel moved below a newer board), and its id when
    known."""

    interaction: discord.Interaction[Any]
    posted: dt.datetime
    followup: discord.WebhookMessage | None = None
    message_id: int | None = None

    def other_message(self, other: Panel) -> bool:
        """Whether ``other`` is surely another private message than this one (both ids known)."""
        return None not in (self.message_id, other.message_id) and self.message_id != other.message_id

    async def retire(self) -> None:
        """Take the controls off this panel's message: a newer panel of the same player replaced it."""
        try:
            if self.followup is not None:
                await self.followup.edit(view=None)
            else:
                await self.interaction.edit_original_response(view=None)
        except discord.HTTPException as exc:  # dismissed or expired: nothing left to click
            log.info("a replaced private panel could not be edited (%s)", exc)

    async def edit(self, content: str, view: discord.ui.View | None) -> None:
        if self.followup is not None:
            await self.followup.edit(content=content, view=view)
        else:
            await self.interaction.edit_original_response(content=content, view=view)

    async def moved(self, content: str, view: discord.ui.View | None) -> Panel:
        """The panel sent again as a new private message (at the bottom), the old one deleted."""
        sent = await self.interaction.followup.send(
            content, view=view or discord.utils.MISSING, ephemeral=True, wait=True
        )
        try:
            if self.followup is not None:
                await self.followup.delete()
            else:
                await self.interaction.delete_original_response()
        except discord.HTTPException as exc:  # dismissed already: nothing to delete
            log.info("an old private panel could not be deleted (%s)", exc)
        return Panel(self.interaction, sent.created_at, sent, sent.id)


class LivePanels:
    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher
        self._panels: dict[tuple[int, int], Panel] = {}
        self._retiring: set[asyncio.Task[None]] = set()

    def keep(
        self, session: Session, interaction: discord.Interaction[Any], message_id: int | None = None
    ) -> None:
        """Note ``interaction``'s original response as its user's live private panel of the match
        (only in a game with hands, whose panel changes while the player waits): a new reply (My
        hand on the board: ``message_id``, the reply's id, when known), or the private panel
        clicked, which stays where it was posted. The panel it replaces, if another message, loses
        its controls."""
        if not isinstance(PANELS[session.variant.key], HandPanel):
            return
        if len(self._panels) >= KEPT:
            self._panels = {k: v for k, v in self._panels.items() if editable(v.interaction)}
        clicked = interaction.message
        own = clicked is not None and clicked.flags.ephemeral
        posted = clicked.created_at if own and clicked is not None else discord.utils.utcnow()
        panel = Panel(
            interaction, posted, message_id=clicked.id if own and clicked is not None else message_id
        )
        key = (session.id, interaction.user.id)
        old = self._panels.get(key)
        self._panels[key] = panel
        if old is not None and old.other_message(panel) and editable(old.interaction):
            task = asyncio.get_running_loop().create_task(old.retire(), name="ringside-retire-panel")
            self._retiring.add(task)
            task.add_done_callback(self._retiring.discard)

    def live(self, match_id: int, user_id: int) -> bool:
        """Whether the user has a private panel of the match that is still kept current."""
        panel = self._panels.get((match_id, user_id))
        return panel is not None and editable(panel.interaction)

    async def refresh(self, session: Session, current: int | None = None, only: int | None = None) -> None:
        """Bring the players' live panels of the match up to what is saved now, except the panel of
        user ``current``, which its caller has just brought up to date (``only``: the panel of that
        seat alone). A panel that can no longer be edited (expired, dismissed) is forgotten: its
        player opens My hand again."""
        board = session.record.message_id
        board_posted = discord.utils.snowflake_time(board) if board is not None else None
        deciding = deciding_seat(session.state) if session.state is not None else None
        for user_id in session.record.players:
            key = (session.id, user_id)
            panel = self._panels.get(key)
            seat = session.seat_of(user_id)
            if panel is None or seat is None or only not in (None, seat):
                continue
            if not editable(panel.interaction):
                del self._panels[key]
                continue
            # Below the latest board while its player is to decide; else edited where it is.
            below = seat == deciding and board_posted is not None and board_posted > panel.posted
            if user_id == current and not below:
                continue
            reply = private_reply(session, seat)
            try:
                if below:
                    self._panels[key] = await panel.moved(reply.content, reply.view)
                else:
                    await panel.edit(reply.content, reply.view)
            except discord.HTTPException as exc:
                log.info("match %s: the private panel of %s is gone (%s)", session.id, user_id, exc)
                self._panels.pop(key, None)
        if session.record.status != "active":
            for user_id in session.record.players:
                self._panels.pop((session.id, user_id), None)
