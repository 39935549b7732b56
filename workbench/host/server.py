"""Running the host: uvicorn over HTTP (JSON API + MCP), or MCP over stdio for one agent."""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from types import FrameType
from typing import Final

import anyio
import uvicorn

from ledger.collector import settle_for_serving
from workbench.host.api import Api, ApiFront
from workbench.host.connections import ConnectionGuard, ConnectionLimits, protocol_for
from workbench.host.errors import Unauthorized
from workbench.host.listen import bind
from workbench.host.mcp_app import McpOnDemand
from workbench.host.mcp_sessions import McpLimits
from workbench.host.quiet_log import thin
from workbench.host.runtime import HostRuntime

LOOPBACK: Final = "127.0.0.1"
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)


@dataclass(frozen=True)
class ServeOptions:
    """What the operator (or a test) sets about serving: connection and MCP session
    limits, and the Host names MCP accepts besides the loopback ones."""

    connections: ConnectionLimits = field(default_factory=ConnectionLimits)
    mcp: McpLimits = field(default_factory=McpLimits)
    allowed_hosts: tuple[str, ...] = ()


def base_url(host: str, sock: socket.socket) -> str:
    """The URL clients reach a bound socket at."""
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


class HostServer(uvicorn.Server):
    """uvicorn's server, which logs on stopping what its connection guard has counted
    since its last line (refusals are logged at most once a minute)."""

    def __init__(self, config: uvicorn.Config, guard: ConnectionGuard) -> None:
        super().__init__(config)
        self.guard = guard

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await super().shutdown(sockets)
        self.guard.report()


def uvicorn_server(
    runtime: HostRuntime, host: str, sock: socket.socket, options: ServeOptions | None = None
) -> uvicorn.Server:
    """A uvicorn server for the host's app on an already bound socket.

    Connections are counted and timed by `workbench.host.connections` (uvicorn's
    `limit_concurrency` counted idle sockets too, and had no deadline for a request that
    never arrives); the host serves no WebSocket.
    """
    options = options or ServeOptions()
    url = base_url(host, sock)
    mcp = McpOnDemand(runtime, url, host, options.mcp, options.allowed_hosts)
    app = ApiFront(Api(runtime), mcp)
    limits = options.connections
    guard = ConnectionGuard(limits)
    config = uvicorn.Config(
        app,
        http=protocol_for(guard),
        ws="none",
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_keep_alive=limits.keep_alive,
        timeout_graceful_shutdown=10,
        proxy_headers=False,
    )
    thin("uvicorn.error")
    return HostServer(config, guard)


def serve_http(
    runtime: HostRuntime,
    host: str,
    sock: socket.socket,
    ready: Callable[[str], None],
    options: ServeOptions | None = None,
) -> None:
    """Serve on `sock` (bound by `bind`, before the runtime opened, so an address that
    cannot be had changes nothing) until SIGINT or SIGTERM, then return; `ready` gets the
    URL once the socket listens.

    uvicorn shuts down gracefully on those signals and then raises them again for the
    handlers it found. Ours ask the server to stop, so a stop at any moment, before
    uvicorn listens for signals too, is a normal return (exit 0).
    """
    server = uvicorn_server(runtime, host, sock, options)
    stop = partial(_stop, server)
    previous = {sig: signal.signal(sig, stop) for sig in STOP_SIGNALS}
    try:
        ready(base_url(host, sock))
        settle_for_serving()
        server.run(sockets=[sock])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _stop(server: uvicorn.Server, signum: int, frame: FrameType | None) -> None:
    """A stop signal uvicorn is not listening for: stop as soon as the server has started.

    It comes between the ready line and uvicorn's own handlers (a supervisor that stops
    the host as soon as it says it is up: ignored, the host served on), or again after
    uvicorn's graceful shutdown, when there is nothing left to do.
    """
    server.should_exit = True


def serve_stdio(runtime: HostRuntime, agent: str) -> None:
    """Serve MCP over standard input and output for one registered local agent."""
    from workbench.host.mcp_server import build_mcp

    if agent not in runtime.control.agents:
        raise Unauthorized(f"agent {agent!r} is not registered in the control file")
    mcp = build_mcp(runtime, lambda: agent)
    anyio.run(mcp.run_stdio_async)


class ServerThread:
    """The host served from a thread of this process (tests and benchmarks on loopback)."""

    def __init__(
        self,
        runtime: HostRuntime,
        host: str = LOOPBACK,
        port: int = 0,
        options: ServeOptions | None = None,
    ) -> None:
        self.sock = bind(host, port)
        self.url = base_url(host, self.sock)
        self.server = uvicorn_server(runtime, host, self.sock, options)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> ServerThread:
        self.thread.start()
        for _ in range(2000):
            if self.server.started:
                return self
            if not self.thread.is_alive():
                break
            threading.Event().wait(0.005)
        raise RuntimeError("the host did not start")

    def __exit__(self, *exc_info: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()
