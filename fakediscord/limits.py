"""Discord's documented limits, checked on every request body the bot sends.

``check_request(req)`` returns human-readable violations (empty list = fine). These checks run
whether or not the OpenAPI spec is available, and cover things the spec does not encode (the
6000-character total over a message's embeds, unique custom_ids, a select alone in its row,
attachments that refer to uploaded files, ...). Sources: discord.com/developers/docs
(Message, Embed limits, Components, Interactions, Application Commands, Threads).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

from .world import FLAG_EPHEMERAL, FLAG_IS_COMPONENTS_V2, Request

JSON = dict[str, Any]

MAX_CONTENT = 2000
MAX_NONCE = 25
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER_TEXT = 2048
MAX_AUTHOR_NAME = 256
MAX_ACTION_ROWS = 5
MAX_ROW_COMPONENTS = 5
MAX_V2_COMPONENTS = 40
MAX_V2_TEXT = 4000
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_SELECT_OPTIONS = 25
MAX_OPTION_TEXT = 100
MAX_PLACEHOLDER = 150
MAX_FILES = 10
MAX_ATTACHMENT_DESCRIPTION = 1024
DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024
"""Discord's upload limit per file without Nitro or server boosts (docs: "Uploading Files": 10 MiB
for all users, higher with Nitro or a server's boost tier; an interaction's ``attachment_size_limit``
is the largest that applies). A file over it is refused with 413, code 40005."""
MAX_REQUEST_BYTES = 25 * 1024 * 1024
"""The largest request body Discord takes (observed: a form body over 25 MiB is refused with 413,
code 40005, "Request entity too large", whatever the files' own limit)."""
TOO_LARGE = {"message": "Request entity too large", "code": 40005}
"""Discord's answer to a file or a request body over its limit (HTTP 413)."""
MAX_THREAD_NAME = 100
THREAD_ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
MAX_MODAL_TITLE = 45
MAX_AUTOCOMPLETE_CHOICES = 25

TOO_LARGE_MARK = " [too large]"
"""Ends the violation of a file over the upload limit: Discord answers it 413, not 400."""

SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
#: Largest id that can be an upload index rather than a snowflake of an existing attachment.
_UPLOAD_INDEX_LIMIT = 1 << 22
_COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")

_TEMPLATES: list[tuple[str, re.Pattern[str], str]] = []


def _route(method: str, template: str, kind: str) -> None:
    pattern = re.sub(r"\{[^}]+\}", r"[^/]+", template)
    _TEMPLATES.append((method, re.compile(f"^{pattern}$"), kind))


_route("POST", "/channels/{c}/messages", "message_create")
_route("PATCH", "/channels/{c}/messages/{m}", "message_edit")
_route("POST", "/webhooks/{w}/{t}", "message_create")
_route("PATCH", "/webhooks/{w}/{t}/messages/{m}", "message_edit")
_route("POST", "/interactions/{i}/{t}/callback", "callback")
_route("POST", "/channels/{c}/messages/{m}/threads", "thread")
_route("POST", "/channels/{c}/threads", "thread")
_route("PATCH", "/channels/{c}", "channel_edit")
_route("PUT", "/applications/{a}/commands", "commands")
_route("PUT", "/applications/{a}/guilds/{g}/commands", "commands")
_route("POST", "/applications/{a}/commands", "command")
_route("POST", "/applications/{a}/guilds/{g}/commands", "command")
_route("PATCH", "/applications/{a}/commands/{c}", "command")
_route("PATCH", "/applications/{a}/guilds/{g}/commands/{c}", "command")


def classify(method: str, path: str) -> str | None:
    for m, pattern, kind in _TEMPLATES:
        if m == method and pattern.match(path):
            return kind
    return None


def check_request(
    req: Request,
    *,
    existing_attachment_ids: Collection[int] | None = None,
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES,
) -> list[str]:
    """Violations of Discord's limits in one request, each prefixed with ``METHOD path``.

    ``existing_attachment_ids``: for edits, the ids of the attachments currently on the message
    (an edit may keep those); when None, references to existing attachments are not checked.
    """
    kind = classify(req.method, req.path)
    body = req.json
    problems: list[str] = []
    if kind in ("message_create", "message_edit"):
        if isinstance(body, dict):
            problems += check_message(
                body,
                creating=kind == "message_create",
                uploads=req.files,
                existing_attachment_ids=existing_attachment_ids,
                allow_ephemeral=req.path.startswith("/webhooks/"),
                max_upload_bytes=max_upload_bytes,
            )
    elif kind == "callback" and isinstance(body, dict):
        problems += _check_callback(body, req.files, existing_attachment_ids, max_upload_bytes)
    elif kind == "thread" and isinstance(body, dict):
        problems += _check_thread(body)
    elif kind == "channel_edit" and isinstance(body, dict):
        name = body.get("name")
        if isinstance(name, str) and not 1 <= len(name) <= MAX_THREAD_NAME:
            problems.append(f"channel name has {len(name)} characters (1..{MAX_THREAD_NAME})")
    elif kind == "commands":
        if isinstance(body, list):
            for i, cmd in enumerate(body):
                problems += [f"commands[{i}] {p}" for p in _check_command(cmd)]
    elif kind == "command" and isinstance(body, dict):
        problems += _check_command(body)
    return [f"{req.method} {req.path}: {p}" for p in problems]


def _len(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def _check_callback(
    body: JSON, uploads: list[tuple[str, bytes]], existing: Collection[int] | None, max_upload_bytes: int
) -> list[str]:
    ctype = body.get("type")
    data = body.get("data")
    if ctype in (4, 7):
        if not isinstance(data, dict):
            return [f"callback type {ctype} needs a data object"] if ctype == 4 else []
        return [
            f"data: {p}"
            for p in check_message(
                data,
                creating=ctype == 4,
                uploads=uploads,
                existing_attachment_ids=existing,
                allow_ephemeral=True,
                max_upload_bytes=max_upload_bytes,
            )
        ]
    if ctype == 8:
        return [f"data: {p}" for p in _check_choices((data or {}).get("choices"))]
    if ctype == 9:
        return [f"data: {p}" for p in _check_modal(data if isinstance(data, dict) else {})]
    return []


def check_message(
    body: JSON,
    *,
    creating: bool,
    uploads: list[tuple[str, bytes]] | None = None,
    existing_attachment_ids: Collection[int] | None = None,
    allow_ephemeral: bool = True,
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_BYTES,
) -> list[str]:
    """Violations in one message body (create or edit)."""
    uploads = uploads or []
    problems: list[str] = []
    flags = body.get("flags") or 0
    v2 = bool(int(flags) & FLAG_IS_COMPONENTS_V2)
    content = body.get("content")
    if content is not None and not isinstance(content, str):
        content = str(content)
    if content and len(content) > MAX_CONTENT:
        problems.append(f"content has {len(content)} characters (max {MAX_CONTENT})")
    nonce = body.get("nonce")
    if isinstance(nonce, str) and len(nonce) > MAX_NONCE:
        problems.append(f"nonce has {len(nonce)} characters (max {MAX_NONCE})")
    if int(flags) & FLAG_EPHEMERAL and not allow_ephemeral:
        problems.append(
            "ephemeral flag on a channel message (ephemeral messages exist only as interaction replies)"
        )
    embeds = body.get("embeds") or []
    if v2 and (content or embeds):
        problems.append("a Components V2 message (flag IS_COMPONENTS_V2) cannot have content or embeds")
    problems += _check_embeds(embeds)
    components = body.get("components") or []
    problems += _check_components(components, v2=v2)
    problems += _check_attachments(body.get("attachments"), uploads, existing_attachment_ids, creating)
    if len(uploads) > MAX_FILES:
        problems.append(f"{len(uploads)} files uploaded (max {MAX_FILES})")
    for name, data in uploads:
        if not name:
            problems.append("an uploaded file has no filename")
        if len(data) > max_upload_bytes:
            problems.append(f"file {name!r} has {len(data)} bytes (max {max_upload_bytes}){TOO_LARGE_MARK}")
    if creating and not (
        content or embeds or components or uploads or body.get("sticker_ids") or body.get("poll")
    ):
        problems.append("empty message: no content, embeds, components, files, stickers or poll")
    return problems


def _check_embeds(embeds: list[Any]) -> list[str]:
    problems: list[str] = []
    if len(embeds) > MAX_EMBEDS:
        problems.append(f"{len(embeds)} embeds (max {MAX_EMBEDS})")
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            problems.append(f"embeds[{i}] is not an object")
            continue
        where = f"embeds[{i}]"
        title = _len(embed.get("title"))
        description = _len(embed.get("description"))
        footer = _len((embed.get("footer") or {}).get("text"))
        author = _len((embed.get("author") or {}).get("name"))
        if title > MAX_EMBED_TITLE:
            problems.append(f"{where}.title has {title} characters (max {MAX_EMBED_TITLE})")
        if description > MAX_EMBED_DESCRIPTION:
            problems.append(f"{where}.description has {description} characters (max {MAX_EMBED_DESCRIPTION})")
        if footer > MAX_FOOTER_TEXT:
            problems.append(f"{where}.footer.text has {footer} characters (max {MAX_FOOTER_TEXT})")
        if author > MAX_AUTHOR_NAME:
            problems.append(f"{where}.author.name has {author} characters (max {MAX_AUTHOR_NAME})")
        total += title + description + footer + author
        fields = embed.get("fields") or []
        if len(fields) > MAX_EMBED_FIELDS:
            problems.append(f"{where} has {len(fields)} fields (max {MAX_EMBED_FIELDS})")
        for j, fld in enumerate(fields):
            name = fld.get("name")
            value = fld.get("value")
            if not isinstance(name, str) or not 1 <= len(name) <= MAX_FIELD_NAME:
                problems.append(f"{where}.fields[{j}].name must have 1..{MAX_FIELD_NAME} characters")
            if not isinstance(value, str) or not 1 <= len(value) <= MAX_FIELD_VALUE:
                problems.append(f"{where}.fields[{j}].value must have 1..{MAX_FIELD_VALUE} characters")
            total += _len(name) + _len(value)
    if total > MAX_EMBED_TOTAL:
        problems.append(f"embeds have {total} characters in total (max {MAX_EMBED_TOTAL})")
    return problems


def _walk(components: Iterable[Any], path: str) -> Iterable[tuple[JSON, str, int]]:
    """(component, path, depth) for every nested component."""
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            continue
        here = f"{path}[{i}]"
        yield comp, here, here.count("[")
        ctype = comp.get("type")
        if ctype in (1, 17, 9):
            yield from _walk(comp.get("components") or [], f"{here}.components")
        if ctype == 9 and isinstance(comp.get("accessory"), dict):
            yield comp["accessory"], f"{here}.accessory", here.count("[") + 1
        if ctype == 18 and isinstance(comp.get("component"), dict):
            yield comp["component"], f"{here}.component", here.count("[") + 1


def _check_components(components: list[Any], *, v2: bool) -> list[str]:
    problems: list[str] = []
    if not v2:
        if len(components) > MAX_ACTION_ROWS:
            problems.append(f"{len(components)} action rows (max {MAX_ACTION_ROWS})")
        for i, row in enumerate(components):
            if not isinstance(row, dict) or row.get("type") != 1:
                problems.append(
                    f"components[{i}] is not an action row (other top-level components need the "
                    "IS_COMPONENTS_V2 flag)"
                )
    else:
        total = sum(1 for _ in _walk(components, "components"))
        if total > MAX_V2_COMPONENTS:
            problems.append(f"{total} components in total (max {MAX_V2_COMPONENTS})")
        text = sum(
            _len(c.get("content")) for c, _, _ in _walk(components, "components") if c.get("type") == 10
        )
        if text > MAX_V2_TEXT:
            problems.append(f"text displays have {text} characters in total (max {MAX_V2_TEXT})")
    seen: dict[str, str] = {}
    for comp, where, _depth in _walk(components, "components"):
        ctype = comp.get("type")
        if ctype == 1:
            children = comp.get("components") or []
            if not 1 <= len(children) <= MAX_ROW_COMPONENTS:
                problems.append(f"{where} has {len(children)} components (1..{MAX_ROW_COMPONENTS})")
            selects = [c for c in children if isinstance(c, dict) and c.get("type") in SELECT_TYPES]
            if selects and len(children) > 1:
                problems.append(f"{where}: a select menu must be alone in its action row")
        elif ctype == 2:
            problems += _check_button(comp, where)
        elif ctype in SELECT_TYPES:
            problems += _check_select(comp, where)
        custom_id = comp.get("custom_id")
        if custom_id is not None:
            if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= MAX_CUSTOM_ID:
                problems.append(
                    f"{where}.custom_id has {_len(custom_id)} characters (1..{MAX_CUSTOM_ID}): {custom_id!r:.60}"
                )
            elif custom_id in seen:
                problems.append(f"{where}.custom_id {custom_id!r} is also used by {seen[custom_id]}")
            else:
                seen[custom_id] = where
    return problems


def _check_button(comp: JSON, where: str) -> list[str]:
    problems: list[str] = []
    style = comp.get("style")
    label = comp.get("label")
    if _len(label) > MAX_BUTTON_LABEL:
        problems.append(f"{where}.label has {_len(label)} characters (max {MAX_BUTTON_LABEL})")
    if style == 5:
        if not comp.get("url"):
            problems.append(f"{where}: a link button needs a url")
        if comp.get("custom_id") is not None:
            problems.append(f"{where}: a link button cannot have a custom_id")
    elif style == 6:
        if not comp.get("sku_id"):
            problems.append(f"{where}: a premium button needs a sku_id")
        for key in ("custom_id", "label", "url", "emoji"):
            if comp.get(key) is not None:
                problems.append(f"{where}: a premium button cannot have {key}")
    elif style in (1, 2, 3, 4):
        if comp.get("custom_id") is None:
            problems.append(f"{where}: a non-link button needs a custom_id")
        if comp.get("url") is not None:
            problems.append(f"{where}: only link buttons have a url")
    else:
        problems.append(f"{where}: invalid button style {style!r}")
    if style != 6 and not label and not comp.get("emoji"):
        problems.append(f"{where}: a button needs a label or an emoji")
    return problems


def _check_select(comp: JSON, where: str) -> list[str]:
    problems: list[str] = []
    if comp.get("custom_id") is None:
        problems.append(f"{where}: a select menu needs a custom_id")
    placeholder = _len(comp.get("placeholder"))
    if placeholder > MAX_PLACEHOLDER:
        problems.append(f"{where}.placeholder has {placeholder} characters (max {MAX_PLACEHOLDER})")
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if min_values is not None and not 0 <= min_values <= 25:
        problems.append(f"{where}.min_values {min_values} outside 0..25")
    if max_values is not None and not 1 <= max_values <= 25:
        problems.append(f"{where}.max_values {max_values} outside 1..25")
    if min_values is not None and max_values is not None and min_values > max_values:
        problems.append(f"{where}: min_values {min_values} > max_values {max_values}")
    if comp.get("type") == 3:
        options = comp.get("options") or []
        if not 1 <= len(options) <= MAX_SELECT_OPTIONS:
            problems.append(f"{where} has {len(options)} options (1..{MAX_SELECT_OPTIONS})")
        if max_values is not None and options and max_values > len(options):
            problems.append(f"{where}: max_values {max_values} > {len(options)} options")
        values: set[str] = set()
        defaults = 0
        for k, opt in enumerate(options):
            label = opt.get("label")
            value = opt.get("value")
            if not isinstance(label, str) or not 1 <= len(label) <= MAX_OPTION_TEXT:
                problems.append(f"{where}.options[{k}].label must have 1..{MAX_OPTION_TEXT} characters")
            if not isinstance(value, str) or not 1 <= len(value) <= MAX_OPTION_TEXT:
                problems.append(f"{where}.options[{k}].value must have 1..{MAX_OPTION_TEXT} characters")
            elif value in values:
                problems.append(f"{where}.options[{k}].value {value!r} is duplicated")
            else:
                values.add(value)
            if _len(opt.get("description")) > MAX_OPTION_TEXT:
                problems.append(f"{where}.options[{k}].description longer than {MAX_OPTION_TEXT}")
            defaults += bool(opt.get("default"))
        if max_values is not None and defaults > max_values:
            problems.append(f"{where}: {defaults} default options > max_values {max_values}")
    return problems


def _check_attachments(
    attachments: Any,
    uploads: list[tuple[str, bytes]],
    existing: Collection[int] | None,
    creating: bool,
) -> list[str]:
    if not attachments:
        return []
    problems: list[str] = []
    if len(attachments) > MAX_FILES:
        problems.append(f"{len(attachments)} attachments (max {MAX_FILES})")
    for i, att in enumerate(attachments):
        if not isinstance(att, dict) or "id" not in att:
            problems.append(f"attachments[{i}] has no id")
            continue
        try:
            aid = int(att["id"])
        except (TypeError, ValueError):
            problems.append(f"attachments[{i}].id {att['id']!r} is not a number")
            continue
        description = att.get("description")
        if description is not None and _len(description) > MAX_ATTACHMENT_DESCRIPTION:
            problems.append(
                f"attachments[{i}].description has {_len(description)} characters "
                f"(max {MAX_ATTACHMENT_DESCRIPTION})"
            )
        if aid < _UPLOAD_INDEX_LIMIT:
            if aid >= len(uploads):
                problems.append(f"attachments[{i}].id {aid} refers to files[{aid}], which was not uploaded")
        elif creating:
            problems.append(f"attachments[{i}].id {aid} refers to an existing attachment in a new message")
        elif existing is not None and aid not in existing:
            problems.append(f"attachments[{i}].id {aid} is not an attachment of this message")
    return problems


def _check_thread(body: JSON) -> list[str]:
    problems: list[str] = []
    name = body.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_THREAD_NAME:
        problems.append(f"thread name has {_len(name)} characters (1..{MAX_THREAD_NAME})")
    duration = body.get("auto_archive_duration")
    if duration is not None and duration not in THREAD_ARCHIVE_DURATIONS:
        problems.append(f"auto_archive_duration {duration} not one of {THREAD_ARCHIVE_DURATIONS}")
    return problems


def _check_choices(choices: Any) -> list[str]:
    problems: list[str] = []
    choices = choices or []
    if len(choices) > MAX_AUTOCOMPLETE_CHOICES:
        problems.append(f"{len(choices)} choices (max {MAX_AUTOCOMPLETE_CHOICES})")
    for i, choice in enumerate(choices):
        if not 1 <= _len(choice.get("name")) <= 100:
            problems.append(f"choices[{i}].name must have 1..100 characters")
        value = choice.get("value")
        if isinstance(value, str) and len(value) > 100:
            problems.append(f"choices[{i}].value has {len(value)} characters (max 100)")
    return problems


def _check_modal(data: JSON) -> list[str]:
    problems: list[str] = []
    title = data.get("title")
    if not 1 <= _len(title) <= MAX_MODAL_TITLE:
        problems.append(f"modal title must have 1..{MAX_MODAL_TITLE} characters")
    custom_id = data.get("custom_id")
    if not 1 <= _len(custom_id) <= MAX_CUSTOM_ID:
        problems.append(f"modal custom_id must have 1..{MAX_CUSTOM_ID} characters")
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        problems.append(f"modal has {len(components)} top-level components (1..5)")
    for comp, where, _depth in _walk(components, "components"):
        ctype = comp.get("type")
        if ctype == 18 and _len(comp.get("label")) > 45:
            problems.append(f"{where}.label longer than 45")
        if ctype == 4:
            if _len(comp.get("label")) > 45:
                problems.append(f"{where}.label longer than 45")
            if _len(comp.get("value")) > 4000:
                problems.append(f"{where}.value longer than 4000")
            if _len(comp.get("placeholder")) > 100:
                problems.append(f"{where}.placeholder longer than 100")
            for key in ("min_length", "max_length"):
                value = comp.get(key)
                if value is not None and not 0 <= value <= 4000:
                    problems.append(f"{where}.{key} {value} outside 0..4000")
        if comp.get("custom_id") is not None and not 1 <= _len(comp.get("custom_id")) <= MAX_CUSTOM_ID:
            problems.append(f"{where}.custom_id must have 1..{MAX_CUSTOM_ID} characters")
    return problems


def _check_command(cmd: Any) -> list[str]:
    if not isinstance(cmd, dict):
        return ["is not an object"]
    problems: list[str] = []
    ctype = cmd.get("type", 1)
    name = cmd.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        problems.append(f"name {name!r} must have 1..32 characters")
    elif ctype == 1 and (not _COMMAND_NAME.match(name) or name != name.lower()):
        problems.append(f"name {name!r} must be lowercase letters, digits, - _ or '")
    description = cmd.get("description", "")
    if ctype == 1 and not 1 <= _len(description) <= 100:
        problems.append(f"{name}: description must have 1..100 characters")
    problems += _check_options(cmd.get("options") or [], str(name))
    total = _command_chars(cmd)
    if total > 4000:
        problems.append(f"{name}: {total} characters in names, descriptions and choices (max 4000)")
    return problems


def _check_options(options: list[JSON], where: str) -> list[str]:
    problems: list[str] = []
    if len(options) > 25:
        problems.append(f"{where}: {len(options)} options (max 25)")
    optional_seen = False
    for opt in options:
        oname = opt.get("name")
        here = f"{where} {oname}"
        if not isinstance(oname, str) or not _COMMAND_NAME.match(oname) or oname != oname.lower():
            problems.append(f"{here}: option name must be 1..32 lowercase characters")
        if not 1 <= _len(opt.get("description")) <= 100:
            problems.append(f"{here}: option description must have 1..100 characters")
        if opt.get("type") in (1, 2):
            problems += _check_options(opt.get("options") or [], here)
            continue
        if opt.get("required"):
            if optional_seen:
                problems.append(f"{here}: required options must come before optional ones")
        else:
            optional_seen = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            problems.append(f"{here}: {len(choices)} choices (max 25)")
        for choice in choices:
            if not 1 <= _len(choice.get("name")) <= 100:
                problems.append(f"{here}: choice name must have 1..100 characters")
            if isinstance(choice.get("value"), str) and len(choice["value"]) > 100:
                problems.append(f"{here}: choice value longer than 100")
    return problems


def _command_chars(node: JSON) -> int:
    total = _len(node.get("name")) + _len(node.get("description"))
    for choice in node.get("choices") or []:
        total += _len(choice.get("name")) + _len(str(choice.get("value", "")))
    for opt in node.get("options") or []:
        total += _command_chars(opt)
    return total
