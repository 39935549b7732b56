"""Every line a command prints about what it did shows a path the user chose on its line.

`Error:` lines already escaped a newline or a terminal escape in a path; the lines a
successful command prints (`wrote OUT`, `report: PATH`, `RUN: intact`) printed it raw, so
a folder named with an escape sequence could clear the terminal or split a line. Each
command here writes into, or reads from, a folder with such a name, and its output must
name it escaped, with no control character but the line ends.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from campaigns import DEFAULT_CAMPAIGN
from tests.workbench.conftest import make_private
from workbench.cli import main
from workbench.messages import single_line
from workbench.play.session import PlayerSession

HOSTILE = "a\nb\rc\x1b[2J\x07d\te\x9bf"
"""A folder name with a newline, a carriage return, a screen-clearing escape, a bell, a tab
and a C1 control (CSI): each would drive or split a terminal line printed raw."""


def _clean(result: Result, shown: str) -> str:
    """Both streams of a command that succeeded: every line printable, the name escaped."""
    assert result.exit_code == 0, (result.output, result.stderr, result.exception)
    both = result.stdout + result.stderr
    for line in both.splitlines():
        assert line.isprintable(), repr(line)
    assert both.count("\n") == len(both.splitlines()), repr(both)
    assert single_line(shown) in both, both
    return both


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    folder = tmp_path / HOSTILE
    folder.mkdir()
    return folder


def test_run_verify_finish_and_ledger_print_the_folder_escaped(hostile: Path) -> None:
    invoke = CliRunner().invoke
    run = hostile / "run"
    _clean(invoke(main, ["run", "--out", str(run)]), str(run))
    _clean(invoke(main, ["verify", str(run)]), str(run))
    _clean(
        invoke(main, ["ledger", str(run), "--format", "csv", "--out", str(hostile / "l.csv")]),
        str(hostile / "l.csv"),
    )
    unfinished = hostile / "unfinished"
    PlayerSession.create(unfinished)
    _clean(invoke(main, ["finish", str(unfinished)]), str(unfinished))


def test_a_rejected_script_line_is_noted_with_the_script_escaped(hostile: Path) -> None:
    script = hostile / "script.jsonl"
    script.write_text('{"kind":"schedule","action":"bank_loan"}\n' * 2)
    result = CliRunner().invoke(
        main, ["run", "--out", str(hostile / "run"), "--script", str(script)]
    )
    both = _clean(result, str(script))
    assert f"{single_line(str(script))}:2: rejected" in both


def test_validation_and_its_check_print_the_folders_escaped(demo_run: Path, hostile: Path) -> None:
    invoke = CliRunner().invoke
    run = hostile / "runs" / "run"
    shutil.copytree(demo_run, run)
    checks = hostile / "checks"
    validated = invoke(
        main, ["validate", "counterfactual", "--results", str(run), "--out", str(checks)]
    )
    _clean(validated, str(checks / "report.json"))
    _clean(invoke(main, ["verify-report", str(checks), "--results", str(run)]), str(checks))
    batch = hostile / "batch"
    runs = str(hostile / "runs")
    _clean(
        invoke(main, ["validate", "counterfactual", runs, "--all-agents", "--out", str(batch)]),
        str(batch / "leaderboard.csv"),
    )
    _clean(invoke(main, ["verify-report", str(batch), "--results", runs]), runs)


def test_demo_control_vc_and_causal_print_their_outputs_escaped(hostile: Path) -> None:
    invoke = CliRunner().invoke
    _clean(invoke(main, ["demo", "--out", str(hostile / "demo")]), str(hostile / "demo"))
    vc = hostile / "vc.jsonl"
    _clean(invoke(main, ["vc", "generate", "-n", "3", "--out", str(vc)]), str(vc))
    audit = hostile / "audit.json"
    _clean(
        invoke(main, ["causal", "audit", "--family", "ate", "-n", "2", "--json", str(audit)]),
        str(audit),
    )
    private = hostile / "private"
    shutil.copytree(DEFAULT_CAMPAIGN, private)
    make_private(private)
    control = hostile / "control.json"
    _clean(
        invoke(main, ["control", "new", str(private), "--agent", "a1", "--out", str(control)]),
        str(control),
    )


def test_causal_generate_names_its_staged_files_escaped(hostile: Path) -> None:
    staged = hostile / "task"
    result = CliRunner().invoke(
        main,
        ["causal", "generate", "--family", "ate", "--task-id", "1", "--out", str(staged)],
    )
    _clean(result, str(staged / "data.csv"))


def test_a_host_names_its_runs_folder_escaped(hostile: Path) -> None:
    """The host's first line (`RUNS: recovered ...`) and its address line, from the real
    process, on a runs folder under the hostile name."""
    from tests.host.conftest import HostProcess, make_hosted

    hosted = make_hosted(hostile)
    log = hostile / "host.log"
    host = HostProcess(hosted, log).start()
    try:
        assert host.stop() == 0
    finally:
        host.kill()
    shown = log.read_bytes().decode()
    for line in shown.splitlines():
        assert line.isprintable(), repr(line)
    assert f"{single_line(str(hosted.runs))}: " in shown, shown
