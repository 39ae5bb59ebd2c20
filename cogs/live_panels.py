"""Private panels that keep themselves current: each player's latest private reply of a match (their
hand and controls, in a game with hands) is edited whenever the match changes, through the
interaction that made it, for as long as Discord lets that interaction edit it (15 minutes). So a
player presses **My hand** again only when their panel is older than that, or was dismissed.

The panels are kept in memory: after a restart (or on another process) a player opens My hand once
more, as after 15 minutes; a token that outlived its usefulness would not be worth keeping in the
database."""

from __future__ import annotations

import datetime as dt
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.session import Session
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


class LivePanels:
    def __init__(self, publisher: BoardPublisher) -> None:
        self.publisher = publisher
        self._panels: dict[tuple[int, int], discord.Interaction[Any]] = {}

    def keep(self, session: Session, interaction: discord.Interaction[Any]) -> None:
        """Note ``interaction``'s original response as its user's live private panel of the match
        (only in a game with hands, whose panel changes while the player waits)."""
        if not isinstance(PANELS[session.variant.key], HandPanel):
            return
        if len(self._panels) >= KEPT:
            self._panels = {k: v for k, v in self._panels.items() if editable(v)}
        self._panels[(session.id, interaction.user.id)] = interaction

    def live(self, match_id: int, user_id: int) -> bool:
        """Whether the user has a private panel of the match that is still kept current."""
        interaction = self._panels.get((match_id, user_id))
        return interaction is not None and editable(interaction)

    async def refresh(self, session: Session, current: int | None = None, only: int | None = None) -> None:
        """Bring the players' live panels of the match up to what is saved now, except the panel of
        user ``current``, which its caller has just brought up to date (``only``: the panel of that
        seat alone). A panel that can no longer be edited (expired, dismissed) is forgotten: its
        player opens My hand again."""
        for user_id in session.record.players:
            key = (session.id, user_id)
            interaction = self._panels.get(key)
            seat = session.seat_of(user_id)
            if interaction is None or seat is None or user_id == current or only not in (None, seat):
                continue
            if not editable(interaction):
                del self._panels[key]
                continue
            reply = private_reply(session, seat)
            try:
                await interaction.edit_original_response(content=reply.content, view=reply.view)
            except discord.HTTPException as exc:
                log.info("match %s: the private panel of %s is gone (%s)", session.id, user_id, exc)
                self._panels.pop(key, None)
        if session.record.status != "active":
            for user_id in session.record.players:
                self._panels.pop((session.id, user_id), None)
