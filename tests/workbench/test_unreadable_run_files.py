"""A run file the system will not let the command read is a usage error (exit 2) for every
reader, never an integrity failure: an unreadable journal or seal is no broken chain."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from tests.workbench.conftest import cli_as_a_user
from workbench import exit_codes


@pytest.fixture(scope="module")
def evaluated(demo_run: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A finished run and its evaluation."""
    root = tmp_path_factory.mktemp("unreadable")
    run = root / "run"
    shutil.copytree(demo_run, run)
    out = root / "out"
    done = cli_as_a_user("validate", "counterfactual", "--results", str(run), "--out", str(out))
    assert done.returncode == exit_codes.OK, done.stderr
    return run, out


@pytest.mark.parametrize(
    ("name", "what"),
    [("journal.jsonl", "journal"), ("seal.json", "seal"), ("run.json", "registration")],
)
def test_an_unreadable_run_file_is_exit_2_for_verify_validate_and_a_batch(
    evaluated: tuple[Path, Path], tmp_path: Path, name: str, what: str
) -> None:
    run = tmp_path / "runs" / "run"
    shutil.copytree(evaluated[0], run)
    (run / name).chmod(0)
    line = f"Error: {run / name}: cannot read {what} (Permission denied)"
    verified = cli_as_a_user("verify", str(run))
    assert (verified.returncode, verified.stderr.strip()) == (exit_codes.USAGE, line)
    validated = cli_as_a_user(
        "validate", "counterfactual", "--results", str(run), "--out", str(tmp_path / "one")
    )
    assert (validated.returncode, validated.stderr.strip()) == (exit_codes.USAGE, line)
    batch = cli_as_a_user(
        "validate", "counterfactual", str(run.parent), "--all-agents", "--out", str(tmp_path / "b")
    )
    assert "Traceback" not in batch.stderr
    with (tmp_path / "b" / "runs.csv").open() as rows:
        (row,) = csv.DictReader(rows)
    assert row["status"] == "refused", row


def test_an_unreadable_report_file_is_exit_2_for_verify_report(
    evaluated: tuple[Path, Path], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    shutil.copytree(evaluated[1], out)
    (out / "report.json").chmod(0)
    checked = cli_as_a_user("verify-report", str(out))
    assert checked.returncode == exit_codes.USAGE, checked.stderr
    assert checked.stderr.strip().endswith("cannot read report (Permission denied)")
