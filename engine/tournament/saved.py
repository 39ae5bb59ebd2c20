"""A tournament's saved form: canonical JSON with a schema version, read back with every field
checked, so a damaged row is refused with a reason instead of pairing nonsense.

It writes and reads the fields of a tournament (``SavedTournament``), not the ``Tournament`` itself:
``Tournament.to_json`` and ``from_json`` (engine/tournament/state.py) hand them over, so this module
needs nothing of the state's."""

from __future__ import annotations

import json
from typing import Any, Final, NamedTuple

from engine.tournament.model import FORMATS, HOWS, Entrant, Format, Pairing, Result, TournamentError

SCHEMA: Final = 1


class SavedTournament(NamedTuple):
    """The fields of a ``Tournament``, in its order: what is saved and what is read back."""

    format: Format
    rounds: int
    entrants: tuple[Entrant, ...]
    pairings: tuple[Pairing, ...]
    results: tuple[Result, ...]
    withdrawn: frozenset[int]


def dump(t: SavedTournament) -> str:
    data = {
        "schema": SCHEMA,
        "format": t.format,
        "rounds": t.rounds,
        "entrants": [[e.player, e.rating, e.joined] for e in t.entrants],
        "pairings": [[p.round, p.table, p.first, p.second] for p in t.pairings],
        "results": [[r.round, r.table, r.winner, r.how, r.reason] for r in t.results],
        "withdrawn": sorted(t.withdrawn),
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def load(text: str) -> SavedTournament:
    try:
        return _load(text)
    except TournamentError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise TournamentError(
            f"The saved tournament cannot be read ({exc.__class__.__name__}: {exc})."
        ) from exc


def _corrupt(what: str) -> TournamentError:
    return TournamentError(f"The saved tournament cannot be read: {what}.")


def _int(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _corrupt(f"{what} is not a whole number")
    return value


def _player(value: Any, players: set[int], what: str) -> int:
    if _int(value, what) not in players:
        raise _corrupt(f"{what} {value} did not enter")
    return int(value)


def _load(text: str) -> SavedTournament:
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise _corrupt(f"it is not a tournament of schema {SCHEMA}")
    if data["format"] not in FORMATS:
        raise _corrupt(f"unknown format {data['format']!r}")
    entrants = []
    for player, rating, joined in data["entrants"]:
        if not isinstance(rating, int | float) or isinstance(rating, bool):
            raise _corrupt("a rating is not a number")
        entrants.append(Entrant(_int(player, "a player"), float(rating), _int(joined, "a sign-up")))
    players = {e.player for e in entrants}
    if len(players) != len(entrants) or len(entrants) < 2:
        raise _corrupt("its entrants are not two or more different players")
    rounds = _int(data["rounds"], "the number of rounds")
    pairings = []
    for round_, table, first, second in data["pairings"]:
        if not 1 <= _int(round_, "a round") <= rounds or _int(table, "a table") < 1:
            raise _corrupt(f"round {round_} table {table} is out of range")
        rival = None if second is None else _player(second, players, "a player")
        pairings.append(Pairing(round_, table, _player(first, players, "a player"), rival))
    tables = {(p.round, p.table): p for p in pairings}
    if len(tables) != len(pairings):
        raise _corrupt("a table is paired twice")
    results = []
    for round_, table, winner, how, reason in data["results"]:
        pairing = tables.get((round_, table))
        if pairing is None or how not in HOWS or not isinstance(reason, str):
            raise _corrupt(f"the result of round {round_} table {table} is impossible")
        if winner is not None and winner not in pairing.players:
            raise _corrupt(f"the winner of round {round_} table {table} did not play there")
        results.append(Result(round_, table, winner, how, reason))
    if len({(r.round, r.table) for r in results}) != len(results):
        raise _corrupt("a table has two results")
    withdrawn = frozenset(_player(p, players, "a withdrawn player") for p in data["withdrawn"])
    return SavedTournament(
        data["format"], rounds, tuple(entrants), tuple(pairings), tuple(results), withdrawn
    )
