"""A tournament as one immutable value: every change returns a new ``Tournament``.

Nothing here is random and nothing depends on the clock, so the next round is a pure function of
the state: two processes that advance the same saved state pair it the same way (the service still
makes sure only one of them saves it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from engine.tournament import knockout, saved, swiss
from engine.tournament.model import (
    FORMATS,
    HOWS,
    REASON_LIMIT,
    Entrant,
    Format,
    Pairing,
    Result,
    Standing,
    TournamentError,
)
from engine.tournament.standings import Record, records, standings


@dataclass(frozen=True)
class Tournament:
    """The entrants, every pairing and result so far, and who withdrew."""

    format: Format
    rounds: int
    entrants: tuple[Entrant, ...]
    pairings: tuple[Pairing, ...]
    results: tuple[Result, ...]
    withdrawn: frozenset[int]

    @classmethod
    def start(cls, format: Format, entrants: Sequence[Entrant], rounds: int | None = None) -> Tournament:
        """Round 1 paired (its byes decided); a knockout's rounds follow from the field."""
        if format not in FORMATS:
            raise TournamentError(f"There is no {format!r} format; choose knockout or swiss.")
        if len(entrants) < 2:
            raise TournamentError(f"A tournament needs at least two players; it has {len(entrants)}.")
        if len({e.player for e in entrants}) != len(entrants):
            raise TournamentError("A player can enter a tournament only once.")
        if format == "knockout":
            needed = knockout.rounds_for(len(entrants))
            if rounds is not None and rounds != needed:
                raise TournamentError(
                    f"A knockout of {len(entrants)} players has {needed} rounds; its rounds cannot be chosen."
                )
            first = knockout.first_round(entrants)
            empty = cls(format, needed, tuple(entrants), (), (), frozenset())
            return empty._with_round(first)
        chosen = swiss.default_rounds(len(entrants)) if rounds is None else rounds
        swiss.check_rounds(chosen, len(entrants))
        return cls(format, chosen, tuple(entrants), (), (), frozenset())._pair_swiss()

    # What the state says

    @cached_property
    def _decided(self) -> dict[tuple[int, int], Result]:
        return {(r.round, r.table): r for r in self.results}

    @cached_property
    def _tables(self) -> dict[tuple[int, int], Pairing]:
        return {(p.round, p.table): p for p in self.pairings}

    @cached_property
    def _records(self) -> dict[int, Record]:
        return records(self.entrants, self.pairings, self._decided)

    @property
    def current_round(self) -> int:
        """The round being played (or the last one, once it is over); rounds count from 1."""
        return max((p.round for p in self.pairings), default=1)

    def round_pairings(self, round_: int) -> list[Pairing]:
        """Every table of a round, byes included, in table order."""
        return [p for p in self.pairings if p.round == round_]

    def result(self, round_: int, table: int) -> Result | None:
        return self._decided.get((round_, table))

    def entrant(self, player: int) -> Entrant:
        for e in self.entrants:
            if e.player == player:
                return e
        raise TournamentError("That player is not in this tournament.")

    def seed(self, player: int) -> int:
        """1 for the best-rated entrant (ties by sign-up order)."""
        return [e.player for e in knockout.seeded(self.entrants)].index(self.entrant(player).player) + 1

    def open_pairings(self) -> list[Pairing]:
        """The current round's tables still to be decided (never byes)."""
        return [p for p in self.round_pairings(self.current_round) if (p.round, p.table) not in self._decided]

    @property
    def round_over(self) -> bool:
        return not self.open_pairings()

    @property
    def out(self) -> frozenset[int]:
        """Players who will not be paired again: withdrawn, and in a knockout the beaten."""
        if self.format == "swiss":
            return self.withdrawn
        return self.withdrawn | {p for p, r in self._records.items() if r.lost}

    def still_in(self) -> list[int]:
        """Players who may still be paired: in a knockout those the current round sends on so far."""
        if self.format == "swiss":
            return [e.player for e in self.entrants if e.player not in self.withdrawn]
        winners = knockout.going_on(self.current_round, self.rounds, self._decided, self.withdrawn)
        return [w for w in winners if w is not None]

    @property
    def finished(self) -> bool:
        if not self.round_over:
            return False
        if self.format == "knockout":
            return len(self.still_in()) <= 1
        return self.current_round >= self.rounds or len(self.still_in()) < 2

    @property
    def champion(self) -> int | None:
        """The winner once finished; None before, and when nobody is left (all forfeited or withdrew)."""
        if not self.finished:
            return None
        if self.format == "knockout":
            left = self.still_in()
            return left[0] if left else None
        return next((s.player for s in self.standings() if not s.out), None)

    def standings(self) -> list[Standing]:
        return standings(self.entrants, self._records, self.out, self.format == "knockout")

    # Changes

    def record(self, result: Result) -> Tournament:
        """A table's result as the match ended it; a table already decided cannot be decided again."""
        pairing = self._open_table(result.round, result.table)
        if result.how not in HOWS or result.how == "bye":
            raise TournamentError(f"A result cannot be {result.how!r}.")
        if result.how == "both forfeit" and result.winner is not None:
            raise TournamentError("When both forfeit there is no winner.")
        if result.winner is None and result.how not in ("both forfeit", "organiser"):
            raise TournamentError(f"A result {result.how!r} needs a winner.")
        self._check_winner(pairing, result.winner)
        return replace(self, results=(*self.results, result))

    def set_result(self, round: int, table: int, winner: int | None, reason: str) -> Tournament:
        """The organiser decides a table (None: both lose), even one already decided, with a reason
        that is shown. In a knockout only the current round can change: the next one is built on it."""
        pairing = self._tables.get((round, table))
        if pairing is None:
            raise TournamentError(f"Round {round} has no table {table}.")
        if pairing.is_bye:
            raise TournamentError(f"Table {table} of round {round} is a bye; it has no result to set.")
        if self.format == "knockout" and round != self.current_round:
            raise TournamentError(
                f"Round {round} is over and the next round is paired from it; only round "
                f"{self.current_round} can be changed."
            )
        words = " ".join(reason.split())
        if not words:
            raise TournamentError("Say why you set this result; the reason is shown to the players.")
        if len(words) > REASON_LIMIT:
            raise TournamentError(f"The reason is too long: at most {REASON_LIMIT} characters.")
        self._check_winner(pairing, winner)
        kept = tuple(r for r in self.results if (r.round, r.table) != (round, table))
        return replace(self, results=(*kept, Result(round, table, winner, "organiser", words)))

    def withdraw(self, player: int) -> Tournament:
        """The player leaves: their open table is lost by forfeit and they are never paired again."""
        self.entrant(player)
        if player in self.withdrawn:
            raise TournamentError("That player has already left the tournament.")
        if self.finished:
            raise TournamentError("The tournament is over.")
        if player in self.out:
            raise TournamentError("That player is already out of the tournament.")
        left = replace(self, withdrawn=self.withdrawn | {player})
        for pairing in self.open_pairings():
            if player in pairing.players:
                other = pairing.second if pairing.first == player else pairing.first
                forfeit = Result(pairing.round, pairing.table, other, "withdrew")
                return replace(left, results=(*self.results, forfeit))
        return left

    def advance(self) -> Tournament:
        """The next round paired (its byes decided)."""
        if self.finished:
            raise TournamentError("The tournament is over.")
        if not self.round_over:
            waiting = len(self.open_pairings())
            raise TournamentError(
                f"Round {self.current_round} is not over: {waiting} table{'s' if waiting > 1 else ''} still to finish."
            )
        if self.format == "knockout":
            return self._with_round(
                knockout.next_round(self.current_round, self.rounds, self._decided, self.withdrawn)
            )
        return self._pair_swiss()

    def to_json(self) -> str:
        """The saved form (``saved.dump``): canonical JSON, read back by ``from_json``."""
        return saved.dump(
            saved.SavedTournament(
                self.format, self.rounds, self.entrants, self.pairings, self.results, self.withdrawn
            )
        )

    @classmethod
    def from_json(cls, text: str) -> Tournament:
        """Read back ``to_json``; a damaged saved form raises ``TournamentError`` with the reason."""
        return cls(*saved.load(text))

    # Helpers

    def _open_table(self, round_: int, table: int) -> Pairing:
        pairing = self._tables.get((round_, table))
        if pairing is None:
            raise TournamentError(f"Round {round_} has no table {table}.")
        if (round_, table) in self._decided:
            raise TournamentError(f"Table {table} of round {round_} is already decided.")
        return pairing

    @staticmethod
    def _check_winner(pairing: Pairing, winner: int | None) -> None:
        if winner is not None and winner not in pairing.players:
            raise TournamentError(
                f"The winner of table {pairing.table} of round {pairing.round} must be one of its players."
            )

    def _with_round(self, pairings: Sequence[Pairing]) -> Tournament:
        byes = tuple(Result(p.round, p.table, p.first, "bye") for p in pairings if p.is_bye)
        return replace(self, pairings=(*self.pairings, *pairings), results=(*self.results, *byes))

    def _pair_swiss(self) -> Tournament:
        next_round = self.current_round + 1 if self.pairings else 1
        # Pairing looks at points and rating only: tie-breaks change with later results.
        records = self._records
        ranked = [
            e.player
            for e in sorted(self.entrants, key=lambda e: (-records[e.player].points, -e.rating, e.joined))
            if e.player not in self.out
        ]
        played = frozenset(frozenset(p.players) for p in self.pairings if not p.is_bye)
        byes = {p: r.byes for p, r in records.items()}
        tables, bye = swiss.pair(ranked, played, byes)
        pairings = [Pairing(next_round, i, a, b) for i, (a, b) in enumerate(tables, start=1)]
        if bye is not None:
            pairings.append(Pairing(next_round, len(pairings) + 1, bye, None))
        return self._with_round(pairings)
