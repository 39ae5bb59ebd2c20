"""Forged controls of every kind the bot makes, as a modified client can send them: a control of an
earlier position, fields out of range, a button kind sent as a select and the other way round, a page
that does not exist or a page's button on a message that is no such page, and ids of matches,
challenges, reviews and tournaments that do not exist. The bot must refuse each privately and change
nothing (issue 33). The black box sends them; ``tests/bot/test_removed_controls.py`` too."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]

#: An id no match, challenge, tournament or analysed file of a fresh database has.
NOBODY = 987654321
#: Digits beyond 64 bits.
HUGE = "9" * 30
A_MOVE = "a:move 1 from 1 by 1"

Forged = tuple[JSON, list[str] | None]
"""A component's JSON as a message would carry it, and a select's chosen values (None: a button)."""


def button(custom_id: str) -> Forged:
    return {"type": 2, "style": 2, "label": "?", "custom_id": custom_id}, None


def select(custom_id: str, *values: str) -> Forged:
    options = [{"label": v[:100] or "?", "value": v} for v in values]
    return {"type": 3, "custom_id": custom_id, "options": options, "max_values": len(values)}, list(values)


def forged_controls(match_id: int, version: int, user_id: int) -> list[Forged]:
    """A forged control of every kind, for live match ``match_id`` at ``version`` (``version - 1``:
    an earlier position) clicked by ``user_id``, sent from its public board."""
    mid, old, none = match_id, version - 1, NOBODY
    return [
        *_game_controls(mid, version),
        button(f"ch:{none}:accept"),
        select(f"ch:{none}:accept", "x"),
        button(f"rs:{mid}:yes"),  # the private question's answer sent from the board
        button(f"rs:{none}:no"),
        button(f"hand:{none}"),
        button(f"sa:{mid}:{old}:pass"),
        button(f"sa:{none}:1:ask"),
        button(f"rm:{mid}"),  # Rematch of a match still played
        button(f"rm:{none}"),
        button(f"stop:{mid}"),  # not a money session
        button(f"stop:{none}"),
        button(f"rsk:{none}"),
        button(f"hp:{mid}:{old}:roll"),
        button(f"hp:{none}:1:roll"),
        *_pages(mid, user_id),
        button(f"tn:{none}:join"),
        select(f"tn:{none}:start", "x"),
        button(f"tu:{mid}:{old}:confirm"),  # a tutor's warning of an earlier position (and of ring)
        button(f"tu:{none}:1:back"),
    ]


def _game_controls(mid: int, version: int) -> list[Forged]:
    old = version - 1
    return [
        button(f"g:{mid}:{old}:roll"),
        select(f"g:{mid}:{old}:s0", A_MOVE),
        select(f"g:{mid}:{version}:s9", A_MOVE),  # a row no message has
        button(f"g:{mid}:{version}:s0"),  # a select's id sent as a button
        select(f"g:{mid}:{version}:roll", "roll"),  # a button's id sent as a select
        button(f"g:{NOBODY}:1:roll"),
        button(f"g:{HUGE}:1:roll"),
        button("g:1:1:s9"),
        button("hand:"),
    ]


def _pages(mid: int, user_id: int) -> list[Forged]:
    """The match pickers, the rules' and the reviews' controls."""
    none = NOBODY
    return [
        button("pick:board"),  # a picker's id sent as a button
        select("pick:resign", str(none)),
        select("pick:board", HUGE),
        select("pick:position", "not a match"),
        button("rules:ring:2"),  # a rules page's button on a board
        button("rules:ring:0"),
        button("rules:ring:9999"),
        button("rules:nosuchgame:2"),
        select("rules:ring:2", "x"),
        button("rules:nosuchgame"),
        select("rules:ring", "x"),
        button(f"rvo:{none}"),
        button(f"rvo:f{none}"),
        select(f"rvo:{mid}", "x"),
        button(f"rv:{mid}:{user_id}:2:next"),  # a review page's button on a board
        button(f"rv:{none}:{user_id}:2:next"),
        button(f"rv:f{none}:{user_id}:0:prev"),
    ]
