"""What became of an interaction, noted on it (``interaction.extras``) for the metrics.

``ok`` unless noted otherwise; a worse outcome is never overwritten by a better one:

- ``refused``: the user was told why nothing was done: a reply given while one of the errors meant
  for players is being handled (``REFUSALS``: not your match, not your turn, a control of an earlier
  position, an illegal move, a challenge that is gone ...). ``reply_privately`` notes it, so no cog
  has to: an ``except UserError`` that answers the player is a refusal by construction. A control
  the bot did not make, or one that cannot be answered while the bot starts, is noted where it is
  answered (``cogs.control_framework``).
- ``error``: the handler raised, or the database refused a write (``cogs.replies``, the command
  tree's error handler in ``app.client``).

``app.client`` reads the outcome when the interaction's handling is over (``app.interaction_metrics``).
"""

from __future__ import annotations

import sys
from typing import Any

import discord

from bot.challenges import ChallengeError
from bot.session import UserError
from engine.ai.coaching import NoHintError
from engine.errors import GameError

OUTCOME = "ringside_outcome"
"""The key of the outcome in ``interaction.extras``."""
REFUSALS: tuple[type[BaseException], ...] = (UserError, ChallengeError, GameError, NoHintError)
"""The errors whose message tells a player why nothing was done."""
_RANK = {"ok": 0, "refused": 1, "error": 2}


def note(interaction: discord.Interaction[Any], outcome: str) -> None:
    """Note ``outcome`` (``refused`` or ``error``) unless a worse one is noted already."""
    if _RANK[outcome] > _RANK[outcome_of(interaction)]:
        interaction.extras[OUTCOME] = outcome


def note_reply(interaction: discord.Interaction[Any]) -> None:
    """A private reply is being sent: a refusal when it answers one of ``REFUSALS``."""
    if isinstance(sys.exception(), REFUSALS):
        note(interaction, "refused")


def outcome_of(interaction: discord.Interaction[Any]) -> str:
    outcome: str = interaction.extras.get(OUTCOME, "ok")
    return outcome
