"""An agent plays over MCP with the SDK's own client: streamable HTTP on loopback, and stdio.

The episode's commands land in the run's journal on disk, the run verifies, and the
operator validates it offline with the same command as any private run.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import TextResourceContents

from ledger.journal import Journal
from workbench.cli import main
from workbench.host.api import ApiFront
from workbench.host.server import ServerThread
from workbench.play.wire import API_PREFIX, MCP_PATH
from workbench.runs.verify import verify_run

from .agent import HttpAgent
from .conftest import (
    ALPHA,
    TLS,
    Hosted,
    Live,
    async_http_client,
    http_client,
    journal_of,
    mcp_session,
)


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
        env=dict(os.environ),  # the SDK passes only a few variables on: the test's state too
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


# -- a key given twice in an MCP message -----------------------------------------------------
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "by-hand", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def http_session(client: httpx2.Client) -> dict[str, str]:
    """Initialize an MCP session over plain HTTP requests; the headers that continue it."""
    started = client.post(MCP_PATH, json=INITIALIZE, headers=MCP_HEADERS)
    assert started.status_code == 200, started.text
    session = {
        **MCP_HEADERS,
        "mcp-session-id": started.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-06-18",
    }
    assert client.post(MCP_PATH, json=INITIALIZED, headers=session).status_code == 202
    return session


def call(tool: str, arguments: str, request_id: str = "7") -> bytes:
    """A tools/call message as text, its arguments as given (a repeated key kept)."""
    return (
        f'{{"jsonrpc":"2.0","id":{request_id},"method":"tools/call",'
        f'"params":{{"name":"{tool}","arguments":{arguments}}}}}'
    ).encode()


REPEATS: dict[str, tuple[bytes, str, str | int | None]] = {
    "an argument": (
        call("schedule", '{"run_id":"RUN","command_id":"r1","action":"bank_loan",'
                         '"action":"hire_roaster"}'),
        "action",
        7,
    ),
    "spelt with an escape": (
        call("schedule", '{"run_id":"RUN","command_id":"r2","action":"bank_loan",'
                         '"\\u0061ction":"hire_roaster"}'),
        "action",
        7,
    ),
    "inside an argument": (
        call("submit_assessment", '{"run_id":"RUN","command_id":"r3","assessment":{"kind":'
             '"counterfactual","question":"q_bank_loan","value":"-1","value":"-900"}}'),
        "value",
        7,
    ),
    "in an array": (
        call("advance", '{"run_id":"RUN","command_id":"r4","days":1,"x":[[{"a":1,"a":2}]]}'),
        "a",
        7,
    ),
    "beside a number only some parsers take": (
        call("advance", '{"run_id":"RUN","command_id":"r5","days":1e999,"days":1}', '"s-7"'),
        "days",
        "s-7",
    ),
    "the id": (
        call("advance", '{"run_id":"RUN","command_id":"r6","days":1}', '7,"id":8'),
        "id",
        None,
    ),
    "in a notification": (
        b'{"jsonrpc":"2.0","method":"notifications/progress",'
        b'"params":{"progressToken":1,"progress":1,"progress":2}}',
        "progress",
        None,
    ),
}  # fmt: skip
"""MCP messages naming a key twice: the key, and the id the refusal carries."""


def refused(key: str, request_id: str | int | None) -> dict[str, Any]:
    """The JSON-RPC error refusing a message that names `key` twice."""
    message = f"MCP message gives key {key!r} twice; give it once"
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600, "message": message}}


def test_an_mcp_message_naming_a_key_twice_is_refused_over_http(live: Live) -> None:
    """The SDK kept the last of a repeated key (`action` bank_loan then hire_roaster
    scheduled hire_roaster): every such message is now 400 with a JSON-RPC error naming
    the key, before the SDK reads it, and the session serves on."""
    token = live.hosted.tokens[ALPHA]
    with live.client(ALPHA) as client:
        agent = HttpAgent(client, prefix="twice")
        agent.start("twice-start")
        session = http_session(client)
        before = journal_of(live, agent.run_id)
        for name, (message, key, request_id) in REPEATS.items():
            body = message.replace(b"RUN", agent.run_id.encode())
            response = client.post(MCP_PATH, content=body, headers=session)
            assert response.status_code == 400, (name, response.text)
            assert response.headers["content-type"] == "application/json"
            assert response.json() == refused(key, request_id), name
            chunked = client.post(MCP_PATH, content=iter([body[:50], body[50:]]), headers=session)
            assert chunked.status_code == 400 and chunked.json() == refused(key, request_id)
        assert journal_of(live, agent.run_id) == before
        once = call(
            "schedule", f'{{"run_id":"{agent.run_id}","command_id":"r9","action":"bank_loan"}}'
        )
        served = client.post(MCP_PATH, content=once, headers=session)
        assert served.status_code == 200 and '"accepted\\": true' in served.text, served.text
        assert journal_of(live, agent.run_id) != before
    with http_client(base_url=live.url, headers=MCP_HEADERS, timeout=60) as anonymous:
        body = REPEATS["an argument"][0]
        assert anonymous.post(MCP_PATH, content=body).status_code == 401
        wrong = anonymous.post(
            MCP_PATH, content=body, headers={"Authorization": f"Bearer x{token}"}
        )
        assert wrong.status_code == 401


class KeyTwice(httpx2.AsyncHTTPTransport):
    """A real transport that, on the way out, gives `"command_id":"twice"` a second
    command_id (the SDK's client never writes a key twice)."""

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.content
        if b'"command_id":"twice"' in body:
            body = body.replace(b'"command_id":"twice"', b'"command_id":"twice","command_id":"b"')
            headers = [(k, v) for k, v in request.headers.items() if k != "content-length"]
            request = httpx2.Request(request.method, request.url, headers=headers, content=body)
        return await super().handle_async_request(request)


def test_the_sdk_client_gets_the_refusal_as_its_calls_error(live: Live) -> None:
    async def play() -> tuple[str, bool]:
        http = async_http_client(
            headers={"Authorization": f"Bearer {live.hosted.tokens[ALPHA]}"},
            transport=KeyTwice(verify=TLS),
            timeout=60,
        )
        async with Client(streamable_http_client(f"{live.url}{MCP_PATH}", http_client=http)) as mcp:
            with pytest.raises(MCPError) as refusal:
                await mcp.call_tool("start_episode", {"command_id": "twice"})
            assert not list(live.hosted.runs.glob("run-*"))
            started = await mcp.call_tool("start_episode", {"command_id": "once"})
            return str(refusal.value), started.is_error

    assert anyio.run(play) == ("MCP message gives key 'command_id' twice; give it once", False)
    assert len(list(live.hosted.runs.glob("run-*"))) == 1


class StdioHost:
    """`workbench host --stdio` as a process spoken to by hand, a line at a time; every
    reply is awaited with a timeout, so a missing one fails the test instead of hanging it."""

    def __init__(self, hosted: Hosted, log: Path) -> None:
        command = [
            sys.executable, "-m", "workbench", "host", str(hosted.campaign),
            "--control", str(hosted.control_path), "--runs", str(hosted.runs),
            "--stdio", "--agent", ALPHA,
        ]  # fmt: skip
        self.log = log.open("wb")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log
        )
        self.replies: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.replies.put(line)

    def send(self, message: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(message + b"\n")
        self.process.stdin.flush()

    def ask(self, message: bytes) -> dict[str, Any]:
        """Send one line and return the next reply."""
        self.send(message)
        try:
            reply: dict[str, Any] = json.loads(self.replies.get(timeout=120))
        except queue.Empty:
            pytest.fail(f"no reply over stdio to {message[:200]!r}")
        return reply

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self.log.close()


def test_an_mcp_message_naming_a_key_twice_is_refused_over_stdio(
    hosted: Hosted, tmp_path: Path
) -> None:
    """Over stdio the refusal is the same JSON-RPC error, as a line; the refused start
    (command_id a then b) starts nothing, and the session serves on."""
    hosted.runtime().close()
    host = StdioHost(hosted, tmp_path / "stdio.log")
    try:
        assert "result" in host.ask(json.dumps(INITIALIZE).encode())
        host.send(json.dumps(INITIALIZED).encode())
        twice = call("start_episode", '{"command_id":"a","command_id":"b"}', "1")
        assert host.ask(twice) == refused("command_id", 1)
        for name, (message, key, request_id) in REPEATS.items():
            assert host.ask(message) == refused(key, request_id), name
        assert not list(hosted.runs.glob("run-*"))
        started = host.ask(call("start_episode", '{"command_id":"b"}', "2"))
        assert started["id"] == 2 and started["result"]["isError"] is False, started
        assert started["result"]["structuredContent"]["run"]["run_id"]
        assert len(list(hosted.runs.glob("run-*"))) == 1
    finally:
        host.close()


def test_a_line_that_is_not_a_jsonrpc_message_is_answered_over_stdio(
    hosted: Hosted, tmp_path: Path
) -> None:
    """A line cut short, text that is not JSON, or JSON that is not a JSON-RPC message gets
    its JSON-RPC error as a line (the SDK dropped it, so the client waited for ever), with
    the request's id when one can be read; blank lines are skipped; the session serves on."""
    hosted.runtime().close()
    host = StdioHost(hosted, tmp_path / "stdio.log")
    try:
        assert "result" in host.ask(json.dumps(INITIALIZE).encode())
        host.send(json.dumps(INITIALIZED).encode())
        host.send(b"")
        host.send(b"   ")
        for line, code, request_id in [
            (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{', -32700, None),
            (b"hello", -32700, None),
            (b"\xff\xfe{", -32700, None),
            (b"[1, 2]", -32600, None),
            (b"{}", -32600, None),
            (b'{"jsonrpc":"1.0","id":8,"method":"tools/list"}', -32600, 8),
            (b'{"jsonrpc":"2.0","id":9,"method":7}', -32600, 9),
        ]:
            reply = host.ask(line)
            assert reply["id"] == request_id, (line, reply)
            assert reply["error"]["code"] == code, (line, reply)
            assert "\n" not in reply["error"]["message"]
            assert reply["error"]["message"].startswith("MCP message is not"), reply
        listed = host.ask(b'{"jsonrpc":"2.0","id":10,"method":"tools/list"}')
        assert listed["id"] == 10 and listed["result"]["tools"], listed
    finally:
        host.close()
