"""A fake Discord for tests and the local sandbox: real discord.py, fake Discord.

In process::

    fake = FakeDiscord()
    alice = fake.add_user("alice")
    await fake.connect(bot)                      # bot.login() for real, READY + GUILD_CREATE
    result = await fake.slash(alice, "ping")     # INTERACTION_CREATE, waits for the answer
    await fake.click(alice, result.message, "again")
    fake.assert_clean()                          # no limit violations, spec errors, bot errors
    await bot.close(); fake.uninstall()

Against a real bot process: :class:`FakeDiscordServer` (see ``server.py``).
"""

from __future__ import annotations

from .limits import check_message, check_request
from .openapi import SPEC_AVAILABLE, SPEC_PATH, SPEC_UNAVAILABLE_REASON, OpenApiValidator, get_validator
from .rest import ApiError, RestApi
from .server import FakeDiscordServer, point_discord_py_at
from .transport import BotError, FakeDiscord, InteractionResult, MessageNotVisible, NoResponse, split_url
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
