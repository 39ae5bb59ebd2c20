"""The errors a player is told: each is a ``UserError``, whose message the cogs relay to them privately."""

from __future__ import annotations


class UserError(Exception):
    """Something a user did that cannot be done; the message is shown to them privately."""


class MatchNotFound(UserError):
    pass


class NotInMatch(UserError):
    pass


class StaleControl(UserError):
    pass


class NotYourTurn(UserError):
    pass


class MatchDamaged(UserError):
    pass


class MatchOver(UserError):
    pass


class MatchCannotStart(UserError):
    """The match of a challenge can never be started as asked (its options or position are refused
    now, it would never reach a decision, it has had its rematch): whoever answers the challenge
    closes it, and the message says why."""
