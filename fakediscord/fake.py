"""FakeDiscord: an in-memory Discord that real discord.py talks to.

``install()`` replaces ``discord.http.HTTPClient.request`` (bot-token REST) and
``discord.webhook.async_.AsyncWebhookAdapter.request`` (interaction callbacks, followups, edits of
the original response) with a recorder (``recorder.py``) that answers like Discord from a small
world model (``world.py``, ``rest/``), plus ``HTTPClient.get_from_cdn`` so attachment downloads
work. ``connect(bot)`` logs the bot in for real (``setup_hook`` runs) and feeds READY/GUILD_CREATE
to its parsers; ``slash``/``click``/``select``/``submit_modal``/``autocomplete``
(``interactions.py``) inject INTERACTION_CREATE and wait for the answer.

Every request is checked against Discord's documented limits (``limits.py``; by default a
violating request is refused with Discord's 400 "Invalid Form Body", as Discord would) and, when the
spec file is present, against Discord's OpenAPI schema (``openapi.py``).

Handler tasks are tracked through a context variable and a task factory (``tracking.py``): every
task created while discord.py handles an injected interaction (and the tasks those create) belongs
to it, so ``wait_idle()`` can wait for a multi-step reply (defer, then followup) without sleeping.

This module holds the core: recording and answering requests, delivering events, waiting,
connecting a bot. The helpers tests call live in the mixins ``world_setup.py`` (arranging the world),
``interactions.py`` and ``interaction_data.py`` (acting as users) and ``lookups.py`` (looking at
the result).
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import discord
import yarl

from . import limits, openapi, recorder
from . import payloads as P
from .errors import BotError
from .gateway import Sink, _InProcessSink, _StubGateway
from .interactions import Interactions
from .patience import DEFAULT_WAIT, patient
from .recorder import split_url
from .rest import RestApi, RestResult
from .tracking import _CURRENT, _ErrorCollector, _format_records, _Tracker
from .world import FakeInteraction, Reply, Request, World
from .world_setup import WorldSetup

JSON = dict[str, Any]

_log = logging.getLogger("discord.fakediscord")


@dataclass
class Fault:
    """An injected failure: requests ``method`` to paths matching ``path`` get ``status``."""

    method: str
    path: re.Pattern[str]
    status: int
    times: int | None
    #: the requests it failed, in order
    failed: list[Request] = field(default_factory=list)

    def applies(self, req: Request) -> bool:
        return (
            (self.times is None or self.times > 0)
            and req.method == self.method
            and self.path.search(req.path) is not None
        )

    def hit(self, req: Request) -> None:
        self.failed.append(req)
        if self.times is not None:
            self.times -= 1

    def clear(self) -> None:
        """Serve such requests normally again."""
        self.times = 0


@dataclass
class Gate:
    """Held requests: those ``method`` to paths matching ``path`` wait until ``release`` (a race made
    deterministic: the test decides when Discord answers). ``answered``: Discord has done what they ask
    (a message is posted) and only its answer waits, as when the bot dies before reading it."""

    method: str
    path: re.Pattern[str]
    answered: bool = False
    #: the requests waiting at the gate now
    waiting: list[Request] = field(default_factory=list)
    #: every request that came to it, in order
    came: list[Request] = field(default_factory=list)
    _opened: asyncio.Event = field(default_factory=asyncio.Event)

    def applies(self, req: Request) -> bool:
        return (
            not self._opened.is_set() and req.method == self.method and self.path.search(req.path) is not None
        )

    def release(self) -> None:
        """Let every held request (and every later one) through."""
        self._opened.set()


class FakeDiscord(WorldSetup, Interactions):
    """An in-memory Discord for real discord.py. See the module docstring.

    The world starts with the bot user (id = application id), its owner, one guild
    (``fake.guild``) with @everyone, the bot's managed role and one text channel (``fake.channel``).

    Options: ``bot_permissions`` (the bot role's permissions), ``timeout`` (default wait of the
    helpers, seconds: a bound only a fault reaches, stretched on a slow machine by
    ``fakediscord.patience``), ``reject_invalid`` (answer requests that break Discord's documented limits
    with 400 "Invalid Form Body" like Discord; they are recorded in ``violations`` either way),
    ``validate_openapi`` (check bodies against the spec when it is available), ``gateway_events``
    (send MESSAGE_CREATE/UPDATE/DELETE, THREAD_CREATE, CHANNEL_UPDATE... to connected bots),
    ``raise_bot_errors`` (helpers raise :class:`BotError` when the bot logged an error while handling
    the interaction), ``error_logger`` (logger whose ERROR records are collected), and
    ``response_deadline`` (initial responses later than this many seconds are violations).
    """

    def __init__(
        self,
        *,
        bot_name: str = "ringside",
        application_name: str | None = None,
        guild_name: str = "Test Server",
        channel_name: str = "general",
        bot_permissions: discord.Permissions | int | None = None,
        token: str = "fake-token",
        timeout: float = DEFAULT_WAIT,
        reject_invalid: bool = True,
        validate_openapi: bool = True,
        gateway_events: bool = True,
        raise_bot_errors: bool = True,
        error_logger: str | None = "",
        response_deadline: float | None = 3.0,
    ) -> None:
        self.world = World(
            bot_name=bot_name,
            application_name=application_name,
            bot_permissions=bot_permissions,
            guild_name=guild_name,
            channel_name=channel_name,
        )
        self.rest = RestApi(self.world, self._emit)
        self.token = token
        self.timeout = timeout
        self.reject_invalid = reject_invalid
        self.validate_openapi = validate_openapi
        self.gateway_events = gateway_events
        self.raise_bot_errors = raise_bot_errors
        self.error_logger = error_logger
        self.response_deadline = response_deadline
        #: every request, in order
        self.requests: list[Request] = []
        #: requests to routes the fake does not implement (answered 404)
        self.unhandled: list[Request] = []
        #: violations of Discord's documented limits (limits.py), "METHOD path: problem"
        self.violations: list[str] = []
        #: problems found by validating bodies against Discord's OpenAPI spec (when available)
        self.spec_errors: list[str] = []
        #: ERROR log records (exceptions discord.py caught in the bot's handlers and views, errors the
        #: bot logged itself) from ``error_logger`` ("" = the root logger, None = not collected)
        self.errors: list[logging.LogRecord] = []
        #: gateway commands the bot sent (presence updates, member requests)
        self.gateway_commands: list[JSON] = []
        self._replies: dict[int, list[Reply]] = {}
        self._trackers: dict[int, _Tracker] = {}
        self._sinks: list[Sink] = []
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self._check_scheduled = False
        self._log_handler = _ErrorCollector(self)
        self._saved: tuple[Any, Any, Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._prev_factory: Any = None
        #: injected failures (``fail``), checked in order before a request is answered
        self.faults: list[Fault] = []
        #: held requests (``hold``)
        self.gates: list[Gate] = []

    # install --------------------------------------------------------------------------------
    def install(self) -> FakeDiscord:
        current = recorder.installed_fake()
        if current is self:
            return self
        if current is not None:
            raise RuntimeError("another FakeDiscord is installed; uninstall() it first")
        self._saved = recorder.patch_discord_py(self)
        if self.error_logger is not None:
            logging.getLogger(self.error_logger).addHandler(self._log_handler)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            self._install_task_factory(loop)
        return self

    def uninstall(self) -> None:
        if recorder.installed_fake() is not self:
            return
        assert self._saved is not None
        recorder.unpatch_discord_py(self._saved)
        if self.error_logger is not None:
            logging.getLogger(self.error_logger).removeHandler(self._log_handler)
        loop = self._loop
        if loop is not None and not loop.is_closed() and loop.get_task_factory() == self._task_factory:
            loop.set_task_factory(self._prev_factory)
        self._loop = None

    @property
    def installed(self) -> bool:
        return recorder.installed_fake() is self

    def __enter__(self) -> FakeDiscord:
        return self.install()

    def __exit__(self, *exc: object) -> None:
        self.uninstall()

    async def __aenter__(self) -> FakeDiscord:
        return self.install()

    async def __aexit__(self, *exc: object) -> None:
        await self.close_bots()
        self.uninstall()

    async def close_bots(self) -> None:
        """Close every bot connected in process (``await bot.close()``)."""
        for sink in self._sinks:
            if isinstance(sink, _InProcessSink) and not sink.bot.is_closed():
                await sink.bot.close()

    def _install_task_factory(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop:
            return
        self._loop = loop
        self._prev_factory = loop.get_task_factory()
        loop.set_task_factory(self._task_factory)  # type: ignore[arg-type]

    def _task_factory(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any
    ) -> asyncio.Task[Any]:
        context = kwargs.get("context")
        tracker = context.get(_CURRENT) if context is not None else _CURRENT.get()
        task: asyncio.Task[Any]
        if self._prev_factory is not None:
            task = self._prev_factory(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        if tracker is not None:
            tracker.add(task)
        return task

    # requests -------------------------------------------------------------------------------
    async def _transport_request(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        body: Any,
        files: list[tuple[str, bytes]],
        *,
        transport: str,
        authorized: bool,
    ) -> Any:
        path, query = split_url(url, params)
        req = Request(method, path, query, body, files, transport=transport, authorized=authorized)
        await self.pass_gates(req)
        status, data = self.handle(req)
        await self.pass_gates(req, answered=True)
        await asyncio.sleep(0)  # a real request yields to the loop
        if 200 <= status < 300:
            return "" if data is None else data
        recorder._raise_http_error(status, data, method, url)

    def fail(self, method: str, path: str, status: int = 503, times: int | None = 1) -> Fault:
        """Answer the next ``times`` requests ``method`` to a path matching the regular expression
        ``path`` (searched) with ``status`` instead of serving them (None: until ``Fault.clear``).
        503 is raised by discord.py at once (500, 502 and 504 it retries by itself)."""
        fault = Fault(method.upper(), re.compile(path), status, times)
        self.faults.append(fault)
        return fault

    def hold(self, method: str, path: str, *, answered: bool = False) -> Gate:
        """Hold the requests ``method`` to paths matching the regular expression ``path`` (searched)
        until ``Gate.release``: they wait unanswered, as requests do while Discord is slow
        (``answered``: done, but their answer waits)."""
        gate = Gate(method.upper(), re.compile(path), answered)
        self.gates.append(gate)
        return gate

    async def pass_gates(self, req: Request, *, answered: bool = False) -> None:
        """Wait at every gate that holds ``req`` before (``answered``: after) it is handled (used in
        process and by the local server)."""
        for gate in self.gates:
            if gate.answered == answered and gate.applies(req):
                gate.came.append(req)
                gate.waiting.append(req)
                self._notify()
                try:
                    await gate._opened.wait()
                finally:
                    gate.waiting.remove(req)

    def _fault_for(self, req: Request) -> Fault | None:
        for fault in self.faults:
            if fault.applies(req):
                return fault
        return None

    def handle(self, req: Request) -> tuple[int, Any]:
        """Record, check and answer one request (used in process and by the local server)."""
        tracker = _CURRENT.get()
        fault = self._fault_for(req)
        if fault is not None:
            fault.hit(req)
            req.status = fault.status
            req.answered_at = time.perf_counter()
            self.requests.append(req)
            self._notify()
            return fault.status, {"message": f"{fault.status}: injected failure", "code": 0}
        existing = self.rest.existing_attachment_ids(req)
        req.violations = limits.check_request(req, existing_attachment_ids=existing)
        self.violations.extend(req.violations)
        if self.validate_openapi and openapi.SPEC_AVAILABLE and req.method in ("POST", "PUT", "PATCH"):
            try:
                req.spec_errors = openapi.validate_request(req)
            except Exception as exc:  # a broken spec must not break the bot under test
                req.spec_errors = [f"{req.method} {req.path}: OpenAPI validation failed: {exc!r}"]
            self.spec_errors.extend(req.spec_errors)
        self.requests.append(req)
        if any(v.endswith(limits.TOO_LARGE_MARK) for v in req.violations):
            found = self.rest.match(req.method, req.path)
            result = RestResult(413, dict(limits.TOO_LARGE), kind=found[0].name if found else None)
        elif req.violations and self.reject_invalid:
            found = self.rest.match(req.method, req.path)
            result = RestResult(
                400,
                {
                    "message": "Invalid Form Body",
                    "code": 50035,
                    "errors": {
                        "_limits": {"_errors": [{"code": "LIMIT", "message": v} for v in req.violations]}
                    },
                },
                kind=found[0].name if found else None,
            )
            if found:
                req.route = f"{found[0].method} {found[0].template}"
        else:
            result = self.rest.handle(req)
        if result.unhandled:
            self.unhandled.append(req)
            _log.warning("fake Discord has no route for %s %s (answered 404)", req.method, req.path)
        req.status = result.status
        req.response = result.body
        if result.message is not None:
            req.message_id = result.message.id
            req.channel_id = result.message.channel_id
        req.answered_at = time.perf_counter()
        iid = result.interaction_id
        if iid is None and tracker is not None:
            iid = tracker.interaction_id
        req.interaction_id = iid
        if iid is not None:
            self._replies.setdefault(iid, []).append(Reply(result.kind or "unknown", req, result.message))
        if result.kind == "callback" and 200 <= result.status < 300 and iid is not None:
            self._check_deadline(self.world.interactions[iid], req)
        self._notify()
        return result.status, result.body

    def _check_deadline(self, inter: FakeInteraction, req: Request) -> None:
        if self.response_deadline is None or inter.callback_at is None:
            return
        delay = inter.callback_at - inter.created_at
        if delay > self.response_deadline:
            problem = (
                f"{req.method} {req.path}: initial response after {delay:.2f} s (Discord requires it "
                f"within {self.response_deadline:g} s; defer first when work may take longer)"
            )
            req.violations.append(problem)
            self.violations.append(problem)

    def cdn_bytes(self, url: str) -> bytes | None:
        parts = yarl.URL(url).path.split("/")
        for part in parts:
            if part.isdigit() and int(part) in self.world.attachments:
                return self.world.attachments[int(part)].data
        return None

    def _emit(self, event: str, data: JSON) -> None:
        if not self.gateway_events:
            return
        guild = data.get("guild_id") if isinstance(data, dict) else None
        guild_id = int(guild) if guild is not None else None
        for sink in self._sinks:
            if sink.alive() and sink.serves(guild_id):
                sink.dispatch(event, data)

    def attach_sink(self, sink: Sink) -> None:
        """Register a connected gateway client (used by the local server)."""
        self._sinks.append(sink)
        self._notify()

    def _active_sink(self, guild_id: int | None = None) -> Sink:
        """The newest connected client that gets ``guild_id``'s events (its shard, when sharded)."""
        for sink in reversed(self._sinks):
            if sink.alive() and sink.serves(guild_id):
                return sink
        raise RuntimeError(
            "no bot is connected: `await fake.connect(bot)` (in process) or let the bot connect to the "
            "fake server's gateway first"
        )

    @property
    def connected(self) -> bool:
        return any(s.alive() for s in self._sinks)

    # waiting --------------------------------------------------------------------------------
    def _notify(self) -> None:
        """Something changed (a request, an event, a finished task, a logged error): wake the waiters
        whose predicate now holds.

        The predicates are checked once per turn of the event loop however many changes it saw
        (scheduled with ``call_soon``: the bot's code that made the request runs on first, as it did
        when every waiter was woken to check for itself), and only the waiters whose predicate holds
        are woken: with many helpers waiting at once (a burst of simultaneous clicks) waking every one
        on every request cost the fake time quadratic in their number.
        """
        if not self._waiters or self._check_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._check_waiters()
            return
        self._check_scheduled = True
        loop.call_soon(self._check_waiters)

    def _check_waiters(self) -> None:
        self._check_scheduled = False
        keep: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        for predicate, fut in self._waiters:
            if fut.done():
                continue
            try:
                ready = predicate()
            except Exception:  # let the waiter itself evaluate it (and raise) in its own task
                ready = True
            if ready:
                fut.set_result(None)
            else:
                keep.append((predicate, fut))
        self._waiters = keep

    def bound(self, timeout: float | None = None) -> float:
        """The seconds a wait may last before it is a fault: ``timeout`` (default: the fake's own),
        stretched for a machine that runs slower now than an idle one (``fakediscord.patience``)."""
        return patient(self.timeout if timeout is None else timeout)

    async def wait_for(
        self, predicate: Callable[[], bool], timeout: float | None = None, what: str = "a condition"
    ) -> None:
        """Wait (without polling) until ``predicate()`` holds; re-checked after every request/event."""
        if predicate():
            return
        loop = asyncio.get_running_loop()
        limit = self.bound(timeout)
        try:
            async with asyncio.timeout(limit):
                while not predicate():
                    fut: asyncio.Future[None] = loop.create_future()
                    entry = (predicate, fut)
                    self._waiters.append(entry)
                    try:
                        await fut
                    finally:
                        if not fut.done():
                            fut.cancel()
                            if entry in self._waiters:
                                self._waiters.remove(entry)
        except TimeoutError:
            raise TimeoutError(f"timed out after {limit:g} s waiting for {what}") from None

    async def _wait_trackers(self, trackers: list[_Tracker], timeout: float | None) -> None:
        trackers = [t for t in trackers if t.trackable]

        def idle() -> bool:
            return all(t.idle() for t in trackers)

        try:
            await self.wait_for(idle, timeout, what="the bot's handlers to finish")
        except TimeoutError as exc:
            busy = [t.get_name() for tr in trackers for t in tr.busy()]
            raise TimeoutError(f"{exc}; still running: {busy}") from None
        # let call_soon deliveries scheduled by the last request run
        await asyncio.sleep(0)
        if not idle():
            await self.wait_for(idle, timeout, what="the bot's handlers to finish")
        self._raise_errors(trackers)

    async def wait_idle(self, timeout: float | None = None) -> None:
        """Wait until the handlers of every interaction injected in process have finished."""
        await self._wait_trackers(list(self._trackers.values()), timeout)

    def _raise_errors(self, trackers: Iterable[_Tracker]) -> None:
        if not self.raise_bot_errors:
            return
        fresh: list[logging.LogRecord] = []
        for tracker in trackers:
            fresh += tracker.errors[tracker.raised :]
            tracker.raised = len(tracker.errors)
        if fresh:
            raise BotError("the bot logged errors while handling the interaction:\n" + _format_records(fresh))

    # connecting a bot in process ------------------------------------------------------------
    async def connect(self, bot: discord.Client, *, timeout: float | None = None) -> None:
        """Log ``bot`` in for real (runs ``setup_hook``), then feed READY and GUILD_CREATE.

        Returns when the bot is ready (``on_ready`` dispatched). The bot has no websocket; events
        reach it through its parsers. Close it with ``await bot.close()``.
        """
        if isinstance(bot, discord.AutoShardedClient):
            raise NotImplementedError("connect() drives unsharded clients; use the fake server for sharding")
        self.install()
        self._install_task_factory(asyncio.get_running_loop())
        await bot.login(self.token)
        sink = _InProcessSink(self, bot)
        bot.ws = _StubGateway(self, sink)  # type: ignore[assignment]
        state = bot._connection
        saved = state.guild_ready_timeout
        # discord.py waits guild_ready_timeout (2 s) after the last GUILD_CREATE before on_ready;
        # all guilds are delivered at once here, so a short wait is enough.
        state.guild_ready_timeout = min(saved, 0.01)
        self._sinks.append(sink)
        try:
            state.parsers["READY"](
                P.ready_payload(
                    self.world, session_id=secrets.token_hex(16), resume_gateway_url=self.world.gateway_url
                )
            )
            for guild in self.world.guilds.values():
                state.parsers["GUILD_CREATE"](P.guild_create_payload(self.world, guild))
            await asyncio.wait_for(bot.wait_until_ready(), self.bound(timeout))
        finally:
            state.guild_ready_timeout = saved
        self._notify()

    def disconnect(self, bot: discord.Client) -> None:
        """Stop sending events to ``bot`` (closing it does that too)."""
        for sink in self._sinks:
            if isinstance(sink, _InProcessSink) and sink.bot is bot:
                sink.closed = True
