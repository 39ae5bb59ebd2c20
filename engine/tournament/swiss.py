"""Swiss pairing (the Monrad way): players ranked by score then rating, the best still unpaired
meets the next-best they have not yet played.

When that greedy choice leads to a dead end further down, the search backtracks. When no pairing
without a rematch exists at all (a small field late in a long event), or the search would take too
long to prove one does, a maximum weighted matching (networkx's blossom algorithm) pairs everyone
with as few rematches as possible, close ranks preferred."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from engine.tournament.model import TournamentError

SEARCH_STEPS: Final = 50_000
"""How many steps the backtracking pairing may take in one round before the matching decides:
far more than a realistic field needs, few enough to keep a round's pairing instant."""


def default_rounds(field: int) -> int:
    """ceil(log2(n)) rounds: enough to leave one unbeaten player, at most n - 1."""
    return max(1, min(field - 1, math.ceil(math.log2(field))))


def check_rounds(rounds: int, field: int) -> None:
    if not 1 <= rounds <= field - 1:
        raise TournamentError(f"A Swiss event of {field} players has 1 to {field - 1} rounds, not {rounds}.")


class _OutOfSteps(Exception):
    pass


def pair(
    ranked: Sequence[int],
    played: frozenset[frozenset[int]],
    byes: dict[int, int],
) -> tuple[list[tuple[int, int]], int | None]:
    """Tables for ``ranked`` (best first) and the player with the bye, if the count is odd.

    The bye goes to the lowest-ranked player who has not had one and whose leaving out lets the
    others pair without a rematch; if everyone has had one, to the lowest-ranked of those with
    the fewest."""
    budget = [SEARCH_STEPS]
    fewest = min(byes.get(p, 0) for p in ranked)
    candidates = [p for p in reversed(ranked) if byes.get(p, 0) == fewest] if len(ranked) % 2 else [None]
    try:
        for bye in candidates:
            tables = _search([p for p in ranked if p != bye], played, budget)
            if tables is not None:
                return tables, bye
    except _OutOfSteps:
        pass
    return _match(tuple(ranked), played, candidates)


def _search(
    rest: list[int], played: frozenset[frozenset[int]], budget: list[int]
) -> list[tuple[int, int]] | None:
    """The greedy pairing with backtracking; None when no rematch-free pairing exists."""
    if not rest:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        raise _OutOfSteps
    head = rest[0]
    for index in range(1, len(rest)):
        other = rest[index]
        if frozenset((head, other)) in played:
            continue
        tail = _search(rest[1:index] + rest[index + 1 :], played, budget)
        if tail is not None:
            return [(head, other), *tail]
    return None


def _match(
    ranked: tuple[int, ...], played: frozenset[frozenset[int]], bye_candidates: Sequence[int | None]
) -> tuple[list[tuple[int, int]], int | None]:
    """Everyone paired, fewest rematches first, then the smallest gaps in rank. With an odd count
    the bye is a last place in the ranking that only ``bye_candidates`` may be paired with."""
    import networkx as nx  # only this rare fallback needs it

    size = len(ranked)
    closeness = (size + 1) ** 2
    fresh = closeness * (size + 1)  # one fewer rematch outweighs any gain in closeness
    graph = nx.Graph()
    for i in range(size):
        for j in range(i + 1, size):
            weight = closeness - (j - i) ** 2
            if frozenset((ranked[i], ranked[j])) not in played:
                weight += fresh
            graph.add_edge(i, j, weight=weight)
    if size % 2:
        for i, player in enumerate(ranked):
            if player in bye_candidates:
                graph.add_edge(i, size, weight=fresh + closeness - (size - i) ** 2)
    bye = None
    tables = []
    for i, j in nx.max_weight_matching(graph, maxcardinality=True):
        low, high = min(i, j), max(i, j)
        if high == size:
            bye = ranked[low]
        else:
            tables.append((ranked[low], ranked[high]))
    return sorted(tables, key=lambda t: ranked.index(t[0])), bye
