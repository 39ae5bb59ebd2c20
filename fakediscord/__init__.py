"""A fake Discord for tests and the local sandbox: real discord.py, fake Discord.

In process::

    fake = FakeDiscord()
    alice = fake.add_user("alice")
    await fake.connect(bot)                      # bot.login() for real, READY + GUILD_CREATE
    result = await fake.slash(alice, "ping")     # INTERACTION_CREATE, waits for the answer
    await fake.click(alice, result.message, "again")
    fake.assert_clean()                          # no limit violations, spec errors, bot errors
    await bot.close(); fake.uninstall()

Against a real bot process: :class:`FakeDiscordServer` (see ``server.py``) and
``python -m fakediscord.run_bot --api-base URL``.

Modules: ``fake`` (FakeDiscord: recording and answering requests, events, waiting, connecting) with
its mixins ``world_setup`` (arranging users, channels, roles, permissions), ``interactions`` and
``interaction_data`` (acting as users) and ``lookups`` (looking at what happened); ``results``
(InteractionResult); ``recorder`` (discord.py's HTTP paths replaced in process); ``gateway`` and
``tracking`` (events to a bot in process, and which tasks belong to which interaction); ``world``
and ``payloads`` (the model and its JSON); ``rest/`` (the REST API, one module per resource);
``limits`` and ``openapi`` (checks of every request); ``server`` and ``run_bot`` (a real process);
``matches`` (helpers for Ringside matches).
"""

from __future__ import annotations

from .errors import BotError, MessageNotVisible, NoResponse
from .fake import FakeDiscord
from .limits import check_message, check_request
from .openapi import SPEC_AVAILABLE, SPEC_PATH, SPEC_UNAVAILABLE_REASON, OpenApiValidator, get_validator
from .recorder import split_url
from .rest import ApiError, RestApi
from .results import InteractionResult
from .server import FakeDiscordServer, point_discord_py_at
from .world import (
    ComponentDisabled,
    ComponentInfo,
    ComponentNotFound,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeRole,
    FakeUser,
    Reply,
    Request,
    World,
)

__all__ = [
    "SPEC_AVAILABLE",
    "SPEC_PATH",
    "SPEC_UNAVAILABLE_REASON",
    "ApiError",
    "BotError",
    "ComponentDisabled",
    "ComponentInfo",
    "ComponentNotFound",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeDiscordServer",
    "FakeGuild",
    "FakeInteraction",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "InteractionResult",
    "MessageNotVisible",
    "NoResponse",
    "OpenApiValidator",
    "Reply",
    "Request",
    "RestApi",
    "World",
    "check_message",
    "check_request",
    "get_validator",
    "point_discord_py_at",
    "split_url",
]
