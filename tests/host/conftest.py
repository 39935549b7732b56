"""Fixtures for the hosted runtime: a private campaign, a real server on loopback, clients.

Servers are real uvicorn servers on a free 127.0.0.1 port (in this process, or as a
`workbench host` subprocess where a test kills it); clients are real HTTP clients.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from campaigns import DEFAULT_CAMPAIGN
from tests.workbench.conftest import control_new, make_private
from workbench.host.runtime import HostRuntime, Limits
from workbench.host.server import ServerThread
from workbench.play.wire import MCP_PATH
from workbench.runs.registration import ControlFile, load_control

ALPHA = "agent-ALPHA"
BRAVO = "agent-BRAVO"

TLS = httpx2.create_ssl_context()
"""One TLS context for every test client. A client makes its own by default, loading the
CA bundle again: 30 ms of CPU each, 13 s for the 263 clients of the host tests. The hosts
here serve plain HTTP on loopback, so it is never used to connect."""


def http_client(**options: Any) -> httpx2.Client:
    """A real HTTP client (sharing TLS)."""
    return httpx2.Client(verify=TLS, **options)


def async_http_client(**options: Any) -> httpx2.AsyncClient:
    """A real asynchronous HTTP client (sharing TLS)."""
    return httpx2.AsyncClient(verify=TLS, **options)


@contextlib.asynccontextmanager
async def mcp_session(url: str, token: str) -> AsyncIterator[Client]:
    """The SDK's MCP client on the host at base `url`, over streamable HTTP, as `token`."""
    http = async_http_client(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with Client(streamable_http_client(f"{url}{MCP_PATH}", http_client=http)) as mcp:
        yield mcp


@dataclass(frozen=True)
class Hosted:
    """A private campaign, its control file, the agents' tokens and a runs directory."""

    campaign: Path
    control_path: Path
    tokens: dict[str, str]
    runs: Path

    @property
    def control(self) -> ControlFile:
        """The parsed control file."""
        return load_control(self.control_path)

    def runtime(self, limits: Limits | None = None) -> HostRuntime:
        """A runtime over the runs directory, opened (locked and recovered)."""
        runtime = HostRuntime(self.campaign, self.control, self.runs, limits)
        runtime.open()
        return runtime


def make_hosted(
    root: Path, pinned: bool = True, agents: tuple[str, ...] = (ALPHA, BRAVO)
) -> Hosted:
    """A private copy of the default campaign with `agents` (ALPHA and BRAVO), under `root`
    (on the pinned test world unless `pinned` is False: then a seed of its own)."""
    campaign = root / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, campaign)
    make_private(campaign)
    control = root / "control.json"
    tokens = control_new(campaign, control, *agents, pinned=pinned)
    return Hosted(campaign, control, tokens, root / "runs")


@pytest.fixture
def hosted(tmp_path: Path) -> Hosted:
    """A fresh hosted campaign with an empty runs directory."""
    return make_hosted(tmp_path)


@dataclass
class Live:
    """A host serving `hosted` at `url`, and its runtime."""

    hosted: Hosted
    runtime: HostRuntime
    url: str

    def client(self, agent: str | None = ALPHA, token: str | None = None) -> httpx2.Client:
        """A real HTTP client with the agent's bearer token (or `token`, or none)."""
        headers = {}
        bearer = token if token is not None else (self.hosted.tokens[agent] if agent else None)
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        return http_client(base_url=self.url, headers=headers, timeout=60)


@pytest.fixture
def live(hosted: Hosted) -> Iterator[Live]:
    """A real server on a free loopback port, in this process."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        yield Live(hosted, runtime, server.url)
    runtime.close()


@pytest.fixture(scope="module")
def shared_live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """One server for a module's read-mostly tests."""
    hosted = make_hosted(tmp_path_factory.mktemp("hosted"))
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        yield Live(hosted, runtime, server.url)
    runtime.close()


class HostProcess:
    """`workbench host` as a real subprocess on a free loopback port (killable)."""

    URL = re.compile(r"at (http://127\.0\.0\.1:\d+) ")

    def __init__(
        self,
        hosted: Hosted,
        log: Path,
        extra: tuple[str, ...] = (),
        preexec: Callable[[], None] | None = None,
    ) -> None:
        self.hosted = hosted
        self.log = log
        self.extra = extra
        """Options after the usual ones (`--allowed-host NAME`, ...)."""
        self.preexec = preexec
        """Run in the child before it starts the host (limits it is started under)."""
        self.process: subprocess.Popen[bytes] | None = None
        self.url = ""

    def spawn(self) -> HostProcess:
        """Start the host process and return at once (see `start`)."""
        command = [
            sys.executable,
            "-m",
            "workbench",
            "host",
            str(self.hosted.campaign),
            "--control",
            str(self.hosted.control_path),
            "--runs",
            str(self.hosted.runs),
            "--port",
            "0",
            *self.extra,
        ]
        with open(self.log, "ab") as handle:
            self.process = subprocess.Popen(
                command, stdout=handle, stderr=handle, preexec_fn=self.preexec
            )
        return self

    def start(self, timeout: float = 120) -> HostProcess:
        """Start the host and wait until it answers /health."""
        self.spawn()
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.URL.findall(self.log.read_text())
            if found and self.process.poll() is None:
                self.url = found[-1]
                try:
                    if httpx2.get(f"{self.url}/health", timeout=5, verify=TLS).status_code == 200:
                        return self
                except httpx2.TransportError:
                    pass
            if self.process.poll() is not None:
                raise RuntimeError(f"host exited: {self.log.read_text()[-2000:]}")
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"host did not start: {self.log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL the host and reap it."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> int:
        """SIGTERM the host (graceful) and return its exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)


def one_error(response: httpx2.Response, status: int, code: str) -> str:
    """Assert the reply is the API's one-line error with this status and code."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in message
    return str(message)


@pytest.fixture(scope="module")
def alpha_run(shared_live: Live) -> str:
    """A run of ALPHA's on the module's shared server, two days in."""
    from tests.host.agent import HttpAgent

    agent = HttpAgent(shared_live.client(ALPHA), prefix="sec-alpha")
    agent.start("security-alpha")
    agent.advance(2)
    return agent.run_id


def journal_of(live: Live, run_id: str) -> bytes:
    """The bytes of a run's journal as the host left them."""
    return (live.hosted.runs / run_id / "journal.jsonl").read_bytes()
