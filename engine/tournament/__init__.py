"""Tournaments: knockout and Swiss events as pure values (pairing, results, standings, saved form).

Players are the caller's ids; nothing here knows of Discord, matches or the clock."""

from __future__ import annotations

from engine.tournament.model import (
    FORMATS,
    HOWS,
    Entrant,
    Format,
    Pairing,
    Result,
    Standing,
    TournamentError,
)
from engine.tournament.state import Tournament

__all__ = [
    "FORMATS",
    "HOWS",
    "Entrant",
    "Format",
    "Pairing",
    "Result",
    "Standing",
    "Tournament",
    "TournamentError",
]
