"""SQLite store write against the simulation it stores, for a 3,650-day run.

The default campaign stretched to 3,650 days, with a bank loan on day 0. Each round times
the simulation (engine only, day 0 to the horizon) and, right after it, the store write a
`workbench run` does at the end (`write_store`: postings, every account at every day
close, every metric at every day). Prints the best of each, the median of the rounds'
ratios (target ≤ 2×; a pair measured back to back sees the same machine) and the rows.
"""

from __future__ import annotations

import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from ledger.store import MetricSeries, write_store
from sim.campaign_load import load_campaign
from sim.engine import Engine
from workbench.play.public_view import metric_series

HORIZON = 3650
ROUNDS = 9


def timed(fn: Callable[[], object]) -> float:
    """Wall time of one call of fn(), in seconds."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    bundle = load_campaign(DEFAULT_CAMPAIGN).replace_horizon(HORIZON)
    seed = bundle.campaign.development_seed or 0

    def simulate() -> Engine:
        engine = Engine(bundle, seed)
        engine.schedule("bank_loan")
        engine.advance(HORIZON)
        return engine

    book = simulate().book
    metrics = [
        MetricSeries(metric_id, bundle.metrics[metric_id].units, values)
        for metric_id, values in metric_series(bundle, book).items()
    ]
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "store.sqlite"
        rounds = [
            (timed(simulate), timed(lambda: write_store(target, book, metrics)))
            for _ in range(ROUNDS)
        ]
        simulation = min(sim for sim, _ in rounds)
        store = min(write for _, write in rounds)
        ratio = statistics.median(write / sim for sim, write in rounds)
        with sqlite3.connect(target) as db:
            rows = {
                table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("postings", "balances", "metrics")
            }
    print(
        f"{HORIZON}-day run: simulation {simulation * 1000:.0f} ms, store write "
        f"{store * 1000:.0f} ms, ratio {ratio:.2f}x (target <= 2x); rows: "
        + ", ".join(f"{count:,} {table}" for table, count in rows.items())
    )


if __name__ == "__main__":
    main()
