"""A disk refusing each fsync a command makes, in turn (strace's syscall tampering): the
command must fail in one line, exit 2, never report what it could not make durable, and
leave what the next command completes or repeats."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.workbench.faults import (
    NEEDS_STRACE,
    SCRIPT,
    calls,
    injected,
    one_line_failure,
    unfinished_run,
    workbench,
)

pytestmark = NEEDS_STRACE


@pytest.mark.parametrize("command", ["run", "finish"])
def test_no_failed_fsync_is_ever_reported_as_success(tmp_path: Path, command: str) -> None:
    """Each fsync the command makes fails in turn (EIO): the command must then fail in
    one line, exit 2. The store's fsyncs were ignored: a store whose pages the disk may
    have dropped was put in place and the command reported success."""

    def args(run: Path) -> tuple[str | Path, ...]:
        return ("run", "--script", SCRIPT, "--out", run) if command == "run" else ("finish", run)

    def fresh(name: str) -> Path:
        return tmp_path / name if command == "run" else unfinished_run(tmp_path / name)

    total = calls(tmp_path, "fsync", *args(fresh("counted")))
    assert total >= 4
    for when in range(1, total + 1):
        run = fresh(f"run-{when}")
        result = workbench(tmp_path, *args(run), strace=injected("fsync", "error=EIO", when))
        message = one_line_failure(result, {2})
        assert "Input/output error" in message, message
        again = workbench(tmp_path, "run", "--out", run)
        assert again.returncode == 0, again.stderr
        assert workbench(tmp_path, "verify", run).returncode == 0


def test_a_validation_whose_fsync_fails_writes_no_report(tmp_path: Path) -> None:
    """Each fsync `validate` makes (the seals, SHA256SUMS and report, their directories, the
    renames) fails in turn (EIO): one line, exit 2, and no report.json left behind (a
    report is never there unless durable); validating into the same directory again works."""
    run = tmp_path / "run"
    made = workbench(tmp_path, "run", "--script", SCRIPT, "--out", run)
    assert made.returncode == 0, made.stderr

    def args(out: Path) -> tuple[str | Path, ...]:
        return ("validate", "counterfactual", "--results", run, "--out", out)

    total = calls(tmp_path, "fsync", *args(tmp_path / "counted"))
    assert total >= 7
    for when in range(1, total + 1):
        out = tmp_path / f"out-{when}"
        result = workbench(tmp_path, *args(out), strace=injected("fsync", "error=EIO", when))
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
        assert len(errors) == 1 and "Input/output error" in errors[0], result.stderr
        assert not (out / "report.json").exists()
        again = workbench(tmp_path, *args(out))
        assert again.returncode in (0, 1), again.stderr
        assert workbench(tmp_path, "verify-report", out, "--results", run).returncode == 0
