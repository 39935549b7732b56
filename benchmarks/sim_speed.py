"""Simulator speed: sim-days per second at horizons of 180, 3,650 and 36,500 days, and
branching from a late snapshot vs replaying.

The long horizons are the default campaign stretched (same world, longer run). Each run
ends with the ledger digest a seal takes. The 36,500-day run is also timed with the
garbage collector left running, to show what pausing it saves. Prints rates and ratios;
run with `.venv/bin/python benchmarks/sim_speed.py`.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable
from unittest import mock

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import CampaignBundle, load_campaign
from sim.engine import Engine

REPEATS = 20


def best_of(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    """The fastest of several timings of fn(), in seconds."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


HORIZONS = (180, 3_650, 36_500)


def run_and_digest(bundle: CampaignBundle, seed: int) -> None:
    """One whole run with a bank loan on day 0, then the digest its seal would take."""
    engine = Engine(bundle, seed)
    engine.schedule("bank_loan")
    engine.advance(bundle.horizon)
    engine.book.digest()


def main() -> None:
    bundle = load_campaign(DEFAULT_CAMPAIGN)
    seed = bundle.campaign.development_seed or 0
    for horizon in HORIZONS:
        stretched = bundle.replace_horizon(horizon)
        run_and_digest(stretched, seed)  # warm the per-seed draw cache
        repeats = max(3, REPEATS * 180 // horizon)
        seconds = best_of(functools.partial(run_and_digest, stretched, seed), repeats)
        print(
            f"{horizon:,}-day run and digest: {seconds * 1000:,.0f} ms = "
            f"{horizon / seconds:,.0f} sim-days/s ({seconds / horizon * 1e6:.1f} us/day)"
        )
    with (
        mock.patch("sim.engine.collector_paused", contextlib.nullcontext),
        mock.patch("ledger.book.collector_paused", contextlib.nullcontext),
    ):
        longest = bundle.replace_horizon(HORIZONS[-1])
        collected = best_of(lambda: run_and_digest(longest, seed), 3)
    print(
        f"{HORIZONS[-1]:,}-day run and digest with the garbage collector left running: "
        f"{collected * 1000:,.0f} ms = {HORIZONS[-1] / collected:,.0f} sim-days/s"
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
