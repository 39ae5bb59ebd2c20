"""Matching a request's method and path to a handler, and the :class:`RestResult` a handler returns."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..world import FakeMessage, Request
from .errors import ApiError

JSON = dict[str, Any]
Emit = Callable[[str, JSON], None]
Handler = Callable[[Request, dict[str, str]], "RestResult"]


@dataclass
class RestResult:
    status: int
    body: Any
    kind: str | None = None
    message: FakeMessage | None = None
    interaction_id: int | None = None
    unhandled: bool = False


def truthy(value: str | None) -> bool:
    return value is not None and value.lower() in ("1", "true", "yes")


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ApiError(404, 0, "404: Not Found") from None


@dataclass
class _Route:
    method: str
    pattern: re.Pattern[str]
    template: str
    name: str
    handler: Handler


class Router:
    """The route table: ``_add`` a handler for a path template, ``match`` and ``handle`` requests."""

    routes: list[_Route]

    def _add(self, method: str, template: str, name: str, handler: Handler) -> None:
        regex = ""
        for piece in re.split(r"(\{\w+\})", template):
            if piece.startswith("{"):
                regex += f"(?P<{piece[1:-1]}>[^/]+)"
            else:
                regex += re.escape(piece)
        self.routes.append(_Route(method, re.compile(f"^{regex}$"), template, name, handler))

    def match(self, method: str, path: str) -> tuple[_Route, dict[str, str]] | None:
        for route in self.routes:
            if route.method == method:
                m = route.pattern.match(path)
                if m:
                    return route, m.groupdict()
        return None

    def handle(self, req: Request) -> RestResult:
        found = self.match(req.method, req.path)
        if found is None:
            return RestResult(404, {"message": "404: Not Found", "code": 0}, unhandled=True)
        route, params = found
        req.route = f"{route.method} {route.template}"
        try:
            result = route.handler(req, params)
        except ApiError as exc:
            return RestResult(exc.status, exc.body(), kind=route.name)
        if result.kind is None:
            result.kind = route.name
        return result
