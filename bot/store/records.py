"""The records the store reads and writes: frozen value types, one per kind of row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.protocol import EndReason


@dataclass(frozen=True, slots=True)
class ChallengeRecord:
    id: int
    guild_id: int | None
    channel_id: int
    message_id: int | None
    challenger_id: int
    opponent_id: int
    game: str
    options: dict[str, Any]
    rated: bool
    status: str
    match_id: int | None
    created_at: float
    expires_at: float
    rematch_of: int | None = None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: int
    guild_id: int | None
    channel_id: int
    parent_id: int | None
    game: str
    options: dict[str, Any]
    players: tuple[int, int]
    state: str
    version: int
    status: str
    message_id: int | None
    rated: bool
    created_at: float
    updated_at: float
    reminder_at: float | None = None
    timeout_at: float | None = None
    result_message_id: int | None = None
    rematch_until: float | None = None


@dataclass(frozen=True, slots=True)
class ResultRecord:
    match_id: int
    winner_seat: int | None
    reason: EndReason
    """Saved as its key (a string); read back as the game's ``EndReason`` (``Variant.read_reason``)."""
    description: str
    points: int
    length: int
    finished_at: float


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """A server's settings; ``None`` fields fall back to the bot's defaults."""

    guild_id: int
    reminder_seconds: float = 12 * 3600.0
    timeout_seconds: float = 48 * 3600.0
    challenge_seconds: float = 600.0
    allowed_games: tuple[str, ...] | None = None
    use_threads: bool = True
    results_channel: int | None = None


@dataclass(frozen=True, slots=True)
class Deadlines:
    """When to remind the player on turn and when they lose by timeout (both ``None``: no clock)."""

    reminder_at: float | None
    timeout_at: float | None


@dataclass(frozen=True, slots=True)
class LoggedAction:
    seat: int | None
    notation: str
