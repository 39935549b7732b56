"""The workbench Textual app: screens as modes, global keys, and the session's commands."""

from __future__ import annotations

import importlib
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from workbench.play.session import PlayerSession, SubmitResult
from workbench.runs.files import atomic_write
from workbench.tui.commands import WorkbenchCommands
from workbench.tui.errors import guarded
from workbench.tui.screens.help import HelpScreen

SCREENS_BY_KEY: tuple[tuple[str, str, str], ...] = (
    ("1", "dashboard", "Dashboard"),
    ("2", "actions", "Actions"),
    ("3", "questions", "Questions"),
    ("4", "journal", "Journal"),
    ("5", "ledger", "Ledger"),
    ("6", "causal", "Causal"),
    ("7", "vc", "VC"),
    ("8", "validate", "Validate"),
)

DARK, LIGHT = "textual-dark", "textual-light"


def screen_class(mode: str) -> type[Screen]:
    """The screen class of a mode, imported on first use (keeps start-up fast)."""
    module = importlib.import_module(f"workbench.tui.screens.{mode}")
    return getattr(module, f"{SCREEN_CLASS_NAMES[mode]}Screen")


def _make_screen(mode: str) -> Screen:
    return screen_class(mode)()


SCREEN_CLASS_NAMES = {
    "dashboard": "Dashboard",
    "actions": "Actions",
    "questions": "Questions",
    "journal": "Journal",
    "ledger": "Ledger",
    "causal": "Causal",
    "vc": "VC",
    "validate": "Validate",
}


class WorkbenchApp(App[None]):
    """Play a run: every screen reads the session; only the session changes the run."""

    CSS_PATH = "workbench.tcss"
    TITLE = "Counterfactual Workbench"
    ENABLE_COMMAND_PALETTE = True
    COMMANDS = App.COMMANDS | {WorkbenchCommands}
    MODES = {mode: partial(_make_screen, mode) for _, mode, _ in SCREENS_BY_KEY}
    BINDINGS = [
        *(Binding(key, f"view('{mode}')", label) for key, mode, label in SCREENS_BY_KEY),
        Binding("f1", "help", "Help"),
        Binding("ctrl+t", "toggle_theme", "Theme"),
    ]

    def __init__(self, session: PlayerSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.session = session
        self.theme = DARK

    @property
    def run_dir(self) -> Path:
        """The run directory being played."""
        return self.session.paths.root

    def on_mount(self) -> None:
        """Open on the dashboard."""
        self.sub_title = self.session.bundle.campaign.title
        self.switch_mode("dashboard")

    def action_view(self, mode: str) -> None:
        """Show one screen."""
        self.switch_mode(mode)

    def action_help(self) -> None:
        """List every key."""
        self.push_screen(HelpScreen())

    def action_toggle_theme(self) -> None:
        """Switch between the light and dark themes."""
        self.theme = LIGHT if self.theme == DARK else DARK

    # -- the only places the run changes -------------------------------------------
    def advance(self, days: int) -> int | None:
        """Advance the run `days` days; notify errors; refresh the visible screen."""
        day = guarded(self, lambda: self.session.advance(days))
        if day is not None:
            self.session_changed()
        return day

    def advance_to_horizon(self) -> None:
        """Advance with no further decisions to the campaign's last day."""
        left = self.session.horizon - self.session.day
        if left < 1:
            self.notify("The campaign has ended.", severity="warning")
            return
        self.advance(left)

    def schedule(self, action_id: str) -> None:
        """Schedule an action now (a rejection is journaled and shown as an alert)."""
        outcome = guarded(self, lambda: self.session.schedule(action_id))
        if outcome is None:
            return
        if outcome.accepted:
            self.notify(f"Scheduled {action_id}: starts day {outcome.start_day}")
        else:
            self.notify(f"{action_id} rejected: {outcome.reason}", severity="warning")
        self.session_changed()

    def submit(self, assessment: dict[str, Any]) -> SubmitResult | None:
        """Submit an assessment; schema errors come back in the result."""
        result = guarded(self, lambda: self.session.submit(assessment))
        if result is None:
            return None
        if result.accepted:
            note = "eligible" if result.eligible else "past the deadline: not eligible"
            self.notify(f"Submission #{result.seq} recorded ({note})")
            self.session_changed()
        else:
            self.notify("; ".join(result.errors), severity="error", timeout=8)
        return result

    def session_changed(self) -> None:
        """Repaint the visible screen from the session."""
        refresh = getattr(self.screen, "refresh_view", None)
        if refresh is not None:
            refresh()

    def export_ledger(self, fmt: str) -> Path | None:
        """Write the ledger as beancount or CSV into the run directory."""
        suffix = {"beancount": "beancount", "csv": "csv"}[fmt]
        target = self.run_dir / f"ledger.{suffix}"

        def write() -> Path:
            atomic_write(target, self.session.ledger().export(fmt).encode("utf-8"))
            return target

        path = guarded(self, write)
        if path is not None:
            self.notify(f"Ledger written to {path}")
        return path
