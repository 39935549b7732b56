"""Real workbench processes under strace, for the fault-injection tests: run a command,
inject a failure or a kill at its Nth call of a system call, count its calls."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
