"""Requests the MCP endpoint refuses open no session and name none
(workbench/host/mcp_sessions.py), against a real host on loopback.

The SDK opened a session for a request of any method without a session id, then refused
the request naming it: `GET /mcp` with `Upgrade: websocket` was 406 with an
`mcp-session-id`, a PUT was 405 with another. Sessions are counted where the SDK makes
them: every session is one transport built with a session id.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import orjson
import pytest
from mcp.server import streamable_http_manager
from mcp.server.streamable_http import StreamableHTTPServerTransport

from workbench.host.server import ServerThread
from workbench.play.wire import MCP_PATH

from .conftest import ALPHA, BRAVO, Hosted, http_client
from .test_mcp_sessions import INITIALIZE, PING, headers, open_session, ping

UNKNOWN = "f" * 32
EXTRAS: dict[str, dict[str, str]] = {
    "plain": {},
    "websocket": {"Upgrade": "websocket", "Connection": "Upgrade"},
    "event stream": {"Accept": "text/event-stream"},
    "json only": {"Accept": "application/json"},
}


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The id of every session the SDK opens from now on."""
    ids: list[str] = []

    class Counted(StreamableHTTPServerTransport):
        def __init__(self, mcp_session_id: str | None, *args: object, **kwargs: object) -> None:
            super().__init__(mcp_session_id, *args, **kwargs)  # type: ignore[arg-type]
            if mcp_session_id is not None:
                ids.append(mcp_session_id)

    monkeypatch.setattr(streamable_http_manager, "StreamableHTTPServerTransport", Counted)
    yield ids


def test_a_websocket_upgrade_is_a_bad_request_that_opens_and_names_no_session(
    hosted: Hosted, opened: list[str]
) -> None:
    """The report: a GET asking for a WebSocket (the host serves none) had a session
    opened for it and named in a 406; it is 400, missing session id, and nothing opens."""
    token = hosted.tokens[ALPHA]
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server, http_client(base_url=server.url) as client:
            reply = client.get(
                MCP_PATH,
                headers={
                    "Authorization": f"Bearer {token}",
                    "Upgrade": "websocket",
                    "Connection": "Upgrade",
                },
            )
    finally:
        runtime.close()
    assert reply.status_code == 400
    assert "mcp-session-id" not in reply.headers
    error = orjson.loads(reply.content)
    assert error["jsonrpc"] == "2.0" and error["id"] is None
    assert error["error"]["message"].startswith("Bad Request: Missing session ID")
    assert opened == []


def test_no_refused_request_of_any_method_opens_or_names_a_session(
    hosted: Hosted, opened: list[str]
) -> None:
    """Every method but POST, with no session id, the agent's own, another agent's or an
    unknown one, and any Accept or Upgrade: nothing opens, and no reply names a session
    other than the one its request named. Only the two initializes open sessions, which
    serve on."""
    alpha, bravo = hosted.tokens[ALPHA], hosted.tokens[BRAVO]
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server, http_client(base_url=server.url) as client:
            mine, theirs = open_session(client, alpha), open_session(client, bravo)
            assert opened == [mine, theirs]
            methods = ("GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD")
            sessions = (None, mine, theirs, UNKNOWN)
            for method, session, extra in itertools.product(methods, sessions, EXTRAS):
                if session == mine and method == "DELETE":
                    continue  # ends it: not a refusal
                if session == mine and method == "GET" and extra != "json only":
                    continue  # the session's event stream (Accept */* takes it): served
                case = f"{method} {session} {extra}"
                sent = {"Authorization": f"Bearer {alpha}", **EXTRAS[extra]}
                if session is not None:
                    sent["Mcp-Session-Id"] = session
                reply = client.request(method, MCP_PATH, headers=sent)
                assert reply.status_code >= 400, case
                named = reply.headers.get("mcp-session-id")
                assert named is None or named == session == mine, case
                if method not in ("GET", "DELETE"):
                    assert reply.status_code == 405, case
                    assert reply.headers["allow"] == "GET, POST, DELETE", case
                elif session is None:
                    assert reply.status_code == 400, case
                if method != "HEAD":
                    assert orjson.loads(reply.content)["error"]["message"], case
            assert opened == [mine, theirs]
            assert ping(client, alpha, mine) == ping(client, bravo, theirs) == 200
    finally:
        runtime.close()


def test_a_refused_post_without_a_session_names_none(hosted: Hosted) -> None:
    """A POST without a session id that cannot open one (not an initialize; an initialize
    the client says it cannot read) is refused without naming the session the SDK opened
    for it and dropped at once."""
    token = hosted.tokens[ALPHA]
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server, http_client(base_url=server.url) as client:
            cases = {
                "ping": (PING, headers(token)),
                "initialize, Accept text/html": (
                    INITIALIZE,
                    {**headers(token), "Accept": "text/html"},
                ),
            }
            for case, (message, sent) in cases.items():
                reply = client.post(MCP_PATH, content=orjson.dumps(message), headers=sent)
                assert reply.status_code >= 400, case
                assert "mcp-session-id" not in reply.headers, case
    finally:
        runtime.close()
