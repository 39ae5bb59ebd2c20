"""Validate recorded requests against Discord's own OpenAPI description (OpenAPI 3.1).

The spec ships with the repository, in ``fakediscord/discord-api-spec/`` (Discord's file unchanged,
with its MIT license and where it came from), so every checkout validates against it. The
``DISCORD_API_SPEC`` environment variable names another copy (a newer one, say). When the file is
missing, ``SPEC_AVAILABLE`` is False and ``SPEC_UNAVAILABLE_REASON`` says why (the tests of the spec
itself then skip with it, or fail under CI); the checks of ``limits.py`` do not depend on the spec.

The spec is loaded, and each operation's request schema compiled, lazily and once per process.
Known places where the spec is stricter than Discord (and than discord.py's real payloads) are
relaxed narrowly in :func:`_relax`, each with the reason.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .world import Request

JSON = dict[str, Any]

SPEC_ENV = "DISCORD_API_SPEC"
VENDORED_SPEC = Path(__file__).resolve().parent / "discord-api-spec" / "openapi.json"
_SPEC_URI = "urn:discord:openapi"
_MAX_MESSAGE = 300


def find_spec() -> tuple[Path | None, str]:
    """(path, "") when the spec is found, else (None, reason)."""
    env = os.environ.get(SPEC_ENV)
    if env:
        path = Path(env)
        if path.is_file():
            return path, ""
        return None, f"{SPEC_ENV}={env} does not name a file"
    if VENDORED_SPEC.is_file():
        return VENDORED_SPEC, ""
    return None, (
        f"Discord's OpenAPI spec is not available: {VENDORED_SPEC} is missing (restore it from the "
        f"repository, or set {SPEC_ENV} to openapi.json from github.com/discord/discord-api-spec)"
    )


SPEC_PATH, SPEC_UNAVAILABLE_REASON = find_spec()
SPEC_AVAILABLE = SPEC_PATH is not None


class SpecUnavailable(RuntimeError):
    pass


@dataclass
class Operation:
    method: str
    template: str
    pattern: re.Pattern[str]
    literal_segments: int
    operation_id: str
    body_schema_ref: str | None
    body_required: bool


def _relax(spec: JSON) -> None:
    """Narrow exceptions where the spec is stricter than what Discord accepts."""
    schemas = spec["components"]["schemas"]
    # Snowflakes: the spec says "numeric string" (SnowflakeType), but Discord accepts JSON integers
    # for snowflakes and discord.py 2.7 sends integers. Seen with real payloads: attachments[].id
    # (the upload index, 0, 1, ... of every file upload) and allowed_mentions.users / .roles
    # (discord.AllowedMentions(users=[member])). Without this, every upload and every targeted
    # mention would be reported.
    schemas["SnowflakeType"] = {"anyOf": [schemas["SnowflakeType"], {"type": "integer", "minimum": 0}]}


class OpenApiValidator:
    def __init__(self, path: Path) -> None:
        from jsonschema import Draft202012Validator
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        self.path = path
        with path.open(encoding="utf-8") as fh:
            spec: JSON = json.load(fh)
        _relax(spec)
        self.operations: list[Operation] = []
        schemas = spec["components"]["schemas"]
        for template, item in spec.get("paths", {}).items():
            for method, op in item.items():
                if method not in ("get", "put", "post", "patch", "delete"):
                    continue
                ref = None
                body = op.get("requestBody")
                required = False
                if body:
                    content: dict[str, Any] = body.get("content", {})
                    media: dict[str, Any] = content.get("application/json") or next(
                        iter(content.values()), {}
                    )
                    schema = media.get("schema")
                    if schema is not None:
                        name = f"__request_{op.get('operationId') or len(self.operations)}"
                        schemas[name] = schema
                        ref = f"{_SPEC_URI}#/components/schemas/{name}"
                    required = bool(body.get("required"))
                regex = ""
                literal = 0
                for segment in template.strip("/").split("/"):
                    if segment.startswith("{") and segment.endswith("}"):
                        regex += "/[^/]+"
                    else:
                        regex += "/" + re.escape(segment)
                        literal += 1
                self.operations.append(
                    Operation(
                        method.upper(),
                        template,
                        re.compile(f"^{regex}$"),
                        literal,
                        op.get("operationId", ""),
                        ref,
                        required,
                    )
                )
        # Prefer the most specific template (.../messages/@original over .../messages/{message_id}).
        self.operations.sort(key=lambda o: -o.literal_segments)
        resource = Resource.from_contents(spec, default_specification=DRAFT202012)
        self._registry = Registry().with_resource(_SPEC_URI, resource)
        self._validator_cls = Draft202012Validator
        self._validators: dict[str, Any] = {}

    def operation_for(self, method: str, path: str) -> Operation | None:
        for op in self.operations:
            if op.method == method and op.pattern.match(path):
                return op
        return None

    def _validator(self, ref: str) -> Any:
        validator = self._validators.get(ref)
        if validator is None:
            validator = self._validator_cls({"$ref": ref}, registry=self._registry)
            self._validators[ref] = validator
        return validator

    def validate(self, method: str, path: str, body: Any) -> list[str]:
        """Problems of one request body (empty when it validates)."""
        op = self.operation_for(method, path)
        where = f"{method} {path}"
        if op is None:
            return [f"{where}: no operation for this method and path in Discord's OpenAPI spec"]
        where = f"{method} {op.template}"
        if op.body_schema_ref is None:
            return []
        if body is None:
            return [f"{where}: request body is required"] if op.body_required else []
        validator = self._validator(op.body_schema_ref)
        problems = []
        for error in validator.iter_errors(body):
            for leaf in _leaf_errors(error):
                problems.append(f"{where}: {_json_path(leaf.absolute_path)}: {_describe(leaf)}")
        return sorted(set(problems))


def _json_path(path: Iterable[Any]) -> str:
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _short_repr(instance: Any) -> str:
    if isinstance(instance, str):
        return repr(instance) if len(instance) <= 40 else f"{instance[:30]!r}... ({len(instance)} characters)"
    if isinstance(instance, list):
        return f"[array of {len(instance)} items]"
    if isinstance(instance, dict):
        keys = ", ".join(list(instance)[:6])
        return f"{{object with keys {keys}}}"
    return repr(instance)


def _describe(error: Any) -> str:
    """jsonschema's message with the (possibly huge) instance shortened."""
    message = str(error.message)
    full = repr(error.instance)
    if full in message and len(full) > 40:
        message = message.replace(full, _short_repr(error.instance))
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 3] + "..."


def _is_discriminator_miss(sub: Any, parent: Any) -> bool:
    """A oneOf/anyOf branch that fails on the discriminating ``type`` field, or on the JSON type."""
    rel = list(sub.absolute_path)[len(list(parent.absolute_path)) :]
    if sub.validator == "type" and not rel:
        return True
    return rel == ["type"] and sub.validator in ("enum", "const")


def _leaf_errors(error: Any) -> list[Any]:
    """The errors that explain a failure, drilling into the matching branch of anyOf/oneOf.

    A branch whose discriminating ``type`` (or JSON type) does not match is ignored; when several
    branches remain (e.g. the two webhook message schemas), the one with the fewest problems is
    reported.
    """
    if error.validator in ("anyOf", "oneOf") and error.context:
        branches: dict[Any, list[Any]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        viable = [
            subs for subs in branches.values() if not any(_is_discriminator_miss(s, error) for s in subs)
        ]
        if viable:
            candidates = []
            for subs in viable:
                leaves: list[Any] = []
                for sub in subs:
                    leaves += _leaf_errors(sub)
                candidates.append(leaves)
            return min(candidates, key=len)
    return [error]


@functools.cache
def get_validator(path: Path | None = None) -> OpenApiValidator:
    path = path or SPEC_PATH
    if path is None:
        raise SpecUnavailable(SPEC_UNAVAILABLE_REASON)
    return OpenApiValidator(path)


def validate_request(req: Request) -> list[str]:
    """Spec problems of one recorded request ([] when the spec is unavailable)."""
    if not SPEC_AVAILABLE:
        return []
    return get_validator().validate(req.method, req.path, req.json)
