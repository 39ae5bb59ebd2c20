"""JSON payloads as Discord sends them: users, members, channels, messages, gateway events.

Pure functions of the world model. The same builders serve the in-process fake (events fed to
``bot._connection.parsers``) and the local fake server (events sent over the gateway websocket),
so both paths give discord.py identical data.
"""

from __future__ import annotations

from typing import Any

from .world import (
    DM_CHANNEL,
    FakeAttachment,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    World,
    iso,
)

JSON = dict[str, Any]

#: Interaction payload ``attachment_size_limit``: what Discord currently allows bots (10 MiB).
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024
GATEWAY_VERSION = 10


def user_payload(user: FakeUser) -> JSON:
    data: JSON = {
        "id": str(user.id),
        "username": user.name,
        "discriminator": "0",
        "global_name": user.global_name,
        "avatar": user.avatar,
        "avatar_decoration_data": None,
        "collectibles": None,
        "primary_guild": None,
        "banner": None,
        "accent_color": None,
        "public_flags": 0,
        "flags": 0,
    }
    if user.bot:
        data["bot"] = True
    return data


def member_payload(member: FakeMember, *, with_user: bool = True, permissions: int | None = None) -> JSON:
    data: JSON = {
        "nick": member.nick,
        "avatar": None,
        "banner": None,
        "roles": [str(r) for r in member.roles],
        "joined_at": iso(member.joined_at),
        "premium_since": None,
        "deaf": False,
        "mute": False,
        "flags": 0,
        "pending": False,
        "communication_disabled_until": None,
        "unusual_dm_activity_until": None,
    }
    if with_user:
        data["user"] = user_payload(member.user)
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def role_payload(role: FakeRole) -> JSON:
    data: JSON = {
        "id": str(role.id),
        "name": role.name,
        "color": role.color,
        "colors": {"primary_color": role.color, "secondary_color": None, "tertiary_color": None},
        "hoist": role.hoist,
        "icon": None,
        "unicode_emoji": None,
        "position": role.position,
        "permissions": str(role.permissions),
        "managed": role.managed,
        "mentionable": role.mentionable,
        "flags": 0,
    }
    if role.bot_id is not None:
        data["tags"] = {"bot_id": str(role.bot_id)}
    return data


def thread_metadata(channel: FakeChannel) -> JSON:
    archive = channel.archive_timestamp or channel.created_at
    return {
        "archived": channel.archived,
        "auto_archive_duration": channel.auto_archive_duration,
        "archive_timestamp": iso(archive),
        "locked": channel.locked,
        "invitable": channel.invitable,
        "create_timestamp": iso(channel.created_at),
    }


def channel_payload(world: World, channel: FakeChannel, *, permissions: int | None = None) -> JSON:
    data: JSON
    if channel.type == DM_CHANNEL:
        data = {
            "id": str(channel.id),
            "type": DM_CHANNEL,
            "last_message_id": str(channel.last_message_id) if channel.last_message_id else None,
            "recipients": [user_payload(world.users[u]) for u in channel.recipient_ids if u in world.users],
            "flags": 0,
        }
    elif channel.is_thread:
        data = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "parent_id": str(channel.parent_id) if channel.parent_id else None,
            "owner_id": str(channel.owner_id) if channel.owner_id else None,
            "name": channel.name,
            "last_message_id": str(channel.last_message_id) if channel.last_message_id else None,
            "message_count": channel.message_count,
            "member_count": len(channel.member_ids),
            "rate_limit_per_user": channel.rate_limit_per_user,
            "flags": 0,
            "total_message_sent": channel.total_message_sent,
            "thread_metadata": thread_metadata(channel),
        }
        if world.bot_user.id in channel.member_ids:
            data["member"] = {
                "id": str(channel.id),
                "user_id": str(world.bot_user.id),
                "join_timestamp": iso(channel.created_at),
                "flags": 1,
            }
    else:
        data = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "name": channel.name,
            "position": channel.position,
            "permission_overwrites": [
                {"id": str(o.id), "type": o.type, "allow": str(o.allow), "deny": str(o.deny)}
                for o in channel.overwrites.values()
            ],
            "parent_id": str(channel.parent_id) if channel.parent_id else None,
            "topic": channel.topic,
            "nsfw": channel.nsfw,
            "rate_limit_per_user": channel.rate_limit_per_user,
            "last_message_id": str(channel.last_message_id) if channel.last_message_id else None,
            "flags": 0,
            "default_thread_rate_limit_per_user": 0,
        }
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def attachment_payload(att: FakeAttachment) -> JSON:
    data: JSON = {
        "id": str(att.id),
        "filename": att.filename,
        "size": att.size,
        "url": att.url,
        "proxy_url": att.url,
    }
    if att.content_type:
        data["content_type"] = att.content_type
    if att.description:
        data["description"] = att.description
    if att.width is not None and att.height is not None:
        data["width"] = att.width
        data["height"] = att.height
    if att.ephemeral:
        data["ephemeral"] = True
    return data


def message_payload(world: World, msg: FakeMessage, *, gateway: bool = False, depth: int = 0) -> JSON:
    data: JSON = {
        "id": str(msg.id),
        "channel_id": str(msg.channel_id),
        "author": user_payload(msg.author),
        "content": msg.content,
        "timestamp": iso(msg.created_at),
        "edited_timestamp": iso(msg.edited_at) if msg.edited_at else None,
        "tts": msg.tts,
        "mention_everyone": False,
        "mentions": [user_payload(world.users[u]) for u in msg.mention_ids if u in world.users],
        "mention_roles": [],
        "attachments": [attachment_payload(a) for a in msg.attachments],
        "embeds": [dict(e) for e in msg.embeds],
        "pinned": msg.pinned,
        "type": msg.type,
        "flags": msg.flags,
        "components": msg.components,
    }
    if msg.nonce is not None:
        data["nonce"] = msg.nonce
    if msg.webhook_id is not None:
        data["webhook_id"] = str(msg.webhook_id)
    if msg.application_id is not None:
        data["application_id"] = str(msg.application_id)
    if msg.interaction_metadata is not None:
        data["interaction_metadata"] = msg.interaction_metadata
    if msg.legacy_interaction is not None:
        data["interaction"] = msg.legacy_interaction
    if msg.message_reference is not None:
        data["message_reference"] = msg.message_reference
        ref_id = msg.message_reference.get("message_id")
        ref = world.messages.get(int(ref_id)) if ref_id is not None else None
        if depth == 0:
            data["referenced_message"] = (
                message_payload(world, ref, depth=1) if ref is not None and not ref.deleted else None
            )
    if msg.thread_id is not None and msg.thread_id in world.channels:
        data["thread"] = channel_payload(world, world.channels[msg.thread_id])
    if msg.poll is not None:
        data["poll"] = msg.poll
    if msg.reactions:
        data["reactions"] = [
            {
                "count": len(users),
                "count_details": {"burst": 0, "normal": len(users)},
                "me": world.bot_user.id in users,
                "me_burst": False,
                "burst_colors": [],
                "emoji": {"id": None, "name": emoji},
            }
            for emoji, users in msg.reactions.items()
            if users
        ]
    if gateway and msg.guild_id is not None:
        data["guild_id"] = str(msg.guild_id)
        member = world.member(msg.guild_id, msg.author.id)
        if member is not None and msg.webhook_id is None:
            data["member"] = member_payload(member, with_user=False)
    return data


def application_payload(world: World) -> JSON:
    """``GET /oauth2/applications/@me``."""
    return {
        "id": str(world.application_id),
        "name": world.application_name,
        "icon": None,
        "description": "",
        "summary": "",
        "type": None,
        "hook": True,
        "bot_public": True,
        "bot_require_code_grant": False,
        "verify_key": "0" * 64,
        "flags": 0,
        "owner": user_payload(world.owner),
        "team": None,
        "bot": user_payload(world.bot_user),
        "guild_id": None,
        "primary_sku_id": None,
        "slug": None,
        "cover_image": None,
        "rpc_origins": [],
        "tags": [],
        "install_params": None,
        "integration_types_config": {"0": {}},
        "custom_install_url": None,
        "interactions_endpoint_url": None,
        "role_connections_verification_url": None,
        "approximate_guild_count": len(world.guilds),
        "approximate_user_install_count": 0,
        "redirect_uris": [],
        "terms_of_service_url": None,
        "privacy_policy_url": None,
    }


def bot_user_payload(world: World) -> JSON:
    """``GET /users/@me`` for the bot."""
    data = user_payload(world.bot_user)
    data.update({"verified": True, "mfa_enabled": False, "locale": "en-US", "email": None, "bio": ""})
    return data


def guild_payload(world: World, guild: FakeGuild) -> JSON:
    """The guild object of ``GET /guilds/{id}``."""
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "region": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "widget_enabled": False,
        "widget_channel_id": None,
        "verification_level": 0,
        "default_message_notifications": 1,
        "explicit_content_filter": 0,
        "roles": [role_payload(r) for r in guild.roles.values()],
        "emojis": [],
        "stickers": [],
        "features": [],
        "mfa_level": 0,
        "application_id": None,
        "system_channel_id": str(guild.channel_ids[0]) if guild.channel_ids else None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "max_members": 500000,
        "max_presences": None,
        "max_video_channel_users": 25,
        "max_stage_video_channel_users": 50,
        "vanity_url_code": None,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": guild.locale,
        "nsfw_level": 0,
        "nsfw": False,
        "incidents_data": None,
    }


def guild_create_payload(world: World, guild: FakeGuild) -> JSON:
    """GUILD_CREATE as the gateway sends it after READY (with members, channels and threads)."""
    data = guild_payload(world, guild)
    channels = [world.channels[c] for c in guild.channel_ids if c in world.channels]
    threads = [
        ch
        for ch in world.channels.values()
        if ch.guild_id == guild.id and ch.is_thread and not ch.archived and not ch.deleted
    ]
    data.update(
        {
            "joined_at": iso(guild.joined_at),
            "large": False,
            "unavailable": False,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": [member_payload(m) for m in guild.members.values()],
            "channels": [channel_payload(world, c) for c in channels if not c.deleted],
            "threads": [channel_payload(world, t) for t in threads],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "activity_instances": [],
            "lazy": True,
            "application_command_counts": {},
        }
    )
    return data


def ready_payload(
    world: World, *, session_id: str, resume_gateway_url: str, shard: list[int] | None = None
) -> JSON:
    data: JSON = {
        "v": GATEWAY_VERSION,
        "user": bot_user_payload(world),
        "user_settings": {},
        "guilds": [
            {"id": str(g), "unavailable": True}
            for g in world.guilds
            if shard is None or (g >> 22) % shard[1] == shard[0]
        ],
        "relationships": [],
        "private_channels": [],
        "presences": [],
        "guild_join_requests": [],
        "geo_ordered_rtc_regions": ["rotterdam", "madrid"],
        "game_relationships": [],
        "session_id": session_id,
        "session_type": "normal",
        "resume_gateway_url": resume_gateway_url,
        "auth_session_id_hash": "",
        "application": {"id": str(world.application_id), "flags": 0},
        "_trace": ['["gateway-prd-fake",{"micros":0}]'],
    }
    if shard is not None:
        data["shard"] = shard
    return data


def thread_create_payload(world: World, thread: FakeChannel, *, newly_created: bool) -> JSON:
    data = channel_payload(world, thread)
    if newly_created:
        data["newly_created"] = True
    return data


def interaction_payload(
    world: World,
    *,
    interaction_id: int,
    token: str,
    type: int,
    user: FakeUser,
    channel: FakeChannel,
    data: JSON,
    message: FakeMessage | None = None,
    locale: str = "en-US",
) -> JSON:
    """An INTERACTION_CREATE payload as Discord sends it for a guild or DM channel."""
    guild = world.guild_of(channel)
    payload: JSON = {
        "id": str(interaction_id),
        "application_id": str(world.application_id),
        "type": type,
        "data": data,
        "token": token,
        "version": 1,
        "locale": locale,
        "app_permissions": str(world.permissions_for(world.bot_user.id, channel)),
        "entitlements": [],
        "entitlement_sku_ids": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        "channel_id": str(channel.id),
    }
    user_perms = world.permissions_for(user.id, channel)
    payload["channel"] = channel_payload(world, channel, permissions=user_perms)
    if guild is not None:
        member = guild.members.get(user.id)
        if member is None:
            raise LookupError(f"{user!r} is not a member of {guild!r}")
        payload.update(
            {
                "guild_id": str(guild.id),
                "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                "guild_locale": guild.locale,
                "member": member_payload(member, permissions=user_perms),
                "authorizing_integration_owners": {"0": str(guild.id)},
                "context": 0,
            }
        )
    else:
        payload.update(
            {
                "user": user_payload(user),
                "authorizing_integration_owners": {"0": "0"},
                "context": 1,
            }
        )
    if message is not None:
        payload["message"] = message_payload(world, message)
    return payload


def resolved_user(
    world: World, user: FakeUser, guild: FakeGuild | None, channel: FakeChannel, resolved: JSON
) -> None:
    resolved.setdefault("users", {})[str(user.id)] = user_payload(user)
    if guild is not None:
        member = guild.members.get(user.id)
        if member is not None:
            resolved.setdefault("members", {})[str(user.id)] = member_payload(
                member, with_user=False, permissions=world.permissions_for(user.id, channel)
            )


def resolved_channel(world: World, target: FakeChannel, viewer: FakeUser, resolved: JSON) -> None:
    data: JSON = {
        "id": str(target.id),
        "name": target.name,
        "type": target.type,
        "permissions": str(world.permissions_for(viewer.id, target)),
    }
    if target.is_thread:
        data["parent_id"] = str(target.parent_id)
        data["thread_metadata"] = thread_metadata(target)
    resolved.setdefault("channels", {})[str(target.id)] = data


def resolved_role(role: FakeRole, resolved: JSON) -> None:
    resolved.setdefault("roles", {})[str(role.id)] = role_payload(role)
