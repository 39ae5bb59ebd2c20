"""``python -m fakediscord.blackbox``: the bot as deployed, driven from outside (a CI stage).

The real ``python -m bot`` runs in its own process (through ``fakediscord.run_bot``) against the fake
Discord server on a fresh database; the members of the fake server challenge each other and the
computer, play every game through its controls, use every kind of persistent control the bot
registers as a player, as the opponent and as a stranger, and the process is killed with SIGKILL in
the middle of a match, started again on the same database and stopped with SIGTERM at the end.

Members also use controls of earlier versions of messages (as a client that has not shown the bot's
edits yet) and forged controls of every kind (``forged``), on the message and not.

It fails (exit 1, with a summary of every failure) on: an interaction nobody answered, or not within
Discord's 3 s, a forged or old control answered only by a silent acknowledgement, a registered
kind of control never clicked (or not in every role), a traceback or an ERROR line in the bot's
output, a worker process still running after the bot was killed or stopped, a request Discord would
refuse, a deferred answer never followed up, and a SIGTERM that does not end in exit status 0.

Modules: ``scenario`` (the stages), ``driver`` (clicks and matches), ``forged`` (the forged controls),
``processes`` (the bot's process and its workers), ``kinds`` and ``registered`` (what the bot
registers), ``ledger`` (what was seen).
"""

from __future__ import annotations

from .ledger import ROLES, Ledger
from .scenario import BlackBox

__all__ = ["ROLES", "BlackBox", "Ledger"]
