"""Typed (or piped) lines for the sandbox, read without stopping the event loop.

``input()`` on the event loop's thread stops the bot while the prompt waits: nothing the bot does by
itself (an analysis computed after a match, then posted) could happen before the next line. A
``LineReader`` reads each line in a thread of its own, with readline's line editing and history on a
terminal (``input()`` in that thread has them), and hands it to the loop. What the bot does meanwhile
is printed with ``say``, above the prompt, which is then shown again with the line typed so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TextIO

_CLEAR_LINE = "\r\x1b[K"


def _typed_so_far() -> str:
    """What readline holds of the line being typed ("" without readline)."""
    try:
        import readline
    except ImportError:
        return ""
    return readline.get_line_buffer()


class LineReader:
    """The lines of ``stream`` (standard input by default), one at a time, read in a thread; at a
    terminal with ``prompt`` shown before each."""

    def __init__(self, prompt: str, stream: TextIO | None = None, output: TextIO | None = None) -> None:
        self.prompt = prompt
        self.stream = stream or sys.stdin
        self.output = output or sys.stdout
        self.terminal = self.stream.isatty()
        # Printing above the prompt takes a terminal to show it on too (not output sent to a file).
        self._redraws = self.terminal and self.output.isatty()
        self._pending: asyncio.Future[str | None] | None = None
        self._waiting = False

    async def readline(self) -> str | None:
        """The next line without its line break; None at the end of the input (Ctrl-D)."""
        loop = asyncio.get_running_loop()
        pending = self._pending
        if pending is None:
            pending = self._pending = loop.create_future()
            threading.Thread(
                target=self._read, args=(loop, pending), name="sandbox-input", daemon=True
            ).start()
        self._waiting = True
        try:
            with self._ctrl_c_shows_the_prompt_again(loop):
                # Shielded: a cancelled wait leaves the line being typed to the next one.
                return await asyncio.shield(pending)
        finally:
            self._waiting = False
            if pending.done():
                self._pending = None

    async def lines(self) -> AsyncIterator[str]:
        """Every line up to the end of the input."""
        while (line := await self.readline()) is not None:
            yield line

    def _read(self, loop: asyncio.AbstractEventLoop, pending: asyncio.Future[str | None]) -> None:
        line: str | None
        try:
            if self.terminal:
                line = input(self.prompt)
            else:
                raw = self.stream.readline()
                line = raw.removesuffix("\n") if raw else None
        except EOFError:
            line = None
        except Exception as exc:  # handed to the loop, where it is raised by readline()
            _hand_over(loop, pending.set_exception, exc)
            return
        _hand_over(loop, pending.set_result, line)

    def say(self, text: str) -> None:
        """Print ``text``; while the prompt waits at a terminal, above it, showing it again after."""
        if not (self._waiting and self._redraws):
            print(text, file=self.output, flush=True)
            return
        self.output.write(f"{_CLEAR_LINE}{text}\n{self.prompt}{_typed_so_far()}")
        self.output.flush()

    @contextlib.contextmanager
    def _ctrl_c_shows_the_prompt_again(self, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
        """At a terminal, Ctrl-C while the prompt waits does what it did with ``input()`` on the
        loop: nothing but a fresh line (the reading thread cannot be interrupted, so what was typed
        stays). Elsewhere, and while a command runs, Ctrl-C keeps its usual meaning."""
        if not self.terminal or threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = signal.getsignal(signal.SIGINT)

        def interrupted(signum: int, frame: Any) -> None:
            loop.call_soon_threadsafe(self.say, "")

        signal.signal(signal.SIGINT, interrupted)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)


def _hand_over(loop: asyncio.AbstractEventLoop, setter: Callable[[Any], None], value: Any) -> None:
    """Call ``setter(value)`` on the loop's thread, unless the wait was given up or the loop closed."""

    def settle() -> None:
        with contextlib.suppress(asyncio.InvalidStateError):
            setter(value)

    with contextlib.suppress(RuntimeError):  # the loop closed: the sandbox has ended
        loop.call_soon_threadsafe(settle)
