"""The in-process HTTP recorder: discord.py's two request paths and its CDN download, replaced.

``discord.http.HTTPClient.request`` carries bot-token REST, ``AsyncWebhookAdapter.request`` carries
interaction callbacks, followups and edits of the original response; both are answered by the
installed :class:`~fakediscord.fake.FakeDiscord`, and its error answers become discord.py's usual
``HTTPException`` family.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import discord
import yarl
from discord.http import HTTPClient, Route
from discord.webhook.async_ import AsyncWebhookAdapter

if TYPE_CHECKING:
    from .fake import FakeDiscord

_INSTALLED: FakeDiscord | None = None
_API_PREFIX = re.compile(r"^/api/v\d+")


class _FakeResponse:
    """What discord.HTTPException reads from a response (status, reason)."""

    def __init__(self, status: int, method: str, url: str) -> None:
        self.status = status
        self.reason = _REASONS.get(status, "Error")
        self.method = method
        self.url = url
        self.headers: dict[str, str] = {"Content-Type": "application/json"}


_REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
}


def _raise_http_error(status: int, data: Any, method: str, url: str) -> None:
    response: Any = _FakeResponse(status, method, url)
    if status == 403:
        raise discord.Forbidden(response, data)
    if status == 404:
        raise discord.NotFound(response, data)
    if status >= 500:
        raise discord.DiscordServerError(response, data)
    raise discord.HTTPException(response, data)


def _read_multipart(
    form: Iterable[Mapping[str, Any]] | None, files: Sequence[discord.File] | None
) -> tuple[Any, list[tuple[str, bytes]]]:
    for file in files or []:
        file.reset(seek=True)
    payload: Any = None
    uploads: list[tuple[int, str, bytes]] = []
    for entry in form or []:
        name = str(entry.get("name"))
        value = entry.get("value")
        if name == "payload_json":
            payload = json.loads(value) if isinstance(value, str | bytes) else value
        elif name.startswith("files["):
            index = int(name[6:-1])
            data = value.read() if value is not None and hasattr(value, "read") else bytes(value or b"")
            uploads.append((index, str(entry.get("filename") or ""), bytes(data)))
    uploads.sort(key=lambda u: u[0])
    return payload, [(name, data) for _, name, data in uploads]


def installed_fake() -> FakeDiscord | None:
    """The FakeDiscord that discord.py in this process talks to, if any."""
    return _INSTALLED


def _installed() -> FakeDiscord:
    if _INSTALLED is None:
        raise RuntimeError("no FakeDiscord is installed")
    return _INSTALLED


def patch_discord_py(fake: FakeDiscord) -> tuple[Any, Any, Any]:
    """Send discord.py's requests in this process to ``fake``; returns what :func:`unpatch_discord_py` restores."""
    global _INSTALLED
    saved = (HTTPClient.request, AsyncWebhookAdapter.request, HTTPClient.get_from_cdn)
    HTTPClient.request = _http_request  # type: ignore[method-assign, assignment]
    AsyncWebhookAdapter.request = _webhook_request  # type: ignore[method-assign, assignment]
    HTTPClient.get_from_cdn = _get_from_cdn  # type: ignore[method-assign, assignment]
    _INSTALLED = fake
    return saved


def unpatch_discord_py(saved: tuple[Any, Any, Any]) -> None:
    """Give discord.py its own request functions back."""
    global _INSTALLED
    HTTPClient.request, AsyncWebhookAdapter.request, HTTPClient.get_from_cdn = saved  # type: ignore[method-assign]
    _INSTALLED = None


async def _http_request(
    client: HTTPClient,
    route: Route,
    *,
    files: Sequence[discord.File] | None = None,
    form: Iterable[dict[str, Any]] | None = None,
    **kwargs: Any,
) -> Any:
    fake = _installed()
    body = kwargs.get("json")
    uploads: list[tuple[str, bytes]] = []
    if form:
        body, uploads = _read_multipart(form, files)
    return await fake._transport_request(
        route.method,
        route.url,
        kwargs.get("params"),
        body,
        uploads,
        transport="http",
        authorized=client.token is not None,
    )


async def _webhook_request(
    adapter: AsyncWebhookAdapter,
    route: Route,
    session: Any = None,
    *,
    payload: dict[str, Any] | None = None,
    multipart: list[dict[str, Any]] | None = None,
    proxy: str | None = None,
    proxy_auth: Any = None,
    files: Sequence[discord.File] | None = None,
    reason: str | None = None,
    auth_token: str | None = None,
    params: dict[str, Any] | None = None,
) -> Any:
    fake = _installed()
    body: Any = payload
    uploads: list[tuple[str, bytes]] = []
    if multipart:
        body, uploads = _read_multipart(multipart, files)
    return await fake._transport_request(
        route.method, route.url, params, body, uploads, transport="webhook", authorized=auth_token is not None
    )


async def _get_from_cdn(client: HTTPClient, url: str) -> bytes:
    fake = _installed()
    data = fake.cdn_bytes(url)
    if data is None:
        _raise_http_error(404, "asset not found", "GET", url)
    assert data is not None
    return data


def split_url(url: str, params: Mapping[str, Any] | None = None) -> tuple[str, dict[str, str]]:
    """(path without the /api/vN prefix, query) of a request URL."""
    parsed = yarl.URL(url)
    path = _API_PREFIX.sub("", parsed.path) or "/"
    query = {k: v for k, v in parsed.query.items()}
    for key, value in (params or {}).items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        query[str(key)] = str(value)
    return path, query
