"""SQLite store write against the simulation it stores, for a 3,650-day run.

The default campaign stretched to 3,650 days, with a bank loan on day 0. Times, alternately
and best of five each: the simulation (engine only, day 0 to the horizon) and the store
write a `workbench run` does at the end (`write_store`: postings, every account at every
day close, every metric at every day). Prints both, the ratio (target ≤ 2×) and the rows.
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from ledger.store import write_store
from sim.campaign_load import load_campaign
from sim.engine import Engine
from workbench.play.public_view import metric_series

HORIZON = 3650
REPEATS = 5


def timed(fn: Callable[[], object]) -> float:
    """Wall time of one call of fn(), in seconds."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    bundle = load_campaign(DEFAULT_CAMPAIGN).replace_horizon(HORIZON)
    seed = bundle.campaign.development_seed

    def simulate() -> Engine:
        engine = Engine(bundle, seed)
        engine.schedule("bank_loan")
        engine.advance(HORIZON)
        return engine

    book = simulate().book
    series = metric_series(bundle, book)
    metrics = [
        (day, metric_id, value, bundle.metrics[metric_id].units)
        for metric_id, values in series.items()
        for day, value in enumerate(values)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "store.sqlite"
        simulation = store = float("inf")
        for _ in range(REPEATS):  # alternate, so a busy spell on the machine hits both alike
            simulation = min(simulation, timed(simulate))
            store = min(store, timed(lambda: write_store(target, book, metrics)))
        with sqlite3.connect(target) as db:
            rows = {
                table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("postings", "balances", "metrics")
            }
    print(
        f"{HORIZON}-day run: simulation {simulation * 1000:.0f} ms, store write "
        f"{store * 1000:.0f} ms, ratio {store / simulation:.2f}x (target <= 2x); rows: "
        + ", ".join(f"{count:,} {table}" for table, count in rows.items())
    )


if __name__ == "__main__":
    main()
