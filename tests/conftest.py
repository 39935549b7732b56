"""Shared fixtures (the default campaign, a finished demo run), and the hooks that keep the
suite's time down: Pilot's idle polling, Textual's cache, the collector (how often, what it
walks, and at exit), and how xdist deals out the files."""

from __future__ import annotations

import gc
import os
import shutil
from pathlib import Path

import pytest
import textual._wait
from textual._styles_cache import StylesCache

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import CampaignBundle, load_campaign


@pytest.fixture(scope="session")
def bundle() -> CampaignBundle:
    """The bundled default campaign."""
    return load_campaign(DEFAULT_CAMPAIGN)


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo run played once per session (copy it before changing it)."""
    from workbench.play.demo import play_demo

    return play_demo(tmp_path_factory.mktemp("demo") / "run")


@pytest.fixture(autouse=True)
def machine_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Each test its own machine state (which runs directory serves a hosted world): the
    test worlds share one seed, and a user's own state is never touched. Host processes
    a test starts inherit it."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("CFWB_STATE_DIR", str(state))
    return state


@pytest.fixture()
def campaign_copy(tmp_path: Path) -> Path:
    """A writable copy of the default campaign."""
    target = tmp_path / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, target)
    return target


PILOT_POLL = 1 / 200
"""How often Textual's Pilot checks that the app has gone idle (its default is every 1/50 s).

A check still asks for a whole poll spent with under a twentieth of it in CPU, so what
counts as idle is unchanged; the TUI tests spent a third of their time asleep between
checks (test_visit_everything: 19 s of wall time for 7 s of CPU)."""


YOUNG_COLLECTION_THRESHOLD = 20_000
"""Allocations between two collections of the youngest generation (Python's default: 700).

A Textual frame allocates tens of thousands of short-lived objects (seven caches per
`Strip`), so at 700 the collector ran 11,000 times a worker and promoted enough to start
a full collection every few tests: 14 s of each worker's CPU went to the collector.
Garbage is still collected, only less often."""


def pytest_configure(config: pytest.Config) -> None:
    """Poll for the app's idleness every PILOT_POLL seconds (see there), and collect the
    young generation less often (see YOUNG_COLLECTION_THRESHOLD)."""
    textual._wait.SLEEP_GRANULARITY = PILOT_POLL
    textual._wait.SLEEP_IDLE = PILOT_POLL / 20
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])


def pytest_collection_finish(session: pytest.Session) -> None:
    """Hide what is alive after collection (modules, test functions) from the collector.

    Those 150,000 objects live until the end, yet each full collection walked them again:
    180-240 ms per full collection, 80 of them in the dashboard tests alone. Garbage is
    collected first, so only survivors are frozen.
    """
    gc.collect()
    gc.freeze()


def pytest_runtest_teardown(item: pytest.Item) -> None:
    """Forget the test's widgets that Textual's `StylesCache.get_inner_outer` keeps.

    That method has an `lru_cache`, so its key holds the widget's `StylesCache` (and its
    rendered lines) alive long after the app is gone: up to 1,024 of them, which left
    490,000 objects for the collector to walk at the end of the dashboard tests and cost
    them a tenth of their CPU.
    """
    StylesCache.get_inner_outer.cache_clear()


EXIT_COLLECTIONS = 5
"""At most this many collections at the end of a session (pytest's own number)."""


@pytest.hookimpl(tryfirst=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect until no garbage is left, then hide the survivors from the collector.

    pytest collects five times at exit to flush out exceptions raised in finalizers, and
    the interpreter once more: with 250,000 objects alive that was 1.2-1.7 s of every
    test process's exit, after its last test. Collecting here, while pytest still reports
    those exceptions, finds the same garbage and runs the same finalizers; what is frozen
    afterwards is only what is still alive.
    """
    for _ in range(EXIT_COLLECTIONS):
        if not gc.collect():
            break
    gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than the CPUs this process may use.

    The suite often waits on processes of its own (hosts starting, Dask workers, chromium,
    CLI runs), and a worker waiting leaves its core idle: one more worker keeps the cores
    busy. On two cores, three alternating pairs of whole-suite runs: 109.0, 115.1 and
    107.0 s with three workers against 114.2, 121.4 and 117.9 s with two.
    `PYTEST_XDIST_AUTO_NUM_WORKERS` still decides when set.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    affinity = getattr(os, "sched_getaffinity", None)
    cores = len(affinity(0)) if affinity is not None else os.cpu_count() or 1
    return cores + 1


SHARED_SESSION_DIRS = ("tests/graders/causal_gym/", "tests/fuzz/")
"""Directories whose conftest builds costly session fixtures for several files (the
causal-gym probe's 500 tasks: 7 s): their files run on one worker, so each is built once."""


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`--dist loadfile`, with each of SHARED_SESSION_DIRS handed out as one unit."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedSessionScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            shared = (d for d in SHARED_SESSION_DIRS if nodeid.startswith(d))
            return next(shared, None) or super()._split_scope(nodeid)

    return SharedSessionScheduling(config, log)


HEAVY_FIRST = (
    "tests/workbench/test_crash_faults.py",
    "tests/workbench/test_fsync_failures.py",
    "tests/tui/",
    "tests/host/",
    "tests/workbench/test_dask_cluster.py",
)
"""Files that take the longest (processes under strace, Textual pilots, live hosts, a real
Dask cluster; the strace ones are each a worker's 45 s, so they start first): xdist
hands out whole files in collection order, so one of them collected last ran alone at the
end of the suite (test_visit_everything: 23 s of a 160 s run on one worker)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the heaviest files first, so the light ones fill in at the end (order is stable)."""
    items.sort(key=lambda item: not item.nodeid.startswith(HEAVY_FIRST))


@pytest.fixture
def a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """`play` and `author` in click's runner as if on a terminal (the runner's streams are
    not one, and the dashboard refuses to start without one)."""
    from workbench.cli import terminal

    monkeypatch.setattr(terminal, "has_terminal", lambda: True)
