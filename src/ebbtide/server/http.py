"""The MCP server over streamable HTTP, for replicas behind a load balancer.

Stateless: every request is answered on its own (no MCP session pinned to a replica), with
plain JSON responses, so any replica can take any request and a load balancer needs no
stickiness. What a replica holds is a connection pool and short-lived caches (see the store);
the memory itself lives in the store, which is why the replicas must share a server store
(Neo4j) rather than each its own SQLite file.

`/healthz` answers while the process runs; `/readyz` answers 200 only when the store does
(one real read), so a replica whose database is unreachable is taken out of rotation.
"""

from __future__ import annotations

import hmac
import logging
import socket
import sys
from collections.abc import Callable

import anyio.to_thread
import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import __version__
from ..errors import EbbtideError
from ..memory import Memory
from . import MCP_PATH

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
MIN_TOKEN = 16
PROBE_SECONDS = 3.0


class _RequireToken:
    """Let a request to /mcp through only with `Authorization: Bearer <token>`; the probes
    stay open, since a load balancer's health checks carry no credentials."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(MCP_PATH):
            told = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(told, self.expected):
                refused = JSONResponse(
                    {"error": "this server needs the header Authorization: Bearer <its token>"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await refused(scope, receive, send)
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, memory: Memory, host: str, token: str | None = None) -> ASGIApp:
    """The Starlette app: the MCP endpoint at /mcp (behind `token`, if any) plus the probes."""

    @server.custom_route("/healthz", methods=["GET"], include_in_schema=False)
    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__})

    @server.custom_route("/readyz", methods=["GET"], include_in_schema=False)
    async def readyz(_: Request) -> Response:
        try:
            # A store that hangs (a host that drops packets) must not hang the probe: the
            # thread is left to finish on its own, bounded by the driver's timeouts.
            with anyio.fail_after(PROBE_SECONDS):
                await anyio.to_thread.run_sync(memory.ping, abandon_on_cancel=True)
        except EbbtideError as exc:
            return JSONResponse({"status": "unavailable", "error": str(exc)}, status_code=503)
        except TimeoutError:
            said = f"{memory.store.url} did not answer within {PROBE_SECONDS:g} s"
            return JSONResponse({"status": "unavailable", "error": said}, status_code=503)
        return JSONResponse({"status": "ready", "store": memory.store.url})

    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, stateless_http=True, json_response=True, host=host
    )
    return _RequireToken(app, token) if token else app


def serve_http(
    server: MCPServer,
    memory: Memory,
    host: str,
    port: int,
    *,
    profile: str = "default",
    token: str | None = None,
) -> None:
    """Serve until interrupted, saying where on stderr and logging there, one line each, what
    failed on the server's side (the store, the embedder) while answering a tool."""
    log = logging.getLogger("ebbtide.server")
    if not log.handlers:
        # Plain lines of our own: the SDK's root handler wraps them to a terminal's width.
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)
        log.propagate = False
    shown = f"[{host}]" if ":" in host else host

    def announce() -> None:
        log.info(
            "ebbtide %s serving MCP at http://%s:%d%s (probes /healthz, /readyz); store %s; "
            "profile %s",
            __version__, shown, port, MCP_PATH, memory.store.url, profile,
        )  # fmt: skip
        if token is None and host not in LOOPBACK:
            log.warning(
                "no EBBTIDE_HTTP_TOKEN: anyone who can reach %s:%d can read, change and forget "
                "this memory; set one (at least %d characters) for agents to send as "
                "Authorization: Bearer <token>",
                shown, port, MIN_TOKEN,
            )  # fmt: skip

    app = http_app(server, memory, host, token)
    _Announcing(uvicorn.Config(app, host=host, port=port, log_level="warning"), announce).run()


class _Announcing(uvicorn.Server):
    """Says it serves only once it holds its port: a replica that cannot bind must not look,
    in its log, like one that came up."""

    def __init__(self, config: uvicorn.Config, announce: Callable[[], None]) -> None:
        super().__init__(config)
        self.announce = announce

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.announce()
