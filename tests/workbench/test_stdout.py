"""Standard output that fails under a command: a pipe closed early, a full device.

Real `workbench` processes: `| head -1` is a pipe whose reader closes it after one line;
`> /dev/full` is a device on which every write fails with ENOSPC. Before
`workbench.cli.stdout`, the closed pipe exited 1 (which means "unscored"), or 0 with
PYTHONUNBUFFERED set, the output cut off without a word; /dev/full printed only
`Error: No space left on device`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

import orjson
import pytest

from workbench import exit_codes


def _grading_input(folder: Path, lines: int) -> Path:
    """A `vc grade` input of `lines` answered items (about 100 bytes of output each)."""
    items = folder / "items.jsonl"
    made = _workbench("vc", "generate", "-n", str(lines), "--out", str(items))
    assert made.returncode == 0, made.stderr
    graded = folder / "graded.jsonl"
    rows = (orjson.loads(line) for line in items.read_bytes().splitlines())
    graded.write_bytes(
        b"".join(
            orjson.dumps({"completion": f"The answer is {row['answer']}", "answer": row["answer"]})
            + b"\n"
            for row in rows
        )
    )
    return graded


def _workbench(
    *args: str, stdout: int | IO[bytes] = subprocess.PIPE
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        timeout=300,
    )


def _commands(kind: str, folder: Path, demo_run: Path, many: bool) -> list[str]:
    """A command printing a lot (`many`: far more than a pipe holds) or a little."""
    if kind == "vc generate":
        return ["vc", "generate", "-n", "3000" if many else "3"]
    if kind == "vc grade":
        return ["vc", "grade", str(_grading_input(folder, 3000 if many else 3))]
    return ["ledger", str(demo_run), "--format", "csv"]


KINDS = ["vc generate", "vc grade", "ledger"]


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "PYTHONUNBUFFERED"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_pipe_closed_early_ends_the_command_quietly_with_141(
    tmp_path: Path, demo_run: Path, kind: str, unbuffered: bool
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    command = _commands(kind, tmp_path, demo_run, many=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "workbench", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # `| head -1`: the reader has what it wanted, and goes
    errors = process.stderr.read()
    code = process.wait(timeout=300)
    assert first.strip(), first
    assert code == exit_codes.OUTPUT_CLOSED == 141, (code, errors)
    assert errors == b"", errors  # no traceback, no "Exception ignored", no summary


@pytest.mark.parametrize("kind", KINDS)
def test_a_failing_standard_output_is_one_line_naming_it(
    tmp_path: Path, demo_run: Path, kind: str
) -> None:
    command = _commands(kind, tmp_path, demo_run, many=False)
    with open("/dev/full", "wb") as full:
        done = _workbench(*command, stdout=full)
    assert done.returncode == exit_codes.USAGE
    assert done.stderr == b"Error: standard output: cannot write (No space left on device)\n"


def test_output_read_whole_is_untouched(tmp_path: Path) -> None:
    """A reader that takes everything sees every line and the command's own status."""
    done = _workbench("vc", "grade", str(_grading_input(tmp_path, 3000)))
    assert done.returncode == 0 and done.stdout.count(b"\n") == 3000
    assert done.stderr.startswith(b"graded 3000 lines")


@pytest.mark.parametrize(
    "args", [["--help"], ["--version"], ["vc", "--help"], ["vc", "generate", "-n", "3"]]
)
def test_a_pipe_closed_before_the_first_write_is_141_too(args: list[str]) -> None:
    """`workbench --help | true`: the reader gone before anything is written; the top
    level's own output (click's help and version) exited 1 (click's EPIPE handling)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = _workbench(*args, stdout=write)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (exit_codes.OUTPUT_CLOSED, b"")
