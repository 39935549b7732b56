"""The command palette: every command named "category: Action"."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

Command = tuple[str, Callable[[], object], str]


def palette_commands(app: WorkbenchApp) -> Iterator[Command]:
    """(name, callback, help) for every palette command."""
    from workbench.tui.app import SCREENS_BY_KEY

    for key, mode, label in SCREENS_BY_KEY:
        yield f"view: {label}", partial(app.switch_mode, mode), f"Show the {label} screen ({key})"
    for days in (1, 7, 30):
        noun = "day" if days == 1 else "days"
        yield f"sim: Advance {days} {noun}", partial(app.advance, days), "No decisions"
    yield "sim: Advance to horizon", app.advance_to_horizon, "Run to the campaign's last day"
    for action_id in (terms.id for terms in app.session.view().actions):
        yield (
            f"sim: Schedule {action_id}",
            partial(_schedule, app, action_id),
            "Preview and confirm scheduling this action",
        )
    yield "assess: Submit", partial(_submit, app), "Submit the assessment on the Questions screen"
    yield "ledger: Export beancount", partial(app.export_ledger, "beancount"), "Into the run dir"
    yield "ledger: Export CSV", partial(app.export_ledger, "csv"), "Into the run directory"
    yield "app: Toggle theme", app.action_toggle_theme, "Light or dark"
    yield "app: Help", app.action_help, "Every key"


def _schedule(app: WorkbenchApp, action_id: str) -> None:
    from workbench.tui.screens.confirm import ConfirmSchedule

    app.push_screen(ConfirmSchedule(action_id))


def _submit(app: WorkbenchApp) -> None:
    """Show the Questions screen and submit its form."""

    def submit() -> None:
        action = getattr(app.screen, "action_submit", None)
        if action is not None:
            action()

    app.switch_mode("questions")
    app.call_after_refresh(submit)


class WorkbenchCommands(Provider):
    """Simulation, assessment, view, ledger and author commands."""

    async def discover(self) -> Hits:
        """Every command, for an empty palette."""
        for name, callback, help_text in palette_commands(self.app):  # type: ignore[arg-type]
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        """Commands matching the query, best first."""
        matcher = self.matcher(query)
        for name, callback, help_text in palette_commands(self.app):  # type: ignore[arg-type]
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)
