"""Fault injection for the workbench tests: real workbench processes under strace (a
failure or a kill at the Nth call of a system call, their calls counted), and in-process
faults (a file size limit, failing fsyncs)."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from workbench.play.session import PlayerSession

STRACE = shutil.which("strace")
NEEDS_STRACE = pytest.mark.skipif(STRACE is None, reason="needs strace")
"""Mark of a test module whose tests need Debian's strace (`make test` installs it)."""

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "campaigns" / "default" / "demo.jsonl"
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}


def workbench(
    cwd: Path, *args: str | Path, strace: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run `workbench ARGS` in `cwd`, under `strace STRACE` when given."""
    command = [sys.executable, "-m", "workbench", *map(str, args)]
    if strace:
        assert STRACE is not None
        command = [STRACE, "-f", "-qq", *strace, *command]
    return subprocess.run(command, cwd=cwd, env=ENV, capture_output=True, text=True, timeout=120)


def injected(call: str, action: str, when: int) -> tuple[str, ...]:
    """strace options: the `when`th call of `call` gets `action` (signal=KILL, error=EIO)."""
    return ("-o", os.devnull, "-e", f"trace={call}", "-e", f"inject={call}:{action}:when={when}")


def calls(cwd: Path, call: str, *args: str | Path) -> int:
    """How many `call`s `workbench ARGS` makes when nothing is injected (it succeeds)."""
    log = cwd / f".{call}.log"
    result = workbench(cwd, *args, strace=("-o", str(log), "-e", f"trace={call}"))
    assert result.returncode == 0, result.stderr
    count = sum(1 for line in log.read_text().splitlines() if f"{call}(" in line)
    log.unlink()
    return count


def one_line_failure(result: subprocess.CompletedProcess[str], codes: set[int]) -> str:
    """The message of a command that failed as documented: one line, an expected code."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in codes, (result.returncode, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def unfinished_run(root: Path) -> Path:
    """A development run played a few days in and closed (not finished)."""
    session = PlayerSession.create(root)
    session.advance(3)
    session.schedule("bank_loan")
    session.advance(2)
    session.close()
    return root


@contextlib.contextmanager
def files_may_not_grow_beyond(limit: int) -> Iterator[None]:
    """This process's writes past `limit` bytes of any file fail with EFBIG (soft limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


@contextlib.contextmanager
def fsync_then_cut_fail(
    monkeypatch: pytest.MonkeyPatch, fsyncs: int, *, after: int = 0, cuts_fail: bool = True
) -> Iterator[None]:
    """After `after` fsyncs that succeed, the next `fsyncs` fsyncs fail with EIO; with
    `cuts_fail`, every ftruncate while inside fails too.

    A disk cannot be made to refuse an fsync on demand without a faulty device, so these
    two system calls are the one place a fault is injected rather than real; everything
    else (the journal, the record of the cut, the repair) runs on the real file system.
    """
    real_fsync, real_ftruncate = os.fsync, os.ftruncate
    calls = [0]

    def fsync(fd: int) -> None:
        calls[0] += 1
        if after < calls[0] <= after + fsyncs:
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    def ftruncate(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", fsync)
    if cuts_fail:
        monkeypatch.setattr(os, "ftruncate", ftruncate)
    try:
        yield
    finally:
        monkeypatch.setattr(os, "fsync", real_fsync)
        monkeypatch.setattr(os, "ftruncate", real_ftruncate)
