"""An MCP message's id is a string or an integer; any other is refused with a reply.

The SDK read a message whose `id` was an object, a list, a fraction, `true` or null as a
notification and answered nothing (202 over HTTP, no line over stdio), so the client that
sent it waited for ever. Now it gets JSON-RPC's invalid-request error (id null: its own
cannot be echoed), over either transport, and the session serves on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.host.conftest import ALPHA, Hosted, Live
from tests.host.test_mcp import INITIALIZE, INITIALIZED, StdioHost, http_session
from workbench.play.wire import MCP_PATH

WRONG_IDS: list[Any] = [{"a": 1}, [1], 1.5, True, None]
REFUSED = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {"code": -32600, "message": "MCP message id must be a string or an integer"},
}


def _tools_list(request_id: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}).encode()


@pytest.mark.parametrize("request_id", WRONG_IDS, ids=repr)
def test_a_wrong_id_is_answered_over_http(live: Live, request_id: Any) -> None:
    with live.client(ALPHA) as client:
        session = http_session(client)
        refused = client.post(MCP_PATH, content=_tools_list(request_id), headers=session)
        assert refused.status_code == 400, refused.text
        assert refused.json() == REFUSED
        listed = client.post(MCP_PATH, content=_tools_list(5), headers=session)
        assert listed.status_code == 200 and '"tools"' in listed.text, listed.text


def test_a_wrong_id_is_answered_over_stdio(hosted: Hosted, tmp_path: Path) -> None:
    hosted.runtime().close()
    host = StdioHost(hosted, tmp_path / "stdio.log")
    try:
        assert "result" in host.ask(json.dumps(INITIALIZE).encode())
        host.send(json.dumps(INITIALIZED).encode())
        for request_id in WRONG_IDS:
            assert host.ask(_tools_list(request_id)) == REFUSED, request_id
        listed = host.ask(_tools_list("five"))
        assert listed["id"] == "five" and listed["result"]["tools"], listed
    finally:
        host.close()
