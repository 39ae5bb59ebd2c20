"""Standard backgammon play notation, written and read against a position and a roll.

Written form (canonical, character for character what GNU Backgammon writes): one checker's path per
item, ``from/to`` in the mover's numbering, ``bar`` for the bar and ``off`` for borne off, ``*`` after
a point where a blot was hit; a checker that moves on after landing is one item (``24/13``), listing
the points between only where it hit (``13/7*/4``); equal items are counted (``8/5(2)``), the hit
mark written once on the first item to reach the point (``4/3*(2)``, ``24/20*/16 24/20``); items in
GNUBG's order (farthest source first, then the farthest first move). A roll with no legal play is
written ``no play``.

Reading accepts that form and its usual variants: ``b``/``25`` for the bar, ``o``/``0`` for off,
intermediate points (``24/18/13``), repeated items instead of ``(2)``, commas, upper case, a final
hit without its ``*``. The play read is the legal play reaching the same position with the same hits.
"""

from __future__ import annotations

import itertools
import re

from engine.backgammon.board import BAR_POINT, OFF_POINT, Board, RuleSet
from engine.backgammon.plays import Move, Play, legal_plays
from engine.errors import IllegalActionError, NotationError

NO_PLAY = "no play"


def _point(p: int) -> str:
    return "bar" if p == BAR_POINT else "off" if p == OFF_POINT else str(p)


def move_text(move: Move) -> str:
    """One checker's move by one die, as a step of a play is named: ``24/18``, ``bar/22*``, ``3/off``."""
    return f"{_point(move.src)}/{_point(move.dst)}{'*' if move.hit else ''}"


def _paths(moves: tuple[Move, ...], blots: frozenset[int]) -> list[list[int]]:
    """The moves as checker paths, the way GNU Backgammon's ``FormatMove`` groups them.

    Moves are taken from the farthest source (then the farthest destination) and a move starting
    where an earlier path ends continues that path; the point passed keeps its place in the path
    only where a blot stood on it (the hit is then written there).
    """
    rows = [[m.src, m.dst] for m in sorted(moves, key=lambda m: (-m.src, -m.dst))]
    alive = [True] * len(rows)
    for i, row in enumerate(rows):
        for j in range(i + 1, len(rows)):
            if alive[i] and alive[j] and row[-1] == rows[j][0]:
                if row[-1] in blots:
                    row.append(rows[j][1])
                else:
                    row[-1] = rows[j][1]
                alive[j] = False
    return [row for row, keep in zip(rows, alive, strict=True) if keep]


def play_text(play: Play) -> str:
    """The canonical notation of a play, exactly as GNU Backgammon writes it."""
    if not play.moves:
        return NO_PLAY
    # A point where a move hits held a blot before the play, which is what GNUBG reads off the board.
    blots = hits(play)
    counted: list[tuple[list[int], int]] = []
    for path in _paths(play.moves, blots):
        for i, (seen, n) in enumerate(counted):
            if seen == path:
                counted[i] = (seen, n + 1)
                break
        else:
            counted.append((path, 1))
    marked: set[int] = set()
    out: list[str] = []
    for path, n in counted:
        parts = [_point(path[0])]
        for point in path[1:-1]:
            parts.append(f"{_point(point)}*")
            marked.add(point)
        last = path[-1]
        star = last in blots and last not in marked
        marked.update({last} if star else set())
        parts.append(_point(last) + ("*" if star else ""))
        out.append("/".join(parts) + (f"({n})" if n > 1 else ""))
    return " ".join(out)


def hits(play: Play) -> frozenset[int]:
    """The points (mover's numbering) where the play hits a blot."""
    return frozenset(m.dst for m in play.moves if m.hit)


_ITEM = re.compile(r"^(bar|b|\d{1,2})(\*?)((?:/(?:off|o|\d{1,2})\*?)+)(?:\((\d)\))?$")
_STEP = re.compile(r"/(off|o|\d{1,2})(\*?)")


def _read_point(text: str) -> int:
    if text in ("bar", "b"):
        return BAR_POINT
    if text in ("off", "o"):
        return OFF_POINT
    value = int(text)
    if not 0 <= value <= BAR_POINT:
        raise ValueError(text)
    return value


def _listing(plays: tuple[Play, ...], already: str = "") -> str:
    texts = [play_text(p) for p in plays]
    shown = ", ".join(texts[:40])
    more = f" and {len(texts) - 40} more" if len(texts) > 40 else ""
    if already:
        return f"You have moved {already}; the ways to finish are: {shown}{more}."
    return f"The legal plays are: {shown}{more}."


def parse_play(text: str, board: Board, d1: int, d2: int, rules: RuleSet = RuleSet.STANDARD) -> Play:
    """The legal play that ``text`` describes for ``board[1]`` rolling ``d1``-``d2``.

    Raises ``NotationError`` when the text cannot be read and ``IllegalActionError`` when it reads
    as a play the rules do not allow; both messages list the legal plays.
    """
    return parse_among(text, board, legal_plays(board, d1, d2, rules), f"{d1}-{d2}")


def parse_among(text: str, board: Board, plays: tuple[Play, ...], roll: str, already: str = "") -> Play:
    """The play among ``plays`` (each from ``board``) that ``text`` describes; ``already`` names the
    moves made before ``board`` in the same turn, for the error messages."""
    cleaned = text.strip().lower().replace(",", " ")
    if cleaned in (NO_PLAY, "pass", "-", ""):
        if plays[0].moves:
            raise IllegalActionError(f"{roll} can be played, so you must play it. {_listing(plays, already)}")
        return plays[0]
    side = list(board[1])
    marked: set[int] = set()
    for item in cleaned.split():
        match = _ITEM.match(item)
        if match is None:
            raise NotationError(
                f"I could not read {item!r}: write each checker's move as from/to, like 24/18, "
                f"bar/22*, 6/off or 8/5(2). {_listing(plays, already)}"
            )
        try:
            points = [_read_point(match.group(1))]
            for step in _STEP.finditer(match.group(3)):
                points.append(_read_point(step.group(1)))
                if step.group(2):
                    marked.add(points[-1])
        except ValueError:
            raise NotationError(
                f"{item!r} names a point outside 1-24, bar and off. {_listing(plays, already)}"
            ) from None
        if any(nxt >= cur for cur, nxt in itertools.pairwise(points)) or OFF_POINT in points[1:-1]:
            raise NotationError(f"{item!r} does not move toward home. {_listing(plays, already)}")
        count = int(match.group(4) or 1)
        src, dst = points[0], points[-1]
        side[src - 1] -= count
        if dst != OFF_POINT:
            side[dst - 1] += count
        if side[src - 1] < 0:
            where = "on the bar" if src == BAR_POINT else f"on point {src}"
            raise IllegalActionError(
                f"{item}: you do not have that many checkers {where}. {_listing(plays, already)}"
            )
    wanted = tuple(side)
    same = [p for p in plays if p.result[1] == wanted]
    exact = [p for p in same if hits(p) == marked]
    if len(exact) == 1:
        return exact[0]
    covering = [p for p in same if hits(p) >= marked]
    fewest = [p for p in covering if len(hits(p)) == min((len(hits(q)) for q in covering), default=0)]
    if len(fewest) == 1:
        return fewest[0]
    if fewest:
        options = " or ".join(play_text(p) for p in fewest)
        raise NotationError(
            f"{text.strip()!r} could be {options}: mark the hits with *. {_listing(plays, already)}"
        )
    raise IllegalActionError(f"{text.strip()} is not a legal play of {roll} here. {_listing(plays, already)}")
