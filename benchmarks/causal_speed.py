"""causal-gym speed: time to generate and score the 900-task audit (300 per family).

Run as `.venv/bin/python benchmarks/causal_speed.py [N]`. Each task is materialised from the
public key (SCM, certificate, simulation, true ATE, messiness, CSV round trip, honest OLS) and
then scored by the audit (honest answer, width sweep, null check). Target: under 60 s.
"""

from __future__ import annotations

import sys
import time

from graders.causal_gym.audit import audit_task, summarise
from graders.causal_gym.families import FAMILIES
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.tasks import materialise

TARGET_SECONDS = 60.0


def main(n: int) -> int:
    """Time generation and scoring separately per family; return 1 when over target."""
    key = bytes.fromhex(DEFAULT_KEY_HEX)
    generate_total = score_total = 0.0
    print(f"causal-gym audit benchmark: {n} tasks per family, public key")
    for family in FAMILIES:
        started = time.perf_counter()
        tasks = [materialise(key, "train", family, task_id) for task_id in range(n)]
        generated = time.perf_counter()
        audits = [audit_task(task) for task in tasks]
        scored = time.perf_counter()
        summary = summarise(family, audits)
        generate_total += generated - started
        score_total += scored - generated
        print(
            f"  {family:<12} generate {generated - started:6.2f} s "
            f"({n / (generated - started):6.1f} tasks/s), score {scored - generated:5.2f} s; "
            f"honest reward {summary.honest_reward:.4f}, coverage {summary.coverage:.4f}"
        )
    total = generate_total + score_total
    count = n * len(FAMILIES)
    print(
        f"total {total:.2f} s for {count} tasks ({count / total:.1f} tasks/s, "
        f"{1000 * total / count:.1f} ms/task); generate {generate_total:.2f} s, "
        f"score {score_total:.2f} s; target {TARGET_SECONDS:.0f} s: "
        f"{'met' if total < TARGET_SECONDS else 'MISSED'}"
    )
    return 0 if total < TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 300))
