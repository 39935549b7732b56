"""Batch validation on a real Dask cluster: `dask scheduler` and two `dask worker` processes.

The cluster runs on 127.0.0.1 with free ports, one for the module, torn down after its
last test (every process it started is stopped by pid, and dies with pytest if pytest
dies). Batch validation runs as a subprocess, as a user would run it against a cluster,
and its output directory is compared byte for byte with the local executor's; the graders
run through the same CLI in this process. One test SIGKILLs a worker while it is
evaluating a run: the scheduler reruns that run on the other worker and the outputs are
still identical; a test that comes after it gets a new worker in the killed one's place.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from graders.blas import VARIABLE, kernels
from tests.workbench.batch_runs import play_short, tree
from workbench.cli import main
from workbench.evaluation import executors
from workbench.evaluation.batch import BatchOutcome, validate_runs
from workbench.evaluation.executors import ExecutorSpec

DASK = str(Path(sys.executable).with_name("dask"))
START_SECONDS = 90.0
RUN_SECONDS = 240.0
AGENTS = ("ada", "bob", "ada", "cyd", "bob", "ada")


def _die_with_pytest() -> None:
    """In the child: SIGKILL when pytest (the parent) dies (Linux)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)


def _address(log: Path, label: str) -> str | None:
    """The `tcp://` address a dask process logged after `label` (None until it has)."""
    found = re.search(rf"{label}:\s+(tcp://127\.0\.0\.1:\d+)", log.read_text())
    return found.group(1) if found else None


def _wait(predicate: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {seconds:.0f} s waiting for {what}")


@dataclass
class Cluster:
    """A scheduler and its workers, each a process this test started."""

    address: str
    scheduler: subprocess.Popen[bytes]
    workers: dict[str, subprocess.Popen[bytes]]
    log: Path
    folder: Path


def _spawn(
    args: list[str], log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            args,
            stdout=sink,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_pytest,
            env=None if env is None else os.environ | env,
        )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _add_workers(
    cluster: Cluster, names: tuple[str, ...], env: dict[str, str] | None = None
) -> None:
    """Start single-threaded `dask worker` processes (no nanny; `env` added to their
    environment) and wait until each has started and the scheduler has registered it."""
    registered = cluster.log.read_text().count("Register worker")
    spawned = []
    for name in names:
        log = cluster.folder / f"{name}.log"
        args = [DASK, "worker", cluster.address, "--host", "127.0.0.1", "--nthreads", "1"]
        args += ["--no-nanny", "--no-dashboard", "--name", name, "--death-timeout", "60"]
        spawned.append((log, _spawn(args, log, env)))
    for log, process in spawned:
        _wait(
            lambda log=log: _address(log, "Start worker at") is not None,
            START_SECONDS,
            f"worker {log.stem}",
        )
        cluster.workers[_address(log, "Start worker at") or ""] = process
    _wait(
        lambda: cluster.log.read_text().count("Register worker") >= registered + len(names),
        START_SECONDS,
        f"the scheduler to register {', '.join(names)}",
    )


def _live(cluster: Cluster) -> list[str]:
    """Addresses of the cluster's workers whose processes are still running."""
    return [a for a, process in cluster.workers.items() if process.poll() is None]


@contextlib.contextmanager
def _started(
    folder: Path, workers: tuple[str, ...] = ("w1", "w2"), env: dict[str, str] | None = None
) -> Iterator[Cluster]:
    """`dask scheduler` and single-threaded `dask worker` processes on loopback."""
    log = folder / "scheduler.log"
    scheduler = _spawn(
        [
            DASK,
            "scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--dashboard-address",
            "127.0.0.1:0",
            "--idle-timeout",
            "600",
        ],
        log,
    )
    running = Cluster("", scheduler, {}, log, folder)
    try:
        _wait(lambda: _address(log, "Scheduler at") is not None, START_SECONDS, "the scheduler")
        running.address = _address(log, "Scheduler at") or ""
        _add_workers(running, workers, env)
        yield running
    finally:
        for worker in running.workers.values():
            _stop(worker)
        _stop(scheduler)


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """One cluster for the module."""
    with _started(tmp_path_factory.mktemp("cluster")) as running:
        yield running


@pytest.fixture
def cluster(started: Cluster) -> Cluster:
    """The module's cluster with two live workers: a worker a test killed is replaced here,
    by the next test that needs it (the kill test comes last, so none is started for it)."""
    lost = 2 - len(_live(started))
    if lost > 0:
        _add_workers(started, tuple(f"w{len(started.workers) + 1 + i}" for i in range(lost)))
    return started


@pytest.fixture(scope="module")
def runs_and_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """Six short finished runs of three agents, and their batch output on the local executor."""
    root = tmp_path_factory.mktemp("dask")
    runs = root / "runs"
    for i, agent in enumerate(AGENTS):
        play_short(runs / f"run-{i}", agent, seed=100 + i)
    out = root / "local"
    result = CliRunner().invoke(
        main, ["validate", "counterfactual", str(runs), "--all-agents", "--out", str(out)]
    )
    assert result.exit_code in (0, 1), result.output
    return runs, tree(out)


def _validate_on(
    cluster: Cluster, runs: Path, out: Path, cwd: Path | None = None
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "workbench",
            "validate",
            "counterfactual",
            str(runs),
            "--all-agents",
            "--out",
            str(out),
            "--executor",
            "dask",
            "--scheduler",
            cluster.address,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_die_with_pytest,
        cwd=cwd,
        env=os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)} if cwd else None,
    )


def _finish(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    try:
        stdout, stderr = process.communicate(timeout=RUN_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise AssertionError(f"validation did not finish: {stderr.decode()[-2000:]}") from None
    return process.returncode, (stdout + stderr).decode()


def test_a_dask_cluster_writes_the_local_executor_bytes(
    cluster: Cluster, runs_and_reference: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    runs, reference = runs_and_reference
    out = tmp_path / "dask"
    code, output = _finish(_validate_on(cluster, runs, out))
    assert code in (0, 1), output
    assert tree(out) == reference
    assert f"  run-{len(AGENTS) - 1} (" in output
    assert "Traceback" not in output


def test_a_relative_runs_dir_names_the_same_runs_on_the_workers(
    cluster: Cluster, runs_and_reference: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    """RUNS_DIR relative to the command's directory, which is not the workers' (a worker's
    directory is its own): the same output as the local executor's (every run was skipped
    as "not a run directory", exit 1, a leaderboard of nothing)."""
    runs, reference = runs_and_reference
    here = tmp_path / "here"
    shutil.copytree(runs, here / "runs")
    assert Path.cwd() != here and not (Path.cwd() / "runs").exists()
    code, output = _finish(_validate_on(cluster, Path("runs"), Path("out"), cwd=here))
    assert code in (0, 1), output
    assert "not a run directory" not in output
    assert tree(here / "out") == reference


def test_a_workers_address_for_the_schedulers_is_named(
    cluster: Cluster, runs_and_reference: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    """`--scheduler` given a worker's address: one line saying so, exit 2, nothing written
    (it was distributed's `Worker.identity()` TypeError traceback, exit 1)."""
    runs, _ = runs_and_reference
    worker = _live(cluster)[0]
    out = tmp_path / "out"
    done = CliRunner().invoke(
        main,
        ["validate", "counterfactual", str(runs), "--all-agents", "--out", str(out)]
        + ["--executor", "dask", "--scheduler", worker],
    )
    assert done.exit_code == 2, done.output
    assert done.stderr == (
        f"Error: cannot reach a Dask scheduler at '{worker}' (the server there is a Dask "
        "worker, not its scheduler) (--scheduler)\n"
    )
    assert not out.exists()


def test_graders_on_the_cluster_match_serial(cluster: Cluster, tmp_path: Path) -> None:
    """`vc grade` (chunks) and `causal audit` (tasks) through the cluster, byte for byte."""
    items = CliRunner().invoke(main, ["vc", "generate", "-n", "50"]).stdout.splitlines()
    lines = [
        orjson.dumps({"completion": f"about {i} percent", "answer": orjson.loads(raw)["answer"]})
        for i, raw in enumerate(items)
    ]
    graded = tmp_path / "completions.jsonl"
    graded.write_bytes(b"\n".join(lines) + b"\n")
    serial = CliRunner().invoke(main, ["vc", "grade", str(graded)])
    audit = CliRunner().invoke(main, ["causal", "audit", "-n", "2", "--json", str(tmp_path / "a")])
    assert serial.exit_code == audit.exit_code == 0
    on_cluster = ["--executor", "dask", "--scheduler", cluster.address]
    for args, expected in (
        (["vc", "grade", str(graded)], serial.stdout),
        (["causal", "audit", "-n", "2", "--json", str(tmp_path / "b")], audit.stdout),
    ):
        done = CliRunner().invoke(main, [*args, *on_cluster])
        assert done.exit_code == 0, done.output[-2000:]
        assert done.stdout.replace(str(tmp_path / "b"), str(tmp_path / "a")) == expected
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_a_worker_with_other_blas_kernels_is_refused_on_connect(tmp_path: Path) -> None:
    """Its figures could differ in the last bits (`graders.blas`): one line, exit 2."""
    if kernels() == "Nehalem":
        pytest.skip("this process runs the kernels the odd worker is given")
    with _started(tmp_path, ("odd",), {VARIABLE: "Nehalem"}) as odd:
        done = CliRunner().invoke(
            main, ["causal", "audit", "-n", "1", "--executor", "dask", "--scheduler", odd.address]
        )
    assert done.exit_code == 2, done.output
    (line,) = [line for line in done.output.splitlines() if line.startswith("Error:")]
    assert "runs engine/Python/numpy/BLAS/platform" in line
    assert f"/Nehalem/{sys.platform}, this process" in line
    assert line.endswith(
        f"/{kernels()}/{sys.platform}: results would not be reproducible; "
        f"start the worker with {VARIABLE}={kernels()}"
    )


def _batch_in_a_thread(
    runs: Path, out: Path, address: str, on_first: Callable[[], None]
) -> list[BatchOutcome]:
    """validate_runs on the cluster at `address` in a thread, `on_first` called when the
    first run is done; its outcome once it ends (within RUN_SECONDS, or an AssertionError:
    it hung)."""
    outcome: list[BatchOutcome] = []
    called: list[bool] = []

    def progress(done: int, total: int) -> None:
        if not called:
            called.append(True)
            on_first()

    def batch() -> None:
        spec = ExecutorSpec("dask", address)
        outcome.append(validate_runs(runs, out, executor=spec, progress=progress))

    thread = threading.Thread(target=batch, daemon=True)
    thread.start()
    thread.join(RUN_SECONDS)
    assert not thread.is_alive(), "the batch hung"
    return outcome


def test_a_cluster_that_loses_every_worker_ends_the_batch(
    runs_and_reference: tuple[Path, dict[str, bytes]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The only worker is killed after the first run: the tasks would wait for a worker
    forever (the command hung, silent); after the wait, the runs not done are `failed`,
    the others written, exit 1, and distributed's own log lines stay off stderr."""
    monkeypatch.setattr(executors, "WORKER_WAIT_SECONDS", 3.0)
    runs, _ = runs_and_reference
    out = tmp_path / "out"
    (tmp_path / "solo").mkdir()
    with _started(tmp_path / "solo", ("solo",)) as solo:
        (worker,) = solo.workers.values()
        (outcome,) = _batch_in_a_thread(runs, out, solo.address, worker.kill)
    statuses = {row.run: (row.status, row.reason) for row in outcome.rows}
    failed = [run for run, (status, _) in statuses.items() if status == "failed"]
    assert failed and len(failed) < len(AGENTS), statuses
    assert {statuses[run][1] for run in failed} == {"no Dask worker for 3 s"}
    assert outcome.exit_code == 1 and (out / "leaderboard.csv").exists()
    assert sorted(p.name for p in (out / "reports").iterdir()) == sorted(
        run for run, (status, _) in statuses.items() if status == "evaluated"
    )
    assert "distributed" not in capfd.readouterr().err


def test_a_lost_scheduler_fails_the_rest_in_words_that_do_not_change(
    runs_and_reference: tuple[Path, dict[str, bytes]],
    tmp_path: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The scheduler is killed after the first run: the rest are `failed`, their reason free
    of the task's random key (runs.csv differed from one such batch to the next), and no
    distributed traceback on stderr."""
    runs, _ = runs_and_reference
    out = tmp_path / "out"
    (tmp_path / "doomed").mkdir()
    with _started(tmp_path / "doomed", ("w",)) as doomed:
        (outcome,) = _batch_in_a_thread(runs, out, doomed.address, doomed.scheduler.kill)
    reasons = [row.reason for row in outcome.rows if row.status == "failed"]
    assert reasons and outcome.exit_code == 1
    assert not any("cfwb-" in reason for reason in reasons), reasons
    assert (out / "leaderboard.csv").exists()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "distributed.client" not in err, err[-2000:]


WATCHER = """
import json, sys, time
from distributed import Client

with Client(sys.argv[1], timeout=30) as client:
    print("ready", flush=True)
    deadline = time.monotonic() + 120
    busy = None
    while busy is None and time.monotonic() < deadline:
        for worker, keys in sorted(client.processing().items()):
            if any("evaluate_run" in str(key) for key in keys):
                busy = worker
                break
        time.sleep(0.002)
    print(busy, flush=True)
    sys.stdin.readline()
    removed = [
        {"worker": event["worker"], "processing": sorted(map(str, event["processing-tasks"]))}
        for _, event in client.get_events("all")
        if isinstance(event, dict) and event.get("action") == "remove-worker"
    ]
    print(json.dumps(removed), flush=True)
"""


def _line(process: subprocess.Popen[str], seconds: float) -> str:
    """The next line the process prints, within `seconds`."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            raise AssertionError("the watcher said nothing in time")
    return process.stdout.readline().strip()


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(
    cluster: Cluster, runs_and_reference: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    runs, reference = runs_and_reference
    assert len(_live(cluster)) == 2
    out = tmp_path / "dask"
    watcher = subprocess.Popen(
        [
            sys.executable,
            "-c",
            WATCHER,
            cluster.address,
            str(out / "reports" / "run-0" / "report.json"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_die_with_pytest,
    )
    try:
        assert _line(watcher, START_SECONDS) == "ready"
        validation = _validate_on(cluster, runs, out)
        victim = _line(watcher, RUN_SECONDS)
        assert victim in _live(cluster), victim
        killed = cluster.workers[victim]
        os.kill(killed.pid, signal.SIGKILL)
        code, output = _finish(validation)
        assert watcher.stdin is not None
        watcher.stdin.write("done\n")
        watcher.stdin.flush()
        removed = json.loads(_line(watcher, START_SECONDS))
    finally:
        _stop(watcher)  # type: ignore[arg-type]
    assert code in (0, 1), output
    assert tree(out) == reference
    lost = [event for event in removed if event["worker"] == victim]
    assert lost and lost[0]["processing"], removed
    assert killed.wait(timeout=10) == -signal.SIGKILL
