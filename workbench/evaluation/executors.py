"""Where independent pure tasks run: in process, on a local process pool, or on Dask.

An `Executor` maps a pure, module-level function over independent items and yields one
`Done` or `Lost` per item **in item order**, whatever order they finished in, so anything
built from the results is byte-identical for any executor and worker count. Items travel
in chunks (one pickled campaign per chunk, not per item). An exception inside the
function fails only its item. A lost worker is no lost task: on the local pool the chunks
it left unfinished run again on a new pool, then item by item (`LocalExecutor`); on Dask
the scheduler reruns a lost worker's tasks on the others. Either way a kill loses and
duplicates nothing, and only a task that kills its workers by itself comes back `Lost`
(on Dask, one that killed `allowed-failures` workers).

`open_executor` turns an `ExecutorSpec` (the CLI's `--executor local|dask`, `--scheduler
ADDRESS`, `--workers N`) into an executor; every refusal is a one-line UserError whose
subject (executor, scheduler, workers) the CLI turns into its flag.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import platform
import sys
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Generic, Literal, Protocol, TypeVar

import numpy as np

from graders.blas import VARIABLE as BLAS_VARIABLE
from graders.blas import kernels
from sim.version import ENGINE_VERSION
from workbench import exit_codes
from workbench.errors import UserError, WorkbenchError, not_interrupted
from workbench.evaluation.pool import worker_pool
from workbench.messages import clip

if TYPE_CHECKING:
    from distributed import Client, LocalCluster

T = TypeVar("T")
R = TypeVar("R")

ExecutorKind = Literal["local", "dask"]
EXECUTOR_KINDS: Final[tuple[ExecutorKind, ...]] = ("local", "dask")
Progress = Callable[[int, int], None]
"""Called as progress(done, total) each time a task finishes (in finishing order)."""

MAX_WORKERS: Final = 256
"""The most local processes `--workers` may ask for."""
CHUNKS_PER_WORKER: Final = 4
"""Default chunking: about this many chunks per worker, so a slow chunk does not stall."""
CONNECT_SECONDS: Final = 10.0
"""How long to wait for a Dask scheduler to answer."""
ANSWER_SECONDS: Final = 5.0
"""How much longer than CONNECT_SECONDS a server that accepted the connection has to
answer as a Dask scheduler."""
MAX_ADDRESS_CHARS: Final = 255
"""The longest scheduler address (`--scheduler`)."""
WORKER_WAIT_SECONDS: Final = 30.0
"""How long to wait for a Dask scheduler to have at least one worker (on connect, and
while tasks wait: then they are lost)."""
WORKER_CHECK_SECONDS: Final = 1.0
"""While no task finishes, how often to ask the scheduler whether it has a worker."""
POLL_SECONDS: Final = 0.02
"""How often to look for finished Dask tasks."""


@dataclass(frozen=True)
class Done(Generic[R]):
    """A task that ran: its value."""

    value: R


@dataclass(frozen=True)
class Lost:
    """A task that did not produce a value, and why (one line)."""

    reason: str


Outcome = Done[R] | Lost


class ExecutorError(WorkbenchError):
    """Work that must be complete (a grading, an audit) lost a task: nothing is written."""

    exit_code = exit_codes.UNSCORED


class Executor(Protocol):
    """Maps a pure function over independent items; results come back in item order."""

    @property
    def workers(self) -> int:
        """How many tasks can run at once (for chunk sizing)."""
        ...

    @property
    def description(self) -> str:
        """Where the tasks run, in words (for messages)."""
        ...

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        *,
        chunk: int | None = None,
        progress: Progress | None = None,
    ) -> Iterator[Outcome[R]]:
        """Yield fn(item) for each item, in item order, `chunk` items per task."""
        ...


def chunk_size(items: int, workers: int) -> int:
    """About CHUNKS_PER_WORKER chunks per worker, at least one item each."""
    return max(1, items // (CHUNKS_PER_WORKER * max(1, workers)))


def _chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _reason(exc: BaseException) -> str:
    """One line naming an exception."""
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def run_chunk(fn: Callable[[T], R], items: Sequence[T]) -> list[Outcome[R]]:
    """Apply `fn` to each item of a chunk; an exception fails only its own item."""
    outcomes: list[Outcome[R]] = []
    for item in items:
        try:
            outcomes.append(Done(fn(item)))
        except Exception as exc:  # one item's failure never loses its neighbours
            not_interrupted(exc)  # a Ctrl+C a library wrapped is no lost item
            outcomes.append(Lost(_reason(exc)))
    return outcomes


def _in_order(
    chunks: list[Sequence[Any]],
    finished: Iterator[int],
    result_of: Callable[[int], list[Outcome[R]]],
    progress: Progress | None,
    total: int,
) -> Iterator[Outcome[R]]:
    """Yield chunk results in chunk order as `finished` reports chunk indices done."""
    ready: dict[int, list[Outcome[R]]] = {}
    following = 0
    done = 0
    for index in finished:
        ready[index] = result_of(index)
        done += len(chunks[index])
        if progress is not None:
            progress(done, total)
        while following in ready:
            yield from ready.pop(following)
            following += 1


def _check_workers(workers: int) -> None:
    """Refuse a worker count outside 1..MAX_WORKERS (one line naming the bound)."""
    if not 1 <= workers <= MAX_WORKERS:
        raise UserError(
            f"workers must be between 1 and {MAX_WORKERS}, not {workers}", subject="workers"
        )


class SerialExecutor:
    """Runs every task in this process, in order (the reference the others must match)."""

    workers = 1
    description = "this process"

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        *,
        chunk: int | None = None,
        progress: Progress | None = None,
    ) -> Iterator[Outcome[R]]:
        """Yield fn(item) for each item in order."""
        for done, item in enumerate(items, start=1):
            yield from run_chunk(fn, [item])
            if progress is not None:
                progress(done, len(items))


class LocalExecutor:
    """A local process pool whose workers die with this process (serial for one worker).

    A worker that dies (killed, out of memory) breaks Python's whole pool, and every chunk
    not yet finished fails with it. Those chunks run again on a new pool; if that one
    breaks as well, their items run one at a time on a one-worker pool, a new worker after
    each that dies, so only an item that kills its worker by itself comes back `Lost`
    (`_pooled`). Items are pure, so running one again changes nothing.
    """

    def __init__(self, workers: int = 1) -> None:
        _check_workers(workers)
        self._workers = workers

    @property
    def workers(self) -> int:
        """The pool size."""
        return self._workers

    @property
    def description(self) -> str:
        """Where the tasks run."""
        return f"a local pool of {self._workers} process(es)"

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        *,
        chunk: int | None = None,
        progress: Progress | None = None,
    ) -> Iterator[Outcome[R]]:
        """Yield fn(item) for each item in item order; chunks run in the pool."""
        if self._workers == 1 or len(items) < 2:
            yield from SerialExecutor().map(fn, items, progress=progress)
            return
        chunks = _chunks(items, chunk or chunk_size(len(items), self._workers))
        results: dict[int, list[Outcome[R]]] = {}

        def finished() -> Iterator[int]:
            for index, outcomes in _pooled(fn, chunks, self._workers):
                results[index] = outcomes
                yield index

        yield from _in_order(chunks, finished(), results.pop, progress, len(items))


POOL_ROUNDS: Final = 2
"""Pools the unfinished chunks of a local map run on (the first, then one more after a
worker died) before their items run one at a time."""


def _pooled(
    fn: Callable[[T], R], chunks: list[Sequence[T]], workers: int
) -> Iterator[tuple[int, list[Outcome[R]]]]:
    """(chunk index, outcomes) for every chunk, in the order they finish, on local pools.

    A worker killed from outside (the out-of-memory killer, `kill -9`) costs a second
    round; an item that kills every worker it runs on is found by running the chunks
    left after the second round item by item (`_isolated`)."""
    left = list(range(len(chunks)))
    for _ in range(POOL_ROUNDS):
        if not left:
            return
        left = yield from _one_pool(fn, chunks, left, min(workers, len(left)))
    for index in left:
        yield index, _isolated(fn, chunks[index])


def _one_pool(
    fn: Callable[[T], R], chunks: list[Sequence[T]], indexes: list[int], workers: int
) -> Generator[tuple[int, list[Outcome[R]]], None, list[int]]:
    """Run the chunks `indexes` on one new pool, yielding each as it finishes; returns
    the indexes a broken pool (a worker that died) left without a result."""
    pool = worker_pool(workers)
    broken: list[int] = []
    try:
        futures: dict[Future[list[Outcome[R]]], int] = {}
        for position, index in enumerate(indexes):
            try:
                futures[pool.submit(run_chunk, fn, chunks[index])] = index
            except BrokenProcessPool:  # a worker died before every chunk was handed over
                broken.extend(indexes[position:])
                break
        for future in as_completed(futures):
            index = futures[future]
            try:
                outcomes = future.result()
            except BrokenProcessPool:
                broken.append(index)
                continue
            except Exception as exc:  # not a lost worker (a result that cannot travel back)
                outcomes = [Lost(f"worker failed: {_reason(exc)}")] * len(chunks[index])
            yield index, outcomes
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return sorted(broken)


def _isolated(fn: Callable[[T], R], items: Sequence[T]) -> list[Outcome[R]]:
    """Each item alone on a one-worker pool, in order: an item whose worker dies is
    `Lost` with the reason, and a new worker takes the next."""
    outcomes: list[Outcome[R]] = []
    pool: ProcessPoolExecutor | None = None
    try:
        for item in items:
            pool = pool or worker_pool(1)
            try:
                outcomes.extend(pool.submit(run_chunk, fn, [item]).result())
            except BrokenProcessPool as exc:
                outcomes.append(Lost(f"worker failed: {_reason(exc)}"))
                pool.shutdown(wait=True)
                pool = None
            except Exception as exc:  # not a lost worker (a result that cannot travel back)
                outcomes.append(Lost(f"worker failed: {_reason(exc)}"))
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    return outcomes


def environment() -> tuple[str, str, str, str, str]:
    """What makes results reproducible: engine, Python, numpy, BLAS kernels, platform."""
    return (ENGINE_VERSION, platform.python_version(), np.__version__, kernels(), sys.platform)


async def _identity(address: str) -> object:
    """What the server at `address` says it is (distributed's `identity` call)."""
    from distributed.comm import connect
    from distributed.core import send_recv
    from distributed.security import Security

    args = Security().get_connection_args("client")
    comm = await connect(address, timeout=CONNECT_SECONDS, **args)
    try:
        return await send_recv(comm, op="identity")
    finally:
        comm.abort()


def _probe_scheduler(address: str) -> None:
    """Refuse, within CONNECT_SECONDS + ANSWER_SECONDS, an address where no Dask scheduler
    answers.

    distributed's client waits for a handshake without a deadline (an HTTP server's port
    held the command forever) and trusts the peer's frame lengths (another service's
    bytes were a MemoryError traceback); here every failure is one line, a Dask worker's
    address is named as such, and the wait ends at the deadline.
    """

    async def bounded() -> object:
        return await asyncio.wait_for(_identity(address), CONNECT_SECONDS + ANSWER_SECONDS)

    where = f"cannot reach a Dask scheduler at {clip(address)}"
    found: list[object] = []
    failed: list[Exception] = []

    def probe() -> None:
        try:
            found.append(asyncio.run(bounded()))
        except Exception as exc:  # handed to the caller, which words it
            failed.append(exc)

    # A daemon thread of its own: asyncio.run needs a thread without a running loop, and a
    # Ctrl+C during the wait must not wait for the probe to give up.
    thread = threading.Thread(target=probe, name="cfwb-scheduler-probe", daemon=True)
    thread.start()
    thread.join()
    if failed:
        exc = failed[0]
        if isinstance(exc, TimeoutError):
            seconds = CONNECT_SECONDS + ANSWER_SECONDS
            raise UserError(
                f"{where} (the server there gave no Dask answer within {seconds:.0f} s: "
                "is it a Dask scheduler's address?)",
                subject="scheduler",
            )
        if isinstance(exc, MemoryError):  # a frame length read from another protocol's bytes
            raise UserError(
                f"{where} (the server there is not a Dask scheduler: its answer is not Dask's)",
                subject="scheduler",
            )
        # refused, unknown scheme, TLS not configured, another protocol's bytes
        raise UserError(f"{where} ({_reason(exc)})", subject="scheduler")
    answer = found[0] if found else None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind == "Scheduler":
        return
    what = "a Dask worker, not its scheduler" if kind == "Worker" else "not a Dask scheduler"
    raise UserError(f"{where} (the server there is {what})", subject="scheduler")


class _LogSilence(logging.Filter):
    """Keeps distributed's own log lines (a lost worker's tasks rescheduled, a lost
    scheduler's traceback) off standard error while a map runs: what they mean comes back
    as each task's outcome, and the command's output is one line per problem.

    Installed on the handlers distributed and tornado attach to their loggers (they do
    not propagate to the root), removed when the executor closes."""

    PREFIXES: Final = ("distributed", "tornado")

    def __init__(self) -> None:
        super().__init__()
        self._on: list[logging.Handler] = []

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop every record."""
        return False

    def install(self) -> None:
        """Filter every handler of distributed's and tornado's loggers."""
        for name in list(logging.root.manager.loggerDict):
            if name.split(".")[0] in self.PREFIXES:
                for handler in logging.getLogger(name).handlers:
                    if self not in handler.filters:
                        handler.addFilter(self)
                        self._on.append(handler)

    def remove(self) -> None:
        """Let those handlers print again."""
        for handler in self._on:
            handler.removeFilter(self)
        self._on.clear()


_LOG_SILENCE: Final = _LogSilence()


class DaskExecutor:
    """Tasks on a Dask cluster: a new `distributed.LocalCluster`, or a running scheduler.

    Each chunk is one task whose inputs travel inside the task graph (never scattered),
    so the scheduler can rerun it on another worker when its worker dies. Keys are unique
    per map call, so concurrent clients on one scheduler never share a result. Every
    worker must run the same engine, Python, numpy and BLAS kernels as this process
    (checked on connect) and see the same paths (runs directories, campaigns).
    """

    def __init__(self, scheduler: str | None = None, workers: int | None = None) -> None:
        self._scheduler = scheduler
        self._requested = workers
        self._cluster: LocalCluster | None = None
        self._client: Client | None = None

    def __enter__(self) -> DaskExecutor:
        self._client = self._connect()
        try:
            self._check_workers(self._client)
        except BaseException:
            self.close()
            raise
        _LOG_SILENCE.install()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client, and the local cluster when this executor made it."""
        with contextlib.suppress(Exception):
            if self._client is not None:
                self._client.close()
        with contextlib.suppress(Exception):
            if self._cluster is not None:
                self._cluster.close()
        self._client = self._cluster = None
        _LOG_SILENCE.remove()

    def _connect(self) -> Client:

        from distributed import Client, LocalCluster

        if self._scheduler is None:
            count = min(self._requested or os.cpu_count() or 1, MAX_WORKERS)
            try:
                self._cluster = LocalCluster(
                    n_workers=count,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                    silence_logs=logging.ERROR,
                    # Temporary TLS credentials, this process's alone: a scheduler on
                    # loopback took any local user's client, whose tasks then ran in the
                    # workers that hold the control file's seed and salt.
                    security=True,
                )
                return Client(self._cluster)
            except (OSError, TimeoutError) as exc:
                self.close()
                raise UserError(f"cannot start a local Dask cluster ({_reason(exc)})") from None
        _probe_scheduler(self._scheduler)
        try:
            return Client(self._scheduler, timeout=CONNECT_SECONDS)
        except Exception as exc:  # any refusal by distributed's client is this address's
            raise UserError(
                f"cannot reach a Dask scheduler at {clip(self._scheduler)} ({_reason(exc)})",
                subject="scheduler",
            ) from None

    def _check_workers(self, client: Client) -> None:
        where = clip(self._scheduler) if self._scheduler else "the local cluster"
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_SECONDS)
        except TimeoutError:
            raise UserError(
                f"{where}: no Dask worker joined within {WORKER_WAIT_SECONDS:.0f} s",
                subject="scheduler",
            ) from None
        mine = environment()
        try:
            found = client.run(environment)
        except Exception as exc:  # e.g. a worker that cannot import the workbench
            raise UserError(
                f"{where}: a Dask worker cannot run the workbench ({_reason(exc)})"
            ) from None
        for address, theirs in sorted(found.items()):
            if tuple(theirs) != mine:
                hint = ""
                if tuple(theirs)[:3] == mine[:3] and tuple(theirs)[4:] == mine[4:]:
                    hint = f"; start the worker with {BLAS_VARIABLE}={mine[3]}"
                raise UserError(
                    f"Dask worker {address} runs engine/Python/numpy/BLAS/platform "
                    f"{'/'.join(theirs)}, this process {'/'.join(mine)}: results would "
                    f"not be reproducible{hint}"
                )

    @property
    def client(self) -> Client:
        """The connected client (inside `with`)."""
        if self._client is None:
            raise RuntimeError("DaskExecutor is used outside its `with` block")
        return self._client

    @property
    def workers(self) -> int:
        """Threads across the cluster's workers right now."""
        return max(1, sum(self.client.nthreads().values()))

    @property
    def description(self) -> str:
        """Where the tasks run."""
        where = clip(self._scheduler) if self._scheduler else "a local cluster"
        return f"Dask ({where}, {self.workers} worker thread(s))"

    def map(
        self,
        fn: Callable[[T], R],
        items: Sequence[T],
        *,
        chunk: int | None = None,
        progress: Progress | None = None,
    ) -> Iterator[Outcome[R]]:
        """Yield fn(item) for each item in item order; each chunk is one Dask task."""
        import dask
        from distributed import as_completed as dask_completed

        if not items:
            return
        client = self.client
        chunks = _chunks(items, chunk or chunk_size(len(items), self.workers))
        prefix = f"cfwb-{getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex}"
        # Inputs travel inside the graph on purpose (rerunnable after a worker dies).
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1 TiB"}):
            futures = [
                client.submit(run_chunk, fn, part, key=f"{prefix}-{i}", pure=False)
                for i, part in enumerate(chunks)
            ]
        index = {future.key: i for i, future in enumerate(futures)}

        watch = _Watch(client)

        def result_of(i: int) -> list[Outcome[R]]:
            future = futures[i]
            lost: list[Outcome[R]] = [Lost(f"no Dask worker for {WORKER_WAIT_SECONDS:.0f} s")]
            while not watch.gave_up:
                try:
                    # In slices: a finished task's result dies with its worker, and is then
                    # computed again only when a worker comes.
                    outcomes: list[Outcome[R]] = future.result(timeout=WORKER_CHECK_SECONDS)
                except TimeoutError:
                    watch.deserted()
                    continue
                except Exception as exc:  # a task that killed too many workers, a lost client
                    # The key is random per map: named in the reason, outputs differed.
                    reason = _reason(exc).replace(str(future.key), "the task")
                    outcomes = [Lost(f"worker failed: {reason}")] * len(chunks[i])
                future.release()
                return outcomes
            return lost * len(chunks[i])

        finished = _finished(dask_completed(futures), index, watch)
        try:
            yield from _in_order(chunks, finished, result_of, progress, len(items))
        finally:
            client.cancel([f for f in futures if not f.done()])


class _Watch:
    """Whether a Dask cluster has gone without any worker for WORKER_WAIT_SECONDS.

    A scheduler that loses every worker keeps its tasks waiting for one, forever (the
    command hung with no word); past that wait the map gives up: every task not yet
    returned is lost, and the command ends and says why. A worker that comes back in
    time resets the wait."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._checked = time.monotonic()
        self._since: float | None = None
        self.gave_up = False

    def progressed(self) -> None:
        """A task finished: the cluster works."""
        self._checked, self._since = time.monotonic(), None

    def deserted(self) -> bool:
        """True once the scheduler has said for WORKER_WAIT_SECONDS that it has no worker
        (asked at most every WORKER_CHECK_SECONDS); then for good."""
        now = time.monotonic()
        if self.gave_up or now - self._checked < WORKER_CHECK_SECONDS:
            return self.gave_up
        self._checked = now
        if self._has_workers():
            self._since = None
            return False
        self._since = self._since or now
        self.gave_up = now - self._since >= WORKER_WAIT_SECONDS
        return self.gave_up

    def _has_workers(self) -> bool:
        """True unless the scheduler says it has no worker (a lost scheduler cancels the
        tasks by itself: their futures then finish)."""
        try:
            return bool(self._client.nthreads())
        except Exception:  # the scheduler did not answer: not a sign of no worker
            return True


def _finished(completed: Any, index: Mapping[Any, int], watch: _Watch) -> Iterator[int]:
    """Chunk indices as their tasks finish (`completed`: distributed's as_completed);
    every index not yet given once `watch` gives up (their results are then lost)."""
    pending = set(index.values())
    while pending:
        batch = completed.next_batch(block=False)
        if batch:
            watch.progressed()
            for future in batch:
                pending.discard(index[future.key])
                yield index[future.key]
        elif watch.deserted():
            yield from sorted(pending)
            return
        else:
            time.sleep(POLL_SECONDS)


@dataclass(frozen=True)
class ExecutorSpec:
    """Which executor, which scheduler, how many workers: checked together."""

    kind: ExecutorKind = "local"
    scheduler: str | None = None
    workers: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTOR_KINDS:
            raise UserError(
                f"the executor must be local or dask, not {clip(self.kind)}", subject="executor"
            )
        if self.scheduler is not None and self.kind != "dask":
            raise UserError("a scheduler address needs the dask executor", subject="scheduler")
        if self.scheduler is not None and self.workers is not None:
            raise UserError(
                "a worker count sizes a local pool or a new local Dask cluster; a running "
                "scheduler's own workers are used",
                subject="workers",
            )
        if self.workers is not None:
            _check_workers(self.workers)
        if self.scheduler is not None and (
            not self.scheduler.strip()
            or len(self.scheduler) > MAX_ADDRESS_CHARS
            or not self.scheduler.isprintable()
            or any(c.isspace() for c in self.scheduler)
        ):
            raise UserError(
                "a scheduler address looks like tcp://127.0.0.1:8786 (one word of at most "
                f"{MAX_ADDRESS_CHARS} printable characters), not {clip(self.scheduler)}",
                subject="scheduler",
            )

    @property
    def in_process(self) -> bool:
        """True when every task runs in this process, one after another (one local worker)."""
        return self.kind == "local" and (self.workers or 1) == 1


@contextlib.contextmanager
def open_executor(spec: ExecutorSpec) -> Iterator[Executor]:
    """The executor `spec` asks for, closed (cluster and all) when the block ends."""
    if spec.kind == "local":
        yield LocalExecutor(spec.workers or 1)
        return
    with DaskExecutor(spec.scheduler, spec.workers) as executor:
        yield executor


@dataclass(frozen=True)
class Refused:
    """A task refused its input the way the command would (a user error, exit 2)."""

    message: str


def guarded(fn: Callable[[T], R], refusals: tuple[type[Exception], ...], item: T) -> R | Refused:
    """fn(item), or its refusal when it raises one of `refusals` (picklable via partial)."""
    try:
        return fn(item)
    except refusals as exc:
        return Refused(str(exc))


def values(outcomes: Iterable[Outcome[R | Refused]], what: str) -> Iterator[R]:
    """Each outcome's value in order; a refusal raises a UserError, a lost task an
    ExecutorError (the first one met, so nothing further is computed for nothing)."""
    for outcome in outcomes:
        if isinstance(outcome, Lost):
            raise ExecutorError(f"{what}: a task did not complete ({outcome.reason})")
        if isinstance(outcome.value, Refused):
            raise UserError(outcome.value.message)
        yield outcome.value


def mapper(
    executor: Executor, what: str, refusals: tuple[type[Exception], ...] = ()
) -> Callable[[Callable[[T], R], Sequence[T]], Iterable[R]]:
    """A `map`-like function on `executor` for callers that need every value (graders).

    An exception in `refusals` raised by a task becomes the UserError the serial command
    would raise, whichever executor ran it; any other failure is an ExecutorError.
    """

    def run(fn: Callable[[T], R], items: Sequence[T]) -> Iterator[R]:
        return values(executor.map(functools.partial(guarded, fn, refusals), items), what)

    return run


__all__ = [
    "EXECUTOR_KINDS",
    "DaskExecutor",
    "Done",
    "Executor",
    "ExecutorError",
    "ExecutorKind",
    "ExecutorSpec",
    "LocalExecutor",
    "Lost",
    "Outcome",
    "Refused",
    "SerialExecutor",
    "chunk_size",
    "mapper",
    "open_executor",
    "run_chunk",
    "values",
]
