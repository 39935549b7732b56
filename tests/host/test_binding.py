"""A control file serves one runs directory: a host on a second would give every agent a
second episode of the same world (a rewind to day 0), so it is refused, over HTTP and
over stdio, before anything is created."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from workbench.errors import UserError
from workbench.host.binding import bind, binding_path, check_binding
from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, Hosted, HostProcess


def host_command(hosted: Hosted, runs: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "workbench", "host", str(hosted.campaign),
        "--control", str(hosted.control_path), "--runs", str(runs), *extra,
    ]  # fmt: skip


def test_a_second_runs_directory_for_one_control_file_is_refused(
    hosted: Hosted, tmp_path: Path
) -> None:
    host = HostProcess(hosted, tmp_path / "host.log").start()
    try:
        client = httpx2.Client(headers={"Authorization": f"Bearer {hosted.tokens[ALPHA]}"})
        started = client.post(f"{host.url}{API_PREFIX}/runs", json={"command_id": "s"})
        assert started.status_code == 201
    finally:
        assert host.stop() == 0
    record = binding_path(hosted.control_path)
    assert json.loads(record.read_text())["runs_dir"] == str(hosted.runs.resolve())
    other = tmp_path / "fresh-runs"
    for extra in ((), ("--stdio", "--agent", ALPHA)):
        refused = subprocess.run(
            host_command(hosted, other, *extra), capture_output=True, text=True, timeout=120
        )
        assert refused.returncode == 2, refused.stderr
        lines = refused.stderr.strip().splitlines()
        assert len(lines) == 1 and "second episode of the same world" in lines[0], lines
        assert not other.exists()
    again = HostProcess(hosted, tmp_path / "again.log").start()  # the same directory: served
    assert again.stop() == 0


def test_two_hosts_binding_at_once_leave_one_record(hosted: Hosted, tmp_path: Path) -> None:
    """The record is linked into place: whoever comes second sees the first's and is refused."""
    first, second = tmp_path / "a", tmp_path / "b"
    bind(hosted.control_path, first)
    assert check_binding(hosted.control_path, first)
    with pytest.raises(UserError, match="second episode of the same world"):
        bind(hosted.control_path, second)
    assert not list(tmp_path.glob(".control.json.runs.*.tmp"))


def test_a_moved_runs_directory_is_served_once_its_record_is_edited(
    hosted: Hosted, tmp_path: Path
) -> None:
    bind(hosted.control_path, hosted.runs)
    moved = tmp_path / "moved"
    record = binding_path(hosted.control_path)
    record.write_text(json.dumps({"schema": "cfwb.control-runs/1", "runs_dir": str(moved)}))
    assert check_binding(hosted.control_path, moved)
