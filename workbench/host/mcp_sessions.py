"""MCP sessions over streamable HTTP: a cap per agent, and an idle timeout.

The SDK keeps a stateful session per `initialize` until the client ends it or it has been
idle for its timeout (30 min by default), up to `max_sessions` shared by everyone (10,000):
one agent's 10,000 initializes filled the pool for every agent for half an hour and grew
the host from 103 to 497 MB. The SDK offers the global cap and the idle timeout; here they
are set (`McpLimits`), and `AgentSessions`, in front of the SDK's app, keeps the cap per
agent with what the protocol shows: a session is opened by a POST without a session id
whose reply names one, is in use while a request of it is in flight (an open GET stream
included: the SDK's own idea of idle), and ends with a DELETE, a 404 or its idle timeout.
An agent at its cap that opens another session has its least recently used session that
has been idle for 30 s ended for it, with a DELETE through the SDK's session manager as
its client would send; when there is none, the new one is refused with 403 and a
JSON-RPC error naming the limit (an agent running more clients than its cap at once had
its live clients' sessions ended under them between two calls). No private attribute of
the SDK is read. A POST whose client hangs up before its body arrived is dropped here:
the SDK logged an error with a traceback for each.

Only a POST can open a session. The SDK opened one for a request of any method without a
session id and named it in its refusal (a GET with `Upgrade: websocket` was 406 with an
`mcp-session-id`; a PUT, 405 with another): here a GET or DELETE without a session id is
400 and any other method 405 (`Allow: GET, POST, DELETE`, with or without a session id),
in the SDK's JSON-RPC error shape, before the SDK sees them; and a refused POST that would
have opened one (not an initialize, a bad Accept or Host) is answered without the id of
the session the SDK opened for it and discarded at once.

Nothing here imports the SDK at import time (a host serving only the JSON API never loads
it).
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from workbench.host.mcp_strict import request_id
from workbench.host.runtime import HostRuntime
from workbench.play.wire import MCP_PATH

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

log = logging.getLogger("workbench.host.mcp")

SESSION_HEADER: Final = b"mcp-session-id"
VERSION_HEADER: Final = b"mcp-protocol-version"
LOCAL_HOST: Final = b"127.0.0.1:80"
"""The Host of the DELETE that ends a session for its agent: a loopback name with a port,
which every Host check the host sets up (or the SDK's own) takes."""
SERVER_ERROR: Final = -32000
"""JSON-RPC's first implementation-defined server error code."""
INVALID_REQUEST: Final = -32600
"""JSON-RPC's invalid request: the code of the SDK's own refusals."""
SESSION_METHODS: Final = ("GET", "POST", "DELETE")
"""The methods of the streamable HTTP transport with sessions: a POST carries messages (and
opens a session with `initialize`), a GET opens the session's event stream, a DELETE ends
it."""
ALLOW: Final = ", ".join(SESSION_METHODS)
MISSING_SESSION: Final = (
    "Bad Request: Missing session ID (a GET or DELETE names a session with the "
    "Mcp-Session-Id header; a POST of initialize opens one)"
)


@dataclass(frozen=True)
class McpLimits:
    """How many MCP sessions the host keeps, per agent and in all, and for how long."""

    sessions_per_agent: int = 8
    idle_timeout: float = 300.0
    """Seconds a session may have no request in flight before the SDK ends it."""
    max_sessions: int = 1024
    """Sessions in all (about 40 KB each: 10,000 took 394 MB)."""
    replaceable_after: float = 30.0
    """Seconds a session must have been idle before an agent over its cap has it ended
    for a new one: a live client between two calls is not cut off by its own agent's
    other clients (they are refused instead), while a session its client abandoned, or
    one of a flood of initializes, is."""

    def __post_init__(self) -> None:
        if self.sessions_per_agent < 1 or self.max_sessions < 1:
            raise ValueError("MCP session limits must be at least 1")
        if not (math.isfinite(self.idle_timeout) and self.idle_timeout > 0):
            raise ValueError("idle_timeout must be a positive number of seconds")
        if not (math.isfinite(self.replaceable_after) and self.replaceable_after >= 0):
            raise ValueError("replaceable_after must be 0 or more seconds")


@dataclass
class Session:
    """One agent's MCP session as the protocol shows it."""

    session_id: str
    in_flight: int
    idle_since: float


class AgentSessions:
    """The SDK's MCP app with at most `sessions_per_agent` open sessions per agent."""

    def __init__(
        self,
        app: ASGIApp,
        manager: StreamableHTTPSessionManager,
        runtime: HostRuntime,
        limits: McpLimits,
        max_body: int,
    ) -> None:
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

        self.app = app
        self.manager = manager
        self.runtime = runtime
        self.limits = limits
        self.max_body = max_body
        self.handshake_versions = frozenset(v.encode() for v in HANDSHAKE_PROTOCOL_VERSIONS)
        self.sessions: dict[str, dict[str, Session]] = {}
        """Each agent's open sessions, oldest first."""
        self.opening: dict[str, int] = {}
        """Each agent's session-opening requests not yet answered."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        agent = self.agent(scope)
        if agent is None or scope["path"] != MCP_PATH:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "POST":
            arrived = await whole_body(scope, receive, self.max_body)
            if arrived is None:
                return
            receive = arrived
        session_id = header(scope, SESSION_HEADER)
        version = header(scope, VERSION_HEADER)
        stateless = version is not None and version.encode() not in self.handshake_versions
        method = scope["method"]
        if not stateless and method not in SESSION_METHODS:
            await refused(scope, send, 405, "Method Not Allowed", ALLOW)
            return
        if session_id is None:
            if stateless:
                await self.app(scope, receive, send)
            elif method == "POST":
                await self.open(agent, scope, receive, send)
            else:
                await refused(scope, send, 400, MISSING_SESSION)
            return
        session = self.sessions.get(agent, {}).get(session_id)
        if session is None:
            await self.app(scope, receive, send)
            return
        session.in_flight += 1
        status: list[int] = []
        try:
            await self.app(scope, receive, watching(send, status))
        finally:
            session.in_flight -= 1
            if not session.in_flight:
                session.idle_since = time.monotonic()
            ended = status == [404] or (scope["method"] == "DELETE" and status == [200])
            if ended:
                self.forget(agent, session_id)

    def agent(self, scope: Scope) -> str | None:
        """The agent a request's bearer token names, or None (the SDK refuses it)."""
        value = header(scope, b"authorization")
        if value is None or value[:7].lower() != "bearer ":
            return None
        return self.runtime.agent_of(value[7:])

    def open_sessions(self, agent: str) -> dict[str, Session]:
        """The agent's sessions the SDK still keeps (the idle ones past their timeout are
        gone or about to be: the SDK counts idle time from before this wrapper does)."""
        mine = self.sessions.get(agent, {})
        deadline = time.monotonic() - self.limits.idle_timeout
        for expired in [s for s, v in mine.items() if not v.in_flight and v.idle_since <= deadline]:
            del mine[expired]
        return mine

    async def open(self, agent: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A request that may open a session: make room for it, or refuse it."""
        mine = self.open_sessions(agent)
        opening = self.opening.get(agent, 0)
        victim: Session | None = None
        if len(mine) + opening >= self.limits.sessions_per_agent:
            before = time.monotonic() - self.limits.replaceable_after
            idle = [s for s in mine.values() if not s.in_flight and s.idle_since <= before]
            if not idle:
                await self.refuse(agent, scope, receive, send)
                return
            victim = min(idle, key=lambda s: s.idle_since)
            del mine[victim.session_id]
        self.opening[agent] = opening + 1
        opened: list[str] = []

        async def registering(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                message = {**message, "headers": unnamed(message.get("headers", ()))}
            elif message["type"] == "http.response.start":
                found = next(
                    (v for k, v in message.get("headers", ()) if k == SESSION_HEADER), None
                )
                if found is not None:
                    session_id = found.decode("latin-1")
                    now = time.monotonic()
                    self.sessions.setdefault(agent, {})[session_id] = Session(session_id, 1, now)
                    opened.append(session_id)
                    self.release(agent)
            await send(message)

        try:
            if victim is not None:
                await self.end(agent, victim.session_id)
            await self.app(scope, receive, registering)
        finally:
            if opened:
                session = self.sessions.get(agent, {}).get(opened[0])
                if session is not None:
                    session.in_flight -= 1
                    session.idle_since = time.monotonic()
            else:
                self.release(agent)

    def release(self, agent: str) -> None:
        """An opening request of the agent's is answered."""
        left = self.opening.get(agent, 0) - 1
        if left > 0:
            self.opening[agent] = left
        else:
            self.opening.pop(agent, None)

    def forget(self, agent: str, session_id: str) -> None:
        mine = self.sessions.get(agent)
        if mine is not None:
            mine.pop(session_id, None)
            if not mine:
                del self.sessions[agent]

    async def end(self, agent: str, session_id: str) -> None:
        """End a session as its client would: a DELETE through the SDK's session manager,
        as the agent (the SDK ends a session only for the credential that opened it)."""
        from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
        from mcp.server.auth.provider import AccessToken

        user = AuthenticatedUser(AccessToken(token="", client_id=agent, scopes=[]))
        scope: dict[str, Any] = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "DELETE",
            "scheme": "http",
            "path": MCP_PATH,
            "raw_path": MCP_PATH.encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"host", LOCAL_HOST), (SESSION_HEADER, session_id.encode())],
            "client": None,
            "server": None,
            "user": user,
            "state": {},
        }
        messages: list[Message] = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> Message:
            return messages.pop() if messages else {"type": "http.disconnect"}

        status: list[int] = []

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        await self.manager.handle_request(scope, receive, send)
        if status not in ([200], [404]):
            log.warning("could not end MCP session %s of %s: %s", session_id, agent, status)

    async def refuse(self, agent: str, scope: Scope, receive: Receive, send: Send) -> None:
        """403 with a JSON-RPC error naming the limit (the request's id when it has one)."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if len(body) > self.max_body or not message.get("more_body", False):
                break
        cap = self.limits.sessions_per_agent
        reply = {
            "jsonrpc": "2.0",
            "id": request_id(bytes(body)),
            "error": {
                "code": SERVER_ERROR,
                "message": (
                    f"limit_reached: {agent} has {cap} open MCP sessions, the host's limit "
                    f"per agent, none idle for {self.limits.replaceable_after:g} s; end one "
                    "(DELETE with its Mcp-Session-Id) or try again later"
                ),
            },
        }
        payload = orjson.dumps(reply)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(payload)).encode()),
        ]
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


async def whole_body(scope: Scope, receive: Receive, limit: int) -> Receive | None:
    """A POST's body read to its end: a receive that gives it again, or None when the
    client left before it arrived (nothing to answer; the SDK logged an error with a
    traceback for each such request, so a client could fill the log by hanging up).

    A body declared or sent over `limit` is passed on as it is, for the SDK's 413.
    """
    length = header(scope, b"content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        return receive
    received: list[Message] = []
    size = 0
    while True:
        message = await receive()
        received.append(message)
        if message["type"] == "http.disconnect":
            return None
        size += len(message.get("body", b""))
        if size > limit or not message.get("more_body", False):
            break
    pending = deque(received)

    async def replay() -> Message:
        return pending.popleft() if pending else await receive()

    return replay


async def refused(
    scope: Scope, send: Send, status: int, message: str, allow: str | None = None
) -> None:
    """A request no session can serve, answered before the SDK sees it, with the SDK's
    JSON-RPC error shape and no session id.

    The SDK opens a session for every request without a session id, whatever its method,
    and names it in the refusal (a GET with `Upgrade: websocket` was 406 with an
    `mcp-session-id`); only a POST can open one, so nothing else gets that far.
    """
    payload = orjson.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}}
    )
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if allow is not None:
        headers.append((b"allow", allow.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    body = b"" if scope["method"] == "HEAD" else payload
    await send({"type": "http.response.body", "body": body})


def unnamed(headers: Iterable[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """A refused opening request's reply headers without the session id the SDK gave it:
    the SDK discards that session at once, and a reply naming it told the client of a
    session that never was."""
    return [(k, v) for k, v in headers if k != SESSION_HEADER]


def header(scope: Scope, name: bytes) -> str | None:
    """A request header's first value (latin-1), or None."""
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def watching(send: Send, status: list[int]) -> Send:
    """`send`, noting the response's status in `status`."""

    async def watched(message: Message) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        await send(message)

    return watched
