"""Boards that could not be shown: how long to wait before each new try, and what the players are told
of a match whose channel Discord says is gone.

Every failure to bring a match's board up to date is counted in the store (``show_tries``) with the
time of the next try (``show_after``), so the wait survives restarts, and the scheduler takes the due
boards with the fewest failures first: boards that can never be posted wait longer and longer and never
hold up a board that failed once. A channel that is gone is not waited for at all
(``BoardHandoff.channel_gone``).
"""

from __future__ import annotations

BACKOFF = (2.0, 10.0, 30.0, 120.0, 600.0, 1800.0, 3600.0)
"""Seconds before the next try after the first, second, ... failure in a row; the last from then on."""
QUICK_TRIES = 2
"""The first tries after a failure are timed by the process itself (``BACKOFF[:QUICK_TRIES]``), not
left to the scheduler's next round."""
GONE = (
    "its channel is gone (deleted, or the bot was removed from the server or can no longer see it), "
    "so it could not be shown"
)
"""Why a match whose channel is gone was abandoned, in the words of its last step."""


def warned(tries: int) -> bool:
    """Whether the ``tries``-th failure in a row is worth a warning: each one while the wait still
    grows, then one saying that it stops growing; later ones only at debug level, so a board that can
    never be shown does not fill the log."""
    return tries <= len(BACKOFF)


def settled(tries: int) -> bool:
    """Whether the ``tries``-th failure is the one after which the wait stops growing."""
    return tries == len(BACKOFF)
