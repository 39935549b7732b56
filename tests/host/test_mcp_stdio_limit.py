"""Over stdio an MCP message has the limit it has over HTTP: a line of 64 Ki characters.

`StrictLines` read each line whole, so a line of gigabytes without a newline grew the
host's memory for as long as it came. A longer line is read no further than its limit
(the rest is read and dropped), answered with one JSON-RPC error, and the session serves
on.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.host.conftest import Hosted
from tests.host.test_mcp import INITIALIZE, INITIALIZED, StdioHost
from workbench.host.mcp_strict import MAX_MCP_BODY_BYTES


def _tools_list(request_id: int, padding: int) -> bytes:
    """A `tools/list` request whose line is `padding` characters longer than without it."""
    pad = "a" * max(0, padding)
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/list",
            "params": {"_meta": {"p": pad}},
        },
        separators=(",", ":"),
    ).encode()


def test_a_line_over_the_limit_is_refused_and_the_session_serves_on(
    hosted: Hosted, tmp_path: Path
) -> None:
    hosted.runtime().close()
    host = StdioHost(hosted, tmp_path / "stdio.log")
    try:
        assert "result" in host.ask(json.dumps(INITIALIZE).encode())
        host.send(json.dumps(INITIALIZED).encode())
        base = len(_tools_list(1, 0))
        at_limit = _tools_list(1, MAX_MCP_BODY_BYTES - base)
        assert len(at_limit) == MAX_MCP_BODY_BYTES
        assert "result" in host.ask(at_limit), "a line of exactly the limit is read"
        for size in (MAX_MCP_BODY_BYTES + 1, 3 * MAX_MCP_BODY_BYTES, 20_000_000):
            reply = host.ask(_tools_list(2, size - base))
            assert reply["id"] is None and reply["error"]["code"] == -32600, reply
            assert reply["error"]["message"] == (
                f"MCP message is over its limit of {MAX_MCP_BODY_BYTES} characters"
            )
        listed = host.ask(_tools_list(3, 0))
        assert listed["id"] == 3 and listed["result"]["tools"], listed
    finally:
        host.close()
