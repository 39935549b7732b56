"""`verify` of a run whose creation stopped (or is at work) before its first seal.

Before, `verify` called a run.json without a journal header "journal is empty (no
header)" where every other reader names the interrupted creation and how to finish it,
and called a creation another process was writing at that moment interrupted (exit 3)
instead of "being written" (exit 2), as it does for a writer's later appends.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main

HOLD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from workbench.runs.lock import RunLock
    lock = RunLock.acquire(Path(sys.argv[1]), "workbench run --out creation-under-test")
    print("locked", flush=True)
    time.sleep(120)
    """
)


def _creation(demo_run: Path, target: Path, header: bool) -> Path:
    """A run directory as a creation leaves it before its first seal: run.json, and the
    journal's header line when `header`."""
    target.mkdir(exist_ok=True)
    shutil.copy(demo_run / "run.json", target / "run.json")
    if header:
        first = (demo_run / "journal.jsonl").read_bytes().split(b"\n", 1)[0] + b"\n"
        (target / "journal.jsonl").write_bytes(first)
    return target


@pytest.fixture()
def holder(tmp_path: Path) -> Iterator[Path]:
    """A run directory whose writer lock a real, live process holds."""
    run = tmp_path / "run"
    run.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "locked"
    try:
        yield run
    finally:
        process.kill()
        process.wait()


def test_verify_names_an_interrupted_creation_as_the_other_readers_do(
    demo_run: Path, tmp_path: Path
) -> None:
    run = _creation(demo_run, tmp_path / "run", header=False)
    verified = CliRunner().invoke(main, ["verify", str(run)])
    shown = CliRunner().invoke(main, ["show", str(run)])
    assert verified.exit_code == shown.exit_code == 3
    reason = f"{run}/journal.jsonl has no header entry: the run's creation was interrupted; "
    assert reason in verified.stderr and reason in shown.stderr
    assert f"run into {run} again to finish creating it" in verified.stderr
    assert len(verified.stderr.splitlines()) == 1


def test_verify_names_a_lost_journal_beside_its_seal(demo_run: Path, tmp_path: Path) -> None:
    run = _creation(demo_run, tmp_path / "run", header=False)
    shutil.copy(demo_run / "seal.json", run / "seal.json")
    result = CliRunner().invoke(main, ["verify", str(run)])
    assert result.exit_code == 3
    assert "the journal was lost or emptied" in result.stderr


@pytest.mark.parametrize("header", [False, True], ids=["run.json only", "header alone"])
def test_verify_calls_a_creation_at_work_being_written(
    demo_run: Path, holder: Path, header: bool
) -> None:
    _creation(demo_run, holder, header)
    result = CliRunner().invoke(main, ["verify", str(holder)])
    assert result.exit_code == 2, result.output
    assert "is being written by pid" in result.stderr
    assert "creation-under-test" in result.stderr
