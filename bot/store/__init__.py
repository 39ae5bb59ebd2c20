"""All SQL of the bot, behind ``Store``: SQLite (a file, the default) or PostgreSQL (a server several
bot processes share), chosen by what ``Store.open`` is given.

``connection.py`` holds what both backends share (the transaction interface, the errors, the numbered
migrations of ``bot/migrations/``), ``sqlite.py`` and ``postgres.py`` the backends. One transaction
mechanism serves every part; every change that belongs together (an action, the state it produced,
the turn clock, a result and the ratings it changes) is one transaction.

The parts, one per kind of record: ``store.matches`` (matches, action logs, results, match history),
``store.challenges``, ``store.ratings`` (standings, leaderboard, rating history), ``store.settings``
(per server), ``store.preferences`` (per player), ``store.deadlines`` (what the scheduler finds due) ``store.analyses`` (analyses of
finished matches) and ``store.jobs`` (heavy work queued: ``bot.jobs``).
"""

from __future__ import annotations

from pathlib import Path

from bot.store.analyses import AnalysisRecord, AnalysisStore
from bot.store.boards import BoardStore
from bot.store.challenges import ChallengeStore
from bot.store.claims import ClaimStore
from bot.store.connection import Connection, StoreError, WriteFailed
from bot.store.deadlines import DeadlineStore
from bot.store.imports import ImportedRecord, ImportStore, NewImport
from bot.store.jobs import JobStore
from bot.store.matches import MatchStore
from bot.store.preferences import PreferenceStore
from bot.store.ratings import RatingStore
from bot.store.records import (
    ChallengeRecord,
    Deadlines,
    GuildSettings,
    LoggedAction,
    MatchRecord,
    ResultRecord,
)
from bot.store.scope import Scope
from bot.store.settings import SettingsStore
from bot.store.tournaments import TournamentStore

__all__ = [
    "AnalysisRecord",
    "ChallengeRecord",
    "Deadlines",
    "GuildSettings",
    "ImportedRecord",
    "LoggedAction",
    "MatchRecord",
    "NewImport",
    "ResultRecord",
    "Store",
    "StoreError",
    "WriteFailed",
]


class Store:
    """The SQLite store. Open with ``await Store.open(path)``; close with ``await store.close()``."""

    def __init__(self, connection: Connection, scope: Scope | None = None) -> None:
        """``scope``: the servers whose due work this process does (``bot.store.scope``; all by default)."""
        self.connection = connection
        self.scope = scope or Scope()
        self.matches = MatchStore(connection)
        self.boards = BoardStore(connection, self.scope)
        self.challenges = ChallengeStore(connection, self.scope)
        self.ratings = RatingStore(connection)
        self.settings = SettingsStore(connection)
        self.preferences = PreferenceStore(connection)
        self.deadlines = DeadlineStore(connection, self.scope)
        self.analyses = AnalysisStore(connection, self.scope)
        self.claims = ClaimStore(connection)
        self.imports = ImportStore(connection)
        self.jobs = JobStore(connection)
        self.tournaments = TournamentStore(connection)

    @classmethod
    async def open(cls, target: str | Path, scope: Scope | None = None) -> Store:
        """Open (creating and migrating if need be) the database ``target`` (a SQLite file's path or a
        ``postgresql://`` URL); ``StoreError`` if unusable."""
        return cls(await Connection.open(target), scope)

    async def close(self) -> None:
        await self.connection.close()
