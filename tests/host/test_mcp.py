"""An agent plays over MCP with the SDK's own client: streamable HTTP on loopback, and stdio.

The episode's commands land in the run's journal on disk, the run verifies, and the
operator validates it offline with the same command as any private run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.types import TextResourceContents

from ledger.journal import Journal
from workbench.cli import main
from workbench.host.api import ApiFront
from workbench.host.server import ServerThread
from workbench.play.wire import API_PREFIX
from workbench.runs.verify import verify_run

from .conftest import ALPHA, Hosted, Live, http_client, mcp_session


async def resource_text(mcp: Client, uri: str) -> str:
    """The text of a resource (all of the host's are JSON text)."""
    content = (await mcp.read_resource(uri)).contents[0]
    assert isinstance(content, TextResourceContents)
    return content.text


async def play_over(mcp: Client) -> tuple[str, list[dict[str, Any]]]:
    """A short episode: read the contracts, start, schedule, advance, submit, finish."""
    contracts = json.loads(await resource_text(mcp, "cfwb://questions"))
    question = next(q for q in contracts["questions"] if q["id"] == "q_bank_loan")
    briefing = json.loads(await resource_text(mcp, "cfwb://briefing"))
    assert briefing["horizon"] == 180 and "q_bank_loan" in briefing["questions"]
    replies: list[dict[str, Any]] = []

    async def tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await mcp.call_tool(name, arguments)
        assert not result.is_error, result.content
        assert result.structured_content is not None
        replies.append(result.structured_content)
        return result.structured_content

    started = await tool("start_episode", {"command_id": "mcp-start"})
    run_id = started["run"]["run_id"]
    preview = await tool("preview", {"run_id": run_id, "action": "spring_campaign"})
    assert preview["accepted"] is True
    await tool("schedule", {"run_id": run_id, "action": "spring_campaign", "command_id": "c1"})
    await tool("advance", {"run_id": run_id, "days": 5, "command_id": "c2"})
    assessment = {
        "question": question["id"],
        "value": "-450.5",
        "conclusion": "-300.00",
    }
    submitted = await tool(
        "submit_assessment", {"run_id": run_id, "command_id": "c3", "assessment": assessment}
    )
    assert submitted["eligible"] is True and submitted["question"] == "q_bank_loan"
    again = await tool(
        "submit_assessment", {"run_id": run_id, "command_id": "c3", "assessment": assessment}
    )
    assert again == {**submitted, "retry": True}
    snapshot = await tool("snapshot", {"run_id": run_id})
    assert snapshot["day"] == 5 and snapshot["submissions"][0]["value"] == "-450.5"
    finished = await tool("finish", {"run_id": run_id, "command_id": "c4"})
    assert finished["finished"] is True and finished["day"] == 180
    return run_id, replies


def check_run(hosted: Hosted, run_id: str, tmp_path: Path) -> None:
    """The episode is in the journal, the run verifies, and the operator validates it."""
    root = hosted.runs / run_id
    journal = Journal.open(root / "journal.jsonl")
    assert [(e.kind, e.id) for e in journal.entries[1:]] == [
        ("schedule", "c1"),
        ("advance", "c2"),
        ("submit_assessment", "c3"),
        ("finish", "c4"),
    ]
    assert verify_run(root, hosted.control, ALPHA).ok
    result = CliRunner().invoke(
        main,
        [
            "validate",
            "counterfactual",
            str(hosted.runs),
            "--control",
            str(hosted.control_path),
            "--agent",
            ALPHA,
            "--out",
            str(tmp_path / "report"),
        ],
    )
    assert result.exit_code in (0, 1), result.output
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    bank_loan = next(q for q in report["questions"] if q["id"] == "q_bank_loan")
    assert bank_loan["submission"]["value"] == "-450.5"
    assert bank_loan["status"] in ("scored", "unresolved"), bank_loan["reason"]


def test_an_agent_plays_over_streamable_http(live: Live, tmp_path: Path) -> None:
    async def play() -> str:
        async with mcp_session(live.url, live.hosted.tokens[ALPHA]) as mcp:
            run_id, _ = await play_over(mcp)
            listed = await mcp.call_tool("list_runs", {})
            assert listed.structured_content == {
                "agent": ALPHA,
                "runs": [
                    {
                        "run_id": run_id,
                        "campaign_id": live.runtime.bundle.id,
                        "day": 180,
                        "horizon": 180,
                        "finished": True,
                        "commands": 4,
                    }
                ],
            }
            return run_id

    check_run(live.hosted, anyio.run(play), tmp_path)


def test_mcp_is_built_when_an_agent_first_asks_and_stops_with_the_host(hosted: Hosted) -> None:
    """A host serves the JSON API, /health and 404s without the MCP SDK; the first MCP
    request builds it, and the host still stops cleanly afterwards."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        front = server.server.config.app
        assert isinstance(front, ApiFront)
        token = hosted.tokens[ALPHA]
        with http_client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as c:
            assert c.get("/health").json() == {"status": "ok"}
            assert c.get(f"{API_PREFIX}/briefing").status_code == 200
            missing = c.post("/mcpx", json={})
            assert missing.status_code == 404
            assert missing.json() == {"error": {"code": "not_found", "message": "no route '/mcpx'"}}
        assert not front.mcp.started

        async def tools() -> set[str]:
            async with mcp_session(server.url, token) as mcp:
                return {tool.name for tool in (await mcp.list_tools()).tools}

        assert "advance" in anyio.run(tools) and front.mcp.started
    assert not server.thread.is_alive()
    runtime.close()


def test_starting_a_host_does_not_import_the_mcp_sdk() -> None:
    """Importing it was two thirds of a host's start (see workbench/host/mcp_app.py)."""
    probe = "import sys, workbench.cli.host, workbench.host.server; print('mcp' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_an_agent_plays_over_stdio(hosted: Hosted, tmp_path: Path) -> None:
    hosted.runtime().close()
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "workbench",
            "host",
            str(hosted.campaign),
            "--control",
            str(hosted.control_path),
            "--runs",
            str(hosted.runs),
            "--stdio",
            "--agent",
            ALPHA,
        ],
    )

    async def play() -> str:
        async with Client(params) as mcp:
            run_id, _ = await play_over(mcp)
            return run_id

    check_run(hosted, anyio.run(play), tmp_path)


def test_the_stdio_agent_must_be_registered(hosted: Hosted) -> None:
    result = CliRunner().invoke(
        main,
        [
            "host",
            str(hosted.campaign),
            "--control",
            str(hosted.control_path),
            "--runs",
            str(hosted.runs),
            "--stdio",
            "--agent",
            "agent-NOBODY",
        ],
    )
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "Error: agent 'agent-NOBODY' is not registered in the control file (--agent)"
    )
