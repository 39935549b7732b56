"""A control file's world is served from one runs directory on a machine: a host on a
second (through the same control file, a copy, a link, or a new directory made at the
recorded path) would give every agent a second episode of the same world, a rewind to
day 0, so it is refused, over HTTP and over stdio, before anything is created."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from workbench.errors import UserError
from workbench.host.binding import bind, binding_path, check_binding, state_dir
from workbench.play.wire import API_PREFIX
from workbench.runs.registration import load_control

from .conftest import ALPHA, Hosted, HostProcess


def world(hosted: Hosted) -> str:
    """The seed commitment of `hosted`'s control file: the world a binding is kept for."""
    return load_control(hosted.control_path).commitment()


def host_command(hosted: Hosted, control: Path, runs: Path, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "workbench", "host", str(hosted.campaign),
        "--control", str(control), "--runs", str(runs), *extra,
    ]  # fmt: skip


def refused_line(hosted: Hosted, control: Path, runs: Path, *extra: str) -> str:
    """The one line a refused host prints (exit 2), having created nothing."""
    refused = subprocess.run(
        host_command(hosted, control, runs, *extra), capture_output=True, text=True, timeout=120
    )
    assert refused.returncode == 2, refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


@pytest.fixture
def served(hosted: Hosted, tmp_path: Path) -> Hosted:
    """`hosted` after a host served it once and ALPHA started its episode there."""
    host = HostProcess(hosted, tmp_path / "host.log").start()
    try:
        client = httpx2.Client(headers={"Authorization": f"Bearer {hosted.tokens[ALPHA]}"})
        started = client.post(f"{host.url}{API_PREFIX}/runs", json={"command_id": "s"})
        assert started.status_code == 201
    finally:
        assert host.stop() == 0
    return hosted


def test_another_runs_directory_for_the_same_world_is_refused(
    served: Hosted, tmp_path: Path
) -> None:
    record = binding_path(load_control(served.control_path).commitment())
    assert json.loads(record.read_text())["runs_dir"] == str(served.runs.resolve())
    copy = tmp_path / "copy.json"
    shutil.copy(served.control_path, copy)
    link = tmp_path / "link.json"
    link.symlink_to(served.control_path)
    fresh = tmp_path / "fresh-runs"
    for control in (served.control_path, copy, link):
        for extra in ((), ("--stdio", "--agent", ALPHA)):
            line = refused_line(served, control, fresh, *extra)
            assert "second episode of the same world" in line, line
            assert not fresh.exists()
    again = HostProcess(served, tmp_path / "again.log").start()  # the same directory: served
    assert again.stop() == 0


def test_a_new_directory_at_the_recorded_path_is_refused(served: Hosted, tmp_path: Path) -> None:
    """The runs moved away and an empty directory took their place: its runs would be a
    second episode of every agent, so the recorded id (host.json's) must be there."""
    kept = tmp_path / "kept-runs"
    served.runs.rename(kept)
    line = refused_line(served, served.control_path, served.runs)
    assert "is not the runs directory this control file" in line and "was replaced" in line
    kept.rename(served.runs)
    assert HostProcess(served, tmp_path / "back.log").start().stop() == 0


def test_two_hosts_binding_at_once_leave_one_record(hosted: Hosted, tmp_path: Path) -> None:
    """The record is linked into place: whoever comes second sees the first's and is refused."""
    first, second = tmp_path / "a", tmp_path / "b"
    bind(world(hosted), first)
    assert check_binding(world(hosted), first)
    with pytest.raises(UserError, match="second episode of the same world"):
        bind(world(hosted), second)
    record = binding_path(load_control(hosted.control_path).commitment())
    assert not list(record.parent.glob(".*.tmp"))


def test_moved_runs_are_served_once_their_record_is_edited(hosted: Hosted, tmp_path: Path) -> None:
    bind(world(hosted), hosted.runs)
    moved = tmp_path / "moved"
    record = binding_path(load_control(hosted.control_path).commitment())
    record.write_text(json.dumps({"schema": "cfwb.hosted/1", "runs_dir": str(moved)}))
    assert check_binding(world(hosted), moved)


def test_an_old_host_record_without_an_id_gets_one_before_it_is_bound(
    hosted: Hosted, tmp_path: Path
) -> None:
    """A runs directory hosted before directories had ids: its first host gives host.json
    one and the record names it, so a new directory made at its path is still refused
    (before, the record kept no id and any directory there was served)."""
    assert HostProcess(hosted, tmp_path / "first.log").start().stop() == 0
    record = binding_path(load_control(hosted.control_path).commitment())
    record.unlink()
    host_json = hosted.runs / "host.json"
    old = json.loads(host_json.read_text())
    del old["runs_id"]
    host_json.write_text(json.dumps(old))
    assert HostProcess(hosted, tmp_path / "second.log").start().stop() == 0
    runs_id = json.loads(host_json.read_text())["runs_id"]
    assert json.loads(record.read_text())["runs_id"] == runs_id
    hosted.runs.rename(tmp_path / "kept")
    line = refused_line(hosted, hosted.control_path, hosted.runs)
    assert "was replaced" in line


def test_a_host_refused_after_it_opened_leaves_nothing(
    hosted: Hosted, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The machine's state cannot be written (here it is a file): the host is refused, and
    the runs directory it had just made is gone again."""
    state = tmp_path / "state-file"
    state.write_text("not a directory")
    monkeypatch.setenv("CFWB_STATE_DIR", str(state))
    line = refused_line(hosted, hosted.control_path, hosted.runs)
    assert "cannot record which runs directory serves this world" in line
    assert not hosted.runs.exists()


@pytest.mark.parametrize("variable", ["CFWB_STATE_DIR", "XDG_STATE_HOME"])
def test_a_relative_state_folder_is_ignored(
    variable: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A relative one names another folder from every working directory (two hosts started
    from two folders kept two records of one world)."""
    monkeypatch.delenv("CFWB_STATE_DIR", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(variable, "state")
    assert state_dir() == tmp_path / ".local" / "state" / "counterfactual-workbench"
