"""A small fake Discord server on 127.0.0.1 for end-to-end tests of the real bot process.

REST is served under ``/api/v10`` (and ``/api/v9``) by the same :class:`FakeDiscord` handlers as
the in-process fake; a gateway websocket at ``/gateway`` says HELLO, answers IDENTIFY with READY
(``resume_gateway_url`` pointing back here) and one GUILD_CREATE per guild, ACKs heartbeats and
accepts RESUME. Attachments are served at ``/attachments/...``.

The test runs the server in its own event loop and starts the bot in a subprocess with
``python -m fakediscord.run_bot --api-base http://127.0.0.1:PORT`` (:meth:`FakeDiscordServer.bot_command`),
which calls :func:`point_discord_py_at` before running ``python -m bot``'s ``main()``; the product
itself has no switch to talk to another host. Interactions are then injected with the usual
``await fake.slash(...)`` / ``fake.click(...)``: they go over the websocket and the call waits for
the bot's callback request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sys
from typing import Any

import yarl
from aiohttp import WSMsgType, web

from . import limits
from . import payloads as P
from .fake import FakeDiscord
from .gateway import shard_of
from .tracking import _Tracker
from .world import Request

JSON = dict[str, Any]

API_VERSION = 10
HEARTBEAT_INTERVAL_MS = 41250
_log = logging.getLogger("fakediscord.server")


def point_discord_py_at(base_url: str) -> None:
    """Make discord.py in this process talk to a fake server instead of discord.com.

    ``base_url`` is the server root, e.g. ``http://127.0.0.1:1234``. Sets ``Route.BASE`` (REST,
    webhooks and interaction callbacks) and ``DiscordWebSocket.DEFAULT_GATEWAY`` (the gateway an
    unsharded client connects to). Call it before ``bot.start()``/``bot.run()``.
    """
    import discord.gateway
    import discord.http

    root = yarl.URL(base_url.rstrip("/"))
    discord.http.Route.BASE = f"{root}/api/v{API_VERSION}"
    ws_scheme = "wss" if root.scheme == "https" else "ws"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = root.with_scheme(ws_scheme).with_path("/gateway")


async def _read_body(request: web.Request) -> tuple[Any, list[tuple[int, str, bytes]]]:
    """The JSON body and the uploaded files (upload index, filename, bytes) of a REST request;
    ``HTTPRequestEntityTooLarge`` past Discord's request limit, ``ValueError`` for JSON it cannot read."""
    body: Any = None
    files: list[tuple[int, str, bytes]] = []
    if request.content_type.startswith("multipart/"):
        reader = await request.multipart()
        index = 0
        size = 0
        while True:
            part = await reader.next()
            if part is None:
                break
            name = getattr(part, "name", None) or ""
            data = bytes(await part.read())  # type: ignore[union-attr]
            size += len(data)
            if size > limits.MAX_REQUEST_BYTES:
                raise web.HTTPRequestEntityTooLarge(max_size=limits.MAX_REQUEST_BYTES, actual_size=size)
            if name == "payload_json":
                body = json.loads(data)
            elif getattr(part, "filename", None) is not None:
                position = int(name[6:-1]) if name.startswith("files[") else 1000 + index
                files.append((position, str(part.filename), data))  # type: ignore[union-attr]
                index += 1
    else:
        raw = await request.read()
        if raw:
            body = json.loads(raw)
    return body, files


def _json_response(status: int, data: Any) -> web.Response:
    if status == 204 or data is None:
        return web.Response(status=204)
    # Exactly "application/json": discord.py only parses JSON for that content type.
    return web.Response(
        status=status, body=json.dumps(data).encode(), headers={"Content-Type": "application/json"}
    )


class GatewaySession:
    """One websocket client of the fake gateway; a :class:`Sink` of the FakeDiscord once identified."""

    trackable = False

    def __init__(self, server: FakeDiscordServer, ws: web.WebSocketResponse) -> None:
        self.server = server
        self.ws = ws
        self.session_id = secrets.token_hex(16)
        self.sequence = 0
        self.identify: JSON | None = None
        #: (shard id, shard count) this client identified with; None: unsharded, it gets everything
        self.shard: tuple[int, int] | None = None
        self.ready = asyncio.Event()
        self._queue: asyncio.Queue[JSON | None] = asyncio.Queue()
        self._writer = asyncio.get_running_loop().create_task(self._write_loop(), name="fake-gateway-writer")
        self.received: list[JSON] = []

    def alive(self) -> bool:
        return self.ready.is_set() and not self.ws.closed

    def serves(self, guild_id: int | None) -> bool:
        """Unsharded: every guild. Sharded: the guilds of its shard by Discord's formula, and direct
        messages on shard 0 only."""
        if self.shard is None:
            return True
        shard_id, count = self.shard
        return shard_id == 0 if guild_id is None else shard_of(guild_id, count) == shard_id

    def send(self, payload: JSON) -> None:
        self._queue.put_nowait(payload)

    def dispatch(self, event: str, data: JSON) -> None:
        self.sequence += 1
        self.send({"op": 0, "t": event, "s": self.sequence, "d": data})

    def dispatch_interaction(self, payload: JSON, tracker: _Tracker) -> None:
        self.dispatch("INTERACTION_CREATE", payload)

    async def _write_loop(self) -> None:
        while True:
            payload = await self._queue.get()
            if payload is None or self.ws.closed:
                return
            try:
                await self.ws.send_str(json.dumps(payload))
            except (ConnectionError, RuntimeError):
                return

    async def handle(self, msg: JSON) -> None:
        self.received.append(msg)
        op = msg.get("op")
        fake = self.server.fake
        if op == 1:
            self.send({"op": 11})
        elif op == 2:
            self.identify = msg.get("d") or {}
            shard = self.identify.get("shard")
            if shard is not None:
                if not (
                    isinstance(shard, list)
                    and len(shard) == 2
                    and all(isinstance(n, int) and not isinstance(n, bool) for n in shard)
                    and shard[1] >= 1
                    and 0 <= shard[0] < shard[1]
                ):
                    await self.ws.close(code=4010, message=b"Invalid shard.")  # as Discord
                    return
                self.shard = (shard[0], shard[1])
            self.dispatch(
                "READY",
                P.ready_payload(
                    fake.world,
                    session_id=self.session_id,
                    resume_gateway_url=self.server.gateway_url,
                    shard=list(shard) if shard else None,
                ),
            )
            for guild in fake.world.guilds.values():
                if self.serves(guild.id):
                    self.dispatch("GUILD_CREATE", P.guild_create_payload(fake.world, guild))
            self.ready.set()
            fake.attach_sink(self)
            self.server._identified.set()
        elif op == 6:
            self.dispatch("RESUMED", {})
            self.ready.set()
            fake.attach_sink(self)
        elif op == 8:
            d = msg.get("d") or {}
            wanted = fake.world.guilds.get(int(d.get("guild_id", 0)))
            members = list(wanted.members.values()) if wanted else []
            chunk: JSON = {
                "guild_id": str(d.get("guild_id")),
                "members": [P.member_payload(m) for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [],
                "presences": [],
            }
            if d.get("nonce") is not None:
                chunk["nonce"] = d["nonce"]
            self.dispatch("GUILD_MEMBERS_CHUNK", chunk)
            fake.gateway_commands.append(msg)
        else:
            fake.gateway_commands.append(msg)

    async def close(self) -> None:
        self._queue.put_nowait(None)
        if not self.ws.closed:
            with contextlib.suppress(Exception):
                await self.ws.close(code=1001)
        self._writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._writer


class FakeDiscordServer:
    """Serves a :class:`FakeDiscord` over HTTP + websocket on 127.0.0.1 (ephemeral port by default)."""

    def __init__(self, fake: FakeDiscord | None = None, *, host: str = "127.0.0.1", port: int = 0) -> None:
        self.fake = fake or FakeDiscord()
        self.host = host
        self.port = port
        self.sessions: list[GatewaySession] = []
        self._runner: web.AppRunner | None = None
        self._identified = asyncio.Event()
        # aiohttp refuses bodies over 1 MiB by default: Discord takes up to 25 MiB (a replay GIF).
        self.app = web.Application(client_max_size=limits.MAX_REQUEST_BYTES)
        for version in (9, 10):
            self.app.router.add_route("*", f"/api/v{version}/{{tail:.*}}", self._rest)
        self.app.router.add_get("/gateway", self._gateway)
        self.app.router.add_get("/gateway/", self._gateway)
        self.app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self._attachment)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    def bot_command(self) -> list[str]:
        """The command line that runs ``python -m bot`` in a subprocess against this server."""
        return [sys.executable, "-m", "fakediscord.run_bot", "--api-base", self.base_url]

    async def start(self) -> str:
        """Start listening; returns the base URL."""
        self._runner = web.AppRunner(self.app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = site._server
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1]
        self.fake.world.gateway_url = self.gateway_url
        self.fake.world.cdn_base = self.base_url
        return self.base_url

    async def stop(self) -> None:
        for session in list(self.sessions):
            await session.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscordServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def wait_until_identified(self, timeout: float | None = None) -> GatewaySession:
        """Wait until a client has identified (READY and GUILD_CREATE sent)."""
        await asyncio.wait_for(self._identified.wait(), self.fake.bound(timeout))
        return next(s for s in reversed(self.sessions) if s.identify is not None)

    # handlers -------------------------------------------------------------------------------
    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        query = {k: v for k, v in request.query.items()}
        try:
            body, files = await _read_body(request)
        except web.HTTPRequestEntityTooLarge:
            return _json_response(413, dict(limits.TOO_LARGE))
        except ValueError:
            return _json_response(400, {"message": "400: Bad Request", "code": 50109})
        files.sort(key=lambda f: f[0])
        authorized = request.headers.get("Authorization", "") == f"Bot {self.fake.token}"
        req = Request(
            request.method,
            path,
            query,
            body,
            [(name, data) for _, name, data in files],
            transport="server",
            authorized=authorized,
        )
        await self.fake.pass_gates(req)
        status, data = self.fake.handle(req)
        await self.fake.pass_gates(req, answered=True)
        return _json_response(status, data)

    async def _gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        session = GatewaySession(self, ws)
        self.sessions.append(session)
        session.send(
            {"op": 10, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS, "_trace": ["fake-gateway"]}}
        )
        try:
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    try:
                        data = json.loads(msg.data)
                    except ValueError:
                        await ws.close(code=4002)  # decode error, as Discord
                        break
                    await session.handle(data)
                elif msg.type == WSMsgType.ERROR:
                    break
        finally:
            await session.close()
        return ws

    async def _attachment(self, request: web.Request) -> web.StreamResponse:
        att = self.fake.world.attachments.get(int(request.match_info["attachment_id"]))
        if att is None:
            return web.Response(status=404)
        return web.Response(body=att.data, content_type=att.content_type or "application/octet-stream")
