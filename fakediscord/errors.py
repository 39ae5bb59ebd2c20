"""Exceptions a test sees when the bot under test misbehaves or the test asks for the impossible."""

from __future__ import annotations


class NoResponse(AssertionError):
    """The bot did not answer an interaction (Discord would show "This interaction failed")."""


class BotError(AssertionError):
    """The bot logged an error (an exception in a handler) while handling an interaction."""


class MessageNotVisible(LookupError):
    """The test used a message the acting user cannot see (deleted, or someone else's ephemeral)."""
