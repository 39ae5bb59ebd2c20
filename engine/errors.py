"""The engine's one family of errors. Every message is meant to be shown to a player as it is."""

from __future__ import annotations


class GameError(ValueError):
    """Base of every error the engine raises on bad input; the message is written for players."""


class IllegalActionError(GameError):
    """The action is well-formed but the rules do not allow it in this position."""


class NotYourTurnError(GameError):
    """Someone tried to act while another seat (or chance) is to decide."""


class GameOverError(GameError):
    """The game has already ended; nothing more can be played."""


class NotationError(GameError):
    """A text form of an action could not be read."""


class UnknownVariantError(GameError):
    """No game is registered under the given name."""


class BadOptionsError(GameError):
    """The options given for a new game are not valid for that game."""


class CorruptStateError(GameError):
    """A saved state could not be read back: wrong schema, wrong game or impossible contents."""
