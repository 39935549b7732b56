"""`show`, `snapshot` and `ledger` read a run while its writer appends a command.

Readers take no lock. Before, one that met the line a live writer was appending (no
newline yet) called the honest run torn, an integrity failure (exit 3); now it reads the
run as it was before that line, and names a torn line only when no writer is at work.
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
    lock = RunLock.acquire(Path(sys.argv[1]), "workbench play --run appender-under-test")
    print("locked", flush=True)
    time.sleep(120)
    """
)

PARTIAL = b'{"day":180,"hash":"0123'
"""The first bytes of a journal line, as a reader may meet an append in progress."""

READERS = [["show"], ["show", "--json"], ["snapshot"], ["ledger"], ["ledger", "--format", "csv"]]


@pytest.fixture()
def run(demo_run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(demo_run, target)
    return target


@pytest.fixture()
def writer(run: Path) -> Iterator[None]:
    """A real, live process holding `run`'s writer lock."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(run)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "locked"
    try:
        yield
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_a_reader_reads_the_run_as_it_was_before_the_line_being_appended(
    run: Path, writer: None, args: list[str]
) -> None:
    before = CliRunner().invoke(main, [*args, str(run)])
    assert before.exit_code == 0, before.output
    with (run / "journal.jsonl").open("ab") as journal:
        journal.write(PARTIAL)
    during = CliRunner().invoke(main, [*args, str(run)])
    assert during.exit_code == 0, during.output
    assert during.stdout == before.stdout


@pytest.mark.parametrize("args", READERS, ids=" ".join)
def test_without_a_writer_a_torn_line_is_named(run: Path, args: list[str]) -> None:
    with (run / "journal.jsonl").open("ab") as journal:
        journal.write(PARTIAL)
    result = CliRunner().invoke(main, [*args, str(run)])
    assert result.exit_code == 3
    assert "is torn: the last line has no newline" in result.stderr
