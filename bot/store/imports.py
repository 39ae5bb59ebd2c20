"""Matches played elsewhere and analysed here (migration 020, ``/analyse file:``): what a review of
such an analysis needs (the game, its options, the match replayed here as an action log, the names the
file gives), with the analysis and where it was posted. Not matches of ours: nothing here reaches
history, ratings or PR. The log and the analysis are kept zlib-compressed (an analysis is hundreds of
kilobytes of JSON); a row that cannot be read back is returned as unreadable, never raised."""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.store.connection import Connection, Transaction


@dataclass(frozen=True, slots=True)
class ImportedRecord:
    id: int
    guild_id: int | None
    channel_id: int
    sender_id: int
    game: str
    file_name: str
    names: tuple[str, str]
    options: dict[str, Any]
    log: tuple[str, ...]
    analysis: Any
    """The analysis as JSON data (``coaching.analysis_to_json``); None when the row cannot be read."""
    message_id: int | None
    created_at: float


@dataclass(frozen=True, slots=True)
class NewImport:
    """An imported match to keep (``ImportStore.add``, ``add_import``): its log and its analysis
    ``pack``-ed, and when it was analysed (``now``)."""

    guild_id: int | None
    channel_id: int
    sender_id: int
    game: str
    file_name: str
    names: Sequence[str]
    options: dict[str, Any]
    packed_log: bytes
    packed_analysis: bytes
    now: float


def pack(data: Any) -> bytes:
    return zlib.compress(json.dumps(data, separators=(",", ":")).encode("utf-8"), 6)


class ImportStore:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    async def add(self, new: NewImport) -> int:
        """A new imported match (``pack`` its log and its analysis first, off the event loop); its id."""
        async with self._c.transaction() as db:
            return await add_import(db, new)

    async def posted(self, import_id: int, message_id: int) -> None:
        async with self._c.transaction() as db:
            await db.execute(
                "UPDATE imported_matches SET message_id = ? WHERE id = ?", (message_id, import_id)
            )

    async def get(self, import_id: int) -> ImportedRecord | None:
        row = await self._c.one("SELECT * FROM imported_matches WHERE id = ?", (import_id,))
        if row is None:
            return None
        try:
            names = json.loads(row["names"])
            options = json.loads(row["options"])
            log = json.loads(zlib.decompress(bytes(row["log"])).decode("utf-8"))
            analysis = json.loads(zlib.decompress(bytes(row["analysis"])).decode("utf-8"))
            readable = (
                isinstance(names, list)
                and len(names) == 2
                and all(isinstance(n, str) for n in names)
                and isinstance(options, dict)
                and isinstance(log, list)
                and all(isinstance(n, str) for n in log)
            )
        except (ValueError, zlib.error, UnicodeDecodeError):
            readable = False
        if not readable:
            names, options, log, analysis = ["", ""], {}, [], None
        return ImportedRecord(
            id=int(row["id"]),
            guild_id=row["guild_id"],
            channel_id=int(row["channel_id"]),
            sender_id=int(row["sender_id"]),
            game=row["game"],
            file_name=row["file_name"],
            names=(names[0], names[1]),
            options=options,
            log=tuple(log),
            analysis=analysis,
            message_id=row["message_id"],
            created_at=float(row["created_at"]),
        )

    async def purge_before(self, created_before: float) -> int:
        """Delete the imported matches analysed before ``created_before``; how many."""
        async with self._c.transaction() as db:
            return await db.execute("DELETE FROM imported_matches WHERE created_at < ?", (created_before,))


async def add_import(db: Transaction, new: NewImport) -> int:
    """``ImportStore.add`` inside the caller's transaction (a file's job ends with it: ``bot.store.jobs``)."""
    found = await db.insert(
        "INSERT INTO imported_matches (guild_id, channel_id, sender_id, game, file_name, names,"
        " options, log, analysis, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            new.guild_id,
            new.channel_id,
            new.sender_id,
            new.game,
            new.file_name,
            json.dumps(list(new.names)),
            json.dumps(new.options),
            new.packed_log,
            new.packed_analysis,
            new.now,
        ),
    )
    assert found is not None
    return found
