"""A SIGTERM or Ctrl+C wherever it lands leaves an evaluation's output whole or gone.

The signal is sent by a trace function at the n-th line the evaluation runs in its own
code (the evaluator, the output writer, the durable file helpers), for every n, under the
handlers `workbench.cli.run` installs: a real signal, delivered where Python checks for
one, so each point between two statements is tried. Before the claim was made with the
signals held, a SIGTERM right after the output directory's mkdir left it behind (a batch
test stopped the process as soon as OUT appeared, and once found it still there).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import ledger.durable
import workbench.evaluation.batch
import workbench.evaluation.evaluator
import workbench.evaluation.seal_stream
import workbench.held_signals
import workbench.outputs
from tests.workbench.batch_runs import play_short
from workbench.cli import _interrupted, _terminated
from workbench.errors import Terminated
from workbench.evaluation.batch import validate_runs
from workbench.evaluation.evaluator import run_evaluation
from workbench.evaluation.report_check import check_report
from workbench.held_signals import held

TRACED = frozenset(
    module.__file__
    for module in (
        workbench.evaluation.evaluator,
        workbench.evaluation.batch,
        workbench.evaluation.seal_stream,
        workbench.outputs,
        workbench.held_signals,
        ledger.durable,
    )
)


class SignalAtLine:
    """A trace function that sends `signum` to this process at the `at`-th line event of
    the traced modules (each line counted once it is about to run)."""

    def __init__(self, at: int, signum: int) -> None:
        self.at = at
        self.signum = signum
        self.lines = 0
        self.sent = False

    def __call__(self, frame: FrameType, event: str, arg: Any) -> Callable[..., Any] | None:
        if event == "call":
            return self if frame.f_code.co_filename in TRACED else None
        if event == "line" and not self.sent:
            self.lines += 1
            if self.lines == self.at:
                self.sent = True
                os.kill(os.getpid(), self.signum)
        return self


@pytest.fixture()
def cli_handlers() -> Iterator[None]:
    """The handlers `workbench.cli.run` installs, for this test only."""
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def _traced(tracer: SignalAtLine, work: Callable[[], object]) -> BaseException | None:
    """Run `work` under `tracer`; the Ctrl+C or SIGTERM it raised, if any."""
    sys.settrace(tracer)
    try:
        work()
    except (KeyboardInterrupt, Terminated) as exc:
        return exc
    finally:
        sys.settrace(None)
    return None


def _whole_or_gone(top: Path, out: Path, stopped: BaseException | None) -> str:
    """Nothing under `top` (the folders made for the output included), or a whole output
    whose report verifies; which of the two."""
    if not top.exists():
        assert stopped is not None, "finished without its output"
        return "gone"
    assert (out / "report.json").exists() or (out / "leaderboard.csv").exists(), sorted(
        str(p.relative_to(top)) for p in top.rglob("*")
    )
    return "whole"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl+c"])
def test_an_evaluation_stopped_at_any_line_leaves_its_output_whole_or_gone(
    cli_handlers: None, demo_run: Path, tmp_path: Path, signum: int
) -> None:
    at, seen = 1, set()
    while True:
        top = tmp_path / f"new-{at}"
        out = top / "deeper" / "out"
        tracer = SignalAtLine(at, signum)
        stopped = _traced(tracer, partial(run_evaluation, demo_run, out, questions=["q_bank_loan"]))
        if not tracer.sent:
            break
        seen.add(_whole_or_gone(top, out, stopped))
        if (out / "report.json").exists():
            assert check_report(out).ok
        shutil.rmtree(top, ignore_errors=True)
        at += 1
    assert seen == {"gone", "whole"} and at > 100, (seen, at)


def test_a_batch_stopped_at_any_line_of_its_claim_leaves_nothing(
    cli_handlers: None, tmp_path: Path
) -> None:
    """The batch's claim and first steps, line by line (its whole run is long: the lines
    after its first report are spread)."""
    runs = tmp_path / "runs"
    play_short(runs / "run-a", "agent-a", seed=1)
    at, results = 1, []
    while at < 2_000:
        top = tmp_path / f"new-{at}"
        out = top / "out"
        tracer = SignalAtLine(at, signal.SIGTERM)
        stopped = _traced(tracer, partial(validate_runs, runs, out))
        if not tracer.sent:
            break
        results.append(_whole_or_gone(top, out, stopped))
        shutil.rmtree(top, ignore_errors=True)
        at += 1 if at < 300 else 37
    assert "gone" in results and len(results) > 100


def test_a_stop_inside_held_is_raised_at_its_end_once(cli_handlers: None) -> None:
    done = []
    with pytest.raises(Terminated), held():
        with held():
            os.kill(os.getpid(), signal.SIGTERM)
            os.kill(os.getpid(), signal.SIGINT)
            done.append("inner")
        done.append("outer")
    assert done == ["inner", "outer"]
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        done.append("never")
    assert done == ["inner", "outer"]


def test_a_worker_threads_step_holds_nothing_of_the_main_threads(cli_handlers: None) -> None:
    """The author app validates in a worker thread: a SIGTERM meanwhile stops the main
    thread where it is, never raised later in the worker."""
    entered, release = threading.Event(), threading.Event()
    outcome: list[str] = []

    def step() -> None:
        try:
            with held():
                entered.set()
                release.wait(30)
            outcome.append("done")
        except BaseException as exc:  # what the worker met, for the assertion below
            outcome.append(type(exc).__name__)

    worker = threading.Thread(target=step)
    worker.start()
    assert entered.wait(30)
    try:
        with pytest.raises(Terminated):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(1_000):
                time.sleep(0.001)
    finally:
        release.set()
        worker.join(30)
    assert outcome == ["done"]
