"""Discord's error answers: :class:`ApiError` (status, code, message, field errors) and the common ones."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


class ApiError(Exception):
    """A Discord API error: HTTP status, Discord error code, message and optional field errors."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {message} (code {code})")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> JSON:
        data: JSON = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


def invalid_form(field: str, message: str, code: str = "BASE_TYPE_INVALID") -> ApiError:
    errors: JSON = {}
    node = errors
    parts = field.split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = {"_errors": [{"code": code, "message": message}]}
    return ApiError(400, 50035, "Invalid Form Body", errors)


UNKNOWN_CHANNEL = (404, 10003, "Unknown Channel")
UNKNOWN_MESSAGE = (404, 10008, "Unknown Message")
MISSING_ACCESS = (403, 50001, "Missing Access")
MISSING_PERMISSIONS = (403, 50013, "Missing Permissions")


def _err(spec: tuple[int, int, str]) -> ApiError:
    return ApiError(*spec)
