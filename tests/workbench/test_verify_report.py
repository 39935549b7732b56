"""`workbench verify-report`: report.json, SHA256SUMS and seals against each other and the run."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result

from ledger.canonical import dumps
from workbench.cli import main


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def evaluated(demo_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("evaluated") / "out"
    result = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture()
def out(evaluated: Path, tmp_path: Path) -> Path:
    target = tmp_path / "out"
    shutil.copytree(evaluated, target)
    return target


def _report(out: Path) -> dict:
    return orjson.loads((out / "report.json").read_bytes())


def _write_report(out: Path, report: dict) -> None:
    (out / "report.json").write_bytes(dumps(report) + b"\n")


def _mismatch(result: Result, *says: str) -> None:
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    for text in says:
        assert text in result.output, result.output


def test_a_fresh_output_is_consistent_alone_and_with_its_run(out: Path, demo_run: Path) -> None:
    alone = _cli("verify-report", str(out))
    assert alone.exit_code == 0 and "consistent (6 question(s), 12 seal(s))" in alone.output
    both = _cli("verify-report", str(out), "--results", str(demo_run))
    assert both.exit_code == 0 and f"matches evaluating {demo_run} again" in both.output


def test_an_edited_score_is_caught(out: Path, demo_run: Path) -> None:
    report = _report(out)
    report["questions"][0]["score"] = "0"
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out)), "score is not -loss")
    _mismatch(_cli("verify-report", str(out), "--results", str(demo_run)), "score differs")


def test_consistently_edited_numbers_are_caught_against_the_run(out: Path, demo_run: Path) -> None:
    report = _report(out)
    question = report["questions"][0]
    question["submission"]["value"] = question["effect"]
    question["loss"], question["score"] = "0", "0"
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out), "--results", str(demo_run)), "submission.value")


def test_an_edited_checksum_file_is_caught(out: Path) -> None:
    sums = out / "SHA256SUMS"
    sums.write_bytes(sums.read_bytes().replace(b"  seals/", b"  seals/x", 1))
    _mismatch(_cli("verify-report", str(out)), "differs from the one report.json names")


def test_two_swapped_seals_are_caught(out: Path) -> None:
    seals = sorted((out / "seals").iterdir())
    a, b = seals[0].read_bytes(), seals[1].read_bytes()
    seals[0].write_bytes(b)
    seals[1].write_bytes(a)
    _mismatch(_cli("verify-report", str(out)), "content differs from its SHA256SUMS line")


def test_a_seal_rewritten_with_its_checksums_is_caught(out: Path) -> None:
    report = _report(out)
    branch = report["questions"][0]["branches"]["baseline"]
    path = out / branch["seal_file"]
    seal = orjson.loads(gzip.decompress(path.read_bytes()))
    seal["ledger_digest"] = "0" * 64
    data = gzip.compress(dumps(seal) + b"\n", mtime=0)
    path.write_bytes(data)
    import hashlib

    digest = hashlib.sha256(data).hexdigest()
    sums = (out / "SHA256SUMS").read_text().replace(branch["seal_sha256"], digest)
    (out / "SHA256SUMS").write_text(sums)
    branch["seal_sha256"] = digest
    report["artifacts"]["SHA256SUMS"] = hashlib.sha256(sums.encode()).hexdigest()
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out)), "seal_digest differs")


def test_an_extra_or_missing_file_is_caught(out: Path) -> None:
    (out / "notes.txt").write_text("x")
    _mismatch(_cli("verify-report", str(out)), "notes.txt: not part of an evaluation output")
    (out / "notes.txt").unlink()
    next(iter((out / "seals").iterdir())).unlink()
    _mismatch(_cli("verify-report", str(out)), "listed in SHA256SUMS but missing")


def test_a_report_of_another_run_is_caught(out: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert _cli("run", "--out", str(other)).exit_code == 0
    _mismatch(_cli("verify-report", str(out), "--results", str(other)), "differs from evaluating")


@pytest.mark.parametrize("content", [b"[]\n", b"{", b'{"schema":"x"}\n'])
def test_a_report_that_is_not_a_report_is_a_mismatch(out: Path, content: bytes) -> None:
    (out / "report.json").write_bytes(content)
    _mismatch(_cli("verify-report", str(out)), "report.json")


def test_a_directory_without_a_report_is_a_usage_error(tmp_path: Path) -> None:
    result = _cli("verify-report", str(tmp_path))
    assert result.exit_code == 2
    assert result.output == f"Error: {tmp_path} is not an evaluation output (no report.json)\n"
