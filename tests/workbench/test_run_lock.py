"""One writer per run directory: refused at once naming the holder, free again after kill -9."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.errors import UserError
from workbench.play.session import PlayerSession
from workbench.runs.lock import LOCK_FILE, RunLock, RunLocked, held_by

HOLD = textwrap.dedent(
    """
    import sys, time
    from workbench.play.session import PlayerSession
    session = PlayerSession.resume(sys.argv[1], command="holder-under-test")
    print("locked", flush=True)
    time.sleep(120)
    """
)


def _holder(run: Path) -> subprocess.Popen[str]:
    """A real process that holds `run`'s writer lock until killed."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "locked"
    return process


@pytest.fixture()
def run(demo_run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(demo_run, target)
    return target


def test_a_second_lock_is_refused_at_once_naming_the_holder(tmp_path: Path) -> None:
    with RunLock.acquire(tmp_path, "first writer") as lock:
        with pytest.raises(RunLocked) as refused:
            RunLock.acquire(tmp_path, "second writer")
        message = str(refused.value)
        assert f"pid {os.getpid()}" in message and "(first writer)" in message
        assert lock.holder.since in message
        assert refused.value.exit_code == 2
    assert (tmp_path / LOCK_FILE).read_bytes() == b""
    RunLock.acquire(tmp_path, "third writer").release()


def test_the_cli_refuses_a_second_writer_with_exit_2(run: Path) -> None:
    holder = _holder(run)
    try:
        before = {p.name: p.read_bytes() for p in run.iterdir() if p.name != LOCK_FILE}
        result = subprocess.run(
            [sys.executable, "-m", "workbench", "run", "--out", str(run)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert f"pid {holder.pid} (holder-under-test) since " in result.stderr
        assert {p.name: p.read_bytes() for p in run.iterdir() if p.name != LOCK_FILE} == before
    finally:
        holder.kill()
        holder.wait()


def test_readers_do_not_wait_for_a_writer(run: Path) -> None:
    holder = _holder(run)
    try:
        for command in (["verify", str(run)], ["show", str(run)], ["snapshot", str(run)]):
            result = CliRunner().invoke(main, command)
            assert result.exit_code == 0, result.output
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_leaves_no_stale_lock(run: Path) -> None:
    holder = _holder(run)
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    assert (run / LOCK_FILE).read_bytes() != b""  # its record stays, its lock does not
    with PlayerSession.resume(run) as session:
        assert session.finished
    result = CliRunner().invoke(main, ["run", "--out", str(run)])
    assert result.exit_code == 0, result.output


def test_a_session_releases_its_lock_on_close(run: Path) -> None:
    session = PlayerSession.resume(run)
    with pytest.raises(RunLocked):
        PlayerSession.resume(run)
    session.close()
    with pytest.raises(UserError, match="read-only"):
        session.advance(1)
    PlayerSession.resume(run).close()


def test_a_lock_file_that_is_a_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / LOCK_FILE).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UserError, match="symbolic link"):
        RunLock.acquire(tmp_path)
    assert not (tmp_path / "elsewhere").exists()


def test_two_players_without_a_run_dir_get_different_runs(tmp_path: Path) -> None:
    from workbench.cli.play import next_run_dir

    first, second = next_run_dir(tmp_path), next_run_dir(tmp_path)
    assert first != second and first.is_dir() and second.is_dir()


@pytest.mark.parametrize(
    ("argv0", "shown"),
    [
        ("/venv/lib/site-packages/workbench/__main__.py", "workbench"),
        ("/venv/bin/workbench", "workbench"),
    ],
)
def test_the_holder_is_named_as_the_command_was_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv0: str, shown: str
) -> None:
    """`python -m workbench play --run R` was named `__main__.py play --run R`."""
    monkeypatch.setattr(sys, "argv", [argv0, "play", "--run", "my run"])
    with RunLock.acquire(tmp_path):
        holder = held_by(tmp_path)
    assert holder is not None and f"({shown} play --run 'my run')" in holder
