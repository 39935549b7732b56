"""Batch validation of 200 runs: Dask against the local process pool, same machine.

Makes the runs first: short plays of the default campaign (a seeded random submission for
most questions on day 0, then `finish`, so the remaining days run with no decisions).
Then validates the directory with `validate_runs`, each time into a new folder, on a
local pool of N processes (the reference) and on Dask: a cluster of N single-threaded
workers started once (as a running cluster would be, reached with `--scheduler`), its
start-up timed apart. Local and Dask alternate for `--rounds` rounds and the best time
of each counts, so a busy neighbour on the machine biases neither. Prints the times,
runs/s and the ratio, and checks that every output is byte-identical.

    python benchmarks/dask_speed.py [--runs 200] [--workers 2] [--rounds 2]
"""

from __future__ import annotations

import argparse
import logging
import random
import tempfile
import time
from pathlib import Path

from workbench.evaluation.batch import validate_runs
from workbench.evaluation.executors import ExecutorSpec
from workbench.play.session import PlayerSession


def play_random(run_dir: Path, agent: str, seed: int) -> None:
    """A short finished run of the default campaign with random submissions."""
    session = PlayerSession.create(run_dir, agent_id=agent, autoseal=False)
    rng = random.Random(seed)
    for question in session.bundle.questions.values():
        if rng.random() < 0.1:
            continue
        assessment: dict[str, object] = {
            "kind": "counterfactual",
            "question": question.id,
            "value": str(rng.randint(-20_000, 20_000)),
        }
        if question.intervention.participant_selected:
            assessment["choice"] = rng.choice(sorted(question.intervention.select_from))
        session.submit(assessment)
    session.finish()
    session.seal()


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def timed(runs: Path, out: Path, spec: ExecutorSpec) -> float:
    """Seconds for one batch validation of `runs` into `out`."""
    start = time.perf_counter()
    validate_runs(runs, out, executor=spec)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    from distributed import LocalCluster

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        for i in range(args.runs):
            play_random(root / "runs" / f"run-{i:04d}", f"agent-{i % 10}", seed=i)
        print(f"made {args.runs} finished runs in {time.perf_counter() - start:.1f} s", flush=True)
        start = time.perf_counter()
        with LocalCluster(
            n_workers=args.workers,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR,
        ) as cluster:
            started = time.perf_counter() - start
            local_spec = ExecutorSpec("local", workers=args.workers)
            dask_spec = ExecutorSpec("dask", scheduler=cluster.scheduler_address)
            local, dask = [], []
            for i in range(args.rounds):
                local.append(timed(root / "runs", root / f"local{i}", local_spec))
                dask.append(timed(root / "runs", root / f"dask{i}", dask_spec))
                print(f"round {i + 1}: local {local[-1]:.1f} s, Dask {dask[-1]:.1f} s", flush=True)
        reference = tree(root / "local0")
        for i in range(args.rounds):
            assert tree(root / f"local{i}") == tree(root / f"dask{i}") == reference

        n, w = args.runs, args.workers
        print(f"local pool, {w} workers:  {min(local):6.1f} s  {n / min(local):6.1f} runs/s")
        print(
            f"Dask, {w} workers:        {min(dask):6.1f} s  {n / min(dask):6.1f} runs/s "
            f"(cluster start-up {started:.1f} s, not included)"
        )
        print(
            f"ratio Dask / local pool: {min(dask) / min(local):.2f} "
            f"({(min(dask) + started) / min(local):.2f} with a new LocalCluster's start-up); "
            "outputs byte-identical"
        )


if __name__ == "__main__":
    main()
