"""What the operator reads: one plain line per record, the same before and after the
first MCP request (the SDK's Rich handler boxed every record in 80 columns once MCP was
used), and each episode's start and finish."""

from __future__ import annotations

from pathlib import Path

import anyio

from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, Hosted, HostProcess, http_client, mcp_session


def test_the_host_log_is_plain_lines_with_each_episode(hosted: Hosted, tmp_path: Path) -> None:
    log = tmp_path / "host.log"
    host = HostProcess(hosted, log).start()
    try:

        async def over_mcp() -> str:
            async with mcp_session(host.url, hosted.tokens[ALPHA]) as mcp:
                started = await mcp.call_tool("start_episode", {"command_id": "s"})
                await mcp.call_tool("no_such_tool", {})
                return str(started.structured_content["run"]["run_id"])

        run_id = anyio.run(over_mcp)
        headers = {"Authorization": f"Bearer {hosted.tokens[ALPHA]}"}
        with http_client(base_url=host.url, headers=headers) as client:
            done = client.post(f"{API_PREFIX}/runs/{run_id}/finish", json={"command_id": "f"})
            assert done.status_code == 200
    finally:
        assert host.stop() == 0
    text = log.read_text()
    assert f"INFO workbench.host: {run_id}: agent {ALPHA} started its episode" in text
    assert f"INFO workbench.host: {run_id}: agent {ALPHA} finished its episode" in text
    assert not any(box in text for box in "│╭╰─"), text[-2000:]
