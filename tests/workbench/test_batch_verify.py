"""`verify-report` of a batch's output: every report checked, and runs.csv and
leaderboard.csv derived from them again (it was refused: "no report.json")."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.workbench.batch_runs import play_short
from tests.workbench.conftest import Private
from workbench import exit_codes
from workbench.cli import main
from workbench.evaluation.batch import validate_runs

AGENTS = ("ada", "bob", "ada", "cyd")


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Four finished development runs of three agents and their batch's output."""
    root = tmp_path_factory.mktemp("verify-batch")
    runs = root / "runs"
    for i, agent in enumerate(AGENTS):
        play_short(runs / f"run-{i}", agent, seed=i)
    validate_runs(runs, root / "out")
    return runs, root / "out"


def _verify(*args: str) -> Result:
    return CliRunner().invoke(main, ["verify-report", *args])


def _copy(batch: tuple[Path, Path], tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(batch[1], out)
    return out


def test_a_batch_as_written_is_consistent_and_matches_its_runs(batch: tuple[Path, Path]) -> None:
    runs, out = batch
    result = _verify(str(out))
    assert result.exit_code == exit_codes.OK, result.output
    assert result.stdout == (
        f"{out}: 4 report(s) checked, 0 with problems, 0 not checked; runs.csv and "
        "leaderboard.csv match them: consistent\n"
    )
    again = _verify(str(out), "--results", str(runs))
    assert again.exit_code == exit_codes.OK, again.output
    assert f"each matching evaluating its run under {runs} again" in again.stdout


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    table=st.sampled_from(["leaderboard.csv", "runs.csv"]),
    where=st.floats(0, 1),
    byte=st.binary(min_size=1, max_size=1),
)
def test_any_edit_of_a_table_is_found(
    batch: tuple[Path, Path],
    tmp_path_factory: pytest.TempPathFactory,
    table: str,
    where: float,
    byte: bytes,
) -> None:
    out = _copy(batch, tmp_path_factory.mktemp("edit"))
    data = bytearray((out / table).read_bytes())
    at = min(int(where * len(data)), len(data) - 1)
    if data[at : at + 1] == byte:
        byte = bytes([(byte[0] + 1) % 256])
    data[at : at + 1] = byte
    (out / table).write_bytes(bytes(data))
    result = _verify(str(out))
    assert result.exit_code == exit_codes.INTEGRITY, result.output
    assert "Traceback" not in result.output
    assert result.stderr.splitlines()[-1].endswith("the batch is not trustworthy")


def test_an_edited_report_a_missing_one_and_a_stray_one_are_each_named(
    batch: tuple[Path, Path], tmp_path: Path
) -> None:
    out = _copy(batch, tmp_path)
    report = out / "reports" / "run-1" / "report.json"
    document = orjson.loads(report.read_bytes())
    document["summary"]["questions"] += 1
    report.write_bytes(orjson.dumps(document, option=orjson.OPT_SORT_KEYS) + b"\n")
    shutil.rmtree(out / "reports" / "run-2")
    shutil.copytree(out / "reports" / "run-3", out / "reports" / "run-9")
    result = _verify(str(out))
    assert result.exit_code == exit_codes.INTEGRITY, result.output
    lines = result.stderr.splitlines()
    assert f"Error: {out / 'reports' / 'run-9'}: a report runs.csv does not list" in lines
    assert (
        f"Error: {out / 'reports' / 'run-2' / 'report.json'}: missing, but runs.csv lists it"
        in lines
    )
    assert f"Error: {report.parent}: report.json: summary.questions is not 6" in lines
    assert lines[-1] == (
        f"{out}: 3 report(s) checked, 1 with problems, 0 not checked; runs.csv and "
        "leaderboard.csv not derived again (not every report could be read): the batch is "
        "not trustworthy"
    )


def test_a_batch_takes_no_agent_id(batch: tuple[Path, Path]) -> None:
    result = _verify(str(batch[1]), "--agent", "ada")
    assert result.exit_code == exit_codes.USAGE
    assert result.stderr.strip() == (
        "Error: a batch holds every agent's reports: it takes no agent id (--agent)"
    )


def test_a_private_batch_is_authenticated_with_its_control_file(
    private: Private, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    for i, agent in enumerate(("agent-7", "agent-8")):
        play_short(
            runs / f"p{i}", agent, seed=i, campaign=private.campaign, control=private.control
        )
    out = tmp_path / "out"
    validate_runs(runs, out, control=private.control)
    unsigned = _verify(str(out))
    assert unsigned.exit_code == exit_codes.OK, unsigned.output
    assert "their signatures were not checked" in unsigned.stderr
    signed = _verify(str(out), "--control", str(private.control_path), "--results", str(runs))
    assert signed.exit_code == exit_codes.OK, signed.output
    assert "2 signed report(s) authenticated" in signed.stdout


@pytest.mark.parametrize("agent", ["", "bob"])
def test_runs_csv_naming_another_agent_for_a_run_is_found(
    batch: tuple[Path, Path], tmp_path: Path, agent: str
) -> None:
    """A row naming another agent than its report's (or none) is the batch's problem, exit
    3 with or without --results (with --results it was a refusal, exit 2)."""
    table = _edited_runs_table(batch, tmp_path, "run-0,ada,", f"run-0,{agent},")
    _an_integrity_failure_both_ways(
        batch[0],
        table.parent,
        f"Error: {table}: names agent '{agent}' for 'run-0', but its report is of agent 'ada'",
    )


def _edited_runs_table(batch: tuple[Path, Path], tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the batch's output whose runs.csv has its first `old` replaced by `new`."""
    table = _copy(batch, tmp_path) / "runs.csv"
    table.write_text(table.read_text().replace(old, new, 1))
    return table


def _an_integrity_failure_both_ways(runs: Path, out: Path, line: str) -> None:
    """`verify-report OUT` exits 3 naming `line`, with and without --results."""
    for extra in ([], ["--results", str(runs)]):
        result = _verify(str(out), *extra)
        assert result.exit_code == exit_codes.INTEGRITY, result.output
        assert line in result.stderr.splitlines()


def test_a_private_batch_with_a_missing_agent_is_consistent(
    private: Private, tmp_path: Path
) -> None:
    """A registered agent without a run has a row with no run name ('missing'): it was
    taken for a row that is not a batch's, so a whole batch failed its check."""
    runs = tmp_path / "runs"
    play_short(runs / "p7", "agent-7", seed=1, campaign=private.campaign, control=private.control)
    out = tmp_path / "out"
    validate_runs(runs, out, control=private.control)
    assert ",agent-8,missing," in (out / "runs.csv").read_text()
    result = _verify(str(out), "--control", str(private.control_path))
    assert result.exit_code == exit_codes.OK, result.output


@pytest.mark.parametrize("name", ["notes.txt", ".leaderboard.csv.0123456789ab.tmp", "report"])
def test_a_file_added_beside_the_tables_is_found(
    batch: tuple[Path, Path], tmp_path: Path, name: str
) -> None:
    """An entry a batch never writes, at the top of its output, passed as consistent (one
    in a report's folder, or a single evaluation's output, is found)."""
    out = _copy(batch, tmp_path)
    (out / name).write_text("{}")
    _an_integrity_failure_both_ways(
        batch[0], out, f"Error: {out / name}: not part of a batch's output"
    )


@pytest.mark.parametrize("header", ["sun,agent,status", "agent,run,status", ""])
def test_a_runs_table_whose_header_was_changed_is_found_not_a_traceback(
    private: Private, tmp_path: Path, header: str
) -> None:
    """runs.csv's rows are read by its header's names: with `run` renamed, the row of a
    missing agent (no run name, as written) passed as a batch's and reading its run was a
    KeyError traceback (exit 1)."""
    runs = tmp_path / "runs"
    play_short(runs / "p7", "agent-7", seed=1, campaign=private.campaign, control=private.control)
    out = tmp_path / "out"
    validate_runs(runs, out, control=private.control)
    table = out / "runs.csv"
    table.write_text(table.read_text().replace("run,agent,status", header, 1))
    for extra in ([], ["--results", str(runs)]):
        result = _verify(str(out), "--control", str(private.control_path), *extra)
        assert result.exit_code == exit_codes.INTEGRITY, result.output
        assert f"Error: {table}:1: not the header of a batch's table" in result.stderr


@pytest.mark.parametrize("name", ["..", "../../elsewhere", "reports/run-0", "."])
def test_a_row_naming_a_path_out_of_the_batch_is_a_problem(
    batch: tuple[Path, Path], tmp_path: Path, name: str
) -> None:
    """A row's run is one folder name as a batch writes it: a path would make the check
    read a report (and with --results, a run) from wherever it points."""
    table = _edited_runs_table(batch, tmp_path, "\nrun-0,", f"\n{name},")
    _an_integrity_failure_both_ways(
        batch[0], table.parent, f"Error: {table}:2: not a row of a batch"
    )
