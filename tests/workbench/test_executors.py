"""The executor interface: results in item order, failures confined to their item or chunk."""

from __future__ import annotations

import contextlib
import http.server
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.errors import UserError
from workbench.evaluation import executors
from workbench.evaluation.executors import (
    DaskExecutor,
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


def test_only_the_item_that_kills_its_worker_is_lost() -> None:
    """A worker that dies breaks Python's whole pool: the chunks it left run again, then
    item by item, so of forty items only the one that kills every worker it runs on is
    lost (the whole map was lost with the pool before)."""
    items = list(range(40))
    outcomes: list[Outcome[int]] = list(LocalExecutor(2).map(suicidal, items, chunk=5))
    lost = outcomes[13]
    assert isinstance(lost, Lost) and lost.reason.startswith("worker failed: BrokenProcessPool")
    assert outcomes == [lost if item == 13 else Done(item) for item in items]


def killed_once(item: tuple[int, str]) -> int:
    """Kills its worker the first time item 5 runs (a marker file remembers), like the
    out-of-memory killer taking a worker once."""
    value, marker = item
    if value == 5 and not os.path.exists(marker):
        with open(marker, "x"):
            pass
        os.kill(os.getpid(), signal.SIGKILL)
    return value * 2


@pytest.mark.parametrize("chunk", [1, 3, 20])
def test_a_worker_killed_once_loses_nothing(chunk: int, tmp_path: Path) -> None:
    marker = str(tmp_path / "killed")
    items = [(value, marker) for value in range(20)]
    seen: list[int] = []
    outcomes = list(
        LocalExecutor(2).map(
            killed_once, items, chunk=chunk, progress=lambda done, total: seen.append(done)
        )
    )
    assert os.path.exists(marker)
    assert outcomes == [Done(value * 2) for value in range(20)]
    assert seen == sorted(seen) and seen[-1] == 20


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
        (dict(kind="local", workers=0), "workers must be between 1 and 256, not 0"),
        (dict(kind="dask", workers=10_000), "workers must be between 1 and 256, not 10000"),
        (dict(kind="dask", scheduler=" "), "a scheduler address looks like"),
        (dict(kind="ray"), "the executor must be local or dask"),
    ],
)
def test_executor_spec_refusals(spec: dict[str, object], message: str) -> None:
    with pytest.raises(UserError, match=message):
        ExecutorSpec(**spec)  # type: ignore[arg-type]


@contextlib.contextmanager
def _server(answer: bytes | None) -> Iterator[str]:
    """A TCP server on loopback that accepts and then sends `answer` (None: an HTTP
    server, which waits for a request line that Dask never sends)."""
    if answer is None:
        web = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
        threading.Thread(target=web.serve_forever, daemon=True).start()
        try:
            yield f"tcp://127.0.0.1:{web.server_address[1]}"
        finally:
            web.shutdown()
            web.server_close()
        return
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                peer, _ = listener.accept()
                held.append(peer)
                peer.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        for peer in held:
            peer.close()


@pytest.mark.parametrize(
    "answer",
    [None, b"", b"\xff" * 64, b"HTTP/1.1 400 Bad Request\r\n\r\n", b"\x01" + b"\x00" * 7],
    ids=["http-server", "silent", "all-ones", "http-reply", "one-frame"],
)
def test_an_address_where_no_scheduler_answers_is_refused_in_time(
    answer: bytes | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever listens at the address (an HTTP server, a silent service, another protocol's
    bytes), connecting ends within the deadline in one line naming the address: an HTTP
    server's port held the command forever, other bytes were a MemoryError traceback."""
    monkeypatch.setattr(executors, "CONNECT_SECONDS", 1.0)
    monkeypatch.setattr(executors, "ANSWER_SECONDS", 1.0)
    with _server(answer) as address:
        started = time.monotonic()
        with pytest.raises(UserError) as refused, DaskExecutor(address):
            pass
        assert time.monotonic() - started < 8
    assert refused.value.subject == "scheduler"
    assert refused.value.message.startswith(f"cannot reach a Dask scheduler at '{address}' (")
    assert "\n" not in refused.value.message


@pytest.mark.parametrize(
    "address", ["ucx://127.0.0.1:1", "tls://127.0.0.1:1", "inproc://x", "ws://127.0.0.1"]
)
def test_addresses_distributed_cannot_use_are_one_line(address: str) -> None:
    """A scheme without its setup (ucx without ucx-py, tls without certificates) or an
    address of the wrong form is a UserError, not distributed's TypeError traceback."""
    with pytest.raises(UserError) as refused, DaskExecutor(address):
        pass
    assert refused.value.subject == "scheduler" and "\n" not in refused.value.message


@given(st.text(min_size=1, max_size=600))
def test_a_scheduler_address_is_one_bounded_word(address: str) -> None:
    """An address with whitespace or control characters, or longer than the limit, is
    refused before any connection, quoted clipped on one line."""
    bad = (
        not address.strip()
        or len(address) > executors.MAX_ADDRESS_CHARS
        or not address.isprintable()
        or any(c.isspace() for c in address)
    )
    if not bad:
        ExecutorSpec("dask", address)
        return
    with pytest.raises(UserError) as refused:
        ExecutorSpec("dask", address)
    message = refused.value.message
    assert message.startswith("a scheduler address looks like") and message.isprintable()
    assert len(message) < 300
