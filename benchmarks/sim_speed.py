"""Simulator speed: sim-days per second, and branching from a late snapshot vs replaying.

Prints rates and ratios; run with `.venv/bin/python benchmarks/sim_speed.py`.
"""

from __future__ import annotations

import time

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import load_campaign
from sim.engine import Engine

REPEATS = 20


def best_of(fn, repeats: int = REPEATS) -> float:
    """The fastest of several timings of fn(), in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    bundle = load_campaign(DEFAULT_CAMPAIGN)
    seed = bundle.campaign.development_seed
    horizon = bundle.horizon

    def full_run() -> None:
        engine = Engine(bundle, seed)
        engine.schedule("bank_loan")
        engine.advance(horizon)

    full_run()  # warm the per-seed draw cache
    seconds = best_of(full_run)
    print(
        f"full default run: {horizon} days in {seconds * 1000:.1f} ms = "
        f"{horizon / seconds:,.0f} sim-days/s"
    )

    long = bundle.replace_horizon(365)
    branch_day, outcome_day = 300, 320
    base = Engine(long, seed)
    base.advance(branch_day)
    snap = base.snapshot()

    def from_snapshot() -> None:
        engine = Engine.from_snapshot(snap)
        engine.schedule("spring_campaign")
        engine.run_to(outcome_day)

    def from_day_zero() -> None:
        engine = Engine(long, seed)
        engine.run_to(branch_day)
        engine.schedule("spring_campaign")
        engine.run_to(outcome_day)

    from_day_zero()
    branch = best_of(from_snapshot)
    replay = best_of(from_day_zero)
    print(
        f"365-day horizon, branch at day {branch_day} to day {outcome_day}: "
        f"from snapshot {branch * 1000:.2f} ms, replay from day 0 {replay * 1000:.2f} ms, "
        f"speed-up {replay / branch:.1f}x"
    )
    restore = best_of(lambda: Engine.from_snapshot(snap))
    reach = best_of(lambda: Engine(long, seed).run_to(branch_day))
    print(
        f"reaching the day-{branch_day} branch point: restore snapshot {restore * 1e6:.0f} us, "
        f"replay {reach * 1000:.2f} ms, speed-up {reach / restore:,.0f}x"
    )


if __name__ == "__main__":
    main()
