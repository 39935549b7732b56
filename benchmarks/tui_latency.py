"""Dashboard latency beside a bare Textual app measured in the same run, as ratios.

Each measurement runs in a fresh process (imports included), alternating the bare app
and the workbench so both see the same machine load:

- time to first screen: process start to the end of the app's first refresh (the
  workbench shows its opening screen, then opens the run in a worker); also to the
  dashboard with the session open;
- repaint latency: the bare app updating one label, the workbench advancing a day
  (`app.advance(1)`, journal fsync and seal included), each until the screen is idle;
- screen switches, as CPU time from the key press until the app is idle again: the bare
  app's digit keys switching between modes (a header, a label and Textual's Footer
  each), the workbench going to each of its screens (`ctrl+o`, then the digit), the
  first time and again.

Usage: `python benchmarks/tui_latency.py [ROUNDS]` (default 5). Prints medians and ratios.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.pilot import Pilot

SIZE = (120, 40)
REPAINTS = 20
SWITCHES = 8


def first_painted() -> None:
    """Say the first screen has been drawn (the app's first refresh is done)."""
    print("first", flush=True)


async def switches(
    p: Pilot[object], modes: list[str], go: Callable[[str], Awaitable[None]]
) -> dict[str, list[float]]:
    """CPU seconds from each switch until the app is idle: first visits, then again."""
    cpu: dict[str, list[float]] = {"first": [], "again": []}
    for visit in ("first", "again"):
        for mode in modes:
            t0 = time.process_time()
            await go(mode)
            await p.pause()
            for _ in range(500):
                if p.app.current_mode == mode:
                    break
                await p.pause()
            else:
                raise SystemExit(f"never reached {mode}")
            cpu[visit].append(time.process_time() - t0)
    return cpu


def child_bare() -> None:
    """A bare Textual app: header, one label, footer."""
    from textual.app import App, ComposeResult
    from textual.screen import Screen
    from textual.widgets import Footer, Header, Static

    class Other(Screen[None]):
        BINDINGS = [("x", "app.bell", "Bell"), ("y", "app.bell", "Also")]

        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("another screen")
            yield Footer()

    class Bare(App[None]):
        MODES = {f"other{i}": Other for i in range(SWITCHES)}
        BINDINGS = [(str(i), f"switch_mode('other{i}')", f"Other {i}") for i in range(SWITCHES)]

        def compose(self) -> ComposeResult:
            yield Header()
            yield Static("hello", id="label")
            yield Footer()

        def on_mount(self) -> None:
            self.call_later(lambda: self.screen.call_after_refresh(first_painted))

    async def pilot(p) -> None:  # type: ignore[no-untyped-def]
        await p.pause()
        print("ready", flush=True)
        label = p.app.query_one("#label", Static)
        times = []
        for i in range(REPAINTS):
            t0 = time.perf_counter()
            label.update(f"update {i}")
            await p.pause()
            times.append(time.perf_counter() - t0)
        print(json.dumps(times), flush=True)
        modes = [f"other{i}" for i in range(SWITCHES)]

        async def switch(mode: str) -> None:
            await p.press(mode.removeprefix("other"))

        print(json.dumps(await switches(p, modes, switch)), flush=True)
        p.app.exit()

    Bare().run(headless=True, size=SIZE, auto_pilot=pilot)


def child_workbench(run_dir: str) -> None:
    """The player's app as `workbench play` starts it: the run opens in a worker."""
    from functools import partial

    from workbench.cli.options import play_session
    from workbench.tui.app import PlayerApp

    class Measured(PlayerApp):
        def on_mount(self) -> None:
            self.call_later(lambda: self.screen.call_after_refresh(first_painted))

    async def pilot(p) -> None:  # type: ignore[no-untyped-def]
        app = p.app
        while not app.ready or app.current_mode != "dashboard":
            await p.pause(0.005)
        await p.pause()
        print("ready", flush=True)
        times = []
        for _ in range(REPAINTS):
            t0 = time.perf_counter()
            app.advance(1)
            await p.pause()
            times.append(time.perf_counter() - t0)
        print(json.dumps(times), flush=True)

        async def go_to(mode: str) -> None:
            await p.press("ctrl+o", key_of[mode])

        key_of = {spec.mode: spec.key for spec in app.screen_table}
        modes = [spec.mode for spec in app.screen_table[1:]] + ["dashboard"]
        print(json.dumps(await switches(p, modes, go_to)), flush=True)
        app.exit()

    app = Measured(
        opener=partial(play_session, Path(run_dir), None),
        briefing_at_start=False,
        settle_collector=True,
    )
    app.run(headless=True, size=SIZE, auto_pilot=pilot)


def measure(kind: str, run_dir: Path) -> tuple[float, float, float, float, float]:
    """Seconds to first screen and to ready, median repaint seconds, and median CPU
    seconds of a first and of a repeated screen switch, of one process."""
    args = [sys.executable, __file__, "--child", kind, str(run_dir)]
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    first = ready = 0.0
    times: list[float] = []
    cpu: dict[str, list[float]] = {}
    for line in proc.stdout:
        if line.startswith("first"):
            first = time.perf_counter() - started
        elif line.startswith("ready"):
            ready = time.perf_counter() - started
        elif line.startswith("["):
            times = json.loads(line)
        elif line.startswith("{"):
            cpu = json.loads(line)
    if proc.wait() != 0 or not times or not cpu:
        raise SystemExit(f"{kind} child failed")
    first_visit, again = (statistics.median(cpu[k]) for k in ("first", "again"))
    return first, ready, statistics.median(times), first_visit, again


def main(rounds: int) -> int:
    """Alternate bare and workbench processes `rounds` times; print medians and ratios."""
    results: dict[str, list[tuple[float, ...]]] = {"bare": [], "workbench": []}
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(rounds):
            for kind in ("bare", "workbench"):
                results[kind].append(measure(kind, Path(tmp) / f"run-{n}"))
    bare = [statistics.median(x) for x in zip(*results["bare"], strict=True)]
    wb = [statistics.median(x) for x in zip(*results["workbench"], strict=True)]
    print(f"median of {rounds} fresh processes each, {SIZE[0]}x{SIZE[1]}, headless")
    print(f"{'':36}{'bare Textual':>14}{'workbench':>12}{'ratio':>8}")
    rows = (
        ("time to first screen", bare[0], wb[0]),
        ("time to dashboard (run open)", bare[1], wb[1]),
        ("repaint after a change (ms)", bare[2] * 1000, wb[2] * 1000),
        ("screen switch, first visit (CPU ms)", bare[3] * 1000, wb[3] * 1000),
        ("screen switch, again (CPU ms)", bare[4] * 1000, wb[4] * 1000),
    )
    for label, b, w in rows:
        unit = "" if "ms" in label else " s"
        print(f"{label:36}{b:>12.3f}{unit:2}{w:>10.3f}{unit:2}{w / b:>7.2f}x")
    ratio = wb[0] / bare[0]
    print(f"first screen within 2x of a bare app: {'yes' if ratio <= 2 else 'NO'} ({ratio:.2f}x)")
    return 0 if ratio <= 2 else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        if sys.argv[2] == "bare":
            child_bare()
        else:
            child_workbench(sys.argv[3])
        sys.exit(0)
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 5))
