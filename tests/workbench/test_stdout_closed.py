"""Standard output closed before the program starts (`workbench … >&-`).

Python leaves `sys.stdout` None then: every line a command printed vanished, and the
flush at the end raised AttributeError, a traceback and exit 1, even for a command that
wrote only its --out file and succeeded. Now a write there fails by name, as on a failing
device (`Error: standard output: cannot write (Bad file descriptor)`, exit 2), and a command
that prints nothing to standard output ends with its own code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from workbench import exit_codes


def _closed_stdout(*args: str) -> subprocess.CompletedProcess[bytes]:
    """Run `workbench ARGS` with descriptor 1 closed, as a shell's `>&-` leaves it."""
    return subprocess.run(
        [sys.executable, "-m", "workbench", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
        timeout=300,
    )


def test_a_command_that_prints_its_output_names_the_closed_stdout() -> None:
    done = _closed_stdout("causal", "schema", "ate")
    assert done.returncode == exit_codes.USAGE
    assert done.stderr.decode().splitlines() == [
        "Error: standard output: cannot write (Bad file descriptor)"
    ]


def test_a_grading_into_a_closed_stdout_is_refused_in_one_line(tmp_path: Path) -> None:
    graded = tmp_path / "c.jsonl"
    graded.write_text('{"completion": "The answer is 16.13", "answer": 16.13}\n')
    done = _closed_stdout("vc", "grade", str(graded))
    assert done.returncode == exit_codes.USAGE
    assert b"Traceback" not in done.stderr
    assert done.stderr.decode().splitlines()[-1] == (
        "Error: standard output: cannot write (Bad file descriptor)"
    )


def test_a_command_writing_only_its_out_file_succeeds(tmp_path: Path) -> None:
    out = tmp_path / "vc.jsonl"
    done = _closed_stdout("vc", "generate", "-n", "3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert out.read_bytes().count(b"\n") == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vc.jsonl"]
