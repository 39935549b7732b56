"""`workbench host` refuses bad usage with one line and exit 2, before it serves anything."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from campaigns import DEFAULT_CAMPAIGN
from workbench.cli import main

from .conftest import ALPHA, Hosted, make_hosted


def host(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["host", *(str(a) for a in args)])


def one_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_a_development_campaign_is_not_hosted(hosted: Hosted) -> None:
    line = one_line(host(DEFAULT_CAMPAIGN, "--control", hosted.control_path, "--runs", hosted.runs))
    assert "is for campaign" in line or "development campaign" in line
    assert not hosted.runs.exists() or not any(hosted.runs.iterdir())


def test_a_control_file_of_another_campaign_is_refused(hosted: Hosted, tmp_path: Path) -> None:
    other = make_hosted(tmp_path / "other")
    (other.campaign / "campaign.toml").write_text(
        (other.campaign / "campaign.toml")
        .read_text()
        .replace("horizon_days = 180", "horizon_days = 170")
    )
    line = one_line(host(other.campaign, "--control", hosted.control_path, "--runs", hosted.runs))
    assert "control file is for campaign" in line


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--stdio"], "--stdio serves one local agent: name it with --agent ID"),
        (["--agent", ALPHA], "--agent goes with --stdio; over HTTP each agent brings its token"),
    ],
)
def test_stdio_and_agent_go_together(hosted: Hosted, extra: list[str], message: str) -> None:
    result = host(hosted.campaign, "--control", hosted.control_path, "--runs", hosted.runs, *extra)
    assert one_line(result) == f"Error: {message}"


def test_a_busy_port_is_named(hosted: Hosted) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = host(
            hosted.campaign,
            "--control",
            hosted.control_path,
            "--runs",
            hosted.runs,
            "--port",
            str(port),
        )
    assert one_line(result).startswith(f"Error: cannot listen on 127.0.0.1:{port}")


def test_a_missing_control_file_is_named(hosted: Hosted, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    line = one_line(host(hosted.campaign, "--control", missing, "--runs", hosted.runs))
    assert str(missing) in line and "does not exist" in line


def _taken_port() -> tuple[socket.socket, str]:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    return busy, str(busy.getsockname()[1])


@pytest.mark.parametrize(
    ("runs", "refusal", "says"),
    [
        ("new", "busy port", "cannot listen"),
        ("new", "unknown agent", "is not registered"),
        ("others", "busy port", "is not empty and holds no host.json"),
        ("hosted", "busy port", "cannot listen"),
        ("hosted", "unknown agent", "is not registered"),
    ],
)
def test_a_refused_host_changes_nothing(
    hosted: Hosted, tmp_path: Path, runs: str, refusal: str, says: str
) -> None:
    """Whatever the reason, a host that is refused leaves the runs directory as it found
    it: not created when new, and no lock file, record or staging left in it."""
    target = tmp_path / "runs"
    if runs == "others":
        target.mkdir()
        (target / "notes.txt").write_text("mine")
    elif runs == "hosted":
        hosted.runtime().close()
        hosted.runs.rename(target)
    before = sorted(p.name for p in target.iterdir()) if target.exists() else None
    busy, port = _taken_port()
    with busy:
        extra = ["--stdio", "--agent", "agent-NOBODY"] if refusal == "unknown agent" else []
        args = [hosted.campaign, "--control", hosted.control_path, "--runs", target]
        assert says in one_line(host(*args, "--port", port, *extra))
    assert (sorted(p.name for p in target.iterdir()) if target.exists() else None) == before
