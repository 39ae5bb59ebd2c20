"""Which asyncio tasks belong to which injected interaction, and the errors the bot logs meanwhile.

Every task created while discord.py handles an injected interaction (and the tasks those create)
carries the interaction's :class:`_Tracker` in a context variable (``FakeDiscord`` installs a task
factory), so a test can wait for a multi-step reply (defer, then followup) without sleeping.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fake import FakeDiscord

_CURRENT: contextvars.ContextVar[_Tracker | None] = contextvars.ContextVar(
    "fakediscord_interaction", default=None
)


def _is_background(task: asyncio.Task[Any]) -> bool:
    """Long-lived tasks a handler starts that are not part of "handling" (view timeouts)."""
    coro = task.get_coro()
    name = getattr(coro, "__qualname__", "") or ""
    return "timeout_task_impl" in name


class _Tracker:
    """The tasks and pending gateway deliveries belonging to one injected interaction."""

    def __init__(self, fake: FakeDiscord, interaction_id: int, *, trackable: bool = True) -> None:
        self.fake = fake
        self.interaction_id = interaction_id
        self.trackable = trackable
        self.tasks: set[asyncio.Task[Any]] = set()
        #: tasks of ``tasks`` not done yet, background ones (view timeouts) not counted
        self.running = 0
        self.pending = 0
        self.errors: list[logging.LogRecord] = []
        self.raised = 0

    def add(self, task: asyncio.Task[Any]) -> None:
        self.tasks.add(task)
        if not _is_background(task):
            self.running += 1
            task.add_done_callback(self._done)
        else:
            task.add_done_callback(self._background_done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self.running -= 1
        self.fake._notify()

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        self.fake._notify()

    def busy(self) -> list[asyncio.Task[Any]]:
        return [t for t in self.tasks if not t.done() and not _is_background(t)]

    def idle(self) -> bool:
        """No handler task running and no gateway delivery pending (cheap: checked very often)."""
        return self.running == 0 and self.pending == 0


class _ErrorCollector(logging.Handler):
    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__(logging.ERROR)
        self.fake = fake

    def emit(self, record: logging.LogRecord) -> None:
        self.fake.errors.append(record)
        tracker = _CURRENT.get()
        if tracker is not None:
            tracker.errors.append(record)
        self.fake._notify()


def _format_records(records: Iterable[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(name)s: %(message)s")
    return "\n".join(formatter.format(r) for r in records)
