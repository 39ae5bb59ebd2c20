"""Plain-text helpers of the sandbox: reading command lines and showing what the bot sent."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from fakediscord import ComponentInfo, FakeChannel, FakeMessage, World

_MENTION = re.compile(r"<(@!?|@&|#)(\d+)>")
_JUMP_LINK = re.compile(r"https://(?:\w+\.)?discord(?:app)?\.com/channels/(?:\d+|@me)/(\d+)(/\d+)?")
_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)?", re.IGNORECASE)
_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}
_TRAILING_COMMENT = re.compile(r"\s+#\s.*$")


class CommandError(Exception):
    """A sandbox command that cannot be carried out; the message is one line for the user."""


def split_args(text: str) -> list[str]:
    """Words of a command line; quotes group words ("Stack on 7"). An unbalanced quote (as in an
    apostrophe: Red's stack) falls back to splitting on spaces."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def strip_comment(line: str) -> str:
    """A line without its comment: a whole line starting with ``#``, or `` # ...`` at the end (a
    ``#`` followed by a space; ``in #general`` keeps its channel)."""
    if line.lstrip().startswith("#"):
        return ""
    return _TRAILING_COMMENT.sub("", line).strip()


def parse_duration(text: str) -> float:
    """Seconds in ``49h``, ``10m``, ``30s``, ``2d``, ``1h30m`` or a bare number of seconds."""
    compact = text.strip().replace(" ", "")
    if not compact:
        raise CommandError("wait how long? e.g. wait 10m, wait 49h, wait 30s")
    total = 0.0
    pos = 0
    for found in _DURATION_PART.finditer(compact):
        if found.start() != pos or not found.group(0):
            break
        total += float(found[1]) * _UNITS[(found[2] or "s").lower()]
        pos = found.end()
    if pos != len(compact):
        raise CommandError(f"cannot read {text!r} as a time: write e.g. 30s, 10m, 49h, 2d or 1h30m")
    return total


def format_duration(seconds: float) -> str:
    left = round(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return "".join(parts) or "0s"


def normalise(text: str) -> str:
    """For matching what a user typed against a label: case, spacing, ``->`` for ``→``."""
    return " ".join(text.replace("->", "→").casefold().split())


def render_mentions(text: str, world: World) -> str:
    """``<@id>`` as ``@name``, ``<#id>`` as ``#channel``, ``<@&id>`` as ``@role``, a link to a message
    as ``<link to a message in #channel>``."""

    def one(found: re.Match[str]) -> str:
        kind, ident = found[1], int(found[2])
        if kind.startswith("@") and kind != "@&":
            user = world.users.get(ident)
            return f"@{user.name}" if user else found[0]
        if kind == "#":
            channel = world.channels.get(ident)
            return channel_label(channel, world) if channel else found[0]
        for guild in world.guilds.values():
            if ident in guild.roles:
                return "@" + guild.roles[ident].name.lstrip("@")
        return found[0]

    def link(found: re.Match[str]) -> str:
        channel = world.channels.get(int(found[1]))
        if channel is None:
            return found[0]
        where = channel_label(channel, world)
        return f"<link to a message in {where}>" if found[2] else f"<link to {where}>"

    return _JUMP_LINK.sub(link, _MENTION.sub(one, text))


def channel_label(channel: FakeChannel, world: World) -> str:
    """``#general`` for a channel, ``#general › Ring: alice vs bob`` for a thread."""
    if channel.is_thread and channel.parent_id is not None and channel.parent_id in world.channels:
        return f"{channel_label(world.channels[channel.parent_id], world)} › {channel.name}"
    if channel.guild_id is None:
        names = [f"@{world.users[u].name}" for u in channel.recipient_ids if u in world.users]
        return f"DM with {', '.join(names)}" if names else "DM"
    return f"#{channel.name}"


def button_text(button: ComponentInfo) -> str:
    """``[🎲 Roll]``, disabled ``[~🎲 Roll~]``."""
    label = button_label(button)
    if button.url:
        label = f"{label} → {button.url}"
    return f"[~{label}~]" if button.disabled else f"[{label}]"


def button_label(button: ComponentInfo) -> str:
    emoji: Mapping[str, object] = button.raw.get("emoji") or {}
    name = emoji.get("name")
    shown = (f":{name}:" if emoji.get("id") else str(name)) if name else ""
    return " ".join(part for part in (shown, button.label or "") if part) or str(button.custom_id)


def option_text(option: Mapping[str, object]) -> str:
    text = str(option.get("label", option.get("value")))
    if option.get("description"):
        text += f" — {option['description']}"
    return text


def component_lines(message: FakeMessage) -> list[str]:
    """The controls of a message: buttons of a row on one line, each select with numbered options."""
    lines: list[str] = []
    row: list[str] = []
    row_index: int | None = None
    for comp in message.all_components:
        if comp.is_button:
            if row and comp.row != row_index:
                lines.append(" ".join(row))
                row = []
            row.append(button_text(comp))
            row_index = comp.row
            continue
        if row:
            lines.append(" ".join(row))
            row = []
        if comp.is_select:
            placeholder = comp.placeholder or "(choose)"
            if comp.disabled:
                lines.append(f"▾ ~{placeholder}~ (disabled)")
                continue
            lines.append(f"▾ {placeholder}")
            for number, option in enumerate(comp.options, 1):
                lines.append(f"    {number}. {option_text(option)}")
    if row:
        lines.append(" ".join(row))
    return lines


def embed_lines(embed: Mapping[str, object], world: World) -> list[str]:
    lines: list[str] = []
    author = embed.get("author")
    if isinstance(author, Mapping) and author.get("name"):
        lines.append(f"┌ {author['name']}")
    title = embed.get("title")
    lines.append(f"┌ {render_mentions(str(title), world)}" if title else "┌")
    description = embed.get("description")
    if description:
        lines += [f"│ {line}".rstrip() for line in render_mentions(str(description), world).split("\n")]
    fields = embed.get("fields")
    for field in fields if isinstance(fields, list) else []:
        name = render_mentions(str(field.get("name", "")), world)
        first, *more = render_mentions(str(field.get("value", "")), world).split("\n")
        lines.append(f"│ {name}: {first}".rstrip())
        lines += [f"│   {line}".rstrip() for line in more]
    image = embed.get("image")
    if isinstance(image, Mapping) and image.get("url") and not str(image["url"]).startswith("attachment://"):
        lines.append(f"│ image: {image['url']}")
    footer = embed.get("footer")
    footer_text = footer.get("text") if isinstance(footer, Mapping) else None
    lines.append(f"└ {footer_text}" if footer_text else "└")
    return lines
