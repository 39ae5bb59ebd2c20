"""Each interaction counted once, when its handling is over: ``ringside_interactions_total`` and
``ringside_first_answer_seconds`` (``bot.metrics``).

``RingsideBot`` hands every interaction here as it arrives, with the tasks discord.py made to handle
it (the command's or the control's). When the last of them is done, the interaction is counted by its
kind (``kind_of``) and its outcome (``cogs.outcomes``; an error is also counted in
``ringside_errors_total{where="interaction"}``), and the time of its first response is observed
(``cogs.answer_deadline.DeadlineResponse`` measured it). Autocomplete and pings are not counted: they
are answered with suggestions, not actions.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

import discord

from bot.metrics import Metrics
from cogs.answer_deadline import DeadlineResponse
from cogs.control_kinds import control_kind
from cogs.outcomes import note, outcome_of

COUNTED = (discord.InteractionType.application_command, discord.InteractionType.component)


def kind_of(interaction: discord.Interaction[Any]) -> str:
    """The slash command's name (``challenge``) or the control's kind (``game_button``)."""
    data: dict[str, Any] = dict(interaction.data or {})
    if interaction.type is discord.InteractionType.application_command:
        return str(data.get("name", "unknown"))
    return control_kind(str(data.get("custom_id", "")))


def watch(
    interaction: discord.Interaction[Any], tasks: Collection[asyncio.Task[Any]], metrics: Metrics
) -> None:
    """Count ``interaction`` once every task in ``tasks`` is done (at once when there is none)."""
    if interaction.type not in COUNTED:
        return
    left = set(tasks)

    def done(task: asyncio.Task[Any]) -> None:
        left.discard(task)
        if not task.cancelled() and task.exception() is not None:
            note(interaction, "error")
        if not left:
            record(interaction, metrics)

    if not left:
        record(interaction, metrics)
    for task in tasks:
        task.add_done_callback(done)


def refused(interaction: discord.Interaction[Any], metrics: Metrics) -> None:
    """Count an interaction that was refused without being handled (the bot is restarting)."""
    if interaction.type in COUNTED:
        metrics.interaction(kind_of(interaction), "refused")


def record(interaction: discord.Interaction[Any], metrics: Metrics) -> None:
    outcome = outcome_of(interaction)
    metrics.interaction(kind_of(interaction), outcome)
    if outcome == "error":
        metrics.error("interaction")
    response = interaction.response
    if isinstance(response, DeadlineResponse) and response.first_answer is not None:
        metrics.first_answer.observe(response.first_answer)
