"""Standard error that cannot be written: a full device, a pipe whose reader has gone, none.

Real `workbench` processes. A diagnostic that cannot be written is dropped
(`workbench.cli.stderr`): the command runs to its end and exits with its own code. Before,
the failing write raised inside the command: a refusal exited 1 ("unscored") instead of
2, and a command that had done its work (a file written, a validation complete) exited 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import pytest

from workbench import exit_codes


@contextmanager
def _full() -> Iterator[IO[bytes]]:
    """A device on which every write fails (ENOSPC)."""
    with open("/dev/full", "wb") as device:
        yield device


@contextmanager
def _reader_gone() -> Iterator[int]:
    """The write end of a pipe whose reader has closed it (EPIPE on every write)."""
    read, write = os.pipe()
    os.close(read)
    try:
        yield write
    finally:
        os.close(write)


@contextmanager
def _closed() -> Iterator[None]:
    """No standard error at all: the child starts with descriptor 2 closed."""
    yield None


SINKS = {"full device": _full, "reader gone": _reader_gone, "closed": _closed}


def _workbench(sink: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    with SINKS[sink]() as stderr:
        return subprocess.run(
            [sys.executable, "-m", "workbench", *args],
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            preexec_fn=(lambda: os.close(2)) if sink == "closed" else None,
            timeout=300,
        )


@pytest.mark.parametrize("sink", sorted(SINKS))
def test_a_refusal_keeps_its_exit_code_when_its_line_cannot_be_printed(
    sink: str, tmp_path: Path
) -> None:
    done = _workbench(sink, "verify", str(tmp_path / "missing"))
    assert done.returncode == exit_codes.USAGE, done
    assert done.stdout == b""


@pytest.mark.parametrize("sink", sorted(SINKS))
def test_a_command_that_did_its_work_exits_0_without_its_diagnostics(
    sink: str, tmp_path: Path
) -> None:
    out = tmp_path / "items.jsonl"
    done = _workbench(sink, "vc", "generate", "-n", "5", "--out", str(out))
    assert done.returncode == 0, done
    assert len(out.read_bytes().splitlines()) == 5


def test_a_validation_with_its_progress_on_a_full_device_writes_its_whole_report(
    demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    out = tmp_path / "checks"
    done = _workbench(
        "full device", "validate", "counterfactual", "--results", str(run), "--out", str(out)
    )
    assert done.returncode == 0, done
    assert b"report: " in done.stdout
    checked = subprocess.run(
        [sys.executable, "-m", "workbench", "verify-report", str(out), "--results", str(run)],
        capture_output=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stderr


def test_a_terminal_still_sees_the_progress_bar(demo_run: Path, tmp_path: Path) -> None:
    """Behind the guard, standard error is still known as a terminal: the bar draws there."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    main, secondary = os.openpty()
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "workbench",
                "validate",
                "counterfactual",
                "--results",
                str(run),
                "--out",
                str(tmp_path / "checks"),
            ],
            stdout=subprocess.PIPE,
            stderr=secondary,
            timeout=300,
        )
        os.close(secondary)
        secondary = -1
        shown = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the terminal's other side is closed: all read
                break
            if not chunk:
                break
            shown += chunk
    finally:
        if secondary >= 0:
            os.close(secondary)
        os.close(main)
    assert done.returncode == 0, done
    assert b"validating" in shown and b"\r" in shown, shown


def test_a_closed_standard_error_is_held_on_dev_null() -> None:
    """Left free, descriptor 2 went to the next file the command opened (a report's
    temporary file), and anything writing to standard error by number wrote into it."""
    probe = (
        "import os, sys\n"
        "from workbench.cli import stderr\n"
        "stderr.guard()\n"
        "first = os.open(os.devnull, os.O_RDONLY)\n"
        "sys.stderr.write('dropped\\n')\n"
        "os.write(2, b'dropped too\\n')\n"
        "print(os.readlink('/proc/self/fd/2'), first > 2)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        stdout=subprocess.PIPE,
        preexec_fn=lambda: os.close(2),
        timeout=120,
        check=True,
    )
    assert done.stdout.decode().split() == ["/dev/null", "True"]
