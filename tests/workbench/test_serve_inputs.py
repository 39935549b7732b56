"""`workbench serve` checks CAMPAIGN and --run before it serves: a bad one is one line and
exit 2 at the command, not an error inside every browser session.

`serve nope` and `serve --run somefile` used to start serving. Each test here holds the
port busy, so a check that is missing shows as the port's error instead of a hang: the
input is checked first, and a good one goes on to the (refused) listen.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.placed import one_error_line as _one_line_error
from tests.placed import place
from tests.workbench.conftest import make_private
from workbench.cli import main


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A loopback port something already listens on."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        yield int(busy.getsockname()[1])


def _serve(port: int, *args: str) -> Result:
    """`workbench serve ARGS --port PORT` through click."""
    return CliRunner().invoke(main, ["serve", *args, "--port", str(port)])


def _refused_input(result: Result) -> str:
    """The error of an input refused before serving (not the busy port's)."""
    message = _one_line_error(result)
    assert "cannot listen" not in message, message
    return message


def _snapshot(folder: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry of `folder` with its mode and, for a regular file, its bytes."""
    found = {}
    for entry in sorted(folder.rglob("*")):
        info = os.lstat(entry)
        data = entry.read_bytes() if stat.S_ISREG(info.st_mode) else None
        found[str(entry.relative_to(folder))] = (info.st_mode, data)
    return found


def test_an_unknown_campaign_is_refused_before_serving(busy_port: int, tmp_path: Path) -> None:
    message = _refused_input(_serve(busy_port, str(tmp_path / "nope")))
    assert "nope" in message and "does not exist" in message


def test_a_private_campaign_is_refused_before_serving(busy_port: int, campaign_copy: Path) -> None:
    campaign = make_private(campaign_copy)
    message = _refused_input(_serve(busy_port, str(campaign)))
    assert "is private" in message and "serve plays development campaigns only" in message


@pytest.mark.parametrize(
    "kind", ["file", "device", "named pipe", "dangling link", "a folder of other files"]
)
def test_a_run_that_is_not_a_run_or_a_new_directory_is_refused(
    busy_port: int, tmp_path: Path, kind: str
) -> None:
    run = tmp_path / "somefile"
    place("directory" if kind == "a folder of other files" else kind, run, tmp_path)
    if kind == "a folder of other files":
        (run / "notes.txt").write_text("mine")
    before = _snapshot(tmp_path)
    assert str(run) in _refused_input(_serve(busy_port, "--run", str(run)))
    assert _snapshot(tmp_path) == before


def test_a_damaged_run_is_refused_before_serving(
    busy_port: int, demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    (run / "run.json").write_text('{"x": 1}\n')
    before = _snapshot(run)
    result = _serve(busy_port, "--run", str(run))
    assert result.exit_code != 0 and "cannot listen" not in result.output
    assert "Traceback" not in result.output and "run.json" in result.output
    assert _snapshot(run) == before


def test_a_run_of_another_campaign_is_refused_before_serving(
    busy_port: int, demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = _snapshot(run)
    result = _serve(busy_port, "gelato", "--run", str(run))
    assert result.exit_code != 0 and "cannot listen" not in result.output
    assert "Traceback" not in result.output
    assert _snapshot(run) == before


def test_a_run_a_writer_would_repair_is_not_refused(
    busy_port: int, demo_run: Path, tmp_path: Path
) -> None:
    """A journal whose last append was cut short is repaired by the session that opens the
    run to write: serve's check must not be stricter than the play it starts."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    with (run / "journal.jsonl").open("ab") as journal:
        journal.write(b'{"seq":99,"ki')
    before = _snapshot(run)
    message = _one_line_error(_serve(busy_port, "--run", str(run)))
    assert message == f"Error: cannot listen on 127.0.0.1:{busy_port}: Address already in use"
    assert _snapshot(run) == before


def test_a_runs_folder_that_is_a_file_is_refused_before_serving(
    busy_port: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --run each browser session claims runs/play-N under the working directory."""
    monkeypatch.chdir(tmp_path)
    Path("runs").write_text("mine")
    assert "runs is not a directory" in _refused_input(_serve(busy_port))


def test_good_inputs_go_on_to_listen_and_write_nothing(
    busy_port: int, demo_run: Path, tmp_path: Path
) -> None:
    """A run to resume, a new run directory, the default and a named campaign pass the
    checks (read-only: nothing is written or created) and meet the busy port."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = _snapshot(tmp_path)
    for args in (["--run", str(run)], ["--run", str(tmp_path / "new")], [], ["gelato"]):
        message = _one_line_error(_serve(busy_port, *args))
        assert message == f"Error: cannot listen on 127.0.0.1:{busy_port}: Address already in use"
    assert _snapshot(tmp_path) == before


def test_a_run_another_process_is_writing_is_refused_before_serving(
    busy_port: int, demo_run: Path, tmp_path: Path
) -> None:
    """Every browser session was refused by the run's lock, its reason only in the server's
    log; now serve names the writer at once, as a second `play` would."""
    from workbench.runs.lock import RunLock

    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    with RunLock.acquire(run, "workbench play --run run"):
        message = _refused_input(_serve(busy_port, "--run", str(run)))
    assert "is being written by pid" in message and "(workbench play --run run)" in message
    assert "cannot listen" in _one_line_error(_serve(busy_port, "--run", str(run)))


@pytest.mark.parametrize("host", ["", "  "])
def test_an_empty_host_is_refused(host: str, busy_port: int) -> None:
    """`--host ""` listened on every interface and printed `http://:8000`."""
    result = CliRunner().invoke(main, ["serve", "--host", host, "--port", str(busy_port)])
    assert "--host is empty" in _one_line_error(result)
