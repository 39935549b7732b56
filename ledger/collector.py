"""Keeping Python's cyclic garbage collector off a growing history while a loop allocates."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a run loop or a digest, restoring it after.

    A run keeps every transaction and day close alive, so each collection a loop's
    allocations trigger rescans a history that only grows: on long horizons the collector
    cost as much as the simulation. The engine and the book make no reference cycles
    (tests/sim/test_long_horizon.py checks), so nothing is left for the collector to find.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextmanager
def history_frozen() -> Iterator[None]:
    """Hide every object alive now from the cyclic collector for a loop, restoring it after.

    A loop that keeps allocating (branches, reports) over a large live history (snapshots,
    books) triggers full collections that rescan that history each time; frozen, it is
    skipped, while garbage made inside the loop is still collected. Objects frozen before
    (a caller's own `gc.freeze`) are left as they are.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
