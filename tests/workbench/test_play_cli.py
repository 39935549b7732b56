"""Headless play through the CLI: determinism across processes, verify, exports, bad scripts."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.play.session import PlayerSession

SCRIPT = (
    '{"kind":"schedule","action":"bank_loan"}\n'
    '{"kind":"advance","days":12}\n'
    '{"kind":"schedule","action":"spring_campaign"}\n'
    '{"kind":"advance","days":3}\n'
)


def _workbench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args], capture_output=True, text=True, check=False
    )


def test_two_processes_give_byte_identical_runs(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT)
    outputs = []
    for name in ("a", "b"):
        run = tmp_path / name
        assert _workbench("run", "--script", str(script), "--out", str(run)).returncode == 0
        export = _workbench("ledger", str(run), "--format", "beancount")
        assert export.returncode == 0
        outputs.append(
            ((run / "journal.jsonl").read_bytes(), (run / "seal.json").read_bytes(), export.stdout)
        )
    assert outputs[0] == outputs[1]


def test_full_run_passes_bean_check_and_verify(tmp_path: Path) -> None:
    runner = CliRunner()
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT)
    run = tmp_path / "run"
    assert runner.invoke(main, ["run", "--script", str(script), "--out", str(run)]).exit_code == 0
    bean = tmp_path / "ledger.beancount"
    result = runner.invoke(main, ["ledger", str(run), "--format", "beancount", "--out", str(bean)])
    assert result.exit_code == 0
    check = subprocess.run(
        [str(Path(sys.executable).with_name("bean-check")), str(bean)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    csv = runner.invoke(main, ["ledger", str(run), "--format", "csv"])
    assert csv.exit_code == 0 and csv.output.startswith("seq,")
    verified = runner.invoke(main, ["verify", str(run)])
    assert verified.exit_code == 0, verified.output
    assert "intact" in verified.output and "task grow_without_missing_payroll" in verified.output
    shown = runner.invoke(main, ["show", str(run), "--json"])
    assert shown.exit_code == 0 and '"net_assets"' in shown.output


def test_verify_says_which_goals_an_unfinished_run_has_not_reached(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    session.advance(15)
    session.close()
    verified = CliRunner().invoke(main, ["verify", str(tmp_path / "run")])
    assert verified.exit_code == 0, verified.output
    lines = verified.output.splitlines()
    assert lines[1].startswith("  task grow_without_missing_payroll: open until day 180 (")
    assert re.fullmatch(
        r"    net_assets at_least 105000\.00 on day 180: not reached yet \(-?\d+\.\d\d on day 15\)",
        lines[2],
    )
    assert lines[3] == "    missed_payrolls at_most 0 on day 180: not reached yet (0 on day 15)"
    shown = CliRunner().invoke(main, ["show", str(tmp_path / "run")])
    assert shown.output.splitlines()[-1] == "task grow_without_missing_payroll: open"
    as_json = json.loads(CliRunner().invoke(main, ["show", str(tmp_path / "run"), "--json"]).output)
    assert [(t["met"], t["status"]) for t in as_json["tasks"]] == [(False, "open")]


def test_editing_one_command_makes_verify_name_it(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT)
    run = tmp_path / "run"
    CliRunner().invoke(main, ["run", "--script", str(script), "--out", str(run)])
    journal = run / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2].replace(b'"days":12', b'"days":13')
    journal.write_bytes(b"".join(lines))
    result = CliRunner().invoke(main, ["verify", str(run)])
    assert result.exit_code == 3
    assert "line 3 (seq 2)" in result.output


def test_bad_script_line_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"kind":"advance","days":5}\n{"kind":"fly"}\n{"kind":"advance"}\n')
    run = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--script", str(script), "--out", str(run)])
    assert result.exit_code == 2
    assert f"{script}:2" in result.output
    assert "Traceback" not in result.output
    assert not run.exists()


def test_a_command_failing_midway_leaves_the_run_as_it_was(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = tmp_path / "first.jsonl"
    first.write_text('{"kind":"advance","days":5}\n')
    assert (
        CliRunner().invoke(main, ["run", "--script", str(first), "--out", str(run)]).exit_code == 0
    )
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    script = tmp_path / "s.jsonl"
    script.write_text('{"kind":"advance","days":5}\n{"kind":"schedule","action":"no_such"}\n')
    result = CliRunner().invoke(main, ["run", "--script", str(script), "--out", str(run)])
    assert result.exit_code == 2 and f"{script}:2" in result.output
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def _inside_refusal(script: Path, run: Path) -> str:
    return (
        f"Error: script {script} is inside the run directory {run} it plays into; a run "
        "directory holds only the run's own files, so keep the script elsewhere (--script)"
    )


@pytest.mark.parametrize("holds_a_run", [False, True], ids=["new run", "existing run"])
def test_a_named_pipe_script_inside_the_run_directory_is_refused_unread(
    tmp_path: Path, holds_a_run: bool
) -> None:
    """A script from a named pipe waits for its writer, as `cat` does; one inside the run
    directory it plays into (where the run's own journal goes) was read before the run
    was opened, and waited for a writer that never comes. It is refused before any read.
    The command runs in a process of its own, so a wait fails the test, never hangs it."""
    run = tmp_path / "run"
    if holds_a_run:
        script = tmp_path / "first.jsonl"
        script.write_text('{"kind":"advance","days":2}\n')
        assert _workbench("run", "--script", str(script), "--out", str(run)).returncode == 0
        pipe = run / "more.jsonl"
    else:
        run.mkdir()
        pipe = run / "journal.jsonl"
    os.mkfifo(pipe)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p != pipe}
    try:
        result = subprocess.run(
            [sys.executable, "-m", "workbench", "run", "--script", str(pipe), "--out", str(run)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"run --script {pipe} waited for the pipe's writer")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [_inside_refusal(pipe, run)]
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)
    assert {p.name: p.read_bytes() for p in run.iterdir() if p != pipe} == before


def test_a_script_inside_the_run_directory_is_refused_however_it_is_named(
    tmp_path: Path,
) -> None:
    """A run's own journal is no script (it failed on its header line), nor is any file in
    the run directory, named through `..` or a link to it; one beside a run (its name
    starting with the run's) plays."""
    script = tmp_path / "s.jsonl"
    script.write_text('{"kind":"advance","days":2}\n')
    run = tmp_path / "run"
    assert (
        CliRunner().invoke(main, ["run", "--script", str(script), "--out", str(run)]).exit_code == 0
    )
    (run / "mine.jsonl").write_text('{"kind":"advance","days":1}\n')
    (tmp_path / "link").symlink_to(run)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    for named in (
        run / "journal.jsonl",
        run / "mine.jsonl",
        tmp_path / "elsewhere" / ".." / "run" / "journal.jsonl",
        tmp_path / "link" / "journal.jsonl",
        run / "missing.jsonl",
    ):
        result = CliRunner().invoke(main, ["run", "--script", str(named), "--out", str(run)])
        assert result.exit_code == 2, result.output
        assert result.output.splitlines() == [_inside_refusal(named, run)]
    through_link = CliRunner().invoke(
        main, ["run", "--script", str(run / "mine.jsonl"), "--out", str(tmp_path / "link")]
    )
    assert through_link.exit_code == 2
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
    fresh = tmp_path / "fresh"
    beside = tmp_path / "fresh-script.jsonl"
    beside.write_text('{"kind":"advance","days":1}\n')
    played = CliRunner().invoke(main, ["run", "--script", str(beside), "--out", str(fresh)])
    assert played.exit_code == 0, played.output


def test_rerunning_a_script_resumes_without_duplicates(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(SCRIPT)
    run = tmp_path / "run"
    runner = CliRunner()
    runner.invoke(main, ["run", "--script", str(script), "--out", str(run)])
    before = (run / "journal.jsonl").read_bytes()
    again = runner.invoke(main, ["run", "--script", str(script), "--out", str(run)])
    assert again.exit_code == 0, again.output
    assert (run / "journal.jsonl").read_bytes() == before


def test_actions_catalog_lists_every_term() -> None:
    result = CliRunner().invoke(main, ["actions", "--json"])
    assert result.exit_code == 0
    assert '"irreversible_work": "5000.00"' in result.output


def test_serve_on_a_busy_port_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = CliRunner().invoke(
            main, ["serve", "--run", str(tmp_path / "run"), "--port", str(port)]
        )
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert errors == [f"Error: cannot listen on 127.0.0.1:{port}: Address already in use"]
    assert not (tmp_path / "run").exists()


def test_play_settles_the_collector_once_the_run_shows(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, a_terminal: None
) -> None:
    """The terminal app (and so `serve`'s) is made with `settle_collector` on."""
    from workbench.tui.app import PlayerApp

    made: list[bool] = []
    monkeypatch.setattr(PlayerApp, "run", lambda app: made.append(app.settle_collector))
    result = CliRunner().invoke(main, ["play", "--run", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert made == [True]


@pytest.mark.parametrize(
    ("command", "instead"),
    [
        (["play", "--run", "{tmp}/run"], "for play without one, `workbench run --script FILE`"),
        (["author"], "for the campaign's findings without one, `workbench check`"),
    ],
)
@pytest.mark.parametrize("stdin", ["devnull", "pipe"])
def test_the_dashboard_without_a_terminal_is_one_line_not_a_spinning_app(
    tmp_path: Path, command: list[str], instead: str, stdin: str
) -> None:
    """Started with standard input at end of file the app took a whole core until killed
    (and wrote its screen into whatever standard output was); now exit 2, nothing made."""
    import subprocess
    import sys

    args = [a.format(tmp=tmp_path) for a in command]
    done = subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        stdin=subprocess.DEVNULL if stdin == "devnull" else None,
        input=None if stdin == "devnull" else b"",
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"Error: workbench {command[0]} is an app for a terminal, and standard input and "
        f"output are not both one; {instead}\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("run", [None, "new", "played"])
def test_play_of_a_private_campaign_points_to_its_host_and_claims_no_run(
    campaign_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: str | None
) -> None:
    """`play PRIVATE` left an empty runs/play-N each time and said to give `--control`,
    which play does not take: it is refused before a run is claimed, pointing to the host."""
    from tests.workbench.conftest import make_private
    from workbench.cli.play import _open_local
    from workbench.errors import UserError

    campaign = make_private(campaign_copy)
    monkeypatch.chdir(tmp_path)
    run_dir = None if run is None else tmp_path / run
    if run == "played":
        control = str(tmp_path / "control.json")
        for args in (
            ["control", "new", str(campaign), "--agent", "a", "--out", control],
            ["run", str(campaign), "--control", control, "--agent", "a", "--out", str(run_dir)],
        ):
            assert CliRunner().invoke(main, args).exit_code == 0, args
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(UserError) as refused:
        _open_local(campaign, run_dir)
    assert refused.value.subject is None  # no `(--control)`: play has no such option
    assert refused.value.message.endswith("(workbench host, then workbench play --connect URL)")
    assert "is private" in refused.value.message
    assert sorted(p.name for p in tmp_path.iterdir()) == before
