"""A Ctrl+C or SIGTERM that arrives inside a library callback is still a Ctrl+C or SIGTERM.

A signal raises where Python is. Inside a pydantic serializer or validator, pydantic wraps
what the callback raised into its own error: a Ctrl+C during `validate` printed a
PydanticSerializationError traceback and exited 1, and one during a question's branches
made that question `failed` and the report was written anyway (found pressing Ctrl+C at
random moments of a validation: 1 in about 150 did one or the other).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, field_serializer

import workbench.cli as cli
from workbench.cli import CommandEntry, main
from workbench.errors import Terminated, interruption
from workbench.evaluation import evaluator
from workbench.evaluation.executors import run_chunk


class _SignalledOnDump(BaseModel):
    """Sends this process `signum` while pydantic serializes it, as a real signal would land."""

    signum: int

    @field_serializer("signum")
    def _send(self, signum: int) -> int:
        os.kill(os.getpid(), signum)
        return signum


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


@pytest.fixture
def sigterm_raises() -> Any:
    """SIGTERM raises `Terminated`, as `workbench.cli.run` installs it."""
    previous = signal.signal(signal.SIGTERM, _terminated)
    yield
    signal.signal(signal.SIGTERM, previous)


def _interrupted_inside_pydantic(signum: int) -> None:
    _SignalledOnDump(signum=signum).model_dump(mode="json")


@click.command()
@click.argument("signum", type=int)
def wrapped(signum: int) -> None:
    """A command interrupted while pydantic serializes."""
    _interrupted_inside_pydantic(signum)


@pytest.mark.parametrize(
    ("signum", "code", "line"),
    [(signal.SIGINT, 130, "Error: interrupted\n"), (signal.SIGTERM, 143, "Error: terminated\n")],
)
def test_a_signal_inside_pydantic_stops_the_command_with_its_code(
    monkeypatch: pytest.MonkeyPatch, sigterm_raises: None, signum: int, code: int, line: str
) -> None:
    monkeypatch.setitem(cli._COMMANDS, "wrapped", CommandEntry(__name__, "wrapped", "test"))
    result = CliRunner().invoke(main, ["wrapped", str(int(signum))])
    assert (result.exit_code, result.output) == (code, line)


def test_a_ctrl_c_inside_a_question_stops_the_evaluation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It was this question's `failed` status, and the other questions went on."""

    def judged(task: object) -> object:
        _interrupted_inside_pydantic(signal.SIGINT)
        raise AssertionError("the signal did not arrive")

    monkeypatch.setattr(evaluator, "_judge", judged)
    with pytest.raises(KeyboardInterrupt):
        evaluator.evaluate_pair(object())  # type: ignore[arg-type]


def test_a_ctrl_c_inside_a_task_is_no_lost_task(sigterm_raises: None) -> None:
    for signum, stop in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)):
        with pytest.raises(stop):
            run_chunk(_interrupted_inside_pydantic, [signum])


def test_an_ordinary_failure_is_still_one_lost_task() -> None:
    def fails(item: int) -> int:
        raise ValueError(f"bad {item}")

    outcomes = run_chunk(fails, [1])
    assert [type(o).__name__ for o in outcomes] == ["Lost"]


def test_a_validation_interrupted_inside_pydantic_leaves_no_output(
    monkeypatch: pytest.MonkeyPatch, demo_run: Path, tmp_path: Path
) -> None:
    """Through the real command: 130, one line, and the output directory removed."""
    real = evaluator._judge
    calls = 0

    def judged(task: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 3:
            _interrupted_inside_pydantic(signal.SIGINT)
        return real(task)

    monkeypatch.setattr(evaluator, "_judge", judged)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["validate", "counterfactual", "--results", str(demo_run), "--out", str(out)]
    )
    assert (result.exit_code, result.output.splitlines()[-1]) == (130, "Error: interrupted")
    assert "Traceback" not in result.output
    assert not out.exists()


@given(
    depth=st.integers(min_value=0, max_value=6),
    stop=st.sampled_from([None, KeyboardInterrupt, Terminated]),
    links=st.lists(st.booleans(), min_size=6, max_size=6),
)
def test_the_interruption_is_found_at_any_depth_of_the_chain(
    depth: int, stop: type[BaseException] | None, links: list[bool]
) -> None:
    """Through `raise … from` (cause) or an exception raised while handling (context)."""
    current: BaseException = stop() if stop is not None else OSError("disk")
    for level in range(depth):
        outer = ValueError(f"level {level}")
        if links[level]:
            outer.__cause__ = current
        else:
            outer.__context__ = current
        current = outer
    found = interruption(current)
    assert (type(found) if found is not None else None) is stop


def test_a_ctrl_c_inside_a_branch_is_no_failed_branch(
    monkeypatch: pytest.MonkeyPatch, demo_run: Path, tmp_path: Path
) -> None:
    """A branch records an infrastructure failure and the evaluation goes on; a Ctrl+C that
    pydantic wrapped while the branch ran was one, and the report was written."""
    from workbench.evaluation import branches

    real = branches.to_display

    def shown(*args: Any) -> Any:
        _interrupted_inside_pydantic(signal.SIGINT)
        return real(*args)

    monkeypatch.setattr(branches, "to_display", shown)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["validate", "counterfactual", "--results", str(demo_run), "--out", str(out)]
    )
    assert (result.exit_code, result.output.splitlines()[-1]) == (130, "Error: interrupted")
    assert not out.exists()
