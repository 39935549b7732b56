"""Snapshot tests of the main player screens on a fresh run (fixed size, no clocks or ids)."""

from __future__ import annotations

from workbench.tui.app import WorkbenchApp

SNAP_SIZE = (120, 40)


def test_dashboard_snapshot(snap_compare, app: WorkbenchApp) -> None:
    assert snap_compare(app, terminal_size=SNAP_SIZE, press=["n", "w"])


def test_actions_snapshot(snap_compare, app: WorkbenchApp) -> None:
    assert snap_compare(app, terminal_size=SNAP_SIZE, press=["2", "down", "down"])


def test_questions_snapshot(snap_compare, app: WorkbenchApp) -> None:
    assert snap_compare(app, terminal_size=SNAP_SIZE, press=["3", "down", "down"])
