"""Discord's REST API over the world model: one handler per route, answering like Discord.

Shared by the in-process transport and the local fake server. ``RestApi.handle(req)`` never raises
for API-level problems: it returns a :class:`RestResult` with Discord's status and JSON error body
(``{"message", "code", "errors"?}``) so discord.py raises its usual ``NotFound``/``Forbidden``/
``HTTPException``. Routes the fake does not know answer 404 and are flagged ``unhandled``.

One module per resource (``users``, ``commands``, ``interactions``, ``channels``, ``messages``,
``guilds``), each a mixin with its routes and handlers; ``model`` changes messages, attachments and
threads in the world; ``routing`` matches requests to handlers; ``api`` puts them together.
"""

from __future__ import annotations

from .api import RestApi
from .errors import ApiError, invalid_form
from .routing import RestResult, truthy

__all__ = ["ApiError", "RestApi", "RestResult", "invalid_form", "truthy"]
