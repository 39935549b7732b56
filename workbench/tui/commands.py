"""The command palette: every command named "category: Action", per mode."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from workbench.tui.errors import EXPECTED

if TYPE_CHECKING:
    from workbench.tui.app import AuthorApp, PlayerApp, WorkbenchShell

Command = tuple[str, Callable[[], object], str]


def view_commands(app: WorkbenchShell) -> Iterator[Command]:
    """One "view: X" command per screen of the app's table."""
    for spec in app.screen_table:
        yield (
            f"view: {spec.label}",
            partial(app.switch_mode, spec.mode),
            f"Show the {spec.label} screen (ctrl+o {spec.key})",
        )


def app_commands(app: WorkbenchShell) -> Iterator[Command]:
    """Theme and help."""
    yield "app: Toggle theme", app.action_toggle_theme, "Light or dark (f2)"
    yield "app: Help", app.action_help, "The key scheme and every key (f1)"


def player_commands(app: PlayerApp) -> Iterator[Command]:
    """(name, callback, help) for every command of the player's app."""
    yield from view_commands(app)
    if not app.ready:
        yield from app_commands(app)
        return
    yield "view: Briefing", app.show_briefing, "The campaign, its objective and questions"
    yield "view: Summary", app.show_summary, "Objective, submissions and what happens next"
    for days in (1, 7, 30):
        noun = "day" if days == 1 else "days"
        yield f"sim: Advance {days} {noun}", partial(app.advance, days), "No decisions"
    yield (
        "sim: Advance to horizon",
        app.ask_finish,
        "Run to the last day and end play, as f does (confirms first)",
    )
    yield "sim: Finish the run", app.ask_finish, "End it now: no more decisions (confirms first)"
    try:
        actions = [a.id for a in app.session.view().actions]
    except EXPECTED:  # a hosted run's host away: no schedule commands, the others say why
        actions = []
    for action_id in actions:
        yield (
            f"sim: Schedule {action_id}",
            partial(app.ask_schedule, action_id),
            "Preview and confirm scheduling this action",
        )
    yield "assess: Submit", partial(_submit, app), "Submit the form on the Questions screen"
    yield "ledger: Export beancount", partial(app.export_ledger, "beancount"), "Into the run dir"
    yield "ledger: Export CSV", partial(app.export_ledger, "csv"), "Into the run directory"
    yield from app_commands(app)


def author_commands(app: AuthorApp) -> Iterator[Command]:
    """(name, callback, help) for every command of the author's app."""
    yield from view_commands(app)
    yield from app_commands(app)


def _submit(app: PlayerApp) -> None:
    """Show the Questions screen and submit its form."""

    def submit() -> None:
        action = getattr(app.screen, "action_submit", None)
        if action is not None:
            action()

    app.switch_mode("questions")
    app.call_after_refresh(submit)


class _Commands(Provider):
    """A provider over a list of commands (each subclass names its list)."""

    @abstractmethod
    def commands(self) -> Iterator[Command]:
        """The commands this provider offers."""

    async def discover(self) -> Hits:
        """Every command, for an empty palette."""
        for name, callback, help_text in self.commands():
            yield DiscoveryHit(name, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        """Commands matching the query, best first."""
        matcher = self.matcher(query)
        for name, callback, help_text in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), callback, help=help_text)


class PlayerCommands(_Commands):
    """View, simulation, assessment, ledger and app commands."""

    def commands(self) -> Iterator[Command]:
        """The player's commands."""
        return player_commands(self.app)  # type: ignore[arg-type]


class AuthorCommands(_Commands):
    """View and app commands of author mode."""

    def commands(self) -> Iterator[Command]:
        """The author's commands."""
        return author_commands(self.app)  # type: ignore[arg-type]
