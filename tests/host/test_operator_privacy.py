"""What an agent must not reach on the host's side: other agents' files on this machine,
and the operator's own command lines and paths in a refusal.

Real servers on loopback, real HTTP and MCP clients.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.host.server import ServerThread
from workbench.play.wire import API_PREFIX
from workbench.runs.lock import RunLock

from .conftest import ALPHA, BRAVO, Hosted, Live, mcp_session

OPERATOR = (
    "workbench finish /srv/operator-secret/hosted/run-x --control /srv/operator-secret/c.json"
)
"""An operator's command line, as a run's writer lock names its holder."""


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, under which a new directory is readable by every user."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _play(live: Live) -> str:
    """ALPHA's and BRAVO's episodes, ALPHA's with a submission; ALPHA's run id."""
    alpha = live.client(ALPHA)
    run_id = str(alpha.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"])
    submitted = alpha.post(
        f"{API_PREFIX}/runs/{run_id}/assessments",
        json={"command_id": "a", "assessment": {"question": "q_spring_campaign", "value": "1234"}},
    )
    assert submitted.status_code == 200, submitted.text
    assert live.client(BRAVO).post(f"{API_PREFIX}/runs", json={"command_id": "s"}).is_success
    return run_id


def _played(hosted: Hosted) -> str:
    """ALPHA's episode played on a host that is then stopped; its run id."""
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            return _play(Live(hosted, runtime, server.url))
    finally:
        runtime.close()


@pytest.mark.parametrize("existing", [False, True])
def test_the_runs_directory_is_its_owners_alone(
    hosted: Hosted, umask_022: None, existing: bool
) -> None:
    """Every agent's journal (its actions and submissions, in the one world they all play)
    is kept in the runs directory: under the umask it was readable by every user of the
    machine, so an agent there under its own user (beside a stdio host, say) read another
    agent's episode. New or given empty, the directory is its owner's alone."""
    if existing:
        hosted.runs.mkdir()
        hosted.runs.chmod(0o755)
    run_id = _played(hosted)
    assert (hosted.runs / run_id / "journal.jsonl").exists()
    assert _mode(hosted.runs) & 0o077 == 0, oct(_mode(hosted.runs))
    assert _mode(hosted.runs) & 0o700 == 0o700


@pytest.mark.parametrize("existing", [False, True])
def test_the_evaluation_of_a_hosted_run_is_its_owners_alone(
    hosted: Hosted, tmp_path: Path, umask_022: None, existing: bool
) -> None:
    """The operator's `validate counterfactual` of a finished hosted run writes both
    branches of every question: the exact answers of the world every agent plays. Under
    the umask its output (one run's, and a batch's) was readable by every user of the
    machine, so an agent still playing there read them. It is its owner's alone."""
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            live = Live(hosted, runtime, server.url)
            run_id = _play(live)
            finished = live.client(ALPHA).post(
                f"{API_PREFIX}/runs/{run_id}/finish", json={"command_id": "f"}
            )
            assert finished.status_code == 200, finished.text
    finally:
        runtime.close()
    one, batch = tmp_path / "reports" / "alpha", tmp_path / "reports" / "batch"
    if existing:
        for folder in (one, batch):
            folder.mkdir(parents=True)
            folder.chmod(0o755)
    control = ["--control", str(hosted.control_path)]
    for options in (
        ["--agent", ALPHA, "--out", str(one)],
        ["--all-agents", "--out", str(batch)],
    ):
        result = CliRunner().invoke(
            main, ["validate", "counterfactual", str(hosted.runs), *control, *options]
        )
        assert result.exit_code in (0, 1), result.output
    assert (one / "report.json").exists() and any(batch.iterdir())
    for folder in (one, batch):
        assert _mode(folder) & 0o077 == 0, (folder, oct(_mode(folder)))
    assert _mode(tmp_path / "reports") & 0o077 == 0o055  # its parent is the operator's


@pytest.fixture
def locked_by_operator(hosted: Hosted) -> Iterator[tuple[Hosted, str]]:
    """ALPHA's episode, the host stopped, and an operator's command holding its writer lock.
    Yields ALPHA's run id."""
    run_id = _played(hosted)
    with RunLock.acquire(hosted.runs / run_id, OPERATOR):
        yield hosted, run_id


def _operator_free(message: str, hosted: Hosted) -> None:
    for secret in ("operator-secret", "c.json", "pid ", str(hosted.runs), str(os.getpid())):
        assert secret not in message, message


def test_a_busy_run_does_not_show_the_operators_command(
    locked_by_operator: tuple[Hosted, str],
) -> None:
    """A run another process writes is 503 `run_busy`: its message named that process's
    pid and whole command line (an operator's paths, its control file's among them) and
    the run's absolute path. The agent is told the run is busy; the log names who."""
    hosted, run_id = locked_by_operator
    runtime = hosted.runtime()
    try:
        with ServerThread(runtime) as server:
            live = Live(hosted, runtime, server.url)
            alpha = live.client(ALPHA)
            for response in (
                alpha.get(f"{API_PREFIX}/runs/{run_id}"),
                alpha.get(f"{API_PREFIX}/runs/{run_id}/snapshot"),
                alpha.post(
                    f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "b", "days": 1}
                ),
            ):
                assert response.status_code == 503, response.text
                error = response.json()["error"]
                assert error["code"] == "run_busy"
                assert "being written by another process" in error["message"]
                _operator_free(response.text, hosted)
            listed = alpha.get(f"{API_PREFIX}/runs")
            assert listed.status_code == 200, listed.text
            assert listed.json()["runs"][0]["error"]["code"] == "run_busy"
            _operator_free(listed.text, hosted)

            async def over_mcp() -> list[str]:
                async with mcp_session(live.url, hosted.tokens[ALPHA]) as mcp:
                    texts = []
                    for tool, arguments in (
                        ("run_info", {"run_id": run_id}),
                        ("list_runs", {}),
                    ):
                        result = await mcp.call_tool(tool, arguments)
                        texts.append(str(result.model_dump()))
                    return texts

            for text in anyio.run(over_mcp):
                assert "run_busy" in text
                _operator_free(text, hosted)
    finally:
        runtime.close()
