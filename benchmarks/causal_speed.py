"""causal-gym speed: generate and score the 900-task audit, and check the committed report.

Run as `.venv/bin/python benchmarks/causal_speed.py [N]`. Each task is materialised from the
public key (SCM, certificate, simulation, true ATE, messiness, CSV round trip, honest OLS) and
then scored by the audit (honest answer, naive all-pre answer, width sweep, null check).
Target: under 60 s. With the default N = 300 the fresh report is compared with the committed
`graders/causal_gym/audit_report.json` entry by entry (exit 1 on a mismatch); this is the
whole-file check that the test suite does only for a sample of ids.
"""

from __future__ import annotations

import math
import os
import sys
import time
from dataclasses import astuple
from importlib import resources

from graders.blas import PINNED, kernels
from graders.causal_gym.audit import TaskAudit, assemble, audit_task, load_report, render_report
from graders.causal_gym.families import FAMILIES
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.tasks import materialise

TARGET_SECONDS = 60.0
COMMITTED_N = 300


def _close(a: object, b: object) -> bool:
    """Equal, or both floats within 1e-9 relative (BLAS builds may differ in the last bits)."""
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def compare_with_committed(fresh: list[TaskAudit], text: str) -> int:
    """Print how the fresh audit compares with the committed report; the number of differences."""
    kept = load_report(text)
    differing = [
        f"{a.family} {a.task_id}"
        for a, b in zip(fresh, kept.tasks, strict=False)
        if not _close(astuple(a), astuple(b))
    ]
    differing += ["task count"] if len(fresh) != len(kept.tasks) else []
    print(f"committed audit_report.json: {len(kept.tasks)} entries, {len(differing)} differ")
    for item in differing[:10]:
        print(f"  differs: {item}")
    return len(differing)


def main(n: int) -> int:
    """Time generation and scoring per family; return 1 when over target or not matching."""
    key = bytes.fromhex(DEFAULT_KEY_HEX)
    generate_total = score_total = 0.0
    cpu_started = time.process_time()
    audits: dict[str, list[TaskAudit]] = {}
    print(
        f"causal-gym audit benchmark: {n} tasks per family, public key; "
        f"BLAS kernels {kernels()} (pinned: {PINNED})"
    )
    for family in FAMILIES:
        started = time.perf_counter()
        tasks = [materialise(key, "train", family, task_id) for task_id in range(n)]
        generated = time.perf_counter()
        audits[family] = [audit_task(task) for task in tasks]
        scored = time.perf_counter()
        report_part = assemble(key, "train", n, {family: audits[family]}).families[0]
        generate_total += generated - started
        score_total += scored - generated
        print(
            f"  {family:<12} generate {generated - started:6.2f} s "
            f"({n / (generated - started):6.1f} tasks/s), score {scored - generated:5.2f} s; "
            f"honest reward {report_part.honest_reward:.4f}, coverage {report_part.coverage:.4f}"
        )
    total = generate_total + score_total
    cpu = time.process_time() - cpu_started
    count = n * len(FAMILIES)
    met = total < TARGET_SECONDS
    print(
        f"total {total:.2f} s for {count} tasks ({count / total:.1f} tasks/s, "
        f"{1000 * total / count:.1f} ms/task); generate {generate_total:.2f} s, "
        f"score {score_total:.2f} s; target {TARGET_SECONDS:.0f} s: {'met' if met else 'MISSED'}"
    )
    load = os.getloadavg()[0]
    print(
        f"CPU time {cpu:.2f} s ({1000 * cpu / count:.1f} ms/task; wall/CPU {total / cpu:.2f} "
        f"at a load average of {load:.1f} on {os.cpu_count()} cores)"
    )
    if n != COMMITTED_N:
        return 0 if met else 1
    text = resources.files("graders.causal_gym").joinpath("audit_report.json").read_text("utf-8")
    fresh = assemble(key, "train", n, audits)
    identical = render_report(fresh) == text
    print(f"fresh report byte-identical to the committed one: {'yes' if identical else 'no'}")
    differences = 0 if identical else compare_with_committed(list(fresh.tasks), text)
    return 0 if met and differences == 0 else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else COMMITTED_N))
