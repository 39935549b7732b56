"""Killing `validate --workers 4` with SIGKILL leaves no worker process behind."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from campaigns import DEFAULT_CAMPAIGN
from workbench.cli import main
from workbench.evaluation.pool import worker_pool

QUESTIONS = 200


@pytest.fixture(scope="module")
def many_questions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of a campaign with enough questions to keep four workers busy."""
    root = tmp_path_factory.mktemp("many")
    campaign = root / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, campaign)
    blocks = [
        f'[[questions]]\nid = "q{i:03d}"\ntitle = "Question {i}"\nmetric = "net_assets"\n'
        f'scale = "1000"\nintervene_on_day = {10 + i % 100}\ndeadline_day = {10 + i % 100}\n'
        f"outcome_day = {60 + i % 100}\n"
        'baseline = { name = "Nothing", actions = [] }\n'
        'intervention = { name = "Loan", actions = ["bank_loan"] }\n'
        for i in range(QUESTIONS)
    ]
    (campaign / "questions.toml").write_text("\n".join(blocks))
    run = root / "run"
    result = CliRunner().invoke(main, ["run", str(campaign), "--out", str(run)])
    assert result.exit_code == 0, result.output
    return run


def _children(pid: int) -> set[int]:
    """Live child processes of `pid` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_workers_die_with_a_killed_evaluator(many_questions: Path, tmp_path: Path) -> None:
    validate = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "workbench",
            "validate",
            "counterfactual",
            "--results",
            str(many_questions),
            "--out",
            str(tmp_path / "out"),
            "--workers",
            "4",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers: set[int] = set()
    try:
        assert _wait(lambda: len(_children(validate.pid)) >= 4, 60), "no workers started"
        os.kill(validate.pid, signal.SIGSTOP)  # hold the pool open: workers are alive now
        workers = _children(validate.pid)
        assert len(workers) >= 4
        os.kill(validate.pid, signal.SIGKILL)
        validate.wait()
        assert _wait(lambda: not any(_alive(w) for w in workers), 10), "orphaned workers"
    finally:
        if validate.poll() is None:
            validate.kill()
            validate.wait()
        for worker in workers:
            if _alive(worker):
                os.kill(worker, signal.SIGKILL)


def test_a_pool_worker_knows_its_parent() -> None:
    with worker_pool(2) as pool:
        assert set(pool.map(_parent_of_worker, range(4))) == {os.getpid()}


def _parent_of_worker(_: int) -> int:
    return os.getppid()
