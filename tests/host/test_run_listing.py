"""An agent's run listing with one of its runs damaged: the others are still listed.

`GET /v1/runs` and the MCP tool `list_runs` read every one of the agent's runs; one whose
run.json was corrupt or unreadable failed the whole listing with 503 `run_damaged`, so the
agent (and `play --connect`) could reach none of its runs. Real servers on loopback,
real HTTP and MCP clients.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from workbench.errors import IntegrityError
from workbench.host.server import ServerThread
from workbench.play.remote import RemoteSession
from workbench.play.wire import API_PREFIX, RunInfo, RunList, UnavailableRun
from workbench.runs.lock import RunLock

from .conftest import ALPHA, BRAVO, Hosted, Live, mcp_session

SECOND = "run-" + "0" * 32
"""A second run of ALPHA's, copied in by an operator (the host makes one per agent)."""


def _damage(run: Path, how: str) -> None:
    registration = run / "run.json"
    registration.unlink()
    if how == "corrupt":
        registration.write_text('{"bad": 1}\n')
    else:  # unreadable: no file can be read there
        registration.mkdir()


@pytest.fixture
def two_runs(hosted: Hosted) -> Iterator[tuple[Hosted, str]]:
    """ALPHA's episode two days in and a copy of it (SECOND), BRAVO's episode; the host
    stopped. Yields ALPHA's episode's run id."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        live = Live(hosted, runtime, server.url)
        alpha = live.client(ALPHA)
        started = alpha.post(f"{API_PREFIX}/runs", json={"command_id": "s"})
        run_id = started.json()["run"]["run_id"]
        advanced = alpha.post(
            f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "a", "days": 2}
        )
        assert advanced.status_code == 200, advanced.text
        assert live.client(BRAVO).post(f"{API_PREFIX}/runs", json={"command_id": "s"}).is_success
    runtime.close()
    shutil.copytree(hosted.runs / run_id, hosted.runs / SECOND)
    yield hosted, run_id


@pytest.mark.parametrize("how", ["corrupt", "unreadable"])
@pytest.mark.parametrize("when", ["before the host starts", "while it serves"])
def test_a_damaged_run_is_listed_as_damaged_beside_the_others(
    two_runs: tuple[Hosted, str], how: str, when: str
) -> None:
    hosted, damaged = two_runs
    if when == "before the host starts":
        _damage(hosted.runs / damaged, how)
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            live = Live(hosted, runtime, server.url)
            if when == "while it serves":  # found when the listing resumes the run
                _damage(hosted.runs / damaged, how)
            response = live.client(ALPHA).get(f"{API_PREFIX}/runs")
            assert response.status_code == 200, response.text
            listing = RunList.model_validate(response.json())
            assert listing.agent == ALPHA
            runs = {run.run_id: run for run in listing.runs}
            assert set(runs) == {damaged, SECOND}
            healthy, broken = runs[SECOND], runs[damaged]
            assert isinstance(healthy, RunInfo) and healthy.day == 2 and not healthy.finished
            assert isinstance(broken, UnavailableRun)
            assert broken.error.code == "run_damaged"
            reason = broken.error.message
            assert "run.json" in reason and "\n" not in reason and len(reason) < 400, reason
            assert str(hosted.runs) not in reason
            assert set(response.json()["runs"][0]) | set(response.json()["runs"][1]) >= {
                "error",
                "day",
            }

            async def tool() -> object:
                async with mcp_session(live.url, hosted.tokens[ALPHA]) as mcp:
                    listed = await mcp.call_tool("list_runs", {})
                    assert not listed.is_error, listed
                    return listed.structured_content

            assert anyio.run(tool) == response.json()

            token = hosted.tokens[ALPHA]
            session = RemoteSession.connect(live.url, ALPHA, token)
            try:
                assert session.run_id == SECOND  # the run it can serve, not a new episode
            finally:
                session.close()
            with pytest.raises(IntegrityError, match="damaged"):
                RemoteSession.connect(live.url, ALPHA, token, run_id=damaged)
            bravo = live.client(BRAVO).get(f"{API_PREFIX}/runs").json()["runs"]
            assert len(bravo) == 1 and bravo[0]["day"] == 0
    finally:
        runtime.close()


def test_an_agent_whose_only_run_is_damaged_gets_its_listing(hosted: Hosted) -> None:
    """Its one run damaged, the agent is told so in the listing (200), and `play --connect`
    says why rather than trying to start a second episode."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        client = Live(hosted, runtime, server.url).client(ALPHA)
        run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
    runtime.close()
    os.unlink(hosted.runs / run_id / "run.json")
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            live = Live(hosted, runtime, server.url)
            response = live.client(ALPHA).get(f"{API_PREFIX}/runs")
            assert response.status_code == 200, response.text
            (only,) = response.json()["runs"]
            assert only["run_id"] == run_id and only["error"]["code"] == "run_damaged"
            with pytest.raises(IntegrityError, match=f"{run_id} is damaged"):
                RemoteSession.connect(live.url, ALPHA, hosted.tokens[ALPHA])
    finally:
        runtime.close()


def test_a_run_another_process_writes_is_listed_as_busy(two_runs: tuple[Hosted, str]) -> None:
    """Not only damage: a run the host cannot open now (an operator's command holds its
    writer lock) is listed with `run_busy`, beside the run it can open."""
    hosted, episode = two_runs
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server, RunLock.acquire(hosted.runs / SECOND, "operator"):
            response = Live(hosted, runtime, server.url).client(ALPHA).get(f"{API_PREFIX}/runs")
            assert response.status_code == 200, response.text
            runs = {run["run_id"]: run for run in response.json()["runs"]}
            assert runs[episode]["day"] == 2
            assert runs[SECOND]["error"]["code"] == "run_busy"
            assert "being written by" in runs[SECOND]["error"]["message"]
    finally:
        runtime.close()
