"""The executor interface: results in item order, failures confined to their item or chunk."""

from __future__ import annotations

import os
import signal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import UserError
from workbench.evaluation.executors import (
    Done,
    ExecutorError,
    ExecutorSpec,
    LocalExecutor,
    Lost,
    Outcome,
    SerialExecutor,
    _chunks,
    _in_order,
    chunk_size,
    run_chunk,
    values,
)


def square(x: int) -> int:
    """A pure task."""
    return x * x


def fragile(x: int) -> int:
    """Fails on multiples of 7."""
    if x % 7 == 0:
        raise ValueError(f"seven divides {x}")
    return x


def suicidal(x: int) -> int:
    """Kills its own worker process on 13."""
    if x == 13:
        os.kill(os.getpid(), signal.SIGKILL)
    return x


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_results_come_back_in_item_order_whatever_finishes_first(data: st.DataObject) -> None:
    items = data.draw(st.lists(st.integers(), max_size=40))
    size = data.draw(st.integers(min_value=1, max_value=8))
    chunks = _chunks(items, size)
    order = data.draw(st.permutations(range(len(chunks))))
    seen: list[tuple[int, int]] = []
    outcomes = list(
        _in_order(
            chunks,
            iter(order),
            lambda i: run_chunk(square, chunks[i]),
            lambda done, total: seen.append((done, total)),
            len(items),
        )
    )
    assert outcomes == [Done(x * x) for x in items]
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert not seen or seen[-1] == (len(items), len(items))


@pytest.mark.parametrize("workers", [1, 2])
def test_local_executor_matches_serial(workers: int) -> None:
    items = list(range(-20, 30))
    expected = list(SerialExecutor().map(fragile, items))
    assert list(LocalExecutor(workers).map(fragile, items, chunk=3)) == expected
    lost = [o for o in expected if isinstance(o, Lost)]
    assert [o.reason for o in lost] == [
        f"ValueError: seven divides {x}" for x in (-14, -7, 0, 7, 14, 21, 28)
    ]


def test_a_killed_pool_worker_loses_chunks_not_the_map() -> None:
    items = list(range(40))
    outcomes: list[Outcome[int]] = list(LocalExecutor(2).map(suicidal, items, chunk=5))
    assert len(outcomes) == len(items)
    assert isinstance(outcomes[13], Lost) and outcomes[13].reason.startswith("worker failed:")
    for item, outcome in zip(items, outcomes, strict=True):
        assert outcome == Done(item) or isinstance(outcome, Lost)


def test_values_raise_on_the_first_lost_task() -> None:
    assert list(values(iter([Done(1), Done(2)]), "x")) == [1, 2]
    with pytest.raises(ExecutorError, match=r"^grading: a task did not complete \(boom\)$"):
        list(values(iter([Done(1), Lost("boom")]), "grading"))


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=256))
def test_chunks_cover_every_item_once(items: int, workers: int) -> None:
    size = chunk_size(items, workers)
    parts = _chunks(list(range(items)), size)
    assert [x for part in parts for x in part] == list(range(items))
    assert size >= 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            dict(kind="local", scheduler="tcp://127.0.0.1:8786"),
            "a scheduler address needs the dask executor",
        ),
        (
            dict(kind="dask", scheduler="tcp://a:1", workers=2),
            "a running scheduler's own workers are used",
        ),
        (dict(kind="local", workers=0), "workers must be between 1 and 256"),
        (dict(kind="dask", workers=10_000), "workers must be between 1 and 256"),
        (dict(kind="dask", scheduler=" "), "a scheduler address looks like"),
        (dict(kind="ray"), "the executor must be local or dask"),
    ],
)
def test_executor_spec_refusals(spec: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message):
        ExecutorSpec(**spec)  # type: ignore[arg-type]
