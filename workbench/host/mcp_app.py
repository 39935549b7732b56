"""The host's MCP app over streamable HTTP, built and started on the first MCP request.

Importing the MCP SDK and building its app was two thirds of a host's start (about 1 s of
1.5 s of CPU): a host that serves only the JSON API, or restarts after a kill to recover
its runs, no longer waits for it. The first MCP request pays it once. The app's own
lifespan (the SDK's session manager) runs in the host's task group from then on and is
shut down with the host. Sessions are capped per agent and in all, and end after five
idle minutes (`workbench.host.mcp_sessions`).
"""

from __future__ import annotations

from typing import Any, Final

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from workbench.host.mcp_hosts import transport_security
from workbench.host.mcp_sessions import AgentSessions, McpLimits
from workbench.host.mcp_strict import MAX_MCP_BODY_BYTES
from workbench.host.quiet_log import thin
from workbench.host.runtime import HostRuntime
from workbench.play.wire import MCP_PATH

SDK_WARNING_LOGGERS: Final = (
    "mcp.server.transport_security",
    "mcp.server.streamable_http_manager",
)
"""The SDK's loggers that warn once per refused request (a bad Host header, a session
another credential opened, the session limit): one line a minute per message."""
LIFESPAN_SCOPE: Final[dict[str, Any]] = {
    "type": "lifespan",
    "asgi": {"version": "3.0", "spec_version": "2.0"},
}


class McpOnDemand:
    """An ASGI app that builds the MCP app when first called and forwards to it.

    `attach` gives it the host's task group (from the host's lifespan); `stop` ends the
    MCP app's lifespan if it was started.
    """

    def __init__(
        self,
        runtime: HostRuntime,
        base_url: str,
        host: str,
        limits: McpLimits | None = None,
        allowed_hosts: tuple[str, ...] = (),
    ) -> None:
        self._runtime = runtime
        self._base_url = base_url
        self._host = host
        self._limits = limits or McpLimits()
        self._allowed_hosts = allowed_hosts
        self._app: ASGIApp | None = None
        self._lock = anyio.Lock()
        self._group: TaskGroup | None = None
        self._to_app: MemoryObjectSendStream[Message] | None = None
        self._from_app: MemoryObjectReceiveStream[Message] | None = None

    @property
    def started(self) -> bool:
        """True once the MCP app is built and its lifespan has started."""
        return self._app is not None

    def attach(self, group: TaskGroup | None) -> None:
        """Run the MCP app's lifespan in `group` (the host's, for as long as it serves)."""
        self._group = group

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._app or await self._start()
        await app(scope, receive, send)

    async def _start(self) -> ASGIApp:
        """Build the app and run its lifespan's startup (once, whoever asks first)."""
        async with self._lock:
            if self._app is not None:
                return self._app
            if self._group is None:
                raise RuntimeError("an MCP request outside the host's lifespan")
            app = self._build()
            to_app, app_receives = anyio.create_memory_object_stream[Message](2)
            app_sends, from_app = anyio.create_memory_object_stream[Message](2)
            scope = {**LIFESPAN_SCOPE, "state": {}}

            async def lifespan() -> None:
                await app(scope, app_receives.receive, app_sends.send)

            self._group.start_soon(lifespan)
            await to_app.send({"type": "lifespan.startup"})
            reply = await from_app.receive()
            if reply["type"] != "lifespan.startup.complete":
                raise RuntimeError(f"the MCP app did not start: {reply.get('message', '')}")
            self._to_app, self._from_app = to_app, from_app
            self._app = app
            return app

    def _build(self) -> ASGIApp:
        from workbench.host.mcp_server import build_mcp, http_identity

        mcp = build_mcp(self._runtime, http_identity, base_url=self._base_url)
        limits = self._limits
        app = mcp.streamable_http_app(
            streamable_http_path=MCP_PATH,
            max_request_body_size=MAX_MCP_BODY_BYTES,
            session_idle_timeout=limits.idle_timeout,
            max_sessions=limits.max_sessions,
            transport_security=transport_security(self._host, self._allowed_hosts),
        )
        thin(*SDK_WARNING_LOGGERS)
        return AgentSessions(app, mcp.session_manager, self._runtime, limits, MAX_MCP_BODY_BYTES)

    async def stop(self) -> None:
        """Shut the MCP app's lifespan down (its sessions end), if it was started."""
        if self._to_app is None or self._from_app is None:
            return
        to_app, from_app, self._to_app, self._from_app = self._to_app, self._from_app, None, None
        await to_app.send({"type": "lifespan.shutdown"})
        await from_app.receive()
