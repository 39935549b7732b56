"""A preview's action over its length limit is named as too long, as the preview tool
names it: 422 `invalid`. It was a 400 saying the parameter was required (missing), which
sent an agent looking for a parameter it had given. A real host on loopback."""

from __future__ import annotations

import anyio
from mcp.types import TextContent

from workbench.play.wire import API_PREFIX

from .agent import HttpAgent
from .conftest import ALPHA, Live, mcp_session, one_error


def test_a_too_long_action_is_invalid_over_http_and_mcp_alike(live: Live) -> None:
    agent = HttpAgent(live.client(ALPHA))
    agent.start()
    long_action = "a" * 129
    http = one_error(
        agent.client.get(agent.run("/preview"), params={"action": long_action}), 422, "invalid"
    )
    assert "action" in http and "at most 128 characters" in http and "required" not in http
    missing = agent.client.get(f"{API_PREFIX}/runs/{agent.run_id}/preview")
    assert "required" in one_error(missing, 400, "bad_request")
    at_limit = agent.client.get(agent.run("/preview"), params={"action": "a" * 128})
    assert "unknown action" in one_error(at_limit, 422, "invalid")

    async def over_mcp() -> str:
        async with mcp_session(live.url, live.hosted.tokens[ALPHA]) as mcp:
            arguments = {"run_id": agent.run_id, "action": long_action}
            result = await mcp.call_tool("preview", arguments)
            assert result.is_error and isinstance(result.content[0], TextContent)
            return result.content[0].text

    tool = anyio.run(over_mcp)
    assert "invalid: arguments: action: String should have at most 128 characters" in tool
