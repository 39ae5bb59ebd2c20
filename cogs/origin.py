"""Where a click comes from: whether a control was clicked where it belongs (its match's board or
its player's private reply), whether it was in a private reply; durations in words."""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.session import (
    Session,
    UserError,
)
from bot.store import MatchRecord

#: The custom ids that name a match: game controls, My hand, Resign and its question, Rematch,
#: standing answers, Stop after this game, Play this.
_MATCH_ID = re.compile(r"(?:g|hand|rs|rsk|rm|sa|stop|hp):(\d+)")


def board_link(record: MatchRecord) -> str:
    """``": <link to the match's latest board message>"``, or nothing while it has none."""
    if record.message_id is None or record.guild_id is None:
        return ""
    return f": https://discord.com/channels/{record.guild_id}/{record.channel_id}/{record.message_id}"


def check_origin(interaction: discord.Interaction[Any], session: Session) -> None:
    """Refuse a control that does not belong to the message and channel it was clicked on.

    A control of an active match acts only from that match's channel and either its live board (the
    stored board message id) or a private reply of that match (an ephemeral message whose controls all
    name this match; the same holds for a board posted but not yet recorded). A custom id of match B delivered on match A's board is refused, so it can
    neither act on B nor overwrite A's board. Finished matches are left to the session manager, which
    refuses every action on them.
    """
    record = session.record
    if record.status != "active":
        return
    message = interaction.message
    refusal = UserError(
        f"That control does not belong to this message; use the latest board of match #{record.id}"
        f"{board_link(record)}. Nothing was changed."
    )
    if message is None or interaction.channel_id != record.channel_id:
        raise refusal
    if message.flags.ephemeral or record.message_id is None:
        # A private reply, or a board just posted whose id is not stored yet (a click can arrive
        # between the post and the write): it must name no other match.
        named = {
            int(m[1])
            for row in message.components
            for c in getattr(row, "children", [row])
            if (m := _MATCH_ID.match(getattr(c, "custom_id", None) or "")) is not None
        }
        if named - {record.id}:
            raise refusal
        return
    if message.id != record.message_id:
        raise refusal


def is_private(interaction: discord.Interaction[Any]) -> bool:
    """Whether the control clicked sits on a private (ephemeral) reply rather than the public board."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


def duration_words(seconds: float) -> str:
    hours = seconds / 3600
    if hours >= 1.5:
        return f"{round(hours)} hours"
    minutes = max(1, round(seconds / 60))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"
