"""Batch validation and `verify-report` of a batch against what an evaluator of hundreds of
runs meets by accident and a participant tries on purpose: link loops in RUNS_DIR, run
names that are not UTF-8, an OUT inside a run, a runs.csv with a row repeated or removed
(all real processes: a traceback or an exit code is what the user sees)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workbench.batch_runs import play_short
from workbench import exit_codes
from workbench.evaluation.batch_check import BatchCheck, _listed_rows, _parsed
from workbench.evaluation.leaderboard import RunRow, leaderboard, runs_csv, to_csv

AGENTS = ("ada", "bob", "bob")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three finished development runs, of two agents."""
    root = tmp_path_factory.mktemp("adversarial") / "runs"
    for i, agent in enumerate(AGENTS):
        play_short(root / f"run-{i}", agent, seed=i)
    return root


def _cli(*args: str | Path) -> subprocess.CompletedProcess[bytes]:
    """The real command, as a user runs it (bytes: names here need not be UTF-8)."""
    return subprocess.run(
        [sys.executable, "-m", "workbench", *map(os.fsencode, args)],
        capture_output=True,
        env={**os.environ},
        check=False,
    )


def _errors(result: subprocess.CompletedProcess[bytes]) -> list[str]:
    stderr = result.stderr.decode(errors="replace")
    assert "Traceback" not in stderr, stderr
    return [line for line in stderr.splitlines() if line.startswith("Error:")]


def _copy(runs: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "runs"
    shutil.copytree(runs, copy, symlinks=True)
    return copy


def test_links_to_nowhere_a_loop_or_through_a_file_are_no_runs(runs: Path, tmp_path: Path) -> None:
    """A link loop in RUNS_DIR refused the whole batch naming an errno (`[Errno 40] …`)."""
    copy = _copy(runs, tmp_path)
    (copy / "loop").symlink_to("loop")
    (copy / "through-a-file").symlink_to(copy / "run-0" / "run.json" / "x")
    (copy / "nowhere").symlink_to(tmp_path / "nothing")
    result = _cli("validate", "counterfactual", copy, "--all-agents", "--out", tmp_path / "o")
    assert result.returncode == exit_codes.UNSCORED, result.stderr
    assert _errors(result) == []
    table = (tmp_path / "o" / "runs.csv").read_text()
    assert [line.split(",")[0] for line in table.splitlines()[1:]] == ["run-0", "run-1", "run-2"]
    verify = _cli("verify-report", tmp_path / "o", "--results", copy)
    assert verify.returncode == exit_codes.OK, verify.stderr


def test_an_out_through_a_link_loop_is_one_line(runs: Path, tmp_path: Path) -> None:
    """`--out LOOP/x` was Python's RuntimeError 'Symlink loop' as a traceback (now refused
    as every path parameter refuses a loop, before the command runs)."""
    (tmp_path / "loop").symlink_to("loop")
    for args in (
        ["validate", "counterfactual", runs, "--all-agents"],
        ["validate", "counterfactual", "--results", runs / "run-0"],
    ):
        result = _cli(*args, "--out", tmp_path / "loop" / "x")
        assert result.returncode == exit_codes.USAGE
        assert _errors(result) == [
            f"Error: {tmp_path / 'loop' / 'x'}: cannot access "
            "(Too many levels of symbolic links) (--out)"
        ]


def test_a_run_named_in_bytes_that_are_not_utf8_is_skipped_not_a_traceback(
    runs: Path, tmp_path: Path
) -> None:
    """The report and runs.csv name a run in UTF-8: a directory named otherwise was a
    traceback (orjson: surrogates not allowed), in a batch and alone; RUNS_DIR's own name
    too (the reasons name it)."""
    parent = Path(os.fsdecode(os.fsencode(tmp_path) + b"/dir\xfe"))
    copy = _copy(runs, parent)
    odd = Path(os.fsdecode(os.fsencode(copy) + b"/bad\xff\xfename"))
    (copy / "run-2").rename(odd)
    (copy / "link").symlink_to(odd.name)
    out = tmp_path / "o"
    result = _cli("validate", "counterfactual", copy, "--all-agents", "--out", out)
    assert result.returncode == exit_codes.UNSCORED, result.stderr
    assert _errors(result) == []
    lines = (out / "runs.csv").read_text().splitlines()
    assert lines[1] == (
        "bad\\xff\\xfename,bob,refused,,,,,,,its name is not UTF-8: a report names its run "
        "in UTF-8; rename it"
    )
    assert lines[2].startswith("link,,excluded,")
    assert _cli("verify-report", out, "--results", copy).returncode == exit_codes.OK
    alone = _cli("validate", "counterfactual", "--results", odd, "--out", tmp_path / "o2")
    assert alone.returncode == exit_codes.USAGE
    assert len(_errors(alone)) == 1 and "its name is not UTF-8" in _errors(alone)[0]
    assert not (tmp_path / "o2").exists()


def test_an_out_inside_a_run_is_refused_even_one_reached_through_a_link(
    runs: Path, tmp_path: Path
) -> None:
    """RUNS_DIR/ext -> a run elsewhere: a batch into that run's folder wrote into its own
    input (and a single validation into any run's folder wrote into a run)."""
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(runs / "run-0", elsewhere / "run-0")
    (tmp_path / "batch").mkdir()
    (tmp_path / "batch" / "ext").symlink_to(elsewhere / "run-0")
    before = sorted(os.listdir(elsewhere / "run-0"))
    for args in (
        ["validate", "counterfactual", tmp_path / "batch", "--all-agents"],
        ["validate", "counterfactual", "--results", runs / "run-1"],
    ):
        result = _cli(*args, "--out", elsewhere / "run-0" / "checks")
        assert result.returncode == exit_codes.USAGE
        assert _errors(result) == [
            f"Error: output directory {elsewhere / 'run-0' / 'checks'}: {elsewhere / 'run-0'} "
            "is a run directory; an evaluation is never written into a run (--out)"
        ]
    assert sorted(os.listdir(elsewhere / "run-0")) == before


def _rewrite(out: Path, rows: list[RunRow]) -> None:
    """runs.csv and leaderboard.csv as a batch would derive them from `rows`: an edit
    made with the workbench's own code, so the tables agree with each other."""
    rows.sort(key=lambda r: (r.run, r.agent))
    (out / "runs.csv").write_bytes(runs_csv(rows))
    (out / "leaderboard.csv").write_bytes(to_csv(leaderboard(rows)))


def _rows(out: Path) -> list[RunRow]:
    listed = _listed_rows(out, BatchCheck(out))
    assert listed is not None
    return [
        RunRow(r.run, r.agent, r.status, _parsed(out / "reports" / r.run / "report.json"), r.reason)
        if r.status == "evaluated"
        else r
        for r in listed
    ]


@pytest.fixture
def batch(runs: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    result = _cli("validate", "counterfactual", runs, "--all-agents", "--out", out)
    assert result.returncode == exit_codes.UNSCORED, result.stderr
    return out


def test_a_report_listed_twice_is_found(runs: Path, batch: Path) -> None:
    """bob's best run listed twice, with a leaderboard to match: it was `consistent`."""
    rows = _rows(batch)
    _rewrite(batch, [*rows, next(r for r in rows if r.run == "run-2")])
    for extra in ([], ["--results", runs]):
        result = _cli("verify-report", batch, *extra)
        assert result.returncode == exit_codes.INTEGRITY, result.stderr
        assert f"Error: {batch / 'runs.csv'}:5: lists run 'run-2' again" in _errors(result)


def test_a_run_dropped_with_its_row_and_report_is_found_against_its_runs(
    runs: Path, batch: Path
) -> None:
    """bob's worse run removed, report and row, the leaderboard derived again: with
    --results RUNS_DIR it was `consistent` (every listed report matched its run)."""
    _rewrite(batch, [r for r in _rows(batch) if r.run != "run-1"])
    shutil.rmtree(batch / "reports" / "run-1")
    result = _cli("verify-report", batch, "--results", runs)
    assert result.returncode == exit_codes.INTEGRITY, result.stderr
    assert _errors(result) == [
        f"Error: {batch / 'runs.csv'}: has no row for 'run-1' (a run to evaluate), which "
        f"{runs} holds"
    ]


def test_a_status_relabelled_is_found_against_its_runs(runs: Path, tmp_path: Path) -> None:
    """An unfinished run's `refused` row made `excluded` (so it no longer counts against its
    agent), the leaderboard derived again: with --results it was `consistent`."""
    copy = _copy(runs, tmp_path)
    play_short(copy / "run-3", "ada", seed=3, finish=False)
    out = tmp_path / "out"
    assert _cli("validate", "counterfactual", copy, "--all-agents", "--out", out).returncode == 1
    rows = [
        RunRow(r.run, r.agent, "excluded", r.report, r.reason) if r.run == "run-3" else r
        for r in _rows(out)
    ]
    _rewrite(out, rows)
    assert _cli("verify-report", out).returncode == exit_codes.OK
    result = _cli("verify-report", out, "--results", copy)
    assert result.returncode == exit_codes.INTEGRITY, result.stderr
    line = f"Error: {out / 'runs.csv'}: lists 'run-3' (excluded, agent 'ada'), which {copy} "
    assert line + "does not give" in _errors(result)
