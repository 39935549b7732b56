"""Where the author's validations go: beside the runs, except in a host's runs directory,
which holds the host's files only (before, the author screen wrote private evaluation
output, branch outcomes and seals, into the directory a host serves)."""

from __future__ import annotations

import shutil
from pathlib import Path

from workbench.authoring.runs import find_reports, validate_finished


def test_a_validation_goes_beside_its_run(demo_run: Path, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    shutil.copytree(demo_run, runs / "finished")
    out, outcome = validate_finished(runs / "finished")
    assert out == runs / "finished-validation" and outcome.report_path is not None
    assert [r.path for r in find_reports(runs)] == [out]


def test_a_validation_of_a_hosted_run_goes_beside_the_hosts_directory(
    demo_run: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "hosted"
    shutil.copytree(demo_run, runs / "run-0123456789abcdef0123456789abcdef")
    (runs / "host.json").write_text("{}")
    before = sorted(p.name for p in runs.iterdir())
    out, _ = validate_finished(runs / "run-0123456789abcdef0123456789abcdef")
    assert out == tmp_path / "hosted-reports" / "run-0123456789abcdef0123456789abcdef-validation"
    assert sorted(p.name for p in runs.iterdir()) == before
    assert [r.path for r in find_reports(runs)] == [out]
