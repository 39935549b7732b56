"""MCP sessions over streamable HTTP: a cap per agent and an idle timeout
(workbench/host/mcp_sessions.py), against a real host on loopback with small limits.

Sessions are opened with raw `initialize` POSTs (so a test knows exactly which are open
and which are in use) and, where the SDK client's view matters, with the SDK's client.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Iterator

import anyio
import httpx2
import orjson
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from workbench.host.mcp_sessions import McpLimits
from workbench.host.server import ServeOptions, ServerThread
from workbench.play.wire import MCP_PATH

from .conftest import (
    ALPHA,
    BRAVO,
    Hosted,
    async_http_client,
    http_client,
    mcp_session,
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": LATEST_HANDSHAKE_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "sessions-test", "version": "1"},
    },
}
PING = {"jsonrpc": "2.0", "id": 2, "method": "ping"}


@contextlib.asynccontextmanager
async def legacy_session(url: str, token: str) -> AsyncIterator[Client]:
    """The SDK's client in its legacy mode (the initialize handshake and a session; the
    default mode probes the stateless protocol first and keeps no session)."""
    http = async_http_client(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    transport = streamable_http_client(f"{url}{MCP_PATH}", http_client=http)
    async with Client(transport, mode="legacy") as mcp:
        yield mcp


@contextlib.contextmanager
def serving(hosted: Hosted, options: ServeOptions) -> Iterator[str]:
    """A real host on loopback with these options: its URL."""
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime, options=options) as server:
            yield server.url
    finally:
        runtime.close()


def headers(token: str, session_id: str | None = None, host: str | None = None) -> dict[str, str]:
    found = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    if session_id is not None:
        found["Mcp-Session-Id"] = session_id
        found["Mcp-Protocol-Version"] = LATEST_HANDSHAKE_VERSION
    if host is not None:
        found["Host"] = host
    return found


def initialize(client: httpx2.Client, token: str, host: str | None = None) -> httpx2.Response:
    return client.post(
        MCP_PATH, content=orjson.dumps(INITIALIZE), headers=headers(token, host=host)
    )


def open_session(client: httpx2.Client, token: str) -> str:
    """A new session of the token's agent: its id."""
    reply = initialize(client, token)
    assert reply.status_code == 200, reply.text
    session_id = reply.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    sent = client.post(MCP_PATH, content=orjson.dumps(note), headers=headers(token, session_id))
    assert sent.status_code == 202, sent.text
    return session_id


def messages(exc: BaseException) -> str:
    """An exception's message with those of every exception it groups."""
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(messages(inner) for inner in exc.exceptions)
    return str(exc)


def ping(client: httpx2.Client, token: str, session_id: str) -> int:
    """The status of a ping in a session (404 once the session is gone)."""
    reply = client.post(MCP_PATH, content=orjson.dumps(PING), headers=headers(token, session_id))
    return reply.status_code


def test_a_flood_of_initializes_keeps_its_agent_to_its_cap_and_spares_the_others(
    hosted: Hosted,
) -> None:
    """An agent that opens 30 sessions at once without ending any (10,000 filled the SDK's
    pool, shared by every agent, for half an hour) gets its cap of 3; the rest are refused
    with the limit named, its 3 sessions and the other agent's serve on."""
    alpha, bravo = hosted.tokens[ALPHA], hosted.tokens[BRAVO]
    options = ServeOptions(mcp=McpLimits(sessions_per_agent=3))
    with serving(hosted, options) as url, http_client(base_url=url, timeout=30) as client:
        theirs = [open_session(client, bravo) for _ in range(3)]
        mine = [open_session(client, alpha) for _ in range(3)]
        refused = [initialize(client, alpha) for _ in range(27)]
        assert {reply.status_code for reply in refused} == {403}
        message = refused[0].json()["error"]["message"]
        assert message.startswith(f"limit_reached: {ALPHA} has 3 open MCP sessions")
        assert [ping(client, alpha, s) for s in mine] == [200] * 3
        assert [ping(client, bravo, s) for s in theirs] == [200] * 3


def test_a_session_idle_long_enough_makes_room_least_recently_used_first(
    hosted: Hosted,
) -> None:
    """Sessions their clients abandoned (idle past `replaceable_after`) are ended for new
    ones, the least recently used first."""
    alpha = hosted.tokens[ALPHA]
    options = ServeOptions(mcp=McpLimits(sessions_per_agent=3, replaceable_after=0.5))
    with serving(hosted, options) as url, http_client(base_url=url, timeout=30) as client:
        first, second, third = (open_session(client, alpha) for _ in range(3))
        time.sleep(0.6)
        assert ping(client, alpha, first) == 200
        fourth = open_session(client, alpha)
        assert ping(client, alpha, second) == 404
        assert ping(client, alpha, third) == 200
        assert initialize(client, alpha).status_code == 403  # each was used just now
        time.sleep(0.6)
        assert ping(client, alpha, first) == 200
        assert ping(client, alpha, fourth) == 200
        fifth = open_session(client, alpha)
        assert ping(client, alpha, third) == 404
        assert [ping(client, alpha, s) for s in (first, fourth, fifth)] == [200] * 3


def test_sessions_all_in_use_refuse_a_new_one_with_an_error_naming_the_limit(
    hosted: Hosted,
) -> None:
    """Two sessions each holding a GET stream (as an SDK client's do) are in use: a third
    is refused with 403 and a JSON-RPC error the SDK's client raises; once one ends, a new
    one opens. The SDK's client in its default mode keeps no session and plays on."""
    alpha = hosted.tokens[ALPHA]
    options = ServeOptions(mcp=McpLimits(sessions_per_agent=2))
    with serving(hosted, options) as url, http_client(base_url=url, timeout=30) as client:
        sessions = [open_session(client, alpha) for _ in range(2)]
        with contextlib.ExitStack() as streams:
            for session_id in sessions:
                stream = streams.enter_context(
                    client.stream("GET", MCP_PATH, headers=headers(alpha, session_id))
                )
                assert stream.status_code == 200
            refused = initialize(client, alpha)
            assert refused.status_code == 403
            error = refused.json()
            assert error["id"] == 1 and "limit_reached" in error["error"]["message"]
            assert "2 open MCP sessions" in error["error"]["message"]

            async def sdk_clients() -> tuple[str, int]:
                with pytest.raises(Exception) as caught:
                    async with legacy_session(url, alpha):
                        pass
                async with mcp_session(url, alpha) as mcp:
                    return messages(caught.value), len((await mcp.list_tools()).tools)

            refusal, tools = anyio.run(sdk_clients)
            assert "limit_reached" in refusal and tools > 0
        ended = client.delete(MCP_PATH, headers=headers(alpha, sessions[0]))
        assert ended.status_code == 200
        assert initialize(client, alpha).status_code == 200


def test_an_idle_session_ends_after_the_idle_timeout(hosted: Hosted) -> None:
    alpha = hosted.tokens[ALPHA]
    options = ServeOptions(mcp=McpLimits(sessions_per_agent=1, idle_timeout=0.3))
    with serving(hosted, options) as url, http_client(base_url=url, timeout=30) as client:
        session_id = open_session(client, alpha)
        assert ping(client, alpha, session_id) == 200
        time.sleep(0.8)
        assert ping(client, alpha, session_id) == 404

        async def play() -> int:
            async with legacy_session(url, alpha) as mcp:
                return len((await mcp.list_tools()).tools)

        assert anyio.run(play) > 0


def test_the_sdk_client_plays_within_the_cap(hosted: Hosted) -> None:
    """Clients that come and go (each ends its session on exit) never meet the cap."""
    alpha = hosted.tokens[ALPHA]
    options = ServeOptions(mcp=McpLimits(sessions_per_agent=2))
    with serving(hosted, options) as url:

        async def play() -> list[int]:
            counts = []
            for _ in range(5):
                async with legacy_session(url, alpha) as mcp:
                    counts.append(len((await mcp.list_tools()).tools))
            return counts

        assert len(set(anyio.run(play))) == 1


def test_a_message_whose_client_hangs_up_is_dropped_without_an_error_logged(
    hosted: Hosted, caplog: pytest.LogCaptureFixture
) -> None:
    """The SDK logged an error with a traceback for each POST whose client left before
    its body arrived: 100 hang-ups were 100 tracebacks, 4,300 lines of log."""
    alpha = hosted.tokens[ALPHA]
    body = orjson.dumps(INITIALIZE)
    with serving(hosted, ServeOptions()) as url, http_client(base_url=url, timeout=30) as client:
        session_id = open_session(client, alpha)
        port = int(url.rsplit(":", 1)[1])
        caplog.set_level(logging.WARNING)
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(
                    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
                    b"Content-Type: application/json\r\nAccept: application/json, "
                    b"text/event-stream\r\nContent-Length: %d\r\n\r\n%s"
                    % (alpha.encode(), len(body), body[:20])
                )
                time.sleep(0.05)
        time.sleep(0.2)
        assert ping(client, alpha, session_id) == 200
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
