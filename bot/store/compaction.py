"""Compacting the action logs of old finished matches (bounded growth, ``bot.housekeeping``)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from bot.store.connection import Connection
from bot.store.records import LoggedAction
from bot.store.rows import from_row


async def compact_logs(connection: Connection, finished_before: float, limit: int = 200) -> int:
    """Compact the action logs of up to ``limit`` matches that ended before ``finished_before``.

    A compacted log keeps each action's seat and notation, in order (enough to replay and export
    the match), in one compressed column of the match; its rows in ``actions`` (one per action,
    with a time and a primary-key index entry each) are deleted in the same transaction. The
    match row, its final state, its result and its rating history are untouched. Returns how many
    matches were compacted (fewer than ``limit``: none is left).
    """
    async with connection.transaction() as db:
        rows = await db.all(
            "SELECT id FROM matches WHERE status != 'active' AND compact_log IS NULL AND finished_at < ?"
            " ORDER BY finished_at LIMIT ?",
            (finished_before, limit),
        )
        ids = [int(r[0]) for r in rows]
        for match_id in ids:
            rows = await db.all(
                "SELECT seat, notation FROM actions WHERE match_id = ? ORDER BY seq", (match_id,)
            )
            log = [from_row(LoggedAction, r) for r in rows]
            # Only a log not compacted meanwhile (by another process, whose deletion this one's
            # read may not have waited for): a compacted log is never replaced by an empty one.
            compacted = await db.execute(
                "UPDATE matches SET compact_log = ? WHERE id = ? AND compact_log IS NULL",
                (pack_log(log), match_id),
            )
            if compacted == 1:
                await db.execute("DELETE FROM actions WHERE match_id = ?", (match_id,))
    return len(ids)


def pack_log(actions: Iterable[LoggedAction]) -> bytes:
    """An action log as stored once compacted: zlib-compressed lines ``<seat> <notation>`` (``-``: chance)."""
    lines = (("-" if a.seat is None else str(a.seat)) + " " + a.notation for a in actions)
    return zlib.compress("\n".join(lines).encode("utf-8"), 9)


def unpack_log(data: bytes) -> list[LoggedAction]:
    """The action log ``pack_log`` stored."""
    text = zlib.decompress(data).decode("utf-8")
    found = []
    for line in text.split("\n") if text else ():
        seat, _, notation = line.partition(" ")
        found.append(LoggedAction(None if seat == "-" else int(seat), notation))
    return found
