"""Dashboard latency: time to the first screen, and a day advance until its repaint."""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ADVANCES = 20


async def measure(run_dir: Path) -> tuple[float, list[float], list[float]]:
    """(first screen, key `n` to repaint, advance call to repaint) in seconds, on a new run."""
    started = time.perf_counter()
    from workbench.play.session import PlayerSession
    from workbench.tui.app import WorkbenchApp

    app = WorkbenchApp(PlayerSession.create(run_dir))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        first = time.perf_counter() - started
        advances = []
        for _ in range(ADVANCES):
            t0 = time.perf_counter()
            await pilot.press("n")
            await pilot.pause()
            advances.append(time.perf_counter() - t0)
        direct = []
        for _ in range(ADVANCES):
            t0 = time.perf_counter()
            app.advance(1)
            await pilot.pause()
            direct.append(time.perf_counter() - t0)
    return first, advances, direct


def main() -> int:
    """Print both figures against their targets (1.0 s and 100 ms)."""
    with tempfile.TemporaryDirectory() as tmp:
        first, advances, direct = asyncio.run(measure(Path(tmp) / "run"))
    print(f"time to first screen (imports included): {first:.3f} s (target < 1.0 s)")
    for label, times in (
        ("key n (pilot press, its idle waits included)", advances),
        ("advance call", direct),
    ):
        print(
            f"day advance to repaint, {label}: median "
            f"{statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms "
            f"over {ADVANCES} (target < 100 ms)"
        )
    return 0 if first < 1.0 and statistics.median(advances) < 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
